"""Team config and task list (PROTOCOL.md sections 3.2 and 3.4), read-only."""

import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List

from .errors import MusterClientError
from .json_files import read_json_file
from .layout import RootLayout
from .schema_validation import validation_errors
from .wire import parse_wire

_TASK_FILE = re.compile(r"^([1-9][0-9]{0,14})\.json$")


@dataclass
class Loaded:
    """A file as read: the raw parsed object (unknown keys kept) and the generated type."""

    raw: Any
    typed: Any


def _load(type_name: str, file: str) -> Loaded:
    value = read_json_file(file)
    if value is None:
        raise MusterClientError("NOT_FOUND", f"{file} does not exist. Check the root and team name.", {"file": file})
    problems = validation_errors(type_name, value)
    if problems:
        raise MusterClientError(
            "CORRUPT_FILE",
            f"{file} is not a valid {type_name}: {'; '.join(problems[:5])}. Inspect or repair it.",
            {"file": file, "problems": problems},
        )
    return Loaded(value, parse_wire(type_name, value))


def read_team_config(root: str, team: str) -> Loaded:
    """``teams/{team}/config.json`` as a :class:`Loaded` whose ``typed`` is a ``TeamConfig``."""
    return _load("TeamConfig", RootLayout(root).team_config_path(team))


def read_task(root: str, team: str, task_id: str) -> Loaded:
    """``tasks/{team}/{id}.json`` as a :class:`Loaded` whose ``typed`` is a ``Task``."""
    return _load("Task", RootLayout(root).task_path(team, task_id))


def list_tasks(root: str, team: str, include_internal: bool = False) -> List[Loaded]:
    """Every task of the team by numeric id; internal tracking tasks
    (``metadata._internal: true``) only when asked for. A missing folder is an empty list."""
    folder = RootLayout(root).tasks_directory(team)
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    ids = sorted((int(match.group(1)) for match in map(_TASK_FILE.match, names) if match))
    tasks = []
    for task_id in ids:
        try:
            task = read_task(root, team, str(task_id))
        except MusterClientError as error:
            if error.code == "NOT_FOUND":
                continue  # deleted between listing and reading
            raise
        metadata: Dict[str, Any] = task.raw.get("metadata") or {}
        if include_internal or metadata.get("_internal") is not True:
            tasks.append(task)
    return tasks
