package muster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The pane run's lead verify keys, per recipient (FORMAT.md of Claude Code 2.1.330).
var recordedVerifyKeys = map[string]string{
	"gamma": "1795479482352.MCowBQYDK2VwAyEALlcsp50y-Vat8k5QT9tag3rRLcGbCq2socJ5P8wesGk",
	"alpha": "1795479482997.MCowBQYDK2VwAyEAHacqCPAzlZWew8KghbOSh3vwePHt_lE03YOsulwQp3E",
	"beta":  "1795479497304.MCowBQYDK2VwAyEAqlN2vF7ltINWFneAdAFP-QITzNqe6YKdZuLlcJ6v4EQ",
}

var recordedSignedFiles = map[string]string{
	"pane_teammate_initial_prompt_lead_signed.json":         "gamma",
	"permission_response_success_lead_signed.json":          "gamma",
	"permission_response_error_lead_signed.json":            "gamma",
	"task_assignment_lead_signed.json":                      "alpha",
	"plain_message_with_summary_from_lead_lead_signed.json": "alpha",
	"shutdown_request_lead_signed.json":                     "alpha",
	"plan_approval_response_approved_lead_signed.json":      "beta",
	"plan_approval_response_rejected_lead_signed.json":      "beta",
}

func protocolReferenceFolder(t *testing.T) string {
	t.Helper()
	folder, _ := filepath.Abs(filepath.Join("..", "..", "..", "fixtures", "claude-code-2.1.330", "protocol"))
	if _, err := os.Stat(folder); err != nil {
		t.Fatalf("Claude Code 2.1.330 reference entries not found at %s: restore fixtures/ with git", folder)
	}
	return folder
}

func readObject(t *testing.T, file string) *Object {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	value, err := ParseJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	object, isObject := value.(*Object)
	if !isObject {
		t.Fatalf("%s is not a JSON object", file)
	}
	return object
}

func TestRecordedLeadSignaturesVerifyAndTamperedOnesDoNot(t *testing.T) {
	folder := protocolReferenceFolder(t)
	example := readObject(t, filepath.Join(folder, "signature-example.json"))
	verifyKey, _ := example.String("verifyKey")
	entryValue, _ := example.Get("entry")
	entry := entryValue.(*Object)
	if valid, err := VerifyLeadSignature(verifyKey, entry); err != nil || !valid {
		t.Fatalf("signature-example.json does not verify: %v %v", valid, err)
	}
	for file, recipient := range recordedSignedFiles {
		signed := readObject(t, filepath.Join(folder, file))
		if valid, err := VerifyLeadSignature(recordedVerifyKeys[recipient], signed); err != nil || !valid {
			t.Errorf("%s does not verify with %s's key: %v %v", file, recipient, valid, err)
		}
		for other, key := range recordedVerifyKeys {
			if other == recipient {
				continue
			}
			if valid, _ := VerifyLeadSignature(key, signed); valid {
				t.Errorf("%s verifies with %s's key, but was signed for %s", file, other, recipient)
			}
		}
	}
	for _, field := range []string{"text", "from", "timestamp", "msg_id", "summary", "color"} {
		changed := readObject(t, filepath.Join(folder, "signature-example.json"))
		tampered, _ := changed.Get("entry")
		tampered.(*Object).Set(field, "changed")
		if valid, _ := VerifyLeadSignature(verifyKey, tampered.(*Object)); valid {
			t.Errorf("the entry still verifies after %s was changed", field)
		}
	}
	unsigned := readObject(t, filepath.Join(folder, "signature-example.json"))
	withoutSignature, _ := unsigned.Get("entry")
	withoutSignature.(*Object).Delete("lead_sig")
	if valid, _ := VerifyLeadSignature(verifyKey, withoutSignature.(*Object)); valid {
		t.Error("an entry without lead_sig verifies")
	}
}

