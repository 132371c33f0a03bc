"""``python3 -m muster_client <command>``: a tiny command line over the client (used by tests).

Commands: send, shutdown-request, permission-response, send-protocol, read, history,
mark-read, team, tasks, hold-lock, roundtrip. Output is JSON on stdout; errors go to
stderr with exit code 1.
"""

import argparse
import json
import os
import sys
import time
from typing import Any, List, Optional

from . import messages
from .errors import MusterClientError
from .file_lock import acquire_lock
from .inbox import Inboxes
from .json_text import parse_json
from .layout import default_root
from .team import list_tasks, read_team_config
from .wire import parse_wire, serialize_wire


def _print(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _inboxes(arguments: argparse.Namespace) -> Inboxes:
    return Inboxes(arguments.root or default_root(), arguments.team, deadline_ms=arguments.deadline_ms, stale_ms=arguments.stale_ms)


def _send(arguments: argparse.Namespace) -> None:
    inboxes = _inboxes(arguments)
    if arguments.count is None:
        entry = inboxes.send(arguments.to, arguments.sender, arguments.text, summary=arguments.summary, color=arguments.color)
        _print({"sent": 1, "entry": entry})
        return
    for number in range(arguments.count):
        inboxes.send(arguments.to, arguments.sender, f"{arguments.text}{number}", summary=arguments.summary, color=arguments.color)
    _print({"sent": arguments.count})


def _send_text(arguments: argparse.Namespace, text: str) -> None:
    entry = _inboxes(arguments).send(arguments.to, arguments.sender, text, color=arguments.color)
    _print({"sent": 1, "entry": entry})


def _read(arguments: argparse.Namespace) -> None:
    entries = _inboxes(arguments).read(arguments.agent, unread_only=arguments.unread)
    result = []
    for entry in entries:
        item = {"index": entry.index, "from": entry.raw["from"], "text": entry.raw["text"], "read": entry.read, "kind": entry.content.kind}
        if entry.content.kind == "protocol":
            item["type"] = entry.content.message_type
        result.append(item)
    _print(result)


def _mark_read(arguments: argparse.Namespace) -> None:
    inboxes = _inboxes(arguments)
    selected = None
    if arguments.index:
        wanted = set(arguments.index)
        selected = [entry for entry in inboxes.read(arguments.agent) if entry.index in wanted]
    _print({"marked": inboxes.mark_read(arguments.agent, selected)})


def _hold_lock(arguments: argparse.Namespace) -> None:
    lock = acquire_lock(arguments.file, deadline_ms=arguments.deadline_ms, stale_ms=arguments.stale_ms)
    _print({"locked": lock.lock_path, "pid": os.getpid()})
    if arguments.seconds is None:
        while True:
            time.sleep(3600)
    time.sleep(arguments.seconds)
    lock.release()
    _print({"released": lock.lock_path})


def _roundtrip(_arguments: argparse.Namespace) -> None:
    """stdin: ``[{"type": name, "file": path}]``; stdout: ``[{"file", "type", "value"} |
    {"file", "type", "error"}]`` where value = serialize(parse(file content))."""
    results: List[Any] = []
    for item in json.load(sys.stdin):
        try:
            with open(item["file"], encoding="utf-8") as handle:
                value = parse_json(handle.read())
            typed = parse_wire(item["type"], value)
            results.append({"file": item["file"], "type": item["type"], "value": serialize_wire(item["type"], typed, value)})
        except (MusterClientError, OSError, ValueError) as error:
            results.append({"file": item["file"], "type": item["type"], "error": str(error)})
    _print(results)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python3 -m muster_client", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    def team_command(name: str, help_text: str) -> argparse.ArgumentParser:
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--root", help="muster root (default: $MUSTER_HOME or ~/.muster)")
        command.add_argument("--team", required=True)
        command.add_argument("--deadline-ms", type=int, help="default: max(20000, 2 x stale)")
        command.add_argument("--stale-ms", type=int, default=10_000)
        return command

    def sender_command(name: str, help_text: str) -> argparse.ArgumentParser:
        command = team_command(name, help_text)
        command.add_argument("--to", required=True, help="recipient agent name")
        command.add_argument("--from", dest="sender", required=True, help="sender agent name")
        command.add_argument("--color")
        return command

    send = sender_command("send", "append a free-text message")
    send.add_argument("--text", required=True)
    send.add_argument("--summary")
    send.add_argument("--count", type=int, help="send this many messages, '<text><n>', one write each")

    shutdown = sender_command("shutdown-request", "send a shutdown_request")
    shutdown.add_argument("--reason")

    permission = sender_command("permission-response", "answer a permission_request")
    permission.add_argument("--request-id", required=True)
    answer = permission.add_mutually_exclusive_group(required=True)
    answer.add_argument("--updated-input", help="JSON object: approve with this input")
    answer.add_argument("--error", help="deny with this reason")

    generic = sender_command("send-protocol", "send any protocol message given as JSON")
    generic.add_argument("--message", required=True, help='JSON object with "type"')

    for name, help_text in (("read", "print the entries"), ("history", "print archive + inbox"), ("mark-read", "mark entries read")):
        command = team_command(name, help_text)
        command.add_argument("--agent", required=True)
        if name == "read":
            command.add_argument("--unread", action="store_true")
        if name == "mark-read":
            command.add_argument("--index", type=int, action="append", help="only these indices (default: all)")

    team_command("team", "print the team config")
    tasks = team_command("tasks", "print the task list")
    tasks.add_argument("--all", action="store_true", help="include internal tasks")

    hold = commands.add_parser("hold-lock", help="take a file's lock and keep it (for tests)")
    hold.add_argument("--file", required=True)
    hold.add_argument("--seconds", type=float, help="release after this long (default: never)")
    hold.add_argument("--deadline-ms", type=int, help="default: max(20000, 2 x stale)")
    hold.add_argument("--stale-ms", type=int, default=10_000)

    commands.add_parser("roundtrip", help="parse and serialize files with the generated types")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        if arguments.command == "send":
            _send(arguments)
        elif arguments.command == "shutdown-request":
            _send_text(arguments, messages.shutdown_request(arguments.sender, arguments.to, arguments.reason))
        elif arguments.command == "permission-response":
            if arguments.error is not None:
                text = messages.permission_response_error(arguments.request_id, arguments.error)
            else:
                text = messages.permission_response_success(arguments.request_id, json.loads(arguments.updated_input))
            _send_text(arguments, text)
        elif arguments.command == "send-protocol":
            _send_text(arguments, messages.format_protocol_message(json.loads(arguments.message)))
        elif arguments.command == "read":
            _read(arguments)
        elif arguments.command == "history":
            _print(_inboxes(arguments).read_history(arguments.agent))
        elif arguments.command == "mark-read":
            _mark_read(arguments)
        elif arguments.command == "team":
            _print(read_team_config(arguments.root or default_root(), arguments.team).raw)
        elif arguments.command == "tasks":
            _print([task.raw for task in list_tasks(arguments.root or default_root(), arguments.team, arguments.all)])
        elif arguments.command == "hold-lock":
            _hold_lock(arguments)
        elif arguments.command == "roundtrip":
            _roundtrip(arguments)
    except MusterClientError as error:
        sys.stderr.write(f"{error}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
