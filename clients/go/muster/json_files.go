package muster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SkipWrite, returned by an update function, leaves the file as it is.
var SkipWrite = &Object{}

const rereadDelay = 25 * time.Millisecond
const maximumAttempts = 5

type fileSnapshot struct {
	data     []byte
	identity [4]int64 // device, inode, size, mtime ns
}

func readSnapshot(file string) (*fileSnapshot, error) {
	handle, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer handle.Close()
	data, err := readAll(handle)
	if err != nil {
		return nil, err
	}
	info, err := handle.Stat()
	if err != nil {
		return nil, err
	}
	stat, _ := statOf(info)
	return &fileSnapshot{data: data, identity: [4]int64{int64(stat.Device), int64(stat.Inode), info.Size(), stat.MtimeNs}}, nil
}

func readAll(handle *os.File) ([]byte, error) {
	var buffer bytes.Buffer
	_, err := buffer.ReadFrom(handle)
	return buffer.Bytes(), err
}

func sameSnapshot(left, right *fileSnapshot) bool {
	if left == nil || right == nil {
		return left == nil && right == nil
	}
	return left.identity == right.identity && bytes.Equal(left.data, right.data)
}

func temporaryPath(file string) string {
	return filepath.Join(filepath.Dir(file), fmt.Sprintf(".%s.%d.%s.tmp", filepath.Base(file), os.Getpid(), randomHex(6)))
}

func writeTemporary(file, content string) (string, error) {
	temporary := temporaryPath(file)
	handle, err := os.OpenFile(temporary, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return "", err
	}
	_, writeErr := handle.WriteString(content)
	closeErr := handle.Close()
	if writeErr != nil || closeErr != nil {
		_ = os.Remove(temporary)
		if writeErr != nil {
			return "", writeErr
		}
		return "", closeErr
	}
	return temporary, nil
}

// WriteFileAtomic writes .{name}.{pid}.{random}.tmp in the same folder, then renames it
// over file, so readers see the old or the new content, never a mix.
func WriteFileAtomic(file, content string) error {
	temporary, err := writeTemporary(file, content)
	if err != nil {
		return err
	}
	if err := os.Rename(temporary, file); err != nil {
		_ = os.Remove(temporary)
		return err
	}
	return nil
}

// createFileIfMissing creates file with content in one step unless it exists.
func createFileIfMissing(file, content string) error {
	temporary, err := writeTemporary(file, content)
	if err != nil {
		return err
	}
	defer os.Remove(temporary)
	if err := os.Link(temporary, file); err != nil && !os.IsExist(err) {
		return err
	}
	return nil
}

func quarantine(file string) (string, error) {
	target := fmt.Sprintf("%s.corrupt-%s-%s", file, time.Now().UTC().Format("20060102T150405"), randomHex(3))
	return target, os.Rename(file, target)
}

// ReadJSONFile parses a JSON file keeping key order (nil, nil when it is missing). Text
// that does not parse is read again after 25 ms (Claude Code rewrites files in place)
// before CORRUPT_FILE is returned; reading never moves a file aside.
func ReadJSONFile(file string) (any, error) {
	for attempt := 1; ; attempt++ {
		snapshot, err := readSnapshot(file)
		if err != nil {
			return nil, newError(CodeIOError, fmt.Sprintf("Cannot read %s: %v.", file, err), map[string]any{"file": file}, err)
		}
		if snapshot == nil {
			return nil, nil
		}
		value, err := ParseJSON(snapshot.data)
		if err == nil {
			return value, nil
		}
		if attempt == 2 {
			return nil, newError(CodeCorruptFile, fmt.Sprintf("%s does not parse as JSON (%v). Inspect or repair it and retry.", file, err),
				map[string]any{"file": file}, err)
		}
		time.Sleep(rereadDelay)
	}
}

func readAndParse(file string) (*fileSnapshot, any, error) {
	for attempt := 1; ; attempt++ {
		snapshot, err := readSnapshot(file)
		if err != nil || snapshot == nil {
			return nil, nil, err
		}
		value, err := ParseJSON(snapshot.data)
		if err == nil {
			return snapshot, value, nil
		}
		if attempt == 2 {
			movedTo, moveErr := quarantine(file)
			if moveErr != nil {
				return nil, nil, newError(CodeCorruptFile, fmt.Sprintf("%s does not parse (%v) and could not be moved aside (%v); nothing was written.", file, err, moveErr),
					map[string]any{"file": file}, err)
			}
			return nil, nil, newError(CodeCorruptFile,
				fmt.Sprintf("%s does not parse (%v). It was moved to %s and nothing was written; inspect that copy, move it back if it is good, and retry.", file, err, movedTo),
				map[string]any{"file": file, "quarantinedTo": movedTo}, err)
		}
		time.Sleep(rereadDelay)
	}
}

// UpdateJSONFile is the locked read-modify-write of PROTOCOL.md 4.5: lock, re-read,
// update(current) (current is nil for a missing file; return SkipWrite to write nothing),
// write a temp file, check the lock is still ours and the file unchanged, rename, unlock.
// update may run again on fresh data after a lost lock, so keep it free of side effects.
// The file's folder must exist. It returns the value now in the file and whether it wrote.
func UpdateJSONFile(file string, update func(current any) (any, error), options LockOptions) (any, bool, error) {
	for attempt := 1; attempt <= maximumAttempts; attempt++ {
		lock, err := AcquireLock(file, options)
		if err != nil {
			return nil, false, err
		}
		value, written, lost, err := readModifyWrite(lock, update)
		releaseErr := lock.Release()
		if err != nil {
			return nil, false, err
		}
		if releaseErr != nil && !HasCode(releaseErr, CodeLockLost) {
			return nil, false, releaseErr
		}
		if !lost {
			return value, written, nil
		}
	}
	return nil, false, newError(CodeLockLost,
		fmt.Sprintf("Lost the lock on %s %d times in a row while updating it; nothing was written. Find the process that keeps taking the lock, or raise the stale time.", file, maximumAttempts),
		map[string]any{"file": file}, nil)
}

func readModifyWrite(lock *HeldLock, update func(any) (any, error)) (value any, written, lost bool, err error) {
	snapshot, current, err := readAndParse(lock.File)
	if err != nil {
		return nil, false, false, err
	}
	next, err := update(current)
	if err != nil {
		return nil, false, false, err
	}
	if next == SkipWrite {
		return current, false, false, nil
	}
	text, err := FormatJSONFile(next)
	if err != nil {
		return nil, false, false, err
	}
	// A file that ended with a newline keeps it (PROTOCOL.md 3.1); new files get none.
	if snapshot != nil && strings.HasSuffix(string(snapshot.data), "\n") {
		text += "\n"
	}
	temporary, err := writeTemporary(lock.File, text)
	if err != nil {
		return nil, false, false, newError(CodeIOError, fmt.Sprintf("Cannot write a temp file beside %s: %v.", lock.File, err), map[string]any{"file": lock.File}, err)
	}
	now, err := readSnapshot(lock.File)
	if err != nil || !sameSnapshot(snapshot, now) || !lock.IsHeld() {
		_ = os.Remove(temporary)
		return nil, false, err == nil, err
	}
	if err := os.Rename(temporary, lock.File); err != nil {
		_ = os.Remove(temporary)
		return nil, false, false, newError(CodeIOError, fmt.Sprintf("Cannot replace %s: %v.", lock.File, err), map[string]any{"file": lock.File}, err)
	}
	return next, true, false, nil
}
