"""Where every shared file lives under a muster root (PROTOCOL.md sections 1 and 2)."""

import os
import posixpath
import re
from typing import Mapping, Optional

from .errors import MusterClientError

_UNSAFE_SEGMENT = re.compile(r"[/\\\x00-\x1f\x7f]")
_TASK_ID = re.compile(r"^[1-9][0-9]{0,14}$")


def check_path_segment(segment: str, what: str = "name") -> str:
    """Returns ``segment`` if it can be one path segment; raises ``INVALID_NAME`` otherwise."""
    reason = None
    if not isinstance(segment, str) or segment == "":
        reason = "it is empty"
    elif segment in (".", ".."):
        reason = f'"{segment}" refers to a folder, not a name'
    elif _UNSAFE_SEGMENT.search(segment):
        reason = "it contains a path separator, NUL or control character"
    elif len(segment.encode("utf-8", "surrogatepass")) > 255:
        reason = "it is longer than 255 bytes"
    if reason is not None:
        raise MusterClientError(
            "INVALID_NAME",
            f"The {what} {segment!r} cannot be used: {reason}. "
            'Use letters, digits, "-", "_" or ".".',
            {"value": segment, "what": what},
        )
    return segment


def check_task_id(task_id: str) -> str:
    """Returns ``task_id`` if it is a task id ("7"); raises ``INVALID_NAME`` otherwise."""
    if not isinstance(task_id, str) or not _TASK_ID.match(task_id):
        raise MusterClientError(
            "INVALID_NAME",
            f"The task id {task_id!r} is not valid: task ids are positive whole numbers "
            'without leading zeros, such as "7".',
            {"value": task_id, "what": "task id"},
        )
    return task_id


def agent_file_name(agent_name: str) -> str:
    """The inbox file stem for an agent: every "@" becomes "-" (Claude Code's rule)."""
    return check_path_segment(agent_name.replace("@", "-"), "agent name")


def default_root(environment: Optional[Mapping[str, str]] = None, home: Optional[str] = None) -> str:
    """``$MUSTER_HOME`` if set, else ``~/.muster``."""
    environment = os.environ if environment is None else environment
    configured = (environment.get("MUSTER_HOME") or "").strip()
    if configured:
        return posixpath.normpath(configured)
    return posixpath.join(home if home is not None else os.path.expanduser("~"), ".muster")


class RootLayout:
    """Every path under one root. Each method checks its names and stays under the root."""

    def __init__(self, root: str):
        if not isinstance(root, str) or root.strip() == "" or "\x00" in root:
            raise MusterClientError(
                "INVALID_NAME",
                f"The muster root {root!r} is not a usable folder path (empty or holding NUL). "
                "Pass a real folder, or set MUSTER_HOME.",
                {"root": root},
            )
        self.root = posixpath.normpath(root)

    def _join(self, *segments: str) -> str:
        for segment in segments:
            check_path_segment(segment, "path segment")
        joined = posixpath.normpath(posixpath.join(self.root, *segments))
        inside = joined == self.root or joined.startswith(self.root.rstrip("/") + "/")
        if not inside:
            raise MusterClientError(
                "PATH_ESCAPES_ROOT",
                f"The path {joined} would leave the muster root {self.root}; refusing to use it.",
                {"root": self.root, "segments": list(segments)},
            )
        return joined

    def teams_directory(self) -> str:
        """``{root}/teams``"""
        return self._join("teams")

    def team_directory(self, team: str) -> str:
        """``{root}/teams/{team}``"""
        return self._join("teams", check_path_segment(team, "team name"))

    def team_config_path(self, team: str) -> str:
        """``{root}/teams/{team}/config.json``"""
        return self._join("teams", check_path_segment(team, "team name"), "config.json")

    def inboxes_directory(self, team: str) -> str:
        """``{root}/teams/{team}/inboxes``"""
        return self._join("teams", check_path_segment(team, "team name"), "inboxes")

    def inbox_path(self, team: str, agent: str) -> str:
        """``{root}/teams/{team}/inboxes/{agent}.json`` ("@" in the name becomes "-")."""
        return self._join(
            "teams", check_path_segment(team, "team name"), "inboxes", agent_file_name(agent) + ".json"
        )

    def inbox_archive_path(self, team: str, agent: str) -> str:
        """``{root}/teams/{team}/inboxes/{agent}.archive.jsonl`` (read entries moved out)."""
        return self._join(
            "teams",
            check_path_segment(team, "team name"),
            "inboxes",
            agent_file_name(agent) + ".archive.jsonl",
        )

    def tasks_directory(self, team: str) -> str:
        """``{root}/tasks/{team}``"""
        return self._join("tasks", check_path_segment(team, "team name"))

    def task_path(self, team: str, task_id: str) -> str:
        """``{root}/tasks/{team}/{id}.json``"""
        return self._join("tasks", check_path_segment(team, "team name"), check_task_id(task_id) + ".json")

    def tasks_lock_path(self, team: str) -> str:
        """``{root}/tasks/{team}/.lock`` (locked as ``.lock.lock``)."""
        return self._join("tasks", check_path_segment(team, "team name"), ".lock")

    def high_watermark_path(self, team: str) -> str:
        """``{root}/tasks/{team}/.highwatermark``"""
        return self._join("tasks", check_path_segment(team, "team name"), ".highwatermark")
