package muster

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"muster.dev/clients/go/musterwire"
)

func TestEveryWireTypeOfTheIndexIsRegistered(t *testing.T) {
	types, _ := LoadIndex().Get("types")
	var want []string
	for _, item := range types.([]any) {
		if kind, _ := item.(*Object).String("kind"); kind != "message-union" {
			name, _ := item.(*Object).String("name")
			want = append(want, name)
		}
	}
	sort.Strings(want)
	if got := sortedKeys(WireTypes); !reflect.DeepEqual(got, want) {
		t.Fatalf("registered %v, index has %v", got, want)
	}
	if got, want := sortedKeys(KeyOrder), sortedKeys(MessageTypeNames); !reflect.DeepEqual(got, want) {
		t.Fatalf("key orders for %v, message types %v", got, want)
	}
}

func TestReferenceProtocolEntriesAreTypedAndReEncodeToTheSameText(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(referenceFolder(t), "protocol", "*.json"))
	typed := 0
	for _, file := range files {
		data, _ := os.ReadFile(file)
		value, _ := ParseJSON(data)
		text, _ := value.(*Object).String("text")
		content := ParseMessageContent(text)
		if strings.HasPrefix(filepath.Base(file), "plain_message") {
			if content.Kind != "text" {
				t.Errorf("%s: %+v", file, content)
			}
			continue
		}
		if content.Kind != "protocol" {
			t.Fatalf("%s not recognised: %s", file, content.Problem)
		}
		if again, err := FormatProtocolMessage(content.Raw); err != nil || again != text {
			t.Errorf("%s re-encoded as %s (%v)", file, again, err)
		}
		typed++
	}
	if typed < 11 {
		t.Fatalf("only %d typed", typed)
	}
}

func TestFreeTextAndMalformedMessagesAreText(t *testing.T) {
	for _, text := range []string{"hello", `{"type":"not_a_kind"}`, "{broken"} {
		if content := ParseMessageContent(text); content.Kind != "text" {
			t.Errorf("%q: %+v", text, content)
		}
	}
	content := ParseMessageContent(`{"type":"shutdown_request","from":"team-lead"}`)
	if content.Kind != "text" || !strings.Contains(content.Problem, "requestId") {
		t.Errorf("%+v", content)
	}
}

func TestBuildersWriteClaudeCodeKeyOrder(t *testing.T) {
	text, err := ShutdownRequest("team-lead", "alpha", "done")
	if err != nil || !regexp.MustCompile(`^\{"type":"shutdown_request","requestId":"shutdown-\d+@alpha","from":"team-lead","reason":"done","timestamp":"[^"]+Z"\}$`).MatchString(text) {
		t.Errorf("%s (%v)", text, err)
	}
	content := ParseMessageContent(text)
	if request, isRequest := content.Typed.(musterwire.ShutdownRequest); !isRequest || request.From != "team-lead" {
		t.Errorf("typed as %#v", content.Typed)
	}
	text, _ = PermissionResponseSuccess("perm-1-abcdefg", NewObject().Set("command", "ls <x>"), nil)
	if want := `{"type":"permission_response","request_id":"perm-1-abcdefg","subtype":"success","response":{"updated_input":{"command":"ls <x>"},"permission_updates":[]}}`; text != want {
		t.Errorf("got %s", text)
	}
	text, _ = PermissionResponseError("perm-1-abcdefg", "no")
	if want := `{"type":"permission_response","request_id":"perm-1-abcdefg","subtype":"error","error":"no"}`; text != want {
		t.Errorf("got %s", text)
	}
}

func TestMalformedMessagesAreRefusedBeforeSending(t *testing.T) {
	_, err := ShutdownRejected("alpha", "shutdown-1@alpha", "")
	if !HasCode(err, CodeInvalidMessage) || !strings.Contains(err.Error(), "reason") {
		t.Fatalf("got %v", err)
	}
}
