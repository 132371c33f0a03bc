package muster

import (
	"os"
	"syscall"
	"unsafe"
)

// directoryStat is what identifies a lock directory; times in nanoseconds.
type directoryStat struct {
	Device      uint64
	Inode       uint64
	BirthtimeNs int64
	MtimeNs     int64
}

type statxTimestamp struct {
	Seconds     int64
	Nanoseconds uint32
	reserved    int32
}

type statxBuffer struct {
	Mask           uint32
	BlockSize      uint32
	Attributes     uint64
	Links          uint32
	UID            uint32
	GID            uint32
	Mode           uint16
	spare0         uint16
	Inode          uint64
	Size           uint64
	Blocks         uint64
	AttributesMask uint64
	Atime          statxTimestamp
	Btime          statxTimestamp
	Ctime          statxTimestamp
	Mtime          statxTimestamp
	RdevMajor      uint32
	RdevMinor      uint32
	DevMajor       uint32
	DevMinor       uint32
	spare          [14]uint64
}

// makeDevice encodes a device number the way glibc's makedev (and so Node) does.
func makeDevice(major, minor uint32) uint64 {
	majorBits, minorBits := uint64(major), uint64(minor)
	return (majorBits&0xfffff000)<<32 | (majorBits&0x00000fff)<<8 |
		(minorBits&0xffffff00)<<12 | (minorBits & 0x000000ff)
}

const atFdcwd = -100
const statxBasicStatsAndBirthtime = 0x0fff

// statDirectory stats a path with its birth time, as Node's fs.statSync(path, {bigint:
// true}) sees it: from statx on Linux (0 where the file system keeps no birth time).
// A missing path gives an error satisfying os.IsNotExist.
func statDirectory(name string) (directoryStat, error) {
	if sysStatx > 0 {
		pathBytes, err := syscall.BytePtrFromString(name)
		if err != nil {
			return directoryStat{}, err
		}
		var buffer statxBuffer
		fd := atFdcwd
		_, _, errno := syscall.Syscall6(uintptr(sysStatx), uintptr(fd), uintptr(unsafe.Pointer(pathBytes)),
			0, statxBasicStatsAndBirthtime, uintptr(unsafe.Pointer(&buffer)), 0)
		if errno == 0 {
			return directoryStat{
				Device:      makeDevice(buffer.DevMajor, buffer.DevMinor),
				Inode:       buffer.Inode,
				BirthtimeNs: buffer.Btime.Seconds*1e9 + int64(buffer.Btime.Nanoseconds),
				MtimeNs:     buffer.Mtime.Seconds*1e9 + int64(buffer.Mtime.Nanoseconds),
			}, nil
		}
		if errno != syscall.ENOSYS {
			return directoryStat{}, &os.PathError{Op: "statx", Path: name, Err: errno}
		}
	}
	var result syscall.Stat_t
	if err := syscall.Stat(name, &result); err != nil {
		return directoryStat{}, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	return directoryStat{
		Device:  uint64(result.Dev),
		Inode:   uint64(result.Ino),
		MtimeNs: result.Mtim.Sec*1e9 + result.Mtim.Nsec,
	}, nil
}

// statOf reads device, inode and mtime from an os.FileInfo.
func statOf(info os.FileInfo) (directoryStat, bool) {
	raw, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return directoryStat{}, false
	}
	return directoryStat{Device: uint64(raw.Dev), Inode: uint64(raw.Ino), MtimeNs: raw.Mtim.Sec*1e9 + raw.Mtim.Nsec}, true
}
