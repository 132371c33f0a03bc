//go:build !amd64 && !arm64

package muster

// sysStatx is unknown on this architecture: stat is used and birth times are 0, so
// muster's TypeScript side will not match this client's owner records and frees its
// locks by the 10 s mtime rule only.
const sysStatx = -1
