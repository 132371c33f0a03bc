package muster

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// LeadSignatureContext opens every payload a lead signs (Claude Code 2.1.330, PROTOCOL.md
// "Trust model").
const LeadSignatureContext = "claude-team-lead-entry-v1"

// CodeInvalidVerifyKey is returned for a lead verify key that is not
// "<epochMs>.<base64url DER SPKI of an Ed25519 key>".
const CodeInvalidVerifyKey = "INVALID_VERIFY_KEY"

// ed25519SPKIPrefix is the DER header of every Ed25519 SubjectPublicKeyInfo; the raw
// 32-byte key follows it.
var ed25519SPKIPrefix = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

var (
	verifyKeyTime     = regexp.MustCompile(`^[0-9]{1,16}$`)
	base64URLText     = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	leadSignatureText = regexp.MustCompile(`^[A-Za-z0-9_-]{86}$`)
)

// VerifyKey is a parsed lead verify key (--lead-verify-key): when the lead made the key
// pair and its Ed25519 public key.
type VerifyKey struct {
	CreatedAt int64
	PublicKey ed25519.PublicKey
}

func invalidVerifyKey(text, problem string) error {
	shown := text
	if len(shown) > 120 {
		shown = shown[:120]
	}
	return newError(CodeInvalidVerifyKey, fmt.Sprintf(
		"the lead verify key %q %s; a verify key is \"<epochMs>.<base64url DER SPKI>\" as Claude Code "+
			"passes it with --lead-verify-key (the key part starts with \"MCowBQYDK2VwAyEA\"): copy it again",
		shown, problem), map[string]any{"verifyKey": text}, nil)
}

// ParseVerifyKey reads "<epochMs>.<base64url DER SPKI>" and checks that the key is a
// 44-byte Ed25519 SPKI. Errors carry CodeInvalidVerifyKey and say which part is wrong.
func ParseVerifyKey(text string) (VerifyKey, error) {
	dot := strings.IndexByte(text, '.')
	if dot < 0 {
		return VerifyKey{}, invalidVerifyKey(text, "has no \".\" between the creation time and the key")
	}
	timePart, keyPart := text[:dot], text[dot+1:]
	if !verifyKeyTime.MatchString(timePart) {
		return VerifyKey{}, invalidVerifyKey(text, fmt.Sprintf("starts with %q, not epoch milliseconds", timePart))
	}
	createdAt, err := strconv.ParseInt(timePart, 10, 64)
	if err != nil || createdAt > 1<<53-1 {
		return VerifyKey{}, invalidVerifyKey(text, fmt.Sprintf("starts with %q, not epoch milliseconds", timePart))
	}
	if !base64URLText.MatchString(keyPart) {
		return VerifyKey{}, invalidVerifyKey(text, "has a key part that is not unpadded base64url")
	}
	der, err := base64.RawURLEncoding.Strict().DecodeString(keyPart)
	if err != nil || len(der) != len(ed25519SPKIPrefix)+ed25519.PublicKeySize {
		return VerifyKey{}, invalidVerifyKey(text, fmt.Sprintf("has a key part of %d bytes, not the 44 of an Ed25519 SPKI", len(der)))
	}
	if !bytes.Equal(der[:len(ed25519SPKIPrefix)], ed25519SPKIPrefix) {
		return VerifyKey{}, invalidVerifyKey(text, "holds a public key that is not Ed25519")
	}
	parsed, err := x509.ParsePKIXPublicKey(der)
	publicKey, isEd25519 := parsed.(ed25519.PublicKey)
	if err != nil || !isEd25519 {
		return VerifyKey{}, invalidVerifyKey(text, "holds bytes that are not an Ed25519 public key")
	}
	return VerifyKey{CreatedAt: createdAt, PublicKey: publicKey}, nil
}

// LeadSignaturePayload is the text whose UTF-8 bytes the lead signs, written exactly as
// JavaScript's JSON.stringify([context, msg_id, from, timestamp, text, summary ?? null,
// color ?? null, from_plugin ?? null]). ok is false when msg_id, from, timestamp or text
// is missing or not a string, or summary, color or from_plugin is neither absent, null
// nor a string.
func LeadSignaturePayload(entry *Object) (payload string, ok bool) {
	if entry == nil {
		return "", false
	}
	fields := []any{LeadSignatureContext}
	for _, key := range []string{"msg_id", "from", "timestamp", "text"} {
		value, isString := entry.String(key)
		if !isString {
			return "", false
		}
		fields = append(fields, value)
	}
	for _, key := range []string{"summary", "color", "from_plugin"} {
		value, present := entry.Get(key)
		if !present {
			value = nil
		}
		if _, isString := value.(string); value != nil && !isString {
			return "", false
		}
		fields = append(fields, value)
	}
	text, err := FormatCompact(fields)
	if err != nil {
		return "", false
	}
	return text, true
}

// VerifyLeadSignature reports whether entry's lead_sig is a valid Ed25519 signature of
// its signed fields (LeadSignaturePayload) by the key in verifyKey. An entry without a
// well-formed lead_sig or signed fields is false, not an error; a malformed verifyKey is
// an error with CodeInvalidVerifyKey.
func VerifyLeadSignature(verifyKey string, entry *Object) (bool, error) {
	key, err := ParseVerifyKey(verifyKey)
	if err != nil {
		return false, err
	}
	return key.Verify(entry), nil
}

// Verify reports whether entry's lead_sig verifies with this key (see VerifyLeadSignature).
func (key VerifyKey) Verify(entry *Object) bool {
	payload, ok := LeadSignaturePayload(entry)
	if !ok {
		return false
	}
	signatureText, _ := entry.String("lead_sig")
	if !leadSignatureText.MatchString(signatureText) {
		return false
	}
	signature, err := base64.RawURLEncoding.Strict().DecodeString(signatureText)
	if err != nil || len(signature) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(key.PublicKey, []byte(payload), signature)
}
