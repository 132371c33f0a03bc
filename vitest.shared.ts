// The one vitest configuration every package re-uses (see AGENTS.md).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests start real processes that contend for real locks: running files one at a
    // time keeps them honest on small (2-core) machines.
    fileParallelism: false,
  },
});
