"""Every wire type by name, with the generated parse and serialize functions.

``parse_wire(name, value)`` turns a parsed JSON value into the generated dataclass;
``serialize_wire(name, typed)`` turns it back. The generated types keep only the fields
the schema declares (quicktype drops unknown fields and writes its own key order): use
them to read, and rewrite files from the raw parsed value (see the README).
"""

import re
from typing import Any, Callable, Dict, Tuple

from .errors import MusterClientError
from .generated import wire_types
from .schema_validation import load_index


def _snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _load_registry() -> Dict[str, Tuple[Callable[[Any], Any], Callable[[Any], Any]]]:
    registry = {}
    for entry in load_index()["types"]:
        if entry["kind"] == "message-union":
            continue  # dispatched by `type` to the per-message types instead
        stem = _snake_case(entry["name"])
        registry[entry["name"]] = (
            getattr(wire_types, f"{stem}_from_dict"),
            getattr(wire_types, f"{stem}_to_dict"),
        )
    return registry


#: Wire type name → (from_dict, to_dict), for every type in schemas/v1/index.json.
WIRE_TYPES = _load_registry()

#: Protocol message ``type`` → wire type name (``"shutdown_request"`` → ``"ShutdownRequest"``).
MESSAGE_TYPE_NAMES: Dict[str, str] = {
    entry["messageType"]: entry["name"] for entry in load_index()["types"] if entry["kind"] == "message"
}


def wire_type_name(name_or_message_type: str, value: Any = None) -> str:
    """Resolves ``ProtocolMessage`` (by the value's ``type``) and checks the name exists."""
    if name_or_message_type == "ProtocolMessage":
        message_type = value.get("type") if isinstance(value, dict) else None
        if message_type not in MESSAGE_TYPE_NAMES:
            raise MusterClientError(
                "INVALID_MESSAGE",
                f"{message_type!r} is not a protocol message type; known: {sorted(MESSAGE_TYPE_NAMES)}.",
                {"type": message_type},
            )
        return MESSAGE_TYPE_NAMES[message_type]
    if name_or_message_type not in WIRE_TYPES:
        raise MusterClientError(
            "NOT_FOUND",
            f"There is no wire type named {name_or_message_type!r}; known: {sorted(WIRE_TYPES)}.",
            {"name": name_or_message_type},
        )
    return name_or_message_type


def parse_wire(name: str, value: Any) -> Any:
    """The generated dataclass (or list / enum) for ``value``; raises ``INVALID_MESSAGE``."""
    resolved = wire_type_name(name, value)
    try:
        return WIRE_TYPES[resolved][0](value)
    except (AssertionError, ValueError, TypeError, KeyError, AttributeError) as error:
        raise MusterClientError(
            "INVALID_MESSAGE",
            f"The value does not fit the generated {resolved} type ({type(error).__name__}: {error}).",
            {"type": resolved},
        ) from error


def serialize_wire(name: str, typed: Any, value_for_dispatch: Any = None) -> Any:
    """The JSON value of a generated type instance."""
    return WIRE_TYPES[wire_type_name(name, value_for_dispatch)][1](typed)
