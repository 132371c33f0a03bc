"""Protocol messages inside an inbox entry's ``text`` (PROTOCOL.md section 7).

Recognition: the text (after leading whitespace) parses as a JSON object whose ``type`` is
a known message type and which validates against that type's schema. Anything else is
free text, never an error. Writing: keys in Claude Code's order, validated, encoded as
compact JSON exactly as JavaScript's ``JSON.stringify`` does.
"""

import random
import string
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

from .errors import MusterClientError
from .json_text import format_compact, iso_timestamp, parse_json
from .schema_validation import validation_errors
from .wire import MESSAGE_TYPE_NAMES, parse_wire

#: Claude Code's key order per message type (``type`` first); unknown keys go last.
KEY_ORDER: Dict[str, List[str]] = {
    "idle_notification": ["from", "timestamp", "idleReason", "summary", "completedTaskId", "completedStatus", "failureReason"],
    "shutdown_request": ["requestId", "from", "reason", "timestamp"],
    "shutdown_approved": ["requestId", "from", "timestamp", "paneId", "backendType"],
    "shutdown_rejected": ["requestId", "from", "reason", "timestamp"],
    "plan_approval_request": ["from", "timestamp", "planFilePath", "planContent", "requestId"],
    "plan_approval_response": ["requestId", "approved", "feedback", "timestamp", "permissionMode"],
    "permission_request": ["request_id", "agent_id", "tool_name", "tool_use_id", "description", "input", "permission_suggestions"],
    "permission_response": ["request_id", "subtype", "response", "error"],
    "sandbox_permission_request": ["requestId", "workerId", "workerName", "workerColor", "hostPattern", "createdAt"],
    "sandbox_permission_response": ["requestId", "host", "allow", "timestamp"],
    "task_assignment": ["taskId", "subject", "description", "assignedBy", "timestamp"],
    "task_completed": ["from", "taskId", "taskSubject", "timestamp"],
    "mode_set_request": ["mode", "from", "timestamp"],
    "team_permission_update": ["permissionUpdate", "directoryPath", "toolName", "from", "timestamp"],
}


@dataclass
class ProtocolContent:
    """A recognised protocol message: its ``type``, the raw object (unknown keys kept, in
    order) and the generated dataclass (``ShutdownRequest``, ``PermissionResponse``, …)."""

    message_type: str
    raw: Dict[str, Any]
    typed: Any
    kind: str = field(default="protocol", init=False)


@dataclass
class TextContent:
    """Free text. ``protocol_problem`` is set when the text names a known ``type`` but does
    not match its schema (kept for diagnostics; it is still free text)."""

    text: str
    protocol_problem: Optional[str] = None
    kind: str = field(default="text", init=False)


MessageContent = Union[ProtocolContent, TextContent]


def parse_message_content(text: str) -> MessageContent:
    """Reads an entry's text: a typed protocol message, or free text."""
    if not text.lstrip().startswith("{"):
        return TextContent(text)
    try:
        raw = parse_json(text)
    except ValueError:
        return TextContent(text)
    message_type = raw.get("type") if isinstance(raw, dict) else None
    if not isinstance(message_type, str) or message_type not in MESSAGE_TYPE_NAMES:
        return TextContent(text)
    problems = validation_errors(MESSAGE_TYPE_NAMES[message_type], raw)
    if problems:
        return TextContent(text, f"{message_type}: {'; '.join(problems[:5])}")
    return ProtocolContent(message_type, raw, parse_wire(MESSAGE_TYPE_NAMES[message_type], raw))


def build_protocol_message(message_type: str, fields: Dict[str, Any]) -> Dict[str, Any]:
    """The message object with ``type`` first and the other keys in Claude Code's order
    (fields set to None are left out); raises ``INVALID_MESSAGE`` if it breaks the schema."""
    if message_type not in KEY_ORDER:
        raise MusterClientError(
            "INVALID_MESSAGE",
            f"{message_type!r} is not a protocol message type; use one of {sorted(KEY_ORDER)}.",
            {"type": message_type},
        )
    message: Dict[str, Any] = {"type": message_type}
    order = KEY_ORDER[message_type]
    for key in order + [key for key in fields if key not in order]:
        if key in fields and fields[key] is not None:
            message[key] = fields[key]
    problems = validation_errors(MESSAGE_TYPE_NAMES[message_type], message)
    if problems:
        raise MusterClientError(
            "INVALID_MESSAGE",
            f"Refusing to send a malformed {message_type}: {'; '.join(problems[:5])}. Fix the fields named here.",
            {"type": message_type, "problems": problems},
        )
    return message


def format_protocol_message(message: Dict[str, Any]) -> str:
    """Validates a message object and encodes it for an entry's ``text`` (compact JSON)."""
    fields = {key: value for key, value in message.items() if key != "type"}
    return format_compact(build_protocol_message(str(message.get("type")), fields))


def _epoch_ms() -> int:
    return time.time_ns() // 1_000_000


def shutdown_request_id(recipient: str, epoch_ms: Optional[int] = None) -> str:
    """``shutdown-{epochMs}@{recipient}``"""
    return f"shutdown-{_epoch_ms() if epoch_ms is None else epoch_ms}@{recipient}"


def permission_request_id(epoch_ms: Optional[int] = None) -> str:
    """``perm-{epochMs}-{7 characters of [0-9a-z]}``"""
    suffix = "".join(random.choice(string.digits + string.ascii_lowercase) for _ in range(7))
    return f"perm-{_epoch_ms() if epoch_ms is None else epoch_ms}-{suffix}"


def shutdown_request(sender: str, recipient: str, reason: Optional[str] = None, request_id: Optional[str] = None) -> str:
    """The text of a ``shutdown_request`` from the lead ``sender`` to ``recipient``."""
    return format_compact(
        build_protocol_message(
            "shutdown_request",
            {
                "requestId": request_id or shutdown_request_id(recipient),
                "from": sender,
                "reason": reason,
                "timestamp": iso_timestamp(),
            },
        )
    )


def shutdown_approved(sender: str, request_id: str, pane_id: Optional[str] = None, backend_type: Optional[str] = None) -> str:
    """The text of a ``shutdown_approved`` answering ``request_id``."""
    return format_compact(
        build_protocol_message(
            "shutdown_approved",
            {"requestId": request_id, "from": sender, "timestamp": iso_timestamp(), "paneId": pane_id, "backendType": backend_type},
        )
    )


def shutdown_rejected(sender: str, request_id: str, reason: str) -> str:
    """The text of a ``shutdown_rejected`` answering ``request_id`` (reason required)."""
    return format_compact(
        build_protocol_message(
            "shutdown_rejected", {"requestId": request_id, "from": sender, "reason": reason, "timestamp": iso_timestamp()}
        )
    )


def permission_response_success(
    request_id: str, updated_input: Dict[str, Any], permission_updates: Optional[List[Dict[str, Any]]] = None
) -> str:
    """The text of an approving ``permission_response`` (run the tool with ``updated_input``)."""
    return format_compact(
        build_protocol_message(
            "permission_response",
            {
                "request_id": request_id,
                "subtype": "success",
                "response": {"updated_input": updated_input, "permission_updates": list(permission_updates or [])},
            },
        )
    )


def permission_response_error(request_id: str, error: str) -> str:
    """The text of a denying ``permission_response`` (the tool call returns ``error``)."""
    return format_compact(
        build_protocol_message("permission_response", {"request_id": request_id, "subtype": "error", "error": error})
    )
