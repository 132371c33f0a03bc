package muster

import (
	"math"
	"os"
	"strings"
	"testing"
)

func TestNumbersAreWrittenAsJavaScriptWritesThem(t *testing.T) {
	cases := map[float64]string{1: "1", 0.1: "0.1", 1e21: "1e+21", 1e20: "100000000000000000000", 1e-7: "1e-7",
		1e-6: "0.000001", 123.456: "123.456", 5e-324: "5e-324", 2.5e-10: "2.5e-10", 1795350958601: "1795350958601",
		-1.5: "-1.5", math.NaN(): "null"}
	for value, expected := range cases {
		if got := FormatNumber(value); got != expected {
			t.Errorf("FormatNumber(%v) = %q, want %q", value, got, expected)
		}
	}
}

func TestStringsEscapeLikeJSONStringify(t *testing.T) {
	got := FormatJSONString("quote \" backslash \\ newline \n bell \x07 line-sep \u2028 é 😀 </>&")
	want := `"quote \" backslash \\ newline \n bell \u0007 line-sep ` + "\u2028" + ` é 😀 </>&"`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestKeyOrderAndUnknownKeysSurviveAParseAndWrite(t *testing.T) {
	text := "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": [],\n    \"b\": {}\n  },\n  \"m\": [\n    1.5,\n    \"é\",\n    null,\n    true\n  ]\n}"
	value, err := ParseJSON([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	written, _ := FormatJSONFile(value)
	if written != text {
		t.Fatalf("rewritten as\n%s", written)
	}
}

func TestEveryReferenceFileIsRewrittenByteForByte(t *testing.T) {
	files := referenceJSONFiles(t)
	if len(files) < 20 {
		t.Fatalf("only %d reference files", len(files))
	}
	for _, file := range files {
		data, _ := os.ReadFile(file)
		value, err := ParseJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		written, _ := FormatJSONFile(value)
		if strings.HasSuffix(string(data), "\n") {
			written += "\n" // kept on rewrite (PROTOCOL.md 3.1)
		}
		if written != string(data) {
			t.Errorf("%s was not rewritten byte for byte", file)
		}
	}
}
