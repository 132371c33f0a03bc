import unittest

from muster_client.errors import MusterClientError
from muster_client.layout import RootLayout, default_root


class LayoutTest(unittest.TestCase):
    def test_paths_follow_the_protocol_layout(self):
        layout = RootLayout("/home/u/.muster/")
        self.assertEqual(layout.team_config_path("conf-team"), "/home/u/.muster/teams/conf-team/config.json")
        self.assertEqual(layout.inbox_path("conf-team", "alpha@conf-team"), "/home/u/.muster/teams/conf-team/inboxes/alpha-conf-team.json")
        self.assertEqual(layout.inbox_archive_path("t", "beta"), "/home/u/.muster/teams/t/inboxes/beta.archive.jsonl")
        self.assertEqual(layout.task_path("t", "12"), "/home/u/.muster/tasks/t/12.json")
        self.assertEqual(layout.tasks_lock_path("t"), "/home/u/.muster/tasks/t/.lock")
        self.assertEqual(layout.high_watermark_path("t"), "/home/u/.muster/tasks/t/.highwatermark")

    def test_unsafe_names_are_refused(self):
        layout = RootLayout("/r")
        for team in ("", ".", "..", "a/b", "a\\b", "a\x00b", "tab\there", "x" * 256):
            with self.assertRaises(MusterClientError) as caught:
                layout.team_directory(team)
            self.assertEqual(caught.exception.code, "INVALID_NAME", repr(team))
        for task_id in ("0", "07", "-1", "1.5", "abc", ""):
            with self.assertRaises(MusterClientError):
                layout.task_path("t", task_id)

    def test_default_root_prefers_muster_home(self):
        self.assertEqual(default_root({"MUSTER_HOME": " /srv/m/ "}, "/home/u"), "/srv/m")
        self.assertEqual(default_root({}, "/home/u"), "/home/u/.muster")
