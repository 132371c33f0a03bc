import os
import shutil

from muster_client.errors import MusterClientError
from muster_client.generated.wire_types import TaskStatus, TeamConfig
from muster_client.team import list_tasks, read_team_config

from .support import REFERENCE, TemporaryRootTestCase, require_reference


class TeamTest(TemporaryRootTestCase):
    def test_reads_the_reference_team_config_and_task_list(self):
        require_reference(self)
        shutil.copytree(os.path.join(REFERENCE, "06-all-teammates-spawned"), self.root, dirs_exist_ok=True)
        config = read_team_config(self.root, "conf-team")
        self.assertIsInstance(config.typed, TeamConfig)
        self.assertEqual(config.typed.members[0].name, "team-lead")
        self.assertEqual([member.name for member in config.typed.members], [member["name"] for member in config.raw["members"]])
        visible = list_tasks(self.root, "conf-team")
        everything = list_tasks(self.root, "conf-team", include_internal=True)
        self.assertEqual([task.raw["id"] for task in everything], ["1", "2", "3", "5", "6", "7"])
        self.assertTrue(0 < len(visible) < len(everything))
        self.assertTrue(all(isinstance(task.typed.status, TaskStatus) for task in visible))
        self.assertFalse(any((task.raw.get("metadata") or {}).get("_internal") for task in visible))

    def test_a_missing_team_is_reported(self):
        with self.assertRaises(MusterClientError) as caught:
            read_team_config(self.root, "nope")
        self.assertEqual(caught.exception.code, "NOT_FOUND")
        self.assertEqual(list_tasks(self.root, "nope"), [])
