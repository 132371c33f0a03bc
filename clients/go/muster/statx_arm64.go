package muster

// sysStatx is the statx system call number on linux/arm64.
const sysStatx = 291
