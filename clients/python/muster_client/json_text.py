"""JSON text exactly as JavaScript's ``JSON.stringify`` writes it (PROTOCOL.md 3.1).

Python's ``json.dumps`` differs in small ways (``1.0`` for a double that JavaScript writes
as ``1``, ``1e-07`` for ``1e-7``, raw lone surrogates), so files are written with this
module instead: parsing with :func:`parse_json` and writing with :func:`format_json_file`
gives back the same bytes for any file Claude Code or muster wrote.
"""

import datetime
import decimal
import json
import math
import re
from typing import Any, List

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')


def _escape_character(match: "re.Match[str]") -> str:
    character = match.group(0)
    return _ESCAPES.get(character) or "\\u%04x" % ord(character)


def format_string(value: str) -> str:
    """A JSON string literal as JavaScript writes it (lone surrogates as ``\\udxxx``)."""
    return '"' + _NEEDS_ESCAPE.sub(_escape_character, value) + '"'


def format_number(value: Any) -> str:
    """A number as JavaScript's ``Number.prototype.toString`` writes it."""
    if isinstance(value, bool):
        raise TypeError("a bool is not a number")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"
    sign, digits_tuple, exponent = decimal.Decimal(repr(float(value))).as_tuple()
    digits = "".join(str(digit) for digit in digits_tuple).rstrip("0")
    exponent += len(digits_tuple) - len(digits)
    k = len(digits)
    n = k + exponent  # value = 0.digits × 10^n
    prefix = "-" if sign else ""
    if k <= n <= 21:
        return prefix + digits + "0" * (n - k)
    if 0 < n <= 21:
        return prefix + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return prefix + "0." + "0" * (-n) + digits
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    power = n - 1
    return prefix + mantissa + "e" + ("+" if power >= 0 else "-") + str(abs(power))


def _format(value: Any, indent: str, depth: int, parts: List[str]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        parts.append(format_string(value))
    elif isinstance(value, (int, float)):
        parts.append(format_number(value))
    elif isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        inner = "\n" + indent * (depth + 1) if indent else ""
        parts.append("{")
        for position, (key, item) in enumerate(value.items()):
            if position:
                parts.append(",")
            parts.append(inner)
            parts.append(format_string(str(key)))
            parts.append(": " if indent else ":")
            _format(item, indent, depth + 1, parts)
        parts.append(("\n" + indent * depth if indent else "") + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            parts.append("[]")
            return
        inner = "\n" + indent * (depth + 1) if indent else ""
        parts.append("[")
        for position, item in enumerate(value):
            if position:
                parts.append(",")
            parts.append(inner)
            _format(item, indent, depth + 1, parts)
        parts.append(("\n" + indent * depth if indent else "") + "]")
    else:
        raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def format_json_file(value: Any) -> str:
    """``JSON.stringify(value, null, 2)``: two-space indentation, no trailing newline."""
    parts: List[str] = []
    _format(value, "  ", 0, parts)
    return "".join(parts)


def format_compact(value: Any) -> str:
    """``JSON.stringify(value)``: no spaces at all (how protocol messages go into ``text``)."""
    parts: List[str] = []
    _format(value, "", 0, parts)
    return "".join(parts)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_json(text: str) -> Any:
    """Parses JSON keeping key order (Python dicts keep insertion order)."""
    return json.loads(text, parse_constant=_refuse_constant)


def iso_timestamp(moment: "datetime.datetime | None" = None) -> str:
    """UTC time as JavaScript's ``toISOString`` writes it: ``2026-11-22T12:35:59.085Z``."""
    moment = moment or datetime.datetime.now(datetime.timezone.utc)
    moment = moment.astimezone(datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (moment.microsecond // 1000)
