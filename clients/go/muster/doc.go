// Package muster is a small client for the muster protocol (schemas/PROTOCOL.md): it
// resolves the on-disk layout under a root, sends messages into inboxes and reads and
// marks them under the protocol's lock directories with atomic replace, recognises
// protocol messages, and reads a team's config and task list.
//
// The wire types come from the generated package musterwire (quicktype, from
// schemas/v1). Those structs keep only the fields the schemas declare, so every file
// this package rewrites is handled as an order-preserving Object instead: unknown keys
// stay, in place and in order.
//
// Standard library only; Linux (it reads /proc and uses statx for lock identities).
package muster
