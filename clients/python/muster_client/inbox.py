"""Inboxes (PROTOCOL.md sections 3.3 and 5): send, read, mark read."""

import hashlib
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence

from .errors import MusterClientError
from .file_lock import DEFAULT_STALE_MS
from .json_files import SKIP_WRITE, create_file_if_missing, read_json_file, update_json_file
from .json_text import iso_timestamp, parse_json
from .layout import RootLayout
from .messages import MessageContent, parse_message_content
from .schema_validation import validation_errors
from .wire import parse_wire


@dataclass
class InboxEntry:
    """One entry as read: its array index, the raw object (unknown keys kept), the generated
    ``InboxMessage`` and what its text holds (protocol message or free text)."""

    index: int
    raw: Dict[str, Any]
    message: Any
    content: MessageContent
    key: str

    @property
    def read(self) -> bool:
        """Whether the entry is marked read."""
        return self.raw.get("read") is True


def _digest(raw: Dict[str, Any]) -> str:
    text = "\x00".join(str(raw.get(key, "")) for key in ("from", "timestamp", "summary"))
    return hashlib.sha1((text + "\x00" + str(raw.get("text", ""))).encode("utf-8", "surrogatepass")).hexdigest()


def _entry_keys(entries: Sequence[Dict[str, Any]]) -> List[str]:
    """``{occurrence}:{digest}`` per entry, so equal entries are told apart by their order."""
    seen: Dict[str, int] = {}
    keys = []
    for raw in entries:
        digest = _digest(raw)
        keys.append(f"{seen.get(digest, 0)}:{digest}")
        seen[digest] = seen.get(digest, 0) + 1
    return keys


def _check_inbox(value: Any, file: str) -> List[Dict[str, Any]]:
    problems = validation_errors("Inbox", value)
    if problems:
        raise MusterClientError(
            "CORRUPT_FILE",
            f"{file} is not a valid inbox: {'; '.join(problems[:5])}. Inspect or repair it.",
            {"file": file, "problems": problems},
        )
    return value


class Inboxes:
    """The inboxes of one team under a root."""

    def __init__(self, root: str, team: str, deadline_ms: Optional[int] = None, stale_ms: int = DEFAULT_STALE_MS):
        self.layout = RootLayout(root)
        self.team = team
        self.deadline_ms = deadline_ms
        self.stale_ms = stale_ms

    def path(self, agent: str) -> str:
        """Where ``agent``'s inbox is."""
        return self.layout.inbox_path(self.team, agent)

    def send(
        self,
        recipient: str,
        sender: str,
        text: str,
        summary: Optional[str] = None,
        color: Optional[str] = None,
        timestamp: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Appends one entry (``read: false``) under the inbox lock; returns it as written."""
        return self.send_many(recipient, [{"from": sender, "text": text, "summary": summary, "color": color, "timestamp": timestamp}])[0]

    def send_many(self, recipient: str, messages: Iterable[Dict[str, Any]]) -> List[Dict[str, Any]]:
        """Appends several entries in one locked write (each ``{from, text, summary?,
        color?, timestamp?}``); returns them as written."""
        entries = []
        for message in messages:
            entry: Dict[str, Any] = {"from": message["from"], "text": message["text"]}
            if message.get("summary") is not None:
                entry["summary"] = message["summary"]
            entry["timestamp"] = message.get("timestamp") or iso_timestamp()
            if message.get("color") is not None:
                entry["color"] = message["color"]
            entry["read"] = False
            problems = validation_errors("InboxMessage", entry)
            if problems:
                raise MusterClientError(
                    "INVALID_MESSAGE",
                    f"Refusing to send a malformed message to {recipient}: {'; '.join(problems)}.",
                    {"recipient": recipient},
                )
            entries.append(entry)
        file = self.path(recipient)
        os.makedirs(os.path.dirname(file), exist_ok=True)
        create_file_if_missing(file, "[]")

        def append(current: Any) -> Any:
            inbox = _check_inbox([] if current is None else current, file)
            return inbox + entries

        update_json_file(file, append, deadline_ms=self.deadline_ms, stale_ms=self.stale_ms)
        return entries

    def read(self, agent: str, unread_only: bool = False) -> List[InboxEntry]:
        """Every entry of the inbox, oldest first (a missing inbox is empty). Reads without
        the lock; a file that does not parse is read again before it is called corrupt."""
        file = self.path(agent)
        raw_entries = _check_inbox(read_json_file(file) or [], file)
        keys = _entry_keys(raw_entries)
        entries = [
            InboxEntry(index, raw, parse_wire("InboxMessage", raw), parse_message_content(raw["text"]), keys[index])
            for index, raw in enumerate(raw_entries)
        ]
        return [entry for entry in entries if not entry.read] if unread_only else entries

    def read_history(self, agent: str) -> List[Dict[str, Any]]:
        """Every entry this agent ever received: the archive (muster compaction moves read
        entries there), then the inbox. Raw objects, oldest first."""
        archive = self.layout.inbox_archive_path(self.team, agent)
        history: List[Dict[str, Any]] = []
        try:
            with open(archive, "r", encoding="utf-8") as handle:
                for line in handle:
                    if line.strip():
                        history.append(parse_json(line))
        except FileNotFoundError:
            pass
        return history + [entry.raw for entry in self.read(agent)]

    def mark_read(self, agent: str, entries: Optional[Sequence[InboxEntry]] = None) -> int:
        """Marks entries read under the lock, in place. ``entries`` from :meth:`read` are
        found again by index, or by content if the inbox changed meanwhile; None marks every
        unread entry. Returns how many entries changed. Creates nothing."""
        file = self.path(agent)
        changed = [0]

        def mark(current: Any) -> Any:
            changed[0] = 0
            if current is None:
                return SKIP_WRITE
            inbox = _check_inbox(current, file)
            if entries is None:
                targets = range(len(inbox))
            else:
                keys = _entry_keys(inbox)
                targets = []
                for entry in entries:
                    if entry.index < len(inbox) and keys[entry.index] == entry.key:
                        targets.append(entry.index)
                    elif entry.key in keys:
                        targets.append(keys.index(entry.key))
            for index in targets:
                if inbox[index].get("read") is not True:
                    inbox[index]["read"] = True
                    changed[0] += 1
            return inbox if changed[0] else SKIP_WRITE

        if not os.path.exists(file):
            return 0
        update_json_file(file, mark, deadline_ms=self.deadline_ms, stale_ms=self.stale_ms)
        return changed[0]
