package muster

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processIdentity is who holds a lock, precisely enough to notice a recycled pid.
type processIdentity struct {
	PID          int
	Hostname     string
	BootID       string // "" where /proc does not provide it
	StartTime    string // field 22 of /proc/{pid}/stat
	PIDNamespace string // target of /proc/self/ns/pid
}

func readProcessStat(pid int) (state, startTime string, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", false
	}
	text := string(data)
	closing := strings.LastIndexByte(text, ')')
	if closing < 0 || closing+2 > len(text) {
		return "", "", false
	}
	fields := strings.Split(text[closing+2:], " ")
	if len(fields) < 20 {
		return "", "", false
	}
	return fields[0], fields[19], true
}

func currentProcessIdentity() processIdentity {
	hostname, _ := os.Hostname()
	identity := processIdentity{PID: os.Getpid(), Hostname: hostname}
	if data, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		identity.BootID = strings.TrimSpace(string(data))
	}
	if _, startTime, ok := readProcessStat(identity.PID); ok {
		identity.StartTime = startTime
	}
	if namespace, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		identity.PIDNamespace = namespace
	}
	return identity
}

// IsProcessAlive reports whether a process with this pid exists here and is not a zombie.
func IsProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	state, _, ok := readProcessStat(pid)
	return !ok || (state != "Z" && state != "X")
}

// isProcessStopped reports whether the process is stopped (T: SIGSTOP, or t: a debugger),
// from /proc.
func isProcessStopped(pid int) bool {
	state, _, ok := readProcessStat(pid)
	return ok && (state == "T" || state == "t")
}

// isRecordedProcessHere is true when the recorded process runs (or ran) where this process
// can judge it: same host, boot and pid namespace. Only then does kill(pid, 0) mean anything.
func isRecordedProcessHere(record *ownerRecord) bool {
	me := currentProcessIdentity()
	return record.Hostname == me.Hostname && record.BootID == me.BootID && record.PIDNamespace == me.PIDNamespace
}

// isRecordedProcessDead is true only when the holder is surely gone: same host, boot and
// pid namespace, and its pid is free, a zombie, or a process with another start time. A
// process that cannot be judged from here (another host, boot or namespace) is never dead.
func isRecordedProcessDead(record *ownerRecord) bool {
	if !isRecordedProcessHere(record) {
		return false
	}
	if !IsProcessAlive(record.PID) {
		return true
	}
	if record.StartTime == "" {
		return false
	}
	_, current, ok := readProcessStat(record.PID)
	return ok && current != record.StartTime
}
