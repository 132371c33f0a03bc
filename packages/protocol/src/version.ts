/** Version of the wire protocol described by `schemas/v1`. A breaking change adds v2. */
export const PROTOCOL_VERSION = '1.0.0' as const;

/** The schema folder this package's schemas are published in. */
export const SCHEMA_VERSION_FOLDER = 'v1' as const;

/** Claude Code release whose files this protocol is verified against. */
export const CLAUDE_CODE_COMPATIBLE_VERSION = '2.1.45' as const;

/** Version of the wire protocol described by `schemas/v2` (dialect v2). */
export const PROTOCOL_VERSION_V2 = '2.0.0' as const;

/** The schema folder the dialect v2 schemas are published in. */
export const SCHEMA_VERSION_FOLDER_V2 = 'v2' as const;

/** Claude Code release whose files dialect v2 is verified against. */
export const CLAUDE_CODE_COMPATIBLE_VERSION_V2 = '2.1.330' as const;
