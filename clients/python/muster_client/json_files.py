"""Reading and rewriting shared JSON files (PROTOCOL.md sections 3.1 and 4.5–4.6)."""

import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

from .errors import MusterClientError
from .file_lock import DEFAULT_STALE_MS, HeldLock, acquire_lock
from .json_text import format_json_file, parse_json

#: Return this from an ``update`` function to leave the file as it is.
SKIP_WRITE = object()

_REREAD_DELAY_SECONDS = 0.025
_MAXIMUM_ATTEMPTS = 5


@dataclass(frozen=True)
class FileSnapshot:
    """A file's text and what identifies that version of it."""

    text: str
    identity: Tuple[int, int, int, int]  # device, inode, size, mtime_ns


def read_snapshot(file: str) -> Optional[FileSnapshot]:
    """The file's text and identity, or None when it does not exist."""
    try:
        with open(file, "rb") as handle:
            data = handle.read()
            result = os.fstat(handle.fileno())
    except FileNotFoundError:
        return None
    return FileSnapshot(
        data.decode("utf-8", "surrogateescape"),
        (result.st_dev, result.st_ino, result.st_size, result.st_mtime_ns),
    )


def quarantine_file(file: str) -> str:
    """Moves a file that does not parse to ``F.corrupt-{timestamp}``; returns the new path."""
    target = f"{file}.corrupt-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{os.urandom(3).hex()}"
    os.rename(file, target)
    return target


def write_file_atomic(file: str, content: str) -> None:
    """Writes ``.{name}.{pid}.{random}.tmp`` in the same folder, then renames it over ``file``."""
    temporary = _write_temporary(file, content)
    try:
        os.rename(temporary, file)
    except OSError:
        _discard(temporary)
        raise


def create_file_if_missing(file: str, content: str) -> bool:
    """Creates ``file`` with ``content`` in one step unless it exists; True if it created it."""
    temporary = _write_temporary(file, content)
    try:
        os.link(temporary, file)
        return True
    except FileExistsError:
        return False
    finally:
        _discard(temporary)


def _write_temporary(file: str, content: str) -> str:
    folder, name = os.path.split(file)
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
    try:
        with open(temporary, "x", encoding="utf-8", errors="surrogatepass", newline="") as handle:
            handle.write(content)
    except OSError:
        _discard(temporary)
        raise
    return temporary


def _discard(temporary: str) -> None:
    try:
        os.unlink(temporary)
    except OSError:
        pass


def read_json_file(file: str) -> Any:
    """Parses a JSON file (None when missing). A file that does not parse is read once more
    after 25 ms (Claude Code rewrites in place) before ``CORRUPT_FILE`` is raised; reading
    never moves a file aside."""
    for attempt in (1, 2):
        snapshot = read_snapshot(file)
        if snapshot is None:
            return None
        try:
            return parse_json(snapshot.text)
        except ValueError as error:
            if attempt == 2:
                raise MusterClientError(
                    "CORRUPT_FILE",
                    f"{file} does not parse as JSON ({error}). Inspect or repair it and retry.",
                    {"file": file},
                ) from error
            time.sleep(_REREAD_DELAY_SECONDS)
    return None


def _read_and_parse(file: str) -> Tuple[Optional[FileSnapshot], Any]:
    snapshot = read_snapshot(file)
    if snapshot is None:
        return None, None
    try:
        return snapshot, parse_json(snapshot.text)
    except ValueError:
        pass
    time.sleep(_REREAD_DELAY_SECONDS)
    snapshot = read_snapshot(file)
    if snapshot is None:
        return None, None
    try:
        return snapshot, parse_json(snapshot.text)
    except ValueError as error:
        moved_to = quarantine_file(file)
        raise MusterClientError(
            "CORRUPT_FILE",
            f"{file} does not parse ({error}). It was moved to {moved_to} and nothing was written; "
            "inspect that copy, move it back if it is good, and retry.",
            {"file": file, "quarantinedTo": moved_to},
        ) from error


def update_json_file(
    file: str,
    update: Callable[[Any], Any],
    deadline_ms: Optional[int] = None,
    stale_ms: int = DEFAULT_STALE_MS,
) -> Tuple[Any, bool]:
    """Locked read-modify-write (PROTOCOL.md 4.5): lock, re-read, ``update(current)``
    (``current`` is None for a missing file; return :data:`SKIP_WRITE` to write nothing),
    write a temp file, check the lock is still ours and the file unchanged, rename, unlock.
    ``update`` may run again on fresh data after a lost lock, so keep it free of side
    effects. Returns ``(value, written)``. The file's folder must exist."""
    for attempt in range(1, _MAXIMUM_ATTEMPTS + 1):
        lock = acquire_lock(file, deadline_ms=deadline_ms, stale_ms=stale_ms)
        try:
            outcome = _read_modify_write(lock, update)
        except BaseException:
            try:
                lock.release()
            except MusterClientError:
                pass
            raise
        try:
            lock.release()
        except MusterClientError as error:
            if error.code != "LOCK_LOST":
                raise
        if outcome is not None:
            return outcome
    raise MusterClientError(
        "LOCK_LOST",
        f"Lost the lock on {file} {_MAXIMUM_ATTEMPTS} times in a row while updating it; nothing "
        "was written. Find the process that keeps taking the lock, or raise the stale time.",
        {"file": file},
    )


def _read_modify_write(lock: HeldLock, update: Callable[[Any], Any]) -> Optional[Tuple[Any, bool]]:
    file = lock.file
    snapshot, current = _read_and_parse(file)
    new_value = update(current)
    if new_value is SKIP_WRITE:
        return current, False
    # A file that ended with a newline keeps it (PROTOCOL.md 3.1); new files get none.
    newline = "\n" if snapshot is not None and snapshot.text.endswith("\n") else ""
    temporary = _write_temporary(file, format_json_file(new_value) + newline)
    try:
        now = read_snapshot(file)
        unchanged = (snapshot is None and now is None) or (
            snapshot is not None and now is not None and snapshot == now
        )
        intact = unchanged and lock.is_held()
    except BaseException:
        _discard(temporary)
        raise
    if not intact:
        _discard(temporary)
        return None
    try:
        os.rename(temporary, file)
    except OSError:
        _discard(temporary)
        raise
    return new_value, True
