package muster

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTheLockIsADirectoryWithAnOwnerRecordBesideIt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "inbox.json")
	lock, err := AcquireLock(file, LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file + ".lock.owner")
	record := parseOwnerRecord(data)
	if record == nil || record.PID != os.Getpid() || strings.Contains(string(data), "\n") {
		t.Fatalf("bad owner record %s", data)
	}
	value, _ := ParseJSON(data)
	keys := value.(*Object).Keys()
	if keys[0] != "version" || keys[len(keys)-1] != "acquiredAt" || keys[len(keys)-2] != "lockStamp" {
		t.Errorf("record keys %v", keys)
	}
	stat, _ := statDirectory(file + ".lock")
	if !record.Identity.matches(stat) || record.Identity.BirthtimeNs != stat.BirthtimeNs {
		t.Errorf("record %+v does not describe %+v", record.Identity, stat)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	for _, leftover := range []string{file + ".lock", file + ".lock.owner"} {
		if _, err := os.Stat(leftover); !os.IsNotExist(err) {
			t.Errorf("%s still exists", leftover)
		}
	}
}

func TestALiveHolderMakesOthersWaitUntilTheDeadline(t *testing.T) {
	file := filepath.Join(t.TempDir(), "inbox.json")
	child, output := startChild(t, "hold-lock", "MUSTER_TEST_FILE="+file)
	if line, err := output.ReadString('\n'); err != nil || !strings.HasPrefix(line, "locked") {
		t.Fatalf("holder said %q (%v)", line, err)
	}
	_, err := AcquireLock(file, LockOptions{Deadline: 300 * time.Millisecond, Stale: 10 * time.Minute})
	if !HasCode(err, CodeLockTimeout) || !strings.Contains(err.Error(), strconv.Itoa(child.Process.Pid)) {
		t.Fatalf("expected LOCK_TIMEOUT naming pid %d, got %v", child.Process.Pid, err)
	}
}

func TestTheLockOfAKilledHolderIsTakenAtOnceByItsOwnerRecord(t *testing.T) {
	file := filepath.Join(t.TempDir(), "inbox.json")
	child, output := startChild(t, "hold-lock", "MUSTER_TEST_FILE="+file)
	if _, err := output.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	_ = child.Process.Signal(syscall.SIGKILL)
	_ = child.Wait()
	if _, err := os.Stat(file + ".lock"); err != nil {
		t.Fatalf("a SIGKILLed holder should leave its lock: %v", err)
	}
	// Ten minutes stale time: only the owner-record rule can free this lock.
	lock, err := AcquireLock(file, LockOptions{Deadline: 5 * time.Second, Stale: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_ = lock.Release()
}

func TestALockWithoutRecordIsTakenOnceOlderThanStale(t *testing.T) {
	file := filepath.Join(t.TempDir(), "inbox.json")
	_ = os.Mkdir(file+".lock", 0o777) // as Claude Code's proper-lockfile leaves it
	if _, err := AcquireLock(file, LockOptions{Deadline: 200 * time.Millisecond}); !HasCode(err, CodeLockTimeout) {
		t.Fatalf("a fresh lock must be waited for, got %v", err)
	}
	old := time.Now().Add(-11 * time.Second)
	_ = os.Chtimes(file+".lock", old, old)
	lock, err := AcquireLock(file, LockOptions{Deadline: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_ = lock.Release()
}

func TestReleaseAfterATakeOverReportsTheLostLock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "inbox.json")
	lock, _ := AcquireLock(file, LockOptions{Stale: time.Minute})
	close(lock.stop) // stop refreshing, then age the lock as if this process had paused
	lock.once.Do(func() {})
	old := time.Now().Add(-2 * time.Minute)
	_ = os.Chtimes(file+".lock", old, old)
	thief, err := AcquireLock(file, LockOptions{Deadline: 2 * time.Second, Stale: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if lock.IsHeld() {
		t.Fatal("the old holder still thinks it holds the lock")
	}
	if err := lock.Release(); !HasCode(err, CodeLockLost) {
		t.Fatalf("expected LOCK_LOST, got %v", err)
	}
	if !thief.IsHeld() {
		t.Fatal("the release removed the new holder's lock")
	}
	_ = thief.Release()
}

func TestAStoppedLiveHolderIsNeverOvertakenEvenPastStaleTime(t *testing.T) {
	file := filepath.Join(t.TempDir(), "inbox.json")
	child, output := startChild(t, "hold-lock", "MUSTER_TEST_FILE="+file)
	if _, err := output.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	pid := child.Process.Pid
	if err := child.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Signal(syscall.SIGCONT) }()
	// Age the lock well past the stale time, keeping the holder's stamp so that its owner
	// record still describes it: the mtime rule alone would take this lock.
	data, _ := os.ReadFile(file + ".lock.owner")
	record := parseOwnerRecord(data)
	if record == nil || record.PID != pid {
		t.Fatalf("bad owner record %s", data)
	}
	stamp := 0
	if record.Identity.Stamp != nil {
		stamp = *record.Identity.Stamp
	}
	old := time.Unix(0, (time.Now().UnixNano()/1e6-120_000)*1e6+int64(stamp)*1000)
	if err := os.Chtimes(file+".lock", old, old); err != nil {
		t.Fatal(err)
	}
	_, err := AcquireLock(file, LockOptions{Deadline: 1500 * time.Millisecond, Stale: 500 * time.Millisecond})
	if !HasCode(err, CodeLockTimeout) || !strings.Contains(err.Error(), "stopped") ||
		!strings.Contains(err.Error(), "kill -CONT "+strconv.Itoa(pid)) {
		t.Fatalf("expected LOCK_TIMEOUT naming stopped pid %d, got %v", pid, err)
	}
	var muster *Error
	if !errors.As(err, &muster) || muster.Details["holderStopped"] != true || muster.Details["holderPid"] != pid {
		t.Errorf("details %+v", muster)
	}
	// Once the holder is gone, its owner record frees the lock at once.
	_ = child.Process.Signal(syscall.SIGKILL)
	_ = child.Wait()
	lock, err := AcquireLock(file, LockOptions{Deadline: 5 * time.Second, Stale: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_ = lock.Release()
}

func TestTheDefaultDeadlineIsTwiceTheStaleTime(t *testing.T) {
	if DefaultDeadline != 2*DefaultStale {
		t.Errorf("DefaultDeadline %v, want %v", DefaultDeadline, 2*DefaultStale)
	}
}
