package muster

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"muster.dev/clients/go/musterwire"
)

// The schemas embedded in musterwire are a verbatim copy of schemas/v1. Only the keywords
// those schemas use are implemented; a schema with any other validation keyword makes
// ValidationErrors panic, so a schema change can never weaken the checks silently.

var annotationKeywords = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true,
	"description": true, "default": true, "examples": true, "$comment": true}
var validationKeywords = map[string]bool{"type": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "enum": true, "const": true, "minLength": true,
	"maxLength": true, "pattern": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "oneOf": true, "anyOf": true, "allOf": true, "$ref": true,
	"propertyNames": true, "minItems": true, "maxItems": true}

var schemaCache sync.Map
var patternCache sync.Map

// LoadSchema returns the published schema of a wire type, e.g. "InboxMessage".
func LoadSchema(typeName string) (*Object, error) {
	if cached, found := schemaCache.Load(typeName); found {
		return cached.(*Object), nil
	}
	data, err := musterwire.Schemas.ReadFile("schemas/" + typeName + ".schema.json")
	if err != nil {
		return nil, newError(CodeNotFound, fmt.Sprintf("There is no schema for %q in schemas/v1.", typeName), map[string]any{"type": typeName}, err)
	}
	value, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	schemaCache.Store(typeName, value.(*Object))
	return value.(*Object), nil
}

// LoadIndex returns schemas/v1/index.json.
func LoadIndex() *Object {
	data, err := musterwire.Schemas.ReadFile("schemas/index.json")
	if err != nil {
		panic("musterwire has no schemas/index.json: run `pnpm clients`")
	}
	value, err := ParseJSON(data)
	if err != nil {
		panic(err)
	}
	return value.(*Object)
}

// ValidationErrors lists every way value (a decoded JSON value, see ParseJSON) breaks the
// schema of typeName; empty when it is valid.
func ValidationErrors(typeName string, value any) ([]string, error) {
	schema, err := LoadSchema(typeName)
	if err != nil {
		return nil, err
	}
	validator := schemaValidator{root: schema}
	var found []string
	validator.check(schema, value, "(top level)", &found)
	return found, nil
}

type schemaValidator struct{ root *Object }

