package muster

// sysStatx is the statx system call number on linux/amd64.
const sysStatx = 332
