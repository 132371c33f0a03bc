// Post-processing of quicktype's output so the generated types keep the keys their schema
// does not declare. The protocol says readers keep unknown fields and write them back
// (schemas/PROTOCOL.md §3.1), but quicktype's Python classes and Go structs know only the
// declared properties and drop the rest. Each class or struct gets an
// `additional_properties` (Python) / `AdditionalProperties` (Go) member that parsing fills
// and serializing writes back, after the declared keys, in the order read (Python) or by
// key (Go).
//
// The transformations match quicktype's output exactly and fail loudly when it changes
// shape (a new quicktype version), instead of silently generating types that lose data.

function fail(message) {
  console.error(`[clients] ${message}`);
  process.exit(1);
}

function replaceOnce(text, search, replacement, where) {
  const first = text.indexOf(search);
  if (first === -1 || text.indexOf(search, first + search.length) !== -1) {
    fail(`expected exactly one ${JSON.stringify(search)} in ${where}; quicktype's output changed.`);
  }
  return text.slice(0, first) + replacement + text.slice(first + search.length);
}

/** Python: every `@dataclass` class keeps undeclared keys in `additional_properties`. */
export function keepUndeclaredFieldsPython(source) {
  let text = replaceOnce(
    source,
    'from dataclasses import dataclass\n',
    'from dataclasses import dataclass, field\n',
    'the Python imports',
  );
  if (
    !/^from typing import [^\n]*\bDict\b/m.test(text) ||
    !/^from typing import [^\n]*\bAny\b/m.test(text)
  ) {
    fail('the generated Python does not import Dict and Any from typing; quicktype changed.');
  }
  let classes = 0;
  text = text
    .split('\n\n\n')
    .map((chunk) => {
      const header = /^@dataclass\nclass (\w+):\n/.exec(chunk);
      if (header === null) return chunk;
      classes += 1;
      const name = header[1];
      const where = `the Python class ${name}`;
      let result = replaceOnce(
        chunk,
        '\n    @staticmethod\n    def from_dict(',
        '\n    additional_properties: Dict[str, Any] = field(default_factory=dict)\n' +
          '    """Keys the schema does not declare, as read; to_dict writes them back."""\n' +
          '\n    @staticmethod\n    def from_dict(',
        where,
      );
      const fromDict = result.slice(
        result.indexOf('    def from_dict('),
        result.indexOf('    def to_dict('),
      );
      const declared = [...fromDict.matchAll(/obj\.get\(("(?:[^"\\]|\\.)*")\)/g)].map(
        (match) => match[1],
      );
      const construct = new RegExp(`\\n        return ${name}\\(([^\\n]*)\\)\\n`).exec(result);
      if (construct === null) fail(`no "return ${name}(…)" in ${where}; quicktype changed.`);
      const keys = declared.length === 1 ? `(${declared[0]},)` : `(${declared.join(', ')})`;
      result = replaceOnce(
        result,
        construct[0],
        `\n        result = ${name}(${construct[1]})\n` +
          `        result.additional_properties = {key: value for key, value in obj.items() if key not in ${keys}}\n` +
          '        return result\n',
        where,
      );
      const toDict = result.indexOf('    def to_dict(');
      const returned = result.lastIndexOf('\n        return result');
      if (toDict === -1 || returned < toDict)
        fail(`no to_dict ending in "return result" in ${where}.`);
      return (
        result.slice(0, returned) +
        '\n        for key, value in self.additional_properties.items():' +
        '\n            result.setdefault(key, value)' +
        result.slice(returned)
      );
    })
    .join('\n\n\n');
  if (classes === 0) fail('no @dataclass class found in the generated Python; quicktype changed.');
  return text;
}

/** Go: every struct keeps undeclared keys in `AdditionalProperties`. */
export function keepUndeclaredFieldsGo(source) {
  let structs = 0;
  let text = source.replace(/^type (\w+) struct \{\n([\s\S]*?)^\}\n/gm, (_whole, name, body) => {
    structs += 1;
    const declared = [...body.matchAll(/`json:"([^",]+)[",]/g)].map((match) =>
      JSON.stringify(match[1]),
    );
    return (
      `type ${name} struct {\n${body}` +
      '\t// Keys the schema does not declare, as read; MarshalJSON writes them back.\n' +
      '\tAdditionalProperties map[string]json.RawMessage `json:"-"`\n' +
      '}\n\n' +
      `// UnmarshalJSON reads a ${name}, keeping the keys its schema does not declare.\n` +
      `func (r *${name}) UnmarshalJSON(data []byte) error {\n` +
      `\ttype declared ${name}\n` +
      '\tvar value declared\n' +
      '\tif err := json.Unmarshal(data, &value); err != nil {\n\t\treturn err\n\t}\n' +
      `\tadditional, err := undeclaredFields(data, ${declared.join(', ')})\n` +
      '\tif err != nil {\n\t\treturn err\n\t}\n' +
      '\tvalue.AdditionalProperties = additional\n' +
      `\t*r = ${name}(value)\n` +
      '\treturn nil\n}\n\n' +
      `// MarshalJSON writes a ${name} with the undeclared keys it was read with.\n` +
      `func (r ${name}) MarshalJSON() ([]byte, error) {\n` +
      `\ttype declared ${name}\n` +
      '\tdata, err := json.Marshal(declared(r))\n' +
      '\tif err != nil {\n\t\treturn nil, err\n\t}\n' +
      `\treturn withUndeclaredFields(data, r.AdditionalProperties, ${declared.join(', ')})\n` +
      '}\n'
    );
  });
  if (structs === 0) fail('no struct found in the generated Go; quicktype changed.');
  text = replaceOnce(
    text,
    'import "encoding/json"\n',
    'import (\n\t"bytes"\n\t"encoding/json"\n\t"errors"\n\t"sort"\n)\n',
    'the Go imports',
  );
  return `${text}
// undeclaredFields returns the members of the JSON object in data whose keys are not
// declared (nil when there are none).
func undeclaredFields(data []byte, declared ...string) (map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for _, key := range declared {
		delete(all, key)
	}
	if len(all) == 0 {
		return nil, nil
	}
	return all, nil
}

// withUndeclaredFields appends the additional members, sorted by key, to the JSON object in
// data. Keys that are declared are skipped: the struct's own field wins.
func withUndeclaredFields(data []byte, additional map[string]json.RawMessage, declared ...string) ([]byte, error) {
	skip := make(map[string]bool, len(declared))
	for _, key := range declared {
		skip[key] = true
	}
	keys := make([]string, 0, len(additional))
	for key := range additional {
		if !skip[key] {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return data, nil
	}
	sort.Strings(keys)
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) < 2 || trimmed[0] != '{' || trimmed[len(trimmed)-1] != '}' {
		return nil, errors.New("musterwire: a struct did not marshal to a JSON object")
	}
	var buffer bytes.Buffer
	buffer.Write(trimmed[:len(trimmed)-1])
	empty := len(bytes.TrimSpace(trimmed[1:len(trimmed)-1])) == 0
	for _, key := range keys {
		if !empty {
			buffer.WriteByte(',')
		}
		empty = false
		name, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		buffer.Write(name)
		buffer.WriteByte(':')
		buffer.Write(additional[key])
	}
	buffer.WriteByte('}')
	return buffer.Bytes(), nil
}
`;
}
