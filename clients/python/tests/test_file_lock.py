import json
import os
import signal
import time

from muster_client.errors import MusterClientError
from muster_client.file_lock import DEFAULT_DEADLINE_MS, DEFAULT_STALE_MS, acquire_lock, is_process_alive, parse_owner_record, stamp_of, stat_directory

from .support import TemporaryRootTestCase


class FileLockTest(TemporaryRootTestCase):
    def file(self) -> str:
        return os.path.join(self.root, "inbox.json")

    def test_lock_is_a_directory_with_an_owner_record_beside_it(self):
        lock = acquire_lock(self.file())
        self.assertTrue(os.path.isdir(self.file() + ".lock"))
        self.assertEqual(os.listdir(self.file() + ".lock"), [])
        with open(self.file() + ".lock.owner", encoding="utf-8") as handle:
            text = handle.read()
        self.assertNotIn("\n", text)
        record = parse_owner_record(text)
        self.assertIsNotNone(record)
        self.assertEqual(record["pid"], os.getpid())
        self.assertEqual(
            list(record)[:3] + list(record)[-5:],
            ["version", "pid", "hostname", "lockDevice", "lockInode", "lockBirthtimeNs", "lockStamp", "acquiredAt"],
        )
        stat = stat_directory(self.file() + ".lock")
        self.assertEqual(record["lockInode"], str(stat.inode))
        self.assertEqual(record["lockBirthtimeNs"], str(stat.birthtime_ns))
        if record["lockStamp"] is not None:
            self.assertEqual(stamp_of(stat.mtime_ns), record["lockStamp"])
        lock.release()
        self.assertFalse(os.path.exists(self.file() + ".lock"))
        self.assertFalse(os.path.exists(self.file() + ".lock.owner"))

    def test_a_live_holder_makes_others_wait_until_the_deadline(self):
        holder = self.start_client("hold-lock", "--file", self.file())
        line = json.loads(holder.stdout.readline())
        with self.assertRaises(MusterClientError) as caught:
            acquire_lock(self.file(), deadline_ms=300, stale_ms=600_000)
        self.assertEqual(caught.exception.code, "LOCK_TIMEOUT")
        self.assertEqual(caught.exception.details["holderPid"], line["pid"])
        self.assertIn(str(line["pid"]), caught.exception.message)

    def test_the_lock_of_a_killed_holder_is_taken_at_once_by_its_owner_record(self):
        holder = self.start_client("hold-lock", "--file", self.file())
        json.loads(holder.stdout.readline())
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        self.assertFalse(is_process_alive(holder.pid))
        self.assertTrue(os.path.isdir(self.file() + ".lock"), "a SIGKILLed holder leaves its lock behind")
        # A stale time of ten minutes: only the owner-record rule can free this lock.
        lock = acquire_lock(self.file(), deadline_ms=5_000, stale_ms=600_000)
        self.assertTrue(lock.is_held())
        lock.release()

    def test_a_lock_without_record_is_taken_once_its_mtime_is_older_than_stale(self):
        os.mkdir(self.file() + ".lock")  # as Claude Code's proper-lockfile leaves it
        with self.assertRaises(MusterClientError):
            acquire_lock(self.file(), deadline_ms=200, stale_ms=10_000)
        old = time.time() - 11
        os.utime(self.file() + ".lock", (old, old))
        lock = acquire_lock(self.file(), deadline_ms=2_000, stale_ms=10_000)
        lock.release()

    def test_release_after_a_take_over_reports_the_lost_lock(self):
        lock = acquire_lock(self.file(), stale_ms=60_000)
        lock._stop.set()  # stop refreshing, then age the lock as if this process had paused
        old = time.time() - 120
        os.utime(self.file() + ".lock", (old, old))
        thief = acquire_lock(self.file(), deadline_ms=2_000, stale_ms=60_000)
        self.assertFalse(lock.is_held())
        with self.assertRaises(MusterClientError) as caught:
            lock.release()
        self.assertEqual(caught.exception.code, "LOCK_LOST")
        self.assertTrue(thief.is_held())
        thief.release()

    def test_a_stopped_live_holder_is_never_overtaken_even_past_stale_time(self):
        holder = self.start_client("hold-lock", "--file", self.file())
        line = json.loads(holder.stdout.readline())
        holder.send_signal(signal.SIGSTOP)
        self.addCleanup(holder.send_signal, signal.SIGCONT)
        # Age the lock well past the stale time, keeping the holder's stamp so that its owner
        # record still describes it: the mtime rule alone would take this lock.
        with open(self.file() + ".lock.owner", encoding="utf-8") as handle:
            stamp = parse_owner_record(handle.read())["lockStamp"] or 0
        old_ns = (time.time_ns() // 1_000_000 - 120_000) * 1_000_000 + stamp * 1000
        os.utime(self.file() + ".lock", ns=(old_ns, old_ns))
        with self.assertRaises(MusterClientError) as caught:
            acquire_lock(self.file(), deadline_ms=1_500, stale_ms=500)
        self.assertEqual(caught.exception.code, "LOCK_TIMEOUT")
        self.assertEqual(caught.exception.details["holderPid"], line["pid"])
        self.assertTrue(caught.exception.details["holderStopped"])
        self.assertIn("stopped", caught.exception.message)
        self.assertIn(f"kill -CONT {line['pid']}", caught.exception.message)
        self.assertTrue(os.path.isdir(self.file() + ".lock"))
        # Once the holder is gone, its owner record frees the lock at once.
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        lock = acquire_lock(self.file(), deadline_ms=5_000, stale_ms=600_000)
        self.assertTrue(lock.is_held())
        lock.release()

    def test_the_default_deadline_is_twice_the_stale_time(self):
        self.assertEqual(DEFAULT_DEADLINE_MS, 2 * DEFAULT_STALE_MS)
