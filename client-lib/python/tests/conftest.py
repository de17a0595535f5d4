"""A real protond in a temporary directory, and programs that use protond.profiler run as their
own processes, as a user's would. The build's binaries come from PROTOND_BIN_DIR (default:
<repo>/build/bin)."""
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIN_DIR = os.environ.get("PROTOND_BIN_DIR", os.path.join(REPO, "build", "bin"))
PACKAGE_DIR = os.path.join(REPO, "client-lib", "python")


class Daemon:
    def __init__(self, directory):
        self.directory = directory
        self.socket = os.path.join(directory, "protond.sock")
        self.process = subprocess.Popen(
            [os.path.join(BIN_DIR, "protond"), "--socket", self.socket, "--state-dir",
             os.path.join(directory, "state")], stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(self.socket):
                return
            time.sleep(0.025)
        raise RuntimeError("protond did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait()

    def run(self, program, env=None):
        """Runs `program` (Python source) in the daemon's directory; returns the completed
        process with text output."""
        return self.launch([sys.executable, "-c", textwrap.dedent(program)], env)

    def launch(self, argv, env=None):
        """Runs `argv` in the daemon's directory, with the package on PYTHONPATH and this
        daemon's socket (`env` adds or, with None values, removes variables); returns the
        completed process with text output."""
        environment = dict(os.environ, PROTOND_SHIM=os.path.join(BIN_DIR, "libprotond_shim.so"),
                           PROTOND_SOCKET=self.socket, PYTHONPATH=PACKAGE_DIR)
        environment.pop("TRITON_PROTON_DISABLE", None)
        environment.update(env or {})
        environment = {name: value for name, value in environment.items() if value is not None}
        return subprocess.run(argv, cwd=self.directory, env=environment, capture_output=True,
                              text=True, timeout=60)

    def write(self, path, source):
        """Writes `source` (dedented) to `path` under the daemon's directory; returns the
        full path."""
        full = os.path.join(self.directory, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(textwrap.dedent(source))
        return full

    def hatchet(self, name):
        with open(os.path.join(self.directory, name + ".hatchet")) as f:
            return json.load(f)


@pytest.fixture
def daemon(tmp_path):
    running = Daemon(str(tmp_path))
    yield running
    running.stop()


def children(node):
    """{name: child} of a Hatchet node."""
    return {child["frame"]["name"]: child for child in node["children"]}
