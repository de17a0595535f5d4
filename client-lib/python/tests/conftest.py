"""A real protond in a temporary directory, and programs that use protond.profiler run as their
own processes, as a user's would. The build's binaries come from PROTOND_BIN_DIR (default:
<repo>/build/bin)."""
import json
import os
import signal
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
        self.log = os.path.join(directory, "protond.log")  # appended to by each daemon here
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(
                [os.path.join(BIN_DIR, "protond"), "--socket", self.socket, "--state-dir",
                 os.path.join(directory, "state")], stderr=log)
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
        process with text output. No daemon is autostarted unless `env` asks for it."""
        return self.launch([sys.executable, "-c", textwrap.dedent(program)], env)

    def launch(self, argv, env=None):
        """Runs `argv` in the daemon's directory, with the package on PYTHONPATH and this
        daemon's socket (`env` adds or, with None values, removes variables); returns the
        completed process with text output."""
        environment = program_environment(
            dict({"PROTOND_SOCKET": self.socket, "PROTOND_AUTOSTART": "0"}, **(env or {})))
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


def program_environment(env):
    environment = dict(os.environ, PROTOND_SHIM=os.path.join(BIN_DIR, "libprotond_shim.so"),
                       PYTHONPATH=PACKAGE_DIR)
    for variable in ("TRITON_PROTON_DISABLE", "PROTOND_DISABLE", "PROTOND_AUTOSTART"):
        environment.pop(variable, None)
    environment.update(env)
    return {name: value for name, value in environment.items() if value is not None}


def run_program(program, directory, env, python=sys.executable):
    """Runs `program` (Python source) with `python` in `directory`, with the package on
    PYTHONPATH and the build's shim in PROTOND_SHIM unless `env` removes them (None values)."""
    return subprocess.run([python, "-c", textwrap.dedent(program)], cwd=directory,
                          env=program_environment(env), capture_output=True, text=True,
                          timeout=60)


def processes_mentioning(text):
    """pids of this machine's processes whose command line contains `text`."""
    pids = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    pids.append(int(entry))
        except (OSError, ValueError):
            continue
    return pids


class Autostart:
    """Programs that find no daemon at a socket of their own (in a temporary directory, as are
    XDG_RUNTIME_DIR and XDG_STATE_HOME), so that whatever they start never meets the user's real
    daemon. stop() ends every daemon started for that socket."""

    def __init__(self, directory):
        self.directory = directory
        self.socket = os.path.join(directory, "run", "protond.sock")
        self.state_dir = self.socket + ".state"  # client::StateDirForSocket
        self.env = {"PROTOND_SOCKET": self.socket,
                    "XDG_RUNTIME_DIR": os.path.join(directory, "xdg-run"),
                    "XDG_STATE_HOME": os.path.join(directory, "xdg-state")}

    def run(self, program, env=None):
        return run_program(program, self.directory, dict(self.env, **(env or {})))

    def start(self, program):
        return subprocess.Popen([sys.executable, "-c", textwrap.dedent(program)],
                                cwd=self.directory, env=program_environment(self.env),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def protonctl(self, *args):
        return subprocess.run([os.path.join(BIN_DIR, "protonctl"), "--socket", self.socket,
                               *args], capture_output=True, text=True, timeout=30)

    def daemons(self):
        """pids of the protond processes serving this socket."""
        pids = []
        for pid in processes_mentioning(self.socket):
            try:
                if os.path.basename(os.readlink(f"/proc/{pid}/exe")) == "protond":
                    pids.append(pid)
            except OSError:
                continue  # it has just exited
        return pids

    def stop(self):
        for pid in self.daemons():
            os.kill(pid, signal.SIGTERM)
        for _ in range(400):
            if not self.daemons():
                return
            time.sleep(0.025)
        for pid in self.daemons():
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def autostart(tmp_path):
    started = Autostart(str(tmp_path))
    yield started
    started.stop()


@pytest.fixture
def daemon(tmp_path):
    running = Daemon(str(tmp_path))
    yield running
    running.stop()


def children(node):
    """{name: child} of a Hatchet node."""
    return {child["frame"]["name"]: child for child in node["children"]}
