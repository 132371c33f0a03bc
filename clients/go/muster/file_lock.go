package muster

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	mathrand "math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Lock timing defaults (PROTOCOL.md section 4).
const (
	// DefaultDeadline is twice DefaultStale: a lock without an owner record (a crashed
	// Claude Code's) goes stale at most Stale after its last refresh, so the default wait
	// always outlasts it.
	DefaultDeadline        = 2 * DefaultStale
	DefaultStale           = 10 * time.Second
	stealGuardStale        = 2 * time.Second
	firstBackoff           = 2 * time.Millisecond
	maximumBackoff         = 40 * time.Millisecond
	maximumRefreshInterval = 5 * time.Second
	minimumRefreshInterval = 50 * time.Millisecond
)

// LockOptions bounds the wait for a lock and says when a silent lock is abandoned.
type LockOptions struct {
	Deadline time.Duration // default max(20 s, 2 × Stale)
	// Stale is proper-lockfile's rule, for locks without a live muster holder on this
	// machine: such a lock whose mtime is older than this may be taken. Default 10 s.
	Stale time.Duration
}

func (options LockOptions) withDefaults() LockOptions {
	if options.Stale <= 0 {
		options.Stale = DefaultStale
	}
	if options.Deadline <= 0 {
		options.Deadline = DefaultDeadline
		if 2*options.Stale > options.Deadline {
			options.Deadline = 2 * options.Stale
		}
	}
	return options
}

// random is seeded from the operating system: Go 1.19's global math/rand starts every
// process on the same sequence, which would give every holder the same stamp.
var random = func() *mathrand.Rand {
	seed := make([]byte, 8)
	_, _ = rand.Read(seed)
	return mathrand.New(mathrand.NewSource(int64(new(big.Int).SetBytes(seed).Uint64() >> 1)))
}()
var randomGuard sync.Mutex

func randomInt(below int64) int64 {
	randomGuard.Lock()
	defer randomGuard.Unlock()
	return random.Int63n(below)
}

// lockIdentity names the lock directory a holder created (or a record describes).
type lockIdentity struct {
	Device      uint64
	Inode       uint64
	BirthtimeNs int64
	Stamp       *int // microseconds 1–999 within the millisecond of every mtime; nil: none
}

func stampOf(mtimeNs int64) int { return int((mtimeNs / 1000) % 1000) }

func (identity lockIdentity) matches(stat directoryStat) bool {
	return stat.Device == identity.Device && stat.Inode == identity.Inode &&
		stat.BirthtimeNs == identity.BirthtimeNs &&
		(identity.Stamp == nil || stampOf(stat.MtimeNs) == *identity.Stamp)
}

func (identity lockIdentity) equal(other lockIdentity) bool {
	sameStamp := (identity.Stamp == nil && other.Stamp == nil) ||
		(identity.Stamp != nil && other.Stamp != nil && *identity.Stamp == *other.Stamp)
	return identity.Device == other.Device && identity.Inode == other.Inode &&
		identity.BirthtimeNs == other.BirthtimeNs && sameStamp
}

// ownerRecord is F.lock.owner (PROTOCOL.md 4.2).
type ownerRecord struct {
	processIdentity
	Identity   lockIdentity
	AcquiredAt string
}

var decimalPattern = regexp.MustCompile(`^[0-9]+$`)

