"""The lock on a shared file (PROTOCOL.md section 4): the directory ``F.lock``.

- ``mkdir F.lock`` takes it, ``rmdir`` releases it; the holder refreshes its mtime.
- muster's owner record ``F.lock.owner`` (beside the lock) lets a waiter take the lock of a
  holder that died at once: same host, boot and pid namespace, and the process is gone, a
  zombie, or has another start time. The record names the lock directory by device, inode,
  birth time and a stamp (1–999 µs within the millisecond of every mtime the holder sets).
- A lock whose record names a live process on this machine (same host, boot and pid
  namespace; a stopped process too) is never taken over, only waited for: that process
  could resume and write. The timeout names it (and says when it is stopped).
- Only a lock without such a record (Claude Code's, or a holder on another machine) may be
  taken over once its mtime is older than ``stale_ms`` (10 s).
- Take-overs happen under the guard directory ``F.lock.steal``.
"""

import atexit
import ctypes
import ctypes.util
import errno
import json
import os
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional

from .errors import MusterClientError
from .json_text import format_compact, iso_timestamp
from .process_identity import (
    current_process_identity,
    is_process_alive,
    is_process_stopped,
    is_recorded_process_dead,
    is_recorded_process_here,
)

DEFAULT_STALE_MS = 10_000
# Twice the stale time: a lock without a record (a crashed Claude Code's) goes stale at most
# ``stale_ms`` after its last refresh, so the default wait always outlasts it.
DEFAULT_DEADLINE_MS = 2 * DEFAULT_STALE_MS
STEAL_GUARD_STALE_MS = 2_000
_FIRST_BACKOFF_MS = 2.0
_MAXIMUM_BACKOFF_MS = 40.0
_MAXIMUM_REFRESH_MS = 5_000
_MINIMUM_REFRESH_MS = 50


# --- stat with birth time -------------------------------------------------------------


@dataclass(frozen=True)
class DirectoryStat:
    """What a lock is identified by. Times in nanoseconds."""

    device: int
    inode: int
    birthtime_ns: int
    mtime_ns: int


class _Timestamp(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_int64), ("tv_nsec", ctypes.c_uint32), ("reserved", ctypes.c_int32)]


class _Statx(ctypes.Structure):
    _fields_ = [
        ("stx_mask", ctypes.c_uint32),
        ("stx_blksize", ctypes.c_uint32),
        ("stx_attributes", ctypes.c_uint64),
        ("stx_nlink", ctypes.c_uint32),
        ("stx_uid", ctypes.c_uint32),
        ("stx_gid", ctypes.c_uint32),
        ("stx_mode", ctypes.c_uint16),
        ("spare0", ctypes.c_uint16),
        ("stx_ino", ctypes.c_uint64),
        ("stx_size", ctypes.c_uint64),
        ("stx_blocks", ctypes.c_uint64),
        ("stx_attributes_mask", ctypes.c_uint64),
        ("stx_atime", _Timestamp),
        ("stx_btime", _Timestamp),
        ("stx_ctime", _Timestamp),
        ("stx_mtime", _Timestamp),
        ("stx_rdev_major", ctypes.c_uint32),
        ("stx_rdev_minor", ctypes.c_uint32),
        ("stx_dev_major", ctypes.c_uint32),
        ("stx_dev_minor", ctypes.c_uint32),
        ("spare", ctypes.c_uint64 * 14),
    ]


def _load_statx() -> Optional[Callable[..., int]]:
    try:
        library = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        function = library.statx
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_Statx)]
    function.restype = ctypes.c_int
    return function


_statx = _load_statx()
_AT_FDCWD = -100
_STATX_BASIC_STATS_AND_BTIME = 0x0FFF


def stat_directory(path: str) -> DirectoryStat:
    """stat with the birth time, as Node's ``fs.statSync(path, {bigint: true})`` sees it.

    On Linux the birth time comes from ``statx`` (0 where the file system keeps none);
    where ``statx`` is missing, ``st_birthtime`` is used if the platform has it, else 0.
    Raises ``FileNotFoundError`` like ``os.stat``.
    """
    if _statx is not None:
        buffer = _Statx()
        if _statx(_AT_FDCWD, os.fsencode(path), 0, _STATX_BASIC_STATS_AND_BTIME, ctypes.byref(buffer)) == 0:
            return DirectoryStat(
                device=os.makedev(buffer.stx_dev_major, buffer.stx_dev_minor),
                inode=buffer.stx_ino,
                birthtime_ns=buffer.stx_btime.tv_sec * 1_000_000_000 + buffer.stx_btime.tv_nsec,
                mtime_ns=buffer.stx_mtime.tv_sec * 1_000_000_000 + buffer.stx_mtime.tv_nsec,
            )
        error = ctypes.get_errno()
        if error != errno.ENOSYS:
            raise OSError(error, os.strerror(error), path)  # ENOENT becomes FileNotFoundError
    result = os.stat(path)
    birth = getattr(result, "st_birthtime", None)
    return DirectoryStat(
        device=result.st_dev,
        inode=result.st_ino,
        birthtime_ns=int(birth * 1_000_000_000) if birth is not None else 0,
        mtime_ns=result.st_mtime_ns,
    )


