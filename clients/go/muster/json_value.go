package muster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Object is a JSON object that keeps its keys in order, so a file can be rewritten with
// unknown keys left in place. Values are nil, bool, json.Number, string, []any or *Object.
type Object struct {
	keys   []string
	values map[string]any
}

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{values: map[string]any{}} }

// Keys returns the keys in order.
func (object *Object) Keys() []string { return append([]string(nil), object.keys...) }

// Get returns a key's value and whether the key is present.
func (object *Object) Get(key string) (any, bool) {
	value, found := object.values[key]
	return value, found
}

// String returns a key's value when it is a string.
func (object *Object) String(key string) (string, bool) {
	value, found := object.values[key].(string)
	return value, found
}

// Set changes a key's value in place, or appends the key when it is new.
func (object *Object) Set(key string, value any) *Object {
	if _, found := object.values[key]; !found {
		object.keys = append(object.keys, key)
	}
	object.values[key] = value
	return object
}

// Delete removes a key (doing nothing when it is absent).
func (object *Object) Delete(key string) {
	if _, found := object.values[key]; !found {
		return
	}
	delete(object.values, key)
	for index, existing := range object.keys {
		if existing == key {
			object.keys = append(object.keys[:index], object.keys[index+1:]...)
			return
		}
	}
}

// Len returns the number of keys.
func (object *Object) Len() int { return len(object.keys) }

// MarshalJSON writes the object compactly, keys in order, as JavaScript would.
func (object *Object) MarshalJSON() ([]byte, error) {
	var builder strings.Builder
	if err := writeValue(&builder, object, "", 0); err != nil {
		return nil, err
	}
	return []byte(builder.String()), nil
}

// ParseJSON parses JSON text keeping key order: objects become *Object, numbers
// json.Number. Trailing data after the value is an error.
func ParseJSON(data []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	value, err := decodeValue(decoder)
	if err != nil {
		return nil, err
	}
	if _, err := decoder.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return value, nil
}

func decodeValue(decoder *json.Decoder) (any, error) {
	token, err := decoder.Token()
	if err != nil {
		return nil, err
	}
	switch typed := token.(type) {
	case json.Delim:
		switch typed {
		case '{':
			object := NewObject()
			for decoder.More() {
				keyToken, err := decoder.Token()
				if err != nil {
					return nil, err
				}
				key, isString := keyToken.(string)
				if !isString {
					return nil, fmt.Errorf("object key is not a string")
				}
				value, err := decodeValue(decoder)
				if err != nil {
					return nil, err
				}
				object.Set(key, value)
			}
			if _, err := decoder.Token(); err != nil {
				return nil, err
			}
			return object, nil
		case '[':
			items := []any{}
			for decoder.More() {
				value, err := decodeValue(decoder)
				if err != nil {
					return nil, err
				}
				items = append(items, value)
			}
			if _, err := decoder.Token(); err != nil {
				return nil, err
			}
			return items, nil
		}
		return nil, fmt.Errorf("unexpected %v", typed)
	default:
		return typed, nil
	}
}

// FormatJSONFile writes a value as JavaScript's JSON.stringify(value, null, 2): two-space
// indentation, no trailing newline (PROTOCOL.md 3.1).
func FormatJSONFile(value any) (string, error) {
	var builder strings.Builder
	err := writeValue(&builder, value, "  ", 0)
	return builder.String(), err
}

// FormatCompact writes a value as JavaScript's JSON.stringify(value): no spaces.
func FormatCompact(value any) (string, error) {
	var builder strings.Builder
	err := writeValue(&builder, value, "", 0)
	return builder.String(), err
}