// parseOwnerRecord returns nil for anything that is not a valid version-1 record.
func parseOwnerRecord(data []byte) *ownerRecord {
	value, err := ParseJSON(data)
	if err != nil {
		return nil
	}
	object, isObject := value.(*Object)
	if !isObject {
		return nil
	}
	version, _ := object.Get("version")
	if number, isNumber := version.(json.Number); !isNumber || number.String() != "1" {
		return nil
	}
	pidValue, _ := object.Get("pid")
	pidNumber, isNumber := pidValue.(json.Number)
	pid, err := strconv.Atoi(string(pidNumber))
	if !isNumber || err != nil {
		return nil
	}
	record := &ownerRecord{}
	record.PID = pid
	var hostnameFound bool
	record.Hostname, hostnameFound = object.String("hostname")
	if !hostnameFound {
		return nil
	}
	for key, target := range map[string]*string{"bootId": &record.BootID, "startTime": &record.StartTime, "pidNamespace": &record.PIDNamespace} {
		if value, present := object.Get(key); present {
			text, isString := value.(string)
			if !isString {
				return nil
			}
			*target = text
		}
	}
	decimal := func(key string) (uint64, bool) {
		text, isString := object.String(key)
		if !isString || !decimalPattern.MatchString(text) {
			return 0, false
		}
		parsed, ok := new(big.Int).SetString(text, 10)
		if !ok || !parsed.IsUint64() {
			return 0, false
		}
		return parsed.Uint64(), true
	}
	device, deviceOK := decimal("lockDevice")
	inode, inodeOK := decimal("lockInode")
	birthtime, birthtimeOK := decimal("lockBirthtimeNs")
	if !deviceOK || !inodeOK || !birthtimeOK {
		return nil
	}
	record.Identity = lockIdentity{Device: device, Inode: inode, BirthtimeNs: int64(birthtime)}
	switch stamp, _ := object.Get("lockStamp"); typed := stamp.(type) {
	case nil:
	case json.Number:
		value, err := strconv.Atoi(string(typed))
		if err != nil {
			return nil
		}
		record.Identity.Stamp = &value
	default:
		return nil
	}
	record.AcquiredAt, _ = object.String("acquiredAt")
	return record
}

func readOwnerRecord(ownerPath string) *ownerRecord {
	data, err := os.ReadFile(ownerPath)
	if err != nil {
		return nil
	}
	return parseOwnerRecord(data)
}

func writeOwnerRecord(ownerPath string, identity lockIdentity) error {
	me := currentProcessIdentity()
	record := NewObject().Set("version", 1).Set("pid", me.PID).Set("hostname", me.Hostname)
	if me.BootID != "" {
		record.Set("bootId", me.BootID)
	}
	if me.StartTime != "" {
		record.Set("startTime", me.StartTime)
	}
	if me.PIDNamespace != "" {
		record.Set("pidNamespace", me.PIDNamespace)
	}
	record.Set("lockDevice", strconv.FormatUint(identity.Device, 10)).
		Set("lockInode", strconv.FormatUint(identity.Inode, 10)).
		Set("lockBirthtimeNs", strconv.FormatInt(identity.BirthtimeNs, 10))
	if identity.Stamp == nil {
		record.Set("lockStamp", nil)
	} else {
		record.Set("lockStamp", *identity.Stamp)
	}
	record.Set("acquiredAt", ISOTimestamp(time.Now()))
	text, err := FormatCompact(record)
	if err != nil {
		return err
	}
	return os.WriteFile(ownerPath, []byte(text), 0o666)
}

func removeOwnerRecordFor(ownerPath string, identity lockIdentity) {
	if record := readOwnerRecord(ownerPath); record != nil && record.Identity.equal(identity) {
		_ = os.Remove(ownerPath)
	}
}

func randomHex(bytes int) string {
	buffer := make([]byte, bytes)
	_, _ = rand.Read(buffer)
	return hex.EncodeToString(buffer)
}

// removeDirectoryIf renames a directory aside, removes it when it is the expected one and
// otherwise puts it back. Returns "removed", "missing" or "different".
func removeDirectoryIf(directory string, isExpected func(directoryStat) bool) (string, error) {
	aside := fmt.Sprintf("%s.removing-%d-%s", directory, os.Getpid(), randomHex(4))
	if err := os.Rename(directory, aside); err != nil {
		if os.IsNotExist(err) {
			return "missing", nil
		}
		return "", err
	}
	stat, err := statDirectory(aside)
	if err != nil {
		return "", err
	}
	if isExpected(stat) {
		return "removed", os.Remove(aside)
	}
	if _, err := os.Lstat(directory); os.IsNotExist(err) {
		return "different", os.Rename(aside, directory)
	}
	return "different", os.Remove(aside)
}

