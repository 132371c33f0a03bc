"""Checks a JSON value against the published JSON Schemas (draft 2020-12 subset).

The schemas in ``generated/schemas/`` are a verbatim copy of ``schemas/v1``. Only the
keywords those schemas use are implemented; a schema using any other validation keyword
raises instead of passing silently, so a schema change can never weaken the checks.
"""

import functools
import json
import math
import os
import re
from typing import Any, Dict, List

_SCHEMA_FOLDER = os.path.join(os.path.dirname(__file__), "generated", "schemas")
_ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "default", "examples", "$comment"}
_VALIDATORS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const",
    "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "oneOf", "anyOf", "allOf", "$ref", "propertyNames", "minItems",
    "maxItems",
}


@functools.lru_cache(maxsize=None)
def load_schema(type_name: str) -> Dict[str, Any]:
    """The published schema of a wire type, e.g. ``load_schema("InboxMessage")``."""
    with open(os.path.join(_SCHEMA_FOLDER, f"{type_name}.schema.json"), encoding="utf-8") as handle:
        return json.load(handle)


@functools.lru_cache(maxsize=None)
def load_index() -> Dict[str, Any]:
    """``schemas/v1/index.json``: every type, its kind and (for messages) its ``type``."""
    with open(os.path.join(_SCHEMA_FOLDER, "index.json"), encoding="utf-8") as handle:
        return json.load(handle)


@functools.lru_cache(maxsize=None)
def _compile(pattern: str) -> "re.Pattern[str]":
    # ECMAScript: "$" matches only at the very end, "\d" only ASCII digits.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern, re.ASCII)


def json_equal(left: Any, right: Any) -> bool:
    """Equality of JSON values (true is not 1, 1 equals 1.0, key order ignored)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[key], right[key]) for key in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right))
    return type(left) is type(right) and left == right


def _type_matches(value: Any, expected: str) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "null":
        return value is None
    if expected == "object":
        return isinstance(value, dict)
    if expected == "array":
        return isinstance(value, list)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if expected == "number":
        return math.isfinite(value)
    if expected == "integer":
        return isinstance(value, int) or (math.isfinite(value) and float(value).is_integer())
    raise ValueError(f"unknown JSON Schema type {expected!r}")


class _Validator:
    def __init__(self, root: Dict[str, Any]):
        self.root = root

    def resolve(self, reference: str) -> Dict[str, Any]:
        if not reference.startswith("#/"):
            raise ValueError(f"only local $ref is supported, not {reference!r}")
        node: Any = self.root
        for part in reference[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def errors(self, schema: Any, value: Any, where: str, found: List[str]) -> None:
        if schema is True or schema == {}:
            return
        if schema is False:
            found.append(f"{where}: not allowed")
            return
        unknown = set(schema) - _ANNOTATIONS - _VALIDATORS
        if unknown:
            raise ValueError(f"schema keyword(s) {sorted(unknown)} at {where} are not supported")
        if "$ref" in schema:
            self.errors(self.resolve(schema["$ref"]), value, where, found)
        expected = schema.get("type")
        if expected is not None:
            types = expected if isinstance(expected, list) else [expected]
            if not any(_type_matches(value, name) for name in types):
                found.append(f"{where}: expected {' or '.join(types)}")
                return
        if "const" in schema and not json_equal(value, schema["const"]):
            found.append(f"{where}: must be {json.dumps(schema['const'])}")
        if "enum" in schema and not any(json_equal(value, option) for option in schema["enum"]):
            found.append(f"{where}: must be one of {json.dumps(schema['enum'])}")
        if isinstance(value, str):
            length = len(value)
            if length < schema.get("minLength", 0):
                found.append(f"{where}: shorter than {schema['minLength']}")
            if "maxLength" in schema and length > schema["maxLength"]:
                found.append(f"{where}: longer than {schema['maxLength']}")
            if "pattern" in schema and not _compile(schema["pattern"]).search(value):
                found.append(f"{where}: does not match {schema['pattern']}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                found.append(f"{where}: below {schema['minimum']}")
            if "maximum" in schema and value > schema["maximum"]:
                found.append(f"{where}: above {schema['maximum']}")
            if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
                found.append(f"{where}: not above {schema['exclusiveMinimum']}")
            if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
                found.append(f"{where}: not below {schema['exclusiveMaximum']}")
        if isinstance(value, list):
            if len(value) < schema.get("minItems", 0):
                found.append(f"{where}: fewer than {schema['minItems']} items")
            if "maxItems" in schema and len(value) > schema["maxItems"]:
                found.append(f"{where}: more than {schema['maxItems']} items")
            if "items" in schema:
                for position, item in enumerate(value):
                    self.errors(schema["items"], item, f"{where}[{position}]", found)
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            for name in schema.get("required", []):
                if name not in value:
                    found.append(f"{where}: missing {name}")
            for name, item in value.items():
                if name in properties:
                    self.errors(properties[name], item, f"{where}.{name}", found)
                elif "additionalProperties" in schema:
                    self.errors(schema["additionalProperties"], item, f"{where}.{name}", found)
                if "propertyNames" in schema:
                    self.errors(schema["propertyNames"], name, f"{where} key {name!r}", found)
        for keyword in ("allOf",):
            for branch in schema.get(keyword, []):
                self.errors(branch, value, where, found)
        if "anyOf" in schema:
            if not any(self._passes(branch, value, where) for branch in schema["anyOf"]):
                found.append(f"{where}: matches none of the allowed shapes")
        if "oneOf" in schema:
            passing = sum(1 for branch in schema["oneOf"] if self._passes(branch, value, where))
            if passing != 1:
                found.append(f"{where}: matches {passing} of the shapes, expected exactly one")

    def _passes(self, schema: Any, value: Any, where: str) -> bool:
        found: List[str] = []
        self.errors(schema, value, where, found)
        return not found


def validation_errors(type_name: str, value: Any) -> List[str]:
    """Every way ``value`` breaks the schema of ``type_name`` (empty when it is valid)."""
    schema = load_schema(type_name)
    found: List[str] = []
    _Validator(schema).errors(schema, value, "(top level)", found)
    return found
