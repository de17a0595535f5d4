"""The command-line launcher, as Proton's `proton` command (the module triton.profiler.proton):

    python -m protond.profiler [-n NAME] [-b BACKEND] [-c CONTEXT] [-d DATA] [-k HOOK] [-m MODE] \\
        script.py [args...]
    python -m protond.profiler [options] pytest [pytest args...]

It starts session 0, runs the script as __main__ (or pytest.main), then finalizes: NAME.hatchet
(NAME.chrome_trace with -d trace) is written also when the script raises or exits, and the
launcher exits with the script's status. In the script start() returns None, and naming a
session other than 0 raises, as in Proton; its finalize() writes the file early."""
import argparse
import os
import runpy
import sys
import traceback

from .profile import finalize, set_command_line, start


def _parser(prog):
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Profiles a Python script or a pytest run in protond session 0, and writes "
        "NAME.hatchet (NAME.chrome_trace with -d trace) when it ends.",
        usage="%(prog)s [options] script.py [script args]\n"
        "       %(prog)s [options] pytest [pytest args]")
    parser.add_argument("-n", "--name",
                        help="profile name: writes NAME.hatchet or NAME.chrome_trace (default "
                        "proton)")
    parser.add_argument("-b", "--backend", choices=["cupti", "roctracer", "instrumentation"],
                        help="profiling backend (default: cupti on NVIDIA)")
    parser.add_argument("-c", "--context", choices=["shadow", "python"], default="shadow")
    parser.add_argument("-d", "--data", choices=["tree", "trace"], default="tree")
    parser.add_argument("-k", "--hook", choices=["triton"], help="launch hook")
    parser.add_argument("-m", "--mode",
                        help="Proton's mode: pcsampling[:interval=CYCLES] also samples the GPU's "
                        "program counters")
    parser.add_argument("target", nargs=argparse.REMAINDER,
                        help="the script and its arguments, or pytest and its arguments")
    return parser


def _run_script(path, args):
    """Runs `path` as `python path args...` would; returns its exit status."""
    saved_argv = sys.argv
    sys.argv = [path] + args
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")
        return 0
    except SystemExit as exit_request:
        return exit_request.code
    except Exception:  # the script's own error: reported as Python would, then finalized
        traceback.print_exc()
        return 1
    finally:
        sys.argv = saved_argv


def _run_target(target):
    if os.path.basename(target[0]) == "pytest":
        import pytest
        return int(pytest.main(target[1:]))
    return _run_script(target[0], target[1:])


def main(argv=None, prog="python -m protond.profiler"):
    parser = _parser(prog)
    options = parser.parse_args(argv)
    if not options.target:
        parser.error("a script (or pytest) to run is required")
    try:
        start(options.name, context=options.context, data=options.data, backend=options.backend,
              mode=options.mode, hook=options.hook)
    except (NotImplementedError, ValueError) as error:  # the same checks, and words, as start()
        parser.error(str(error))
    set_command_line()
    try:
        status = _run_target(options.target)
    finally:
        finalize()
    sys.exit(status)


def command():
    """`protond-profiler`, the command pip installs (pyproject.toml): main() under that name."""
    main(prog="protond-profiler")


if __name__ == "__main__":
    main()
