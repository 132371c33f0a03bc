// The shared configuration. `passWithNoTests` only while the package's first parts land
// (issue 16); remove it with the first test file.
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

export default mergeConfig(shared, defineConfig({ test: { passWithNoTests: true } }));
