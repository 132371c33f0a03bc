import { MAXIMUM_MESSAGE_TEXT_BYTES } from '@muster/protocol';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { MailboxError } from './mailbox-error.js';
import { createMailbox } from './mailbox.js';

const recipient = 'reader';

async function refusal(promise: Promise<unknown>): Promise<MailboxError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MailboxError);
  return error as MailboxError;
}

describe('the message size limit', () => {
  it('is 256 KiB of UTF-8 text: up to it is sent, over it is refused naming both sizes', async () => {
    expect(MAXIMUM_MESSAGE_TEXT_BYTES).toBe(256 * 1024);
    const root = await makeTempDirectory('muster-mailbox-size-');
    const mailbox = createMailbox({ root, team: 'size', recipientCheck: 'none' });

    const largest = 'a'.repeat(MAXIMUM_MESSAGE_TEXT_BYTES);
    await mailbox.send(recipient, { from: 'writer', text: largest });

    const tooLarge = await refusal(
      mailbox.send(recipient, { from: 'writer', text: `${largest}b` }),
    );
    expect(tooLarge.code).toBe('MESSAGE_TOO_LARGE');
    expect(tooLarge.message).toContain(`${MAXIMUM_MESSAGE_TEXT_BYTES + 1} bytes`);
    expect(tooLarge.message).toContain(`limit is ${MAXIMUM_MESSAGE_TEXT_BYTES} bytes`);
    expect(tooLarge.details).toMatchObject({
      sizeBytes: MAXIMUM_MESSAGE_TEXT_BYTES + 1,
      limitBytes: MAXIMUM_MESSAGE_TEXT_BYTES,
    });

    // Bytes, not characters: fewer characters than the limit, but two bytes each.
    const wide = 'é'.repeat(MAXIMUM_MESSAGE_TEXT_BYTES / 2 + 1);
    expect((await refusal(mailbox.send(recipient, { from: 'writer', text: wide }))).code).toBe(
      'MESSAGE_TOO_LARGE',
    );

    // Nothing refused was written.
    expect((await mailbox.readAll(recipient)).map((entry) => entry.text.length)).toEqual([
      MAXIMUM_MESSAGE_TEXT_BYTES,
    ]);
  });
});
