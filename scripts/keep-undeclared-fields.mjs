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
  const expectedClasses = (source.match(/^@dataclass$/gm) ?? []).length;
  if (classes === 0 || classes !== expectedClasses) {
    fail(
      `handled ${classes} of ${expectedClasses} @dataclass classes in the generated Python; quicktype changed.`,
    );
  }
  return text;
}

/** Go: every struct keeps undeclared keys in `AdditionalProperties`. */
export function keepUndeclaredFieldsGo(source) {
  // quicktype writes its own JSON methods for a union wrapper (a value that is a string or
  // an object, such as SendMessage v2's `message`): a struct of untagged pointers, one per
  // branch. It is not a JSON object, so it is left as quicktype wrote it.
  const unionWrappers = new Set(
    [...source.matchAll(/^func \(x \*?(\w+)\) (?:Unm|M)arshalJSON\(/gm)].map((match) => match[1]),
  );
  let structs = 0;
  let text = source.replace(/^type (\w+) struct \{\n([\s\S]*?)^\}\n/gm, (whole, name, body) => {
    structs += 1;
    if (unionWrappers.has(name)) {
      if (/`json:"/.test(body)) {
        fail(
          `quicktype wrote JSON methods for ${name}, which is not a union wrapper; adapt keep-undeclared-fields.mjs.`,
        );
      }
      return whole;
    }
    const declared = [...body.matchAll(/`json:"([^",]+)[",]/g)].map((match) =>
      JSON.stringify(match[1]),
    );
    return (
      `type ${name} struct {\n${body}` +
      '\t// Keys the schema does not declare, as read; MarshalJSON writes them back.\n' +
      '\tAdditionalProperties map[string]json.RawMessage `json:"-"`\n' +
      '}\n\n' +
      `// UnmarshalJSON reads a ${name}, keeping the keys its schema does not declare. Only\n` +
      '// keys spelled exactly as declared fill the fields (encoding/json alone would also\n' +
      '// take "From" for "from"); every other key goes to AdditionalProperties.\n' +
      `func (r *${name}) UnmarshalJSON(data []byte) error {\n` +
      `\ttype declared ${name}\n` +
      `\tknown, additional, err := splitDeclaredFields(data, ${declared.join(', ')})\n` +
      '\tif err != nil || known == nil {\n\t\treturn err\n\t}\n' +
      '\tvalue := declared(*r)\n' +
      '\tif err := json.Unmarshal(known, &value); err != nil {\n\t\treturn err\n\t}\n' +
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
  const expectedStructs = (source.match(/^type \w+ struct \{$/gm) ?? []).length;
  if (structs === 0 || structs !== expectedStructs) {
    fail(
      `handled ${structs} of ${expectedStructs} structs in the generated Go; quicktype changed.`,
    );
  }
  if (unionWrappers.size === 0 && /\) (?:Unm|M)arshalJSON\(/.test(source)) {
    fail(
      'quicktype now writes MarshalJSON/UnmarshalJSON methods itself; adapt keep-undeclared-fields.mjs.',
    );
  }
  const imports = 'import (\n\t"bytes"\n\t"encoding/json"\n\t"errors"\n\t"sort"\n)\n';
  text =
    unionWrappers.size === 0
      ? replaceOnce(text, 'import "encoding/json"\n', imports, 'the Go imports')
      : replaceOnce(
          text,
          'import "bytes"\nimport "errors"\n\nimport "encoding/json"\n',
          imports,
          'the Go imports (with union helpers)',
        );
  return `${text}
// splitDeclaredFields splits the JSON object in data into the members whose keys are
// declared (re-encoded as an object, for the struct's fields) and the others (nil when there
// are none). For a JSON null it returns nil, nil, nil: the value is left as it was.
func splitDeclaredFields(data []byte, declared ...string) ([]byte, map[string]json.RawMessage, error) {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil, nil, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, nil, err
	}
	known := make(map[string]json.RawMessage, len(declared))
	for _, key := range declared {
		if value, ok := all[key]; ok {
			known[key] = value
			delete(all, key)
		}
	}
	encoded, err := json.Marshal(known)
	if err != nil {
		return nil, nil, err
	}
	if len(all) == 0 {
		all = nil
	}
	return encoded, all, nil
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
		if value := bytes.TrimSpace(additional[key]); len(value) > 0 {
			buffer.Write(value)
		} else {
			buffer.WriteString("null")
		}
	}
	buffer.WriteByte('}')
	return buffer.Bytes(), nil
}
`;
}