func writeValue(builder *strings.Builder, value any, indent string, depth int) error {
	newline := func(level int) {
		if indent != "" {
			builder.WriteByte('\n')
			builder.WriteString(strings.Repeat(indent, level))
		}
	}
	switch typed := value.(type) {
	case nil:
		builder.WriteString("null")
	case bool:
		builder.WriteString(strconv.FormatBool(typed))
	case string:
		builder.WriteString(FormatJSONString(typed))
	case json.Number:
		number, err := typed.Float64()
		if err != nil {
			return fmt.Errorf("invalid number %q", typed)
		}
		builder.WriteString(FormatNumber(number))
	case float64:
		builder.WriteString(FormatNumber(typed))
	case int:
		builder.WriteString(strconv.Itoa(typed))
	case int64:
		builder.WriteString(strconv.FormatInt(typed, 10))
	case *Object:
		if typed.Len() == 0 {
			builder.WriteString("{}")
			return nil
		}
		builder.WriteByte('{')
		for index, key := range typed.keys {
			if index > 0 {
				builder.WriteByte(',')
			}
			newline(depth + 1)
			builder.WriteString(FormatJSONString(key))
			if indent != "" {
				builder.WriteString(": ")
			} else {
				builder.WriteByte(':')
			}
			if err := writeValue(builder, typed.values[key], indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		builder.WriteByte('}')
	case []any:
		if len(typed) == 0 {
			builder.WriteString("[]")
			return nil
		}
		builder.WriteByte('[')
		for index, item := range typed {
			if index > 0 {
				builder.WriteByte(',')
			}
			newline(depth + 1)
			if err := writeValue(builder, item, indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		builder.WriteByte(']')
	default:
		return fmt.Errorf("cannot write a %T as JSON", value)
	}
	return nil
}

// FormatJSONString writes a JSON string literal as JavaScript does: only '"', '\\' and
// control characters are escaped (unlike encoding/json, which also escapes <, >, & and
// U+2028/U+2029).
func FormatJSONString(text string) string {
	var builder strings.Builder
	builder.WriteByte('"')
	for index := 0; index < len(text); {
		character, size := utf8.DecodeRuneInString(text[index:])
		switch {
		case character == '"':
			builder.WriteString(`\"`)
		case character == '\\':
			builder.WriteString(`\\`)
		case character == '\b':
			builder.WriteString(`\b`)
		case character == '\f':
			builder.WriteString(`\f`)
		case character == '\n':
			builder.WriteString(`\n`)
		case character == '\r':
			builder.WriteString(`\r`)
		case character == '\t':
			builder.WriteString(`\t`)
		case character < 0x20:
			fmt.Fprintf(&builder, `\u%04x`, character)
		default:
			builder.WriteString(text[index : index+size])
		}
		index += size
	}
	builder.WriteByte('"')
	return builder.String()
}

// FormatNumber writes a number as JavaScript's Number.prototype.toString does.
func FormatNumber(number float64) string {
	if math.IsNaN(number) || math.IsInf(number, 0) {
		return "null"
	}
	if number == 0 {
		return "0"
	}
	sign := ""
	if number < 0 {
		sign = "-"
		number = -number
	}
	// Shortest round-trip digits: d.ddddde±x
	scientific := strconv.FormatFloat(number, 'e', -1, 64)
	mantissa, exponentText, _ := strings.Cut(scientific, "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	exponent, _ := strconv.Atoi(exponentText)
	k := len(digits)
	n := exponent + 1 // number = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	power := n - 1
	powerSign := "+"
	if power < 0 {
		powerSign = "-"
		power = -power
	}
	body := digits[:1]
	if k > 1 {
		body += "." + digits[1:]
	}
	return sign + body + "e" + powerSign + strconv.Itoa(power)
}

// EqualJSON reports whether two decoded JSON values are equal (key order ignored, numbers
// compared by value).
func EqualJSON(left, right any) bool {
	switch typedLeft := left.(type) {
	case *Object:
		typedRight, isObject := right.(*Object)
		if !isObject || typedLeft.Len() != typedRight.Len() {
			return false
		}
		for _, key := range typedLeft.keys {
			value, found := typedRight.values[key]
			if !found || !EqualJSON(typedLeft.values[key], value) {
				return false
			}
		}
		return true
	case []any:
		typedRight, isArray := right.([]any)
		if !isArray || len(typedLeft) != len(typedRight) {
			return false
		}
		for index := range typedLeft {
			if !EqualJSON(typedLeft[index], typedRight[index]) {
				return false
			}
		}
		return true
	case json.Number, float64, int, int64:
		leftNumber, leftOK := toFloat(left)
		rightNumber, rightOK := toFloat(right)
		return leftOK && rightOK && leftNumber == rightNumber
	default:
		return left == right
	}
}

func toFloat(value any) (float64, bool) {
	switch typed := value.(type) {
	case json.Number:
		number, err := typed.Float64()
		return number, err == nil
	case float64:
		return typed, true
	case int:
		return float64(typed), true
	case int64:
		return float64(typed), true
	}
	return 0, false
}
