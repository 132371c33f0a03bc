"""Who holds a lock (PROTOCOL.md section 4.2): the process identity in an owner record and
whether that process still lives here. Mirrors ``@muster/file-lock``'s process-identity.ts.
"""

import os
import socket
from typing import Any, Dict, Optional


def _read_process_stat(pid: int) -> Optional[Dict[str, str]]:
    try:
        with open(f"/proc/{pid}/stat", "r", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split(" ")
    if len(fields) < 20:
        return None
    return {"state": fields[0], "startTime": fields[19]}


def _read_text(path: str) -> Optional[str]:
    try:
        with open(path, "r", encoding="utf-8") as handle:
            return handle.read().strip() or None
    except OSError:
        return None


def current_process_identity() -> Dict[str, Any]:
    """``{pid, hostname, bootId?, startTime?, pidNamespace?}`` of this process."""
    identity: Dict[str, Any] = {"pid": os.getpid(), "hostname": socket.gethostname()}
    boot_id = _read_text("/proc/sys/kernel/random/boot_id")
    if boot_id is not None:
        identity["bootId"] = boot_id
    stat = _read_process_stat(os.getpid())
    if stat is not None:
        identity["startTime"] = stat["startTime"]
    try:
        identity["pidNamespace"] = os.readlink("/proc/self/ns/pid")
    except OSError:
        pass
    return identity


def is_process_alive(pid: int) -> bool:
    """True when a process with this pid exists here and is not a zombie."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    stat = _read_process_stat(pid)
    return stat is None or stat["state"] not in ("Z", "X")


def is_process_stopped(pid: int) -> bool:
    """True when the process is stopped (``T``: SIGSTOP, or ``t``: a debugger), from /proc."""
    stat = _read_process_stat(pid)
    return stat is not None and stat["state"] in ("T", "t")


def is_recorded_process_here(record: Dict[str, Any]) -> bool:
    """True when the recorded process runs (or ran) where this process can judge it: same
    host, boot and pid namespace (an absent key equal only to an absent key)."""
    me = current_process_identity()
    return (
        record.get("hostname") == me["hostname"]
        and record.get("bootId") == me.get("bootId")
        and record.get("pidNamespace") == me.get("pidNamespace")
    )


def is_recorded_process_dead(record: Dict[str, Any]) -> bool:
    """True only when the recorded holder is surely gone: same host, boot and pid namespace,
    and its pid is free, a zombie, or a process with another start time. A process that
    cannot be judged from here (another host, boot or namespace) is never dead."""
    if not is_recorded_process_here(record):
        return False
    if not is_process_alive(record["pid"]):
        return True
    if record.get("startTime") is None:
        return False
    current = _read_process_stat(record["pid"])
    return current is not None and current["startTime"] != record["startTime"]
