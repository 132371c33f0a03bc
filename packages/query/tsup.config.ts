// Build settings beside the command line of `pnpm build` (entry, format, dts, target, sourcemap).
//
// The real @anthropic-ai/sdk is bundled into dist/index.js with the packages it loads
// (@opentelemetry/api, standardwebhooks and theirs): imported as itself, the SDK is about 250
// ES modules and OpenTelemetry's API 50 more, and Node's ES module loader spends most of a
// `muster run -p` start-up on resolving, reading and linking them one by one (issue 17: first
// request within 500 ms). One file loads in a fraction of that. The SDK's code is unchanged;
// zod and the @muster packages stay external. See docs/decisions/0008-bundle-the-sdk-into-query.md.
import { defineConfig } from 'tsup';

export default defineConfig({
  noExternal: [
    '@anthropic-ai/sdk',
    '@opentelemetry/api',
    'standardwebhooks',
    '@stablelib/base64',
    'fast-sha256',
  ],
});