# --- owner records --------------------------------------------------------------------


@dataclass
class LockIdentity:
    """The lock directory a holder created (or a record describes)."""

    device: int
    inode: int
    birthtime_ns: int
    stamp: Optional[int]

    def matches(self, stat: DirectoryStat) -> bool:
        """True when ``stat`` is this very directory (stamp checked when there is one)."""
        return (
            stat.device == self.device
            and stat.inode == self.inode
            and stat.birthtime_ns == self.birthtime_ns
            and (self.stamp is None or stamp_of(stat.mtime_ns) == self.stamp)
        )


def stamp_of(mtime_ns: int) -> int:
    """The microseconds within the millisecond of an mtime."""
    return (mtime_ns // 1000) % 1000


def _stamped_now_ns(stamp: Optional[int]) -> int:
    now_ns = time.time_ns()
    if stamp is None:
        return now_ns
    return (now_ns // 1_000_000) * 1_000_000 + stamp * 1000


def _is_decimal(value: Any) -> bool:
    return isinstance(value, str) and value.isdigit() and value.isascii()


def parse_owner_record(text: str) -> Optional[Dict[str, Any]]:
    """The record in ``text``, or None when it is not a valid version-1 record."""
    try:
        record = json.loads(text)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    stamp = record.get("lockStamp", "missing")
    valid = (
        record.get("version") == 1
        and isinstance(record.get("pid"), int)
        and not isinstance(record.get("pid"), bool)
        and isinstance(record.get("hostname"), str)
        and _is_decimal(record.get("lockDevice"))
        and _is_decimal(record.get("lockInode"))
        and _is_decimal(record.get("lockBirthtimeNs"))
        and (stamp is None or (isinstance(stamp, int) and not isinstance(stamp, bool)))
        and all(record.get(key) is None or isinstance(record.get(key), str) for key in ("startTime", "bootId", "pidNamespace"))
    )
    return record if valid else None


def _record_identity(record: Dict[str, Any]) -> LockIdentity:
    return LockIdentity(
        device=int(record["lockDevice"]),
        inode=int(record["lockInode"]),
        birthtime_ns=int(record["lockBirthtimeNs"]),
        stamp=record["lockStamp"],
    )


def _read_owner_record(owner_path: str) -> Optional[Dict[str, Any]]:
    try:
        with open(owner_path, "r", encoding="utf-8") as handle:
            return parse_owner_record(handle.read())
    except FileNotFoundError:
        return None


def _write_owner_record(owner_path: str, identity: LockIdentity) -> None:
    record: Dict[str, Any] = {"version": 1}
    record.update(current_process_identity())
    record.update(
        {
            "lockDevice": str(identity.device),
            "lockInode": str(identity.inode),
            "lockBirthtimeNs": str(identity.birthtime_ns),
            "lockStamp": identity.stamp,
            "acquiredAt": iso_timestamp(),
        }
    )
    with open(owner_path, "w", encoding="utf-8") as handle:
        handle.write(format_compact(record))


def _remove_owner_record_for(owner_path: str, identity: LockIdentity) -> None:
    record = _read_owner_record(owner_path)
    if record is not None and _record_identity(record) == identity:
        try:
            os.unlink(owner_path)
        except FileNotFoundError:
            pass


def _remove_directory_if(directory: str, is_expected: Callable[[DirectoryStat], bool]) -> str:
    """Renames the directory aside, removes it if it is the expected one, else puts it back.

    Returns ``removed``, ``missing`` or ``different``.
    """
    aside = f"{directory}.removing-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        os.rename(directory, aside)
    except FileNotFoundError:
        return "missing"
    if is_expected(stat_directory(aside)):
        os.rmdir(aside)
        return "removed"
    if not os.path.lexists(directory):
        os.rename(aside, directory)
    else:
        os.rmdir(aside)
    return "different"


# --- paths ----------------------------------------------------------------------------


def canonical_path(file: str) -> str:
    """The file's real path; for a missing file, the folder's real path plus its name."""
    absolute = os.path.abspath(file)
    if os.path.exists(absolute):
        return os.path.realpath(absolute)
    folder = os.path.dirname(absolute)
    if os.path.exists(folder):
        return os.path.join(os.path.realpath(folder), os.path.basename(absolute))
    return absolute


# --- holding a lock -------------------------------------------------------------------

_held_locks: "set[HeldLock]" = set()
_held_locks_guard = threading.Lock()


def _release_all_on_exit() -> None:
    for lock in list(_held_locks):
        try:
            lock.release()
        except MusterClientError:
            pass


atexit.register(_release_all_on_exit)


class HeldLock:
    """A lock this process holds. Use as a context manager, or call :meth:`release`."""

    def __init__(self, file: str, identity: LockIdentity, stale_ms: int):
        self.file = file
        self.lock_path = file + ".lock"
        self.owner_path = self.lock_path + ".owner"
        self.identity = identity
        self._released = False
        self._stop = threading.Event()
        interval_ms = max(_MINIMUM_REFRESH_MS, min(stale_ms / 2, _MAXIMUM_REFRESH_MS))
        self._refresher = threading.Thread(target=self._refresh_loop, args=(interval_ms / 1000,), daemon=True)
        self._refresher.start()
        with _held_locks_guard:
            _held_locks.add(self)

    def _refresh_loop(self, interval_seconds: float) -> None:
        while not self._stop.wait(interval_seconds):
            try:
                if not self.identity.matches(stat_directory(self.lock_path)):
                    return
                moment = _stamped_now_ns(self.identity.stamp)
                os.utime(self.lock_path, ns=(moment, moment))
            except FileNotFoundError:
                return
            except OSError:
                continue

    def is_held(self) -> bool:
        """True while the lock directory on disk is still the one this holder created."""
        if self._released:
            return False
        try:
            return self.identity.matches(stat_directory(self.lock_path))
        except FileNotFoundError:
            return False

    def release(self) -> None:
        """Removes the owner record, then the lock directory. Raises ``LOCK_LOST`` if another
        process took the lock meanwhile. Calling it twice does nothing."""
        if self._released:
            return
        self._released = True
        self._stop.set()
        with _held_locks_guard:
            _held_locks.discard(self)
        _remove_owner_record_for(self.owner_path, self.identity)
        outcome = _remove_directory_if(self.lock_path, self.identity.matches)
        if outcome != "removed":
            raise MusterClientError(
                "LOCK_LOST",
                f"The lock on {self.file} was taken by another process while this one held it "
                "(it was not refreshed within the stale time). Work done under it may have raced: "
                "re-read the file and redo the change.",
                {"file": self.file, "lockPath": self.lock_path},
            )

    def __enter__(self) -> "HeldLock":
        return self

    def __exit__(self, *exception: Any) -> None:
        self.release()


def _establish(file: str, stale_ms: int) -> HeldLock:
    lock_path = file + ".lock"
    owner_path = lock_path + ".owner"
    try:
        created = stat_directory(lock_path)
        identity = LockIdentity(created.device, created.inode, created.birthtime_ns, random.randint(1, 999))
        # Record first: until the stamp lands, waiters see a record that does not match yet,
        # fall back to the mtime rule and (the lock being fresh) wait.
        _write_owner_record(owner_path, identity)
        moment = _stamped_now_ns(identity.stamp)
        os.utime(lock_path, ns=(moment, moment))
        if stamp_of(stat_directory(lock_path).mtime_ns) != identity.stamp:
            identity.stamp = None  # coarse mtimes: identify the directory without a stamp
            _write_owner_record(owner_path, identity)
    except OSError as error:
        try:
            os.unlink(owner_path)
        except OSError:
            pass
        try:
            os.rmdir(lock_path)
        except OSError:
            pass
        raise MusterClientError(
            "IO_ERROR", f"Could not set up the lock {lock_path}: {error}.", {"lockPath": lock_path}
        ) from error
    return HeldLock(file, identity, stale_ms)


def _inspect(lock_path: str, stale_ms: int) -> Dict[str, Any]:
    """``{state: missing|live|dead|stale, holder?, age_ms?, stat?, holder_alive?, holder_stopped?}``

    A record naming a process that is gone makes the lock ``dead``; a record naming a live
    process on this machine (stopped ones included) keeps it ``live`` however old its mtime;
    only a lock without such a record goes ``stale`` by mtime (PROTOCOL.md 4.1, 4.2).
    """
    try:
        stat = stat_directory(lock_path)
    except FileNotFoundError:
        return {"state": "missing"}
    record = _read_owner_record(lock_path + ".owner")
    holder = record if record is not None and _record_identity(record).matches(stat) else None
    age_ms = time.time_ns() // 1_000_000 - stat.mtime_ns // 1_000_000
    if holder is not None and is_recorded_process_dead(holder):
        return {"state": "dead", "holder": holder, "age_ms": age_ms, "stat": stat}
    if holder is not None and is_recorded_process_here(holder):
        return {
            "state": "live",
            "holder": holder,
            "age_ms": age_ms,
            "stat": stat,
            "holder_alive": True,
            "holder_stopped": is_process_stopped(holder["pid"]),
        }
    state = "stale" if age_ms > stale_ms else "live"
    return {"state": state, "holder": holder, "age_ms": age_ms, "stat": stat}


def _try_steal(lock_path: str, stale_ms: int) -> bool:
    """Removes an abandoned lock under the steal guard; True when it was removed."""
    guard_path = lock_path + ".steal"
    try:
        os.mkdir(guard_path)
        guard = stat_directory(guard_path)
    except FileExistsError:
        try:
            existing = stat_directory(guard_path)
        except FileNotFoundError:
            return False
        if time.time_ns() // 1_000_000 - existing.mtime_ns // 1_000_000 > STEAL_GUARD_STALE_MS:
            _remove_directory_if(guard_path, lambda stat: stat == existing)
        return False
    try:
        inspection = _inspect(lock_path, stale_ms)
        if inspection["state"] not in ("dead", "stale"):
            return False
        judged = inspection["stat"]
        if inspection["holder"] is not None:
            _remove_owner_record_for(lock_path + ".owner", _record_identity(inspection["holder"]))
        return _remove_directory_if(lock_path, lambda stat: stat == judged) == "removed"
    finally:
        _remove_directory_if(guard_path, lambda stat: stat == guard)


def acquire_lock(file: str, deadline_ms: Optional[int] = None, stale_ms: int = DEFAULT_STALE_MS) -> HeldLock:
    """Takes the lock on ``file`` (which need not exist; its folder must), waiting with
    jittered backoff up to ``deadline_ms`` (default ``max(20 s, 2 × stale_ms)``). A dead
    holder's lock is taken at once, a live (even stopped) holder on this machine is only
    waited for, a lock without an owner record is taken once older than ``stale_ms``.
    Raises ``LOCK_TIMEOUT`` naming the holder."""
    if deadline_ms is None:
        deadline_ms = max(DEFAULT_DEADLINE_MS, 2 * stale_ms)
    canonical = canonical_path(file)
    lock_path = canonical + ".lock"
    started = time.monotonic()
    backoff_ms = _FIRST_BACKOFF_MS
    while True:
        try:
            os.mkdir(lock_path)
            return _establish(canonical, stale_ms)
        except FileExistsError:
            pass
        except FileNotFoundError as error:
            raise MusterClientError(
                "IO_ERROR",
                f"Cannot lock {canonical}: its folder does not exist. Create the folder first.",
                {"file": canonical, "lockPath": lock_path, "folderMissing": True},
            ) from error
        inspection = _inspect(lock_path, stale_ms)
        if inspection["state"] == "missing":
            continue
        if inspection["state"] in ("dead", "stale") and _try_steal(lock_path, stale_ms):
            continue
        remaining_ms = deadline_ms - (time.monotonic() - started) * 1000
        if remaining_ms <= 0:
            raise _lock_timeout(canonical, lock_path, deadline_ms, inspection)
        jittered = backoff_ms / 2 + random.random() * backoff_ms / 2
        time.sleep(min(jittered, remaining_ms) / 1000)
        backoff_ms = min(backoff_ms * 2, _MAXIMUM_BACKOFF_MS)


def _lock_timeout(file: str, lock_path: str, deadline_ms: int, inspection: Dict[str, Any]) -> MusterClientError:
    """``LOCK_TIMEOUT`` naming the holder, worded as ``@muster/file-lock`` words it."""
    holder = inspection.get("holder")
    if holder is None:
        held_by = (
            "by a process that left no owner record (Claude Code, or a writer still setting up); "
            "it becomes stale once its mtime is older than stale_ms"
        )
    else:
        held_by = f"by process {holder['pid']} on {holder['hostname']} since {holder.get('acquiredAt')}"
        if inspection.get("holder_stopped"):
            held_by += (
                ", which is stopped (SIGSTOP or a debugger). muster never takes the lock of a live "
                f"process, since it could resume and write: resume it (kill -CONT {holder['pid']}) or end it"
            )
        elif inspection.get("holder_alive"):
            held_by += ", which is still running (muster never takes the lock of a live process)"
    return MusterClientError(
        "LOCK_TIMEOUT",
        f"Timed out after {deadline_ms} ms waiting for the lock on {file}; it is held {held_by}. "
        "Retry later or pass a larger deadline; if that process is stuck, stop it, and if no "
        f"process holds the lock any more, remove the folder {lock_path}.",
        {
            "file": file,
            "lockPath": lock_path,
            "holderPid": holder["pid"] if holder else None,
            "holderStopped": inspection.get("holder_stopped"),
            "lockAgeMs": inspection.get("age_ms"),
        },
    )
