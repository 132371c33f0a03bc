package muster

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"testing"
)

func newTestInboxes(t *testing.T) (*Inboxes, string) {
	t.Helper()
	root := t.TempDir()
	inboxes, err := NewInboxes(root, "conf-team", LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	file, _ := inboxes.Path("alpha")
	return inboxes, file
}

func TestSendWritesClaudeCodeKeyOrder(t *testing.T) {
	inboxes, file := newTestInboxes(t)
	if _, err := inboxes.Send("alpha", OutgoingMessage{From: "team-lead", Text: "hello", Summary: "greeting"}); err != nil {
		t.Fatal(err)
	}
	if _, err := inboxes.Send("alpha", OutgoingMessage{From: "beta", Text: "hi", Color: "green"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	value, _ := ParseJSON(data)
	entries := value.([]any)
	if keys := entries[0].(*Object).Keys(); !reflect.DeepEqual(keys, []string{"from", "text", "summary", "timestamp", "read"}) {
		t.Errorf("keys %v", keys)
	}
	if keys := entries[1].(*Object).Keys(); !reflect.DeepEqual(keys, []string{"from", "text", "timestamp", "color", "read"}) {
		t.Errorf("keys %v", keys)
	}
	if data[len(data)-1] == '\n' {
		t.Error("inbox ends with a newline")
	}
}

func TestUnknownFieldsAndOrderSurviveAppendsAndMarks(t *testing.T) {
	inboxes, file := newTestInboxes(t)
	_ = os.MkdirAll(filepath.Dir(file), 0o777)
	foreign := "[\n  {\n    \"extra\": {\n      \"z\": 1,\n      \"a\": [\n        1.5,\n        \"é <&>\"\n      ]\n    },\n    \"from\": \"x\",\n    \"text\": \"t\",\n    \"timestamp\": \"2026-01-01T00:00:00.000Z\",\n    \"read\": false,\n    \"zz\": null\n  }\n]"
	_ = os.WriteFile(file, []byte(foreign), 0o666)
	if _, err := inboxes.Send("alpha", OutgoingMessage{From: "team-lead", Text: "second"}); err != nil {
		t.Fatal(err)
	}
	entries, _ := inboxes.Read("alpha", false)
	if marked, err := inboxes.MarkRead("alpha", entries[:1]); err != nil || marked != 1 {
		t.Fatalf("marked %d (%v)", marked, err)
	}
	data, _ := os.ReadFile(file)
	want := foreign[:len(foreign)-len("\n    \"read\": false,\n    \"zz\": null\n  }\n]")] + "\n    \"read\": true,\n    \"zz\": null\n  },"
	if string(data[:len(want)]) != want {
		t.Fatalf("the foreign entry changed:\n%s", data)
	}
}

func TestMarkReadFindsAnEntryAgainAfterEarlierEntriesWereRemoved(t *testing.T) {
	inboxes, file := newTestInboxes(t)
	for number := 0; number < 3; number++ {
		_, _ = inboxes.Send("alpha", OutgoingMessage{From: "team-lead", Text: "m" + strconv.Itoa(number)})
	}
	entries, _ := inboxes.Read("alpha", false)
	value, _ := ReadJSONFile(file)
	text, _ := FormatJSONFile(value.([]any)[2:]) // as the owner's compaction would
	_ = os.WriteFile(file, []byte(text), 0o666)
	if marked, err := inboxes.MarkRead("alpha", entries[2:]); err != nil || marked != 1 {
		t.Fatalf("marked %d (%v)", marked, err)
	}
	after, _ := inboxes.Read("alpha", false)
	if len(after) != 1 || !after[0].IsRead() {
		t.Fatalf("after: %+v", after)
	}
}

func TestConcurrentWriterProcessesLoseNothing(t *testing.T) {
	inboxes, _ := newTestInboxes(t)
	var children []*exec.Cmd
	for writer := 0; writer < 4; writer++ {
		child, _ := startChild(t, "send", "MUSTER_TEST_ROOT="+inboxes.Layout.Root, "MUSTER_TEST_COUNT=25", "MUSTER_TEST_FROM=w"+strconv.Itoa(writer))
		children = append(children, child)
	}
	for _, child := range children {
		if err := child.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := inboxes.Read("alpha", false)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, entry := range entries {
		got = append(got, entry.Message.Text)
	}
	for writer := 0; writer < 4; writer++ {
		for number := 0; number < 25; number++ {
			want = append(want, "w"+strconv.Itoa(writer)+"-"+strconv.Itoa(number))
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
}

func TestACorruptInboxIsMovedAsideAndNeverOverwritten(t *testing.T) {
	inboxes, file := newTestInboxes(t)
	_ = os.MkdirAll(filepath.Dir(file), 0o777)
	_ = os.WriteFile(file, []byte(`[{"from": "x", "text": `), 0o666)
	_, err := inboxes.Send("alpha", OutgoingMessage{From: "team-lead", Text: "hello"})
	if !HasCode(err, CodeCorruptFile) {
		t.Fatalf("expected CORRUPT_FILE, got %v", err)
	}
	moved := err.(*Error).Details["quarantinedTo"].(string)
	if data, _ := os.ReadFile(moved); string(data) != `[{"from": "x", "text": ` {
		t.Fatalf("quarantined copy holds %q", data)
	}
}

func TestMarkReadOfAMissingInboxCreatesNothing(t *testing.T) {
	inboxes, file := newTestInboxes(t)
	if marked, err := inboxes.MarkRead("alpha", nil); marked != 0 || err != nil {
		t.Fatalf("marked %d (%v)", marked, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatal("mark-read created the inbox")
	}
}
