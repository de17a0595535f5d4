#!/usr/bin/env python3
"""deploy/systemd/protond.service as systemd reads it.

`systemd-analyze verify` must accept the unit without a word (unknown keys and bad values are
only warnings there, so any output fails the test), with ExecStart pointed at this build's
protond: verify also checks that the binary exists. The unit's paths must agree with each other,
and `systemd-analyze security --offline=true` must rate its exposure as it does now, so that a
hardening option lost in an edit is noticed. Nothing here starts the service: that needs a
running systemd (docs/cluster.md says what was verified and how). Exits 77 (CTest: skipped) with
a message where systemd-analyze is not installed.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIPPED = 77
UNIT = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "systemd", "protond.service")
INSTALLED_BINARY = "/opt/protond/bin/protond"
# systemd 252's rating of the unit today; lower is better, "OK" ends at 4.9.
MAX_EXPOSURE = 3.0


def service_settings(text):
    """The [Service] section's settings, by key; a key set twice keeps its values in order."""
    settings = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line
        elif section == "[Service]":
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


def check_paths(settings):
    """The socket and state directory in ExecStart are the directories systemd makes."""
    exec_start = settings["ExecStart"][0].split()
    assert exec_start[0] == INSTALLED_BINARY, exec_start
    socket = exec_start[exec_start.index("--socket") + 1]
    state_dir = exec_start[exec_start.index("--state-dir") + 1]
    assert socket == "/run/protond/protond.sock", socket
    assert state_dir == "/var/lib/protond", state_dir
    assert settings["RuntimeDirectory"] == ["protond"], settings["RuntimeDirectory"]
    assert settings["StateDirectory"] == ["protond"], settings["StateDirectory"]
    # Every user's programs reach the socket through its directory.
    assert settings["RuntimeDirectoryMode"] == ["0755"], settings["RuntimeDirectoryMode"]
    assert "--detach" not in exec_start, "Type=simple: protond must stay in the foreground"


def check_privileges(settings):
    caps = set(settings["CapabilityBoundingSet"][0].split())
    assert caps == {"CAP_SYS_PTRACE", "CAP_DAC_READ_SEARCH"}, caps
    assert settings["NoNewPrivileges"] == ["yes"]
    assert settings["ProtectSystem"] == ["strict"]
    # protond profiles every user's processes: /proc must show them all.
    assert settings.get("ProtectProc", ["default"]) == ["default"], settings["ProtectProc"]
    assert settings.get("ProcSubset", ["all"]) == ["all"], settings["ProcSubset"]
    families = set(settings["RestrictAddressFamilies"][0].split())
    assert families == {"AF_UNIX", "AF_INET", "AF_INET6"}, families


def verify(unit_dir, protond):
    """systemd-analyze verify on a copy whose ExecStart is this build's protond."""
    with open(UNIT) as f:
        text = f.read()
    copy = os.path.join(unit_dir, "protond.service")
    with open(copy, "w") as f:
        f.write(text.replace(INSTALLED_BINARY, protond))
    done = subprocess.run(["systemd-analyze", "verify", copy], capture_output=True, text=True)
    output = (done.stdout + done.stderr).strip()
    assert done.returncode == 0 and not output, f"systemd-analyze verify:\n{output}"
    return copy


def exposure(copy):
    done = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", copy],
                          capture_output=True, text=True)
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout + done.stderr)
    assert match, done.stdout + done.stderr
    return float(match.group(1))


def main():
    if shutil.which("systemd-analyze") is None:
        print("skipped: systemd-analyze is not installed (Debian's systemd package has it); "
              "the unit was not verified")
        return SKIPPED
    with open(UNIT) as f:
        settings = service_settings(f.read())
    check_paths(settings)
    check_privileges(settings)
    protond = os.path.join(os.environ["PROTOND_BIN_DIR"], "protond")
    assert os.access(protond, os.X_OK), f"{protond} is not built"
    with tempfile.TemporaryDirectory() as unit_dir:
        copy = verify(unit_dir, protond)
        level = exposure(copy)
    assert level <= MAX_EXPOSURE, f"exposure {level} > {MAX_EXPOSURE}: a hardening option is lost"
    print(f"systemd-analyze verify: clean; exposure level {level}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
