"""The files finalize() writes, at a path a user chose (the session's name), in a process that
may run as root: an earlier profile is replaced, as Proton does, but never through a link someone
planted, and what is not a regular file is never replaced."""
import json
import os
import stat


def finalize_program(setup=""):
    """A session named "out" with one scope; `setup` runs just before finalize()."""
    return f"""
import os
import protond.profiler as proton
proton.start("out")
with proton.scope("a"):
    pass
path = os.path.abspath("out.hatchet")
{setup}
proton.finalize()
"""


def test_an_earlier_profile_is_replaced(daemon):
    path = os.path.join(daemon.directory, "out.hatchet")
    with open(path, "w") as f:
        f.write("old\n")
    run = daemon.run(finalize_program())
    assert run.returncode == 0, run.stderr
    root, _ = daemon.hatchet("out")
    assert [child["frame"]["name"] for child in root["children"]] == ["a"]
    assert sorted(os.listdir(daemon.directory)) == ["out.hatchet", "protond.log", "protond.sock",
                                                    "protond.sock.lock", "state"]


# The control library used to write PATH.tmpPID, following a link planted at that name: the
# profile went into the link's target, and the link was then renamed to PATH.
def test_a_link_planted_at_the_old_temporary_name_is_not_followed(daemon):
    victim = os.path.join(daemon.directory, "victim")
    with open(victim, "w") as f:
        f.write("precious\n")
    run = daemon.run(finalize_program(
        f'os.symlink({victim!r}, f"{{path}}.tmp{{os.getpid()}}")'))
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    with open(victim) as f:
        assert f.read() == "precious\n"
    path = os.path.join(daemon.directory, "out.hatchet")
    assert stat.S_ISREG(os.lstat(path).st_mode)
    with open(path) as f:
        assert json.load(f)[0]["children"][0]["frame"]["name"] == "a"


def test_a_directory_is_refused_and_kept(daemon):
    path = os.path.join(daemon.directory, "out.hatchet")
    os.mkdir(path)
    run = daemon.run(finalize_program())
    assert run.returncode == 0, run.stderr
    assert run.stderr == (f"protond.profiler: {path} was not written: {path} is a directory; only "
                          "a regular file, a character device or a FIFO is written\n")
    assert os.path.isdir(path)
