"""Shared helpers for the client's tests."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

CLIENT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPOSITORY_ROOT = os.path.dirname(os.path.dirname(CLIENT_ROOT))
REFERENCE = os.environ.get(
    "MUSTER_REFERENCE_DIR",
    os.path.join(REPOSITORY_ROOT, "fixtures", "claude-code-2.1.45"),
)


def reference_json_files():
    """Every JSON file Claude Code wrote in the reference folder (paths)."""
    found = []
    for folder, _, names in os.walk(REFERENCE):
        found.extend(os.path.join(folder, name) for name in names if name.endswith(".json"))
    return sorted(found)


def require_reference(test: unittest.TestCase) -> None:
    if not os.path.isdir(REFERENCE):
        test.fail(f"reference files not found at {REFERENCE}: restore fixtures/ with git (or set MUSTER_REFERENCE_DIR)")


class TemporaryRootTestCase(unittest.TestCase):
    """A fresh temporary folder per test, removed afterwards."""

    def setUp(self) -> None:
        self.root = tempfile.mkdtemp(prefix="muster-python-test-")
        self.addCleanup(shutil.rmtree, self.root, True)

    def start_client(self, *arguments: str) -> subprocess.Popen:
        """Starts the client's command line; killed and reaped when the test ends."""
        process = start_client(*arguments)

        def stop() -> None:
            if process.poll() is None:
                process.kill()
            process.communicate()

        self.addCleanup(stop)
        return process


def start_client(*arguments: str) -> subprocess.Popen:
    """Starts ``python3 -m muster_client ...`` as a child process."""
    return subprocess.Popen(
        [sys.executable, "-m", "muster_client", *arguments],
        cwd=CLIENT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