// CanonicalPath is the file's real path; for a missing file, its folder's real path plus
// its name (the lock directory name proper-lockfile would use).
func CanonicalPath(file string) string {
	absolute, err := filepath.Abs(file)
	if err != nil {
		absolute = file
	}
	if real, err := filepath.EvalSymlinks(absolute); err == nil {
		return real
	}
	if realFolder, err := filepath.EvalSymlinks(filepath.Dir(absolute)); err == nil {
		return filepath.Join(realFolder, filepath.Base(absolute))
	}
	return absolute
}

// HeldLock is a lock this process holds; Release it when done.
type HeldLock struct {
	File     string // the locked file's real path: read and write this path
	LockPath string
	identity lockIdentity
	stop     chan struct{}
	once     sync.Once
	released bool
}

func stampedNow(stamp *int) time.Time {
	now := time.Now()
	if stamp == nil {
		return now
	}
	milliseconds := now.UnixNano() / 1e6
	return time.Unix(0, milliseconds*1e6+int64(*stamp)*1000)
}

func (lock *HeldLock) refresh(interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-lock.stop:
			return
		case <-ticker.C:
			stat, err := statDirectory(lock.LockPath)
			if err != nil || !lock.identity.matches(stat) {
				if os.IsNotExist(err) || err == nil {
					return
				}
				continue
			}
			moment := stampedNow(lock.identity.Stamp)
			_ = os.Chtimes(lock.LockPath, moment, moment)
		}
	}
}

// IsHeld reports whether the lock directory on disk is still the one this holder made.
func (lock *HeldLock) IsHeld() bool {
	if lock.released {
		return false
	}
	stat, err := statDirectory(lock.LockPath)
	return err == nil && lock.identity.matches(stat)
}

// Release removes the owner record, then the lock directory. It returns LOCK_LOST when
// another process took the lock meanwhile; calling it twice does nothing.
func (lock *HeldLock) Release() error {
	if lock.released {
		return nil
	}
	lock.released = true
	lock.once.Do(func() { close(lock.stop) })
	removeOwnerRecordFor(lock.LockPath+".owner", lock.identity)
	outcome, err := removeDirectoryIf(lock.LockPath, lock.identity.matches)
	if err != nil {
		return newError(CodeIOError, fmt.Sprintf("Could not release the lock %s: %v.", lock.LockPath, err),
			map[string]any{"lockPath": lock.LockPath}, err)
	}
	if outcome != "removed" {
		return newError(CodeLockLost,
			fmt.Sprintf("The lock on %s was taken by another process while this one held it (it was not refreshed within the stale time). Work done under it may have raced: re-read the file and redo the change.", lock.File),
			map[string]any{"file": lock.File, "lockPath": lock.LockPath}, nil)
	}
	return nil
}

