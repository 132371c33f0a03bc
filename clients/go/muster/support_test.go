package muster

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The test binary doubles as a child process: MUSTER_TEST_CHILD selects what it does.
func TestMain(m *testing.M) {
	switch os.Getenv("MUSTER_TEST_CHILD") {
	case "hold-lock":
		lock, err := AcquireLock(os.Getenv("MUSTER_TEST_FILE"), LockOptions{})
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Stdout.WriteString("locked " + lock.LockPath + "\n")
		select {}
	case "send":
		inboxes, err := NewInboxes(os.Getenv("MUSTER_TEST_ROOT"), "conf-team", LockOptions{})
		if err == nil {
			count, _ := strconv.Atoi(os.Getenv("MUSTER_TEST_COUNT"))
			for number := 0; number < count && err == nil; number++ {
				_, err = inboxes.Send("alpha", OutgoingMessage{From: os.Getenv("MUSTER_TEST_FROM"), Text: os.Getenv("MUSTER_TEST_FROM") + "-" + strconv.Itoa(number)})
			}
		}
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startChild starts this test binary as a child process doing `role`.
func startChild(t *testing.T, role string, environment ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	command := exec.Command(os.Args[0], "-test.run=^$")
	command.Env = append(append(os.Environ(), "MUSTER_TEST_CHILD="+role), environment...)
	command.Stderr = os.Stderr
	stdout, err := command.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := command.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = command.Process.Kill()
		_ = command.Wait()
	})
	return command, bufio.NewReader(stdout)
}

func referenceFolder(t *testing.T) string {
	t.Helper()
	folder := os.Getenv("MUSTER_REFERENCE_DIR")
	if folder == "" {
		folder, _ = filepath.Abs(filepath.Join("..", "..", "..", "fixtures", "claude-code-2.1.45"))
	}
	if _, err := os.Stat(folder); err != nil {
		t.Fatalf("reference files not found at %s: restore fixtures/ with git (or set MUSTER_REFERENCE_DIR)", folder)
	}
	return folder
}

func referenceJSONFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	_ = filepath.Walk(referenceFolder(t), func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	return files
}
