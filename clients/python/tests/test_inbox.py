import json
import os

from muster_client.errors import MusterClientError
from muster_client.inbox import Inboxes
from muster_client.json_text import format_json_file

from .support import TemporaryRootTestCase


class InboxTest(TemporaryRootTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.inboxes = Inboxes(self.root, "conf-team")
        self.file = self.inboxes.path("alpha")

    def test_send_creates_the_inbox_and_writes_claude_code_key_order(self):
        self.inboxes.send("alpha", "team-lead", "hello", summary="greeting")
        self.inboxes.send("alpha", "beta", "hi", color="green")
        with open(self.file, encoding="utf-8") as handle:
            text = handle.read()
        self.assertFalse(text.endswith("\n"))
        entries = json.loads(text)
        self.assertEqual(list(entries[0]), ["from", "text", "summary", "timestamp", "read"])
        self.assertEqual(list(entries[1]), ["from", "text", "timestamp", "color", "read"])
        self.assertRegex(entries[0]["timestamp"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertEqual([entry.raw["text"] for entry in self.inboxes.read("alpha", unread_only=True)], ["hello", "hi"])

    def test_unknown_fields_and_order_survive_appends_and_marks(self):
        os.makedirs(os.path.dirname(self.file))
        foreign = [{"extra": {"z": 1, "a": [1.5, "é"]}, "from": "x", "text": "t", "timestamp": "2026-01-01T00:00:00.000Z", "read": False, "zz": None}]
        with open(self.file, "w", encoding="utf-8") as handle:
            handle.write(format_json_file(foreign))
        self.inboxes.send("alpha", "team-lead", "second")
        self.assertEqual(self.inboxes.mark_read("alpha", self.inboxes.read("alpha")[:1]), 1)
        with open(self.file, encoding="utf-8") as handle:
            entries = json.loads(handle.read())
        foreign[0]["read"] = True
        self.assertEqual(entries[0], foreign[0])
        self.assertEqual(list(entries[0]), list(foreign[0]))
        self.assertFalse(entries[1]["read"])

    def test_mark_read_finds_an_entry_again_after_entries_before_it_were_removed(self):
        for number in range(3):
            self.inboxes.send("alpha", "team-lead", f"m{number}")
        last = self.inboxes.read("alpha")[2]
        with open(self.file, encoding="utf-8") as handle:
            entries = json.loads(handle.read())
        with open(self.file, "w", encoding="utf-8") as handle:
            handle.write(format_json_file(entries[2:]))  # as the owner's compaction would
        self.assertEqual(self.inboxes.mark_read("alpha", [last]), 1)
        self.assertEqual([entry.read for entry in self.inboxes.read("alpha")], [True])

    def test_mark_read_of_a_missing_inbox_creates_nothing(self):
        self.assertEqual(self.inboxes.mark_read("nobody"), 0)
        self.assertFalse(os.path.exists(self.inboxes.path("nobody")))

    def test_concurrent_writer_processes_lose_nothing(self):
        writers = [
            self.start_client("send", "--root", self.root, "--team", "conf-team", "--to", "alpha", "--from", f"w{number}", "--text", f"w{number}-", "--count", "25")
            for number in range(4)
        ]
        for writer in writers:
            _, error = writer.communicate(timeout=60)
            self.assertEqual(writer.returncode, 0, error)
        texts = sorted(entry.raw["text"] for entry in self.inboxes.read("alpha"))
        self.assertEqual(texts, sorted(f"w{w}-{n}" for w in range(4) for n in range(25)))
        self.assertEqual([name for name in os.listdir(os.path.dirname(self.file)) if name != "alpha.json"], [])

    def test_a_corrupt_inbox_is_moved_aside_and_never_overwritten(self):
        os.makedirs(os.path.dirname(self.file))
        with open(self.file, "w", encoding="utf-8") as handle:
            handle.write('[{"from": "x", "text": ')
        with self.assertRaises(MusterClientError) as caught:
            self.inboxes.send("alpha", "team-lead", "hello")
        self.assertEqual(caught.exception.code, "CORRUPT_FILE")
        moved = caught.exception.details["quarantinedTo"]
        with open(moved, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), '[{"from": "x", "text": ')

    def test_history_reads_the_archive_then_the_inbox(self):
        self.inboxes.send("alpha", "team-lead", "new")
        archive = self.inboxes.layout.inbox_archive_path("conf-team", "alpha")
        with open(archive, "w", encoding="utf-8") as handle:
            handle.write(json.dumps({"from": "b", "text": "old", "timestamp": "2026-01-01T00:00:00.000Z", "read": True}) + "\n")
        self.assertEqual([entry["text"] for entry in self.inboxes.read_history("alpha")], ["old", "new"])
