// One lead link per team folder per process, shared by every backend of the lead (pty, tmux,
// iTerm2 members of one team all connect to the same `.lead.sock`).
import path from 'node:path';
import { createLeadLink, type LeadLink, type LeadLinkOptions } from './lead-link.js';

interface SharedEntry {
  link: Promise<LeadLink>;
  references: number;
}

const shared = new Map<string, SharedEntry>();

/**
 * Returns the lead link of `teamFolder`, opening it on first use. Each call takes one
 * reference; `close()` on the returned link gives it back, and the socket closes when the last
 * reference is given back. Every other method is the shared link's.
 */
export async function acquireLeadLink(options: LeadLinkOptions): Promise<LeadLink> {
  const key = path.resolve(options.teamFolder);
  let entry = shared.get(key);
  if (entry === undefined) {
    entry = { link: createLeadLink(options), references: 0 };
    shared.set(key, entry);
    entry.link.catch(() => shared.delete(key));
  }
  entry.references += 1;
  const current = entry;
  let link: LeadLink;
  try {
    link = await current.link;
  } catch (error) {
    current.references -= 1;
    throw error;
  }
  let released = false;
  return {
    socketPath: link.socketPath,
    waitForReady: (agentId, waitOptions) => link.waitForReady(agentId, waitOptions),
    memberEnvironment: (agentId) => link.memberEnvironment(agentId),
    expectMember: (agentId, secret) => link.expectMember(agentId, secret),
    isConnected: (agentId) => link.isConnected(agentId),
    isReady: (agentId) => link.isReady(agentId),
    onDisconnect: (listener) => link.onDisconnect(listener),
    async close() {
      if (released) return;
      released = true;
      current.references -= 1;
      if (current.references > 0) return;
      if (shared.get(key) === current) shared.delete(key);
      await link.close();
    },
  };
}