func (validator schemaValidator) resolve(reference string) any {
	if !strings.HasPrefix(reference, "#/") {
		panic(fmt.Sprintf("only local $ref is supported, not %q", reference))
	}
	var node any = validator.root
	for _, part := range strings.Split(reference[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		node, _ = node.(*Object).Get(part)
	}
	return node
}

func typeMatches(value any, expected string) bool {
	switch expected {
	case "string":
		_, ok := value.(string)
		return ok
	case "boolean":
		_, ok := value.(bool)
		return ok
	case "null":
		return value == nil
	case "object":
		_, ok := value.(*Object)
		return ok
	case "array":
		_, ok := value.([]any)
		return ok
	case "number", "integer":
		number, ok := toFloat(value)
		if !ok || math.IsInf(number, 0) || math.IsNaN(number) {
			return false
		}
		return expected == "number" || number == math.Trunc(number)
	}
	panic(fmt.Sprintf("unknown JSON Schema type %q", expected))
}

func compilePattern(pattern string) *regexp.Regexp {
	if cached, found := patternCache.Load(pattern); found {
		return cached.(*regexp.Regexp)
	}
	compiled := regexp.MustCompile(pattern)
	patternCache.Store(pattern, compiled)
	return compiled
}

func (validator schemaValidator) passes(schema any, value any, where string) bool {
	var found []string
	validator.check(schema, value, where, &found)
	return len(found) == 0
}

func (validator schemaValidator) check(schemaValue any, value any, where string, found *[]string) {
	if accept, isBool := schemaValue.(bool); isBool {
		if !accept {
			*found = append(*found, where+": not allowed")
		}
		return
	}
	schema := schemaValue.(*Object)
	for _, keyword := range schema.Keys() {
		if !annotationKeywords[keyword] && !validationKeywords[keyword] {
			panic(fmt.Sprintf("schema keyword %q at %s is not supported", keyword, where))
		}
	}
	add := func(format string, arguments ...any) {
		*found = append(*found, where+": "+fmt.Sprintf(format, arguments...))
	}
	if reference, present := schema.String("$ref"); present {
		validator.check(validator.resolve(reference), value, where, found)
	}
	if expected, present := schema.Get("type"); present {
		var types []string
		if list, isList := expected.([]any); isList {
			for _, item := range list {
				types = append(types, item.(string))
			}
		} else {
			types = []string{expected.(string)}
		}
		matched := false
		for _, name := range types {
			matched = matched || typeMatches(value, name)
		}
		if !matched {
			add("expected %s", strings.Join(types, " or "))
			return
		}
	}
	if constant, present := schema.Get("const"); present && !EqualJSON(value, constant) {
		text, _ := FormatCompact(constant)
		add("must be %s", text)
	}
	if options, present := schema.Get("enum"); present {
		matched := false
		for _, option := range options.([]any) {
			matched = matched || EqualJSON(value, option)
		}
		if !matched {
			text, _ := FormatCompact(options)
			add("must be one of %s", text)
		}
	}
	limit := func(keyword string) (float64, bool) {
		raw, present := schema.Get(keyword)
		if !present {
			return 0, false
		}
		number, _ := toFloat(raw)
		return number, true
	}
	if text, isString := value.(string); isString {
		length := float64(utf8.RuneCountInString(text))
		if minimum, present := limit("minLength"); present && length < minimum {
			add("shorter than %v", minimum)
		}
		if maximum, present := limit("maxLength"); present && length > maximum {
			add("longer than %v", maximum)
		}
		if pattern, present := schema.String("pattern"); present && !compilePattern(pattern).MatchString(text) {
			add("does not match %s", pattern)
		}
	}
	if number, isNumber := toFloat(value); isNumber {
		if minimum, present := limit("minimum"); present && number < minimum {
			add("below %v", minimum)
		}
		if maximum, present := limit("maximum"); present && number > maximum {
			add("above %v", maximum)
		}
		if minimum, present := limit("exclusiveMinimum"); present && number <= minimum {
			add("not above %v", minimum)
		}
		if maximum, present := limit("exclusiveMaximum"); present && number >= maximum {
			add("not below %v", maximum)
		}
	}
	if items, isArray := value.([]any); isArray {
		if minimum, present := limit("minItems"); present && float64(len(items)) < minimum {
			add("fewer than %v items", minimum)
		}
		if maximum, present := limit("maxItems"); present && float64(len(items)) > maximum {
			add("more than %v items", maximum)
		}
		if itemSchema, present := schema.Get("items"); present {
			for index, item := range items {
				validator.check(itemSchema, item, fmt.Sprintf("%s[%d]", where, index), found)
			}
		}
	}
	if object, isObject := value.(*Object); isObject {
		properties, _ := schema.Get("properties")
		propertyMap, _ := properties.(*Object)
		if required, present := schema.Get("required"); present {
			for _, name := range required.([]any) {
				if _, has := object.Get(name.(string)); !has {
					add("missing %s", name)
				}
			}
		}
		additional, hasAdditional := schema.Get("additionalProperties")
		propertyNames, hasPropertyNames := schema.Get("propertyNames")
		for _, name := range object.Keys() {
			item, _ := object.Get(name)
			var propertySchema any
			if propertyMap != nil {
				propertySchema, _ = propertyMap.Get(name)
			}
			if propertySchema != nil {
				validator.check(propertySchema, item, where+"."+name, found)
			} else if hasAdditional {
				validator.check(additional, item, where+"."+name, found)
			}
			if hasPropertyNames {
				validator.check(propertyNames, name, fmt.Sprintf("%s key %q", where, name), found)
			}
		}
	}
	if branches, present := schema.Get("allOf"); present {
		for _, branch := range branches.([]any) {
			validator.check(branch, value, where, found)
		}
	}
	if branches, present := schema.Get("anyOf"); present {
		matched := false
		for _, branch := range branches.([]any) {
			matched = matched || validator.passes(branch, value, where)
		}
		if !matched {
			add("matches none of the allowed shapes")
		}
	}
	if branches, present := schema.Get("oneOf"); present {
		passing := 0
		for _, branch := range branches.([]any) {
			if validator.passes(branch, value, where) {
				passing++
			}
		}
		if passing != 1 {
			add("matches %d of the shapes, expected exactly one", passing)
		}
	}
}

// sortedKeys returns a map's keys in order (for stable messages).
func sortedKeys[V any](values map[string]V) []string {
	keys := make([]string, 0, len(values))
	for key := range values {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}
