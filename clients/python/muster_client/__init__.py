"""A small muster client: join a muster (or Claude Code) team from Python.

Follows ``schemas/PROTOCOL.md``; the wire types in ``muster_client.generated`` are
generated from ``schemas/v1`` with quicktype. Standard library only.
"""

from .errors import MusterClientError
from .file_lock import HeldLock, acquire_lock
from .inbox import InboxEntry, Inboxes
from .json_files import SKIP_WRITE, read_json_file, update_json_file, write_file_atomic
from .json_text import format_compact, format_json_file, iso_timestamp, parse_json
from .layout import RootLayout, default_root
from .messages import (
    KEY_ORDER,
    ProtocolContent,
    TextContent,
    build_protocol_message,
    format_protocol_message,
    parse_message_content,
    permission_request_id,
    permission_response_error,
    permission_response_success,
    shutdown_approved,
    shutdown_rejected,
    shutdown_request,
    shutdown_request_id,
)
from .schema_validation import validation_errors
from .team import Loaded, list_tasks, read_task, read_team_config
from .wire import MESSAGE_TYPE_NAMES, WIRE_TYPES, parse_wire, serialize_wire

__all__ = [
    "HeldLock",
    "InboxEntry",
    "Inboxes",
    "KEY_ORDER",
    "Loaded",
    "MESSAGE_TYPE_NAMES",
    "MusterClientError",
    "ProtocolContent",
    "RootLayout",
    "SKIP_WRITE",
    "TextContent",
    "WIRE_TYPES",
    "acquire_lock",
    "build_protocol_message",
    "default_root",
    "format_compact",
    "format_json_file",
    "format_protocol_message",
    "iso_timestamp",
    "list_tasks",
    "parse_json",
    "parse_message_content",
    "parse_wire",
    "permission_request_id",
    "permission_response_error",
    "permission_response_success",
    "read_json_file",
    "read_task",
    "read_team_config",
    "serialize_wire",
    "shutdown_approved",
    "shutdown_rejected",
    "shutdown_request",
    "shutdown_request_id",
    "update_json_file",
    "validation_errors",
    "write_file_atomic",
]