func establishLock(file string, stale time.Duration) (*HeldLock, error) {
	lockPath := file + ".lock"
	ownerPath := lockPath + ".owner"
	fail := func(err error) (*HeldLock, error) {
		_ = os.Remove(ownerPath)
		_ = os.Remove(lockPath)
		return nil, newError(CodeIOError, fmt.Sprintf("Could not set up the lock %s: %v.", lockPath, err),
			map[string]any{"lockPath": lockPath}, err)
	}
	created, err := statDirectory(lockPath)
	if err != nil {
		return fail(err)
	}
	stamp := 1 + int(randomInt(999))
	identity := lockIdentity{Device: created.Device, Inode: created.Inode, BirthtimeNs: created.BirthtimeNs, Stamp: &stamp}
	// Record first: until the stamp lands, waiters see a record that does not match yet,
	// fall back to the mtime rule and (the lock being fresh) wait.
	if err := writeOwnerRecord(ownerPath, identity); err != nil {
		return fail(err)
	}
	moment := stampedNow(identity.Stamp)
	if err := os.Chtimes(lockPath, moment, moment); err != nil {
		return fail(err)
	}
	stamped, err := statDirectory(lockPath)
	if err != nil {
		return fail(err)
	}
	if stampOf(stamped.MtimeNs) != stamp {
		identity.Stamp = nil // coarse mtimes: identify the directory without a stamp
		if err := writeOwnerRecord(ownerPath, identity); err != nil {
			return fail(err)
		}
	}
	interval := stale / 2
	if interval > maximumRefreshInterval {
		interval = maximumRefreshInterval
	}
	if interval < minimumRefreshInterval {
		interval = minimumRefreshInterval
	}
	lock := &HeldLock{File: file, LockPath: lockPath, identity: identity, stop: make(chan struct{})}
	go lock.refresh(interval)
	return lock, nil
}

type lockInspection struct {
	state         string // missing, live, dead, stale
	holder        *ownerRecord
	holderAlive   bool // a live muster process on this machine: never taken, only waited for
	holderStopped bool // that live holder is stopped (SIGSTOP, a debugger)
	age           time.Duration
	stat          directoryStat
}

// inspectLock looks at the current lock directory and its owner record. A record naming a
// process that is gone makes the lock dead; a record naming a live process on this machine
// (stopped ones included) keeps it live however old its mtime, because that process may
// resume and write; only a lock without such a record goes stale by mtime (PROTOCOL.md 4.2).

func inspectLock(lockPath string, stale time.Duration) (lockInspection, error) {
	stat, err := statDirectory(lockPath)
	if os.IsNotExist(err) {
		return lockInspection{state: "missing"}, nil
	}
	if err != nil {
		return lockInspection{}, err
	}
	record := readOwnerRecord(lockPath + ".owner")
	if record != nil && !record.Identity.matches(stat) {
		record = nil
	}
	age := time.Duration(time.Now().UnixNano()/1e6-stat.MtimeNs/1e6) * time.Millisecond
	inspection := lockInspection{state: "live", holder: record, age: age, stat: stat}
	switch {
	case record != nil && isRecordedProcessDead(record):
		inspection.state = "dead"
	case record != nil && isRecordedProcessHere(record):
		inspection.holderAlive = true
		inspection.holderStopped = isProcessStopped(record.PID)
	case age > stale:
		inspection.state = "stale"
	}
	return inspection, nil
}

func trySteal(lockPath string, stale time.Duration) (bool, error) {
	guardPath := lockPath + ".steal"
	if err := os.Mkdir(guardPath, 0o777); err != nil {
		if !os.IsExist(err) {
			return false, err
		}
		existing, err := statDirectory(guardPath)
		if err == nil && time.Duration(time.Now().UnixNano()/1e6-existing.MtimeNs/1e6)*time.Millisecond > stealGuardStale {
			_, _ = removeDirectoryIf(guardPath, func(stat directoryStat) bool { return stat == existing })
		}
		return false, nil
	}
	guard, err := statDirectory(guardPath)
	if err != nil {
		return false, err
	}
	defer func() {
		_, _ = removeDirectoryIf(guardPath, func(stat directoryStat) bool { return stat == guard })
	}()
	inspection, err := inspectLock(lockPath, stale)
	if err != nil || (inspection.state != "dead" && inspection.state != "stale") {
		return false, err
	}
	if inspection.holder != nil {
		removeOwnerRecordFor(lockPath+".owner", inspection.holder.Identity)
	}
	judged := inspection.stat
	outcome, err := removeDirectoryIf(lockPath, func(stat directoryStat) bool { return stat == judged })
	return outcome == "removed", err
}