func TestMalformedVerifyKeysAreRefusedWithTheirCode(t *testing.T) {
	good := recordedVerifyKeys["gamma"]
	for _, key := range []string{
		"",
		"MCowBQYDK2VwAyEALlcsp50y-Vat8k5QT9tag3rRLcGbCq2socJ5P8wesGk",
		"soon." + good[strings.IndexByte(good, '.')+1:],
		good + "A",
		good[:len(good)-2],
		good + "=",
		"1795479482352.MCowBQYDK2VwAyEA+lcsp50y-Vat8k5QT9tag3rRLcGbCq2socJ5P8wesGk",
		"1.MCwwBwYDK2VwAyEALlcsp50y-Vat8k5QT9tag3rRLcGbCq2socJ5P8wesGk",
	} {
		if _, err := ParseVerifyKey(key); !HasCode(err, CodeInvalidVerifyKey) {
			t.Errorf("ParseVerifyKey(%q) = %v, want a %s error", key, err, CodeInvalidVerifyKey)
		}
	}
	parsed, err := ParseVerifyKey(good)
	if err != nil || parsed.CreatedAt != 1795479482352 || len(parsed.PublicKey) != 32 {
		t.Fatalf("ParseVerifyKey(%q) = %+v, %v", good, parsed, err)
	}
}

// leadSignatureCase is one case written by @muster/provenance's tests: an entry muster
// signed (or changed afterwards) and whether it should verify.
type leadSignatureCase struct {
	VerifyKey string          `json:"verifyKey"`
	Entry     json.RawMessage `json:"entry"`
	Expected  bool            `json:"expected"`
}

// Checks entries signed by @muster/provenance when MUSTER_LEAD_SIGNATURE_CASES names a
// file of cases; writes the results to MUSTER_LEAD_SIGNATURE_RESULTS. Without them it
// checks one entry signed by muster that is kept here.
func TestSignaturesWrittenByMusterVerify(t *testing.T) {
	casesFile := os.Getenv("MUSTER_LEAD_SIGNATURE_CASES")
	var cases []leadSignatureCase
	if casesFile == "" {
		cases = []leadSignatureCase{{
			VerifyKey: musterSignedExample.verifyKey,
			Entry:     json.RawMessage(musterSignedExample.entry),
			Expected:  true,
		}}
	} else {
		data, err := os.ReadFile(casesFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", casesFile, err)
		}
	}
	results := make([]bool, len(cases))
	for index, item := range cases {
		value, err := ParseJSON(item.Entry)
		entry, isObject := value.(*Object)
		if err != nil || !isObject {
			t.Fatalf("case %d: the entry is not a JSON object: %v", index, err)
		}
		results[index], err = VerifyLeadSignature(item.VerifyKey, entry)
		if err != nil {
			t.Fatalf("case %d: %v", index, err)
		}
		if results[index] != item.Expected {
			t.Errorf("case %d: VerifyLeadSignature = %v, want %v", index, results[index], item.Expected)
		}
	}
	if output := os.Getenv("MUSTER_LEAD_SIGNATURE_RESULTS"); output != "" {
		data, _ := json.Marshal(results)
		if err := os.WriteFile(output, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// An entry @muster/provenance signed, with characters encoding/json would write
// differently from JavaScript (<, >, &, U+2028, a control character, non-ASCII).
var musterSignedExample = struct{ verifyKey, entry string }{
	verifyKey: "1795490933889.MCowBQYDK2VwAyEA2ixykjkXQwQqcUdCvpDSwejF3tsFKdMBpJSIpX-QZ04",
	entry: `{"from":"team-lead","text":"Run \"ls\" <then> & \\ done\u2028\u0001 — ✓ 🚀\nnext",` +
		`"summary":"Check <this> & that","timestamp":"2026-11-24T03:30:00.000Z","color":"blue","msgV":1,` +
		`"msg_id":"5b0c1f9e-8c4a-4f57-9a39-7a1f0f2f6c11","type":"message","read":false,` +
		`"lead_sig":"kJbDwM1CjUFYNr2ecszn9uZ8si960FEBcOGirCc4QSlA8mj1OOwt3GZ6mfzV5K-Y9ZF88PqiT9nWVn8QiDz1BA"}`,
}
