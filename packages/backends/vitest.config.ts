// The shared configuration, plus retries: two tests here fail now and then for reasons still
// being tracked (a private tmux server that exits while starting — "server exited
// unexpectedly" — and a SIGKILLed lead's PTY members taking longer than 10 s to be gone).
// A regression fails all three attempts; the retries are reported. Remove once both are fixed.
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

export default mergeConfig(shared, defineConfig({ test: { retry: 2 } }));