// AcquireLock takes the lock on file (which need not exist; its folder must), waiting
// with jittered backoff up to the deadline. A dead holder's lock is taken at once, a live
// (even stopped) holder on this machine is only waited for, and a lock without an owner
// record is taken once older than Stale. LOCK_TIMEOUT names the holder.
func AcquireLock(file string, options LockOptions) (*HeldLock, error) {
	options = options.withDefaults()
	canonical := CanonicalPath(file)
	lockPath := canonical + ".lock"
	started := time.Now()
	backoff := firstBackoff
	for {
		err := os.Mkdir(lockPath, 0o777)
		if err == nil {
			return establishLock(canonical, options.Stale)
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, newError(CodeIOError,
				fmt.Sprintf("Cannot lock %s: its folder does not exist. Create the folder first.", canonical),
				map[string]any{"file": canonical, "lockPath": lockPath, "folderMissing": true}, err)
		}
		if !os.IsExist(err) {
			return nil, newError(CodeIOError, fmt.Sprintf("Cannot create the lock directory %s: %v.", lockPath, err),
				map[string]any{"lockPath": lockPath}, err)
		}
		inspection, err := inspectLock(lockPath, options.Stale)
		if err != nil {
			return nil, newError(CodeIOError, fmt.Sprintf("Cannot inspect the lock %s: %v.", lockPath, err),
				map[string]any{"lockPath": lockPath}, err)
		}
		if inspection.state == "missing" {
			continue
		}
		if inspection.state == "dead" || inspection.state == "stale" {
			stolen, err := trySteal(lockPath, options.Stale)
			if err != nil {
				return nil, newError(CodeIOError, fmt.Sprintf("Cannot take over the abandoned lock %s: %v.", lockPath, err),
					map[string]any{"lockPath": lockPath}, err)
			}
			if stolen {
				continue
			}
		}
		remaining := options.Deadline - time.Since(started)
		if remaining <= 0 {
			return nil, lockTimeout(canonical, lockPath, options.Deadline, inspection)
		}
		wait := backoff/2 + time.Duration(randomInt(int64(backoff/2)+1))
		if wait > remaining {
			wait = remaining
		}
		time.Sleep(wait)
		backoff *= 2
		if backoff > maximumBackoff {
			backoff = maximumBackoff
		}
	}
}

// lockTimeout is LOCK_TIMEOUT naming the holder, worded as @muster/file-lock words it.
func lockTimeout(file, lockPath string, deadline time.Duration, inspection lockInspection) *Error {
	heldBy := "by a process that left no owner record (Claude Code, or a writer still setting up); it becomes stale once its mtime is older than the stale time"
	details := map[string]any{"file": file, "lockPath": lockPath, "lockAgeMs": inspection.age.Milliseconds()}
	if holder := inspection.holder; holder != nil {
		heldBy = fmt.Sprintf("by process %d on %s since %s", holder.PID, holder.Hostname, holder.AcquiredAt)
		details["holderPid"] = holder.PID
		details["holderStopped"] = inspection.holderStopped
		if inspection.holderStopped {
			heldBy += fmt.Sprintf(", which is stopped (SIGSTOP or a debugger). muster never takes the lock of a live process, since it could resume and write: resume it (kill -CONT %d) or end it", holder.PID)
		} else if inspection.holderAlive {
			heldBy += ", which is still running (muster never takes the lock of a live process)"
		}
	}
	return newError(CodeLockTimeout,
		fmt.Sprintf("Timed out after %v waiting for the lock on %s; it is held %s. Retry later or pass a larger deadline; if that process is stuck, stop it, and if no process holds the lock any more, remove the folder %s.", deadline, file, heldBy, lockPath),
		details, nil)
}

// ISOTimestamp formats a time as JavaScript's toISOString: 2026-11-22T12:35:59.085Z.
func ISOTimestamp(moment time.Time) string {
	return moment.UTC().Format("2006-01-02T15:04:05.000Z")
}
