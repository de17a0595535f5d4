"""The package as users get it: its version is the project's (CMake's project()), it installs
offline with Debian's pip and setuptools into a venv and works from there, and it finds the shim
of a source checkout's build tree or says in one line which variable to set."""
import collections
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import BIN_DIR, PACKAGE_DIR, REPO, children, run_program

SHIM = os.path.join(BIN_DIR, "libprotond_shim.so")
# Where a venv's programs are, and its site-packages (sysconfig's purelib).
Venv = collections.namedtuple("Venv", "python bin_dir site_packages")
# Nothing that would make Python find protond, or the shim, outside the venv.
OUTSIDE = {"PYTHONPATH": None, "PROTOND_SHIM": None}


def cmake_project_version():
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        found = re.search(r"^project\(protond\b[^)]*\bVERSION ([0-9.]+)", f.read(), re.MULTILINE)
    assert found, "no project(protond ... VERSION x.y.z) in the top CMakeLists.txt"
    return found.group(1)


def copy_package(destination):
    """The package's folder as it is in git, without what a build or a run left in it."""
    shutil.copytree(PACKAGE_DIR, destination,
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))


def fake_checkout(directory, built):
    """<directory>/checkout with the package in client-lib/python and, when `built`, this build's
    bin/ as its build/bin."""
    checkout = directory / "checkout"
    copy_package(checkout / "client-lib" / "python")
    if built:
        os.makedirs(checkout / "build")
        os.symlink(BIN_DIR, checkout / "build" / "bin")
    return checkout


def install_in_new_venv(directory, source, *pip_options):
    """Makes a venv in `directory` and installs `source` into it with the command docs/python.md
    gives (and `pip_options`), offline: pip may use no index, and no pip configuration or PIP_*
    variable of this machine. Skips where Debian's python3-venv, python3-pip, python3-setuptools
    or python3-wheel is missing (scripts/install-deps.sh installs them, so the test command
    fails on that skip)."""
    missing = [module for module in ("ensurepip", "pip", "setuptools", "wheel")
               if importlib.util.find_spec(module) is None]
    if missing:
        pytest.skip(f"{sys.executable} has no {', '.join(missing)} (Debian: python3-venv, "
                    "python3-pip, python3-setuptools, python3-wheel)")
    venv = os.path.join(directory, "venv")
    python = os.path.join(venv, "bin", "python")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True,
                   capture_output=True, timeout=120)
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("PIP_")}
    environment["PIP_CONFIG_FILE"] = os.devnull
    install = subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "--no-build-isolation", *pip_options,
         source], cwd=directory, env=environment, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    site_packages = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    return Venv(python, os.path.join(venv, "bin"), site_packages)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The package installed into a venv, from a copy: pip builds in the folder it installs
    from (setuptools leaves build/ and protond.egg-info there), and the checkout stays as it
    was."""
    root = tmp_path_factory.mktemp("installed")
    source = os.path.join(root, "source")
    copy_package(source)
    return install_in_new_venv(root, source)


def package_files(package_folder):
    """The files of the package under `package_folder`/protond, relative to it."""
    files = set()
    for folder, subfolders, names in os.walk(os.path.join(package_folder, "protond")):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        files.update(os.path.relpath(os.path.join(folder, name), package_folder)
                     for name in names)
    return files


def test_the_package_version_is_the_cmake_project_version(tmp_path):
    run = run_program("import protond; print(protond.__version__)", str(tmp_path), {})
    assert run.returncode == 0, run.stderr
    assert run.stdout == cmake_project_version() + "\n", (
        "protond.__version__ (client-lib/python/protond/__init__.py) differs from project() in "
        "the top CMakeLists.txt")


def test_every_file_of_the_package_is_installed(installed):
    assert package_files(installed.site_packages) == package_files(PACKAGE_DIR)


def test_the_installed_package_has_the_project_version(installed, tmp_path):
    run = run_program("""
        import importlib.metadata
        import protond
        print(protond.__file__)
        print(protond.__version__, importlib.metadata.version("protond"))
    """, str(tmp_path), OUTSIDE, python=installed.python)
    assert run.returncode == 0, run.stderr
    version = cmake_project_version()
    assert run.stdout.splitlines() == [
        os.path.join(installed.site_packages, "protond", "__init__.py"), f"{version} {version}"]


def test_the_installed_package_says_in_one_line_where_it_looked_for_the_shim(installed,
                                                                             tmp_path):
    run = run_program("""
        import protond.profiler as proton
        print(proton.start("nowhere"))
    """, str(tmp_path), OUTSIDE, python=installed.python)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "None\n"
    beside = os.path.join(os.path.dirname(installed.site_packages), "bin", "libprotond_shim.so")
    assert run.stderr == (f"protond.profiler: profiling is off: no protond shim at {beside} "
                          "(as in a bundle); set PROTOND_SHIM to the path of "
                          "libprotond_shim.so\n")


def test_the_installed_package_records_through_the_shim_protond_shim_names(installed, daemon):
    run = daemon.launch([installed.python, "-c", """if True:
        import protond.profiler as proton
        print("id", proton.start("installed"))
        with proton.scope("step", metrics={"flops": 7}):
            pass
        proton.finalize()
    """], env=dict(OUTSIDE, PROTOND_SHIM=SHIM))
    assert run.returncode == 0, run.stderr
    assert run.stdout == "id 0\n"
    root, _ = daemon.hatchet("installed")
    assert children(root)["step"]["metrics"] == {"flops": 7}


def test_the_installed_launcher_profiles_a_script(installed, daemon):
    script = daemon.write("work/script.py", """
        import protond.profiler as proton
        with proton.scope("in_script", metrics={"calls": 1}):
            pass
    """)
    command = os.path.join(installed.bin_dir, "protond-profiler")
    run = daemon.launch([command, "-n", "launched", script], env=dict(OUTSIDE, PROTOND_SHIM=SHIM))
    assert run.returncode == 0, run.stderr
    root, _ = daemon.hatchet("launched")
    assert children(root)["in_script"]["metrics"] == {"calls": 1}
    no_script = daemon.launch([command], env=OUTSIDE)
    assert no_script.returncode == 2
    assert no_script.stderr.startswith("usage: protond-profiler [options] script.py")


def test_protonctl_run_as_proton_uses_the_installed_package(installed, daemon):
    """PROTOND_PYTHON_DIR names the folder that holds protond/: here the venv's site-packages,
    whose protond/as_proton/sitecustomize.py makes triton.profiler protond.profiler."""
    script = daemon.write("proton_script.py", """
        import protond
        import triton.profiler as proton
        print(protond.__file__)
        print("session", proton.start("as_proton"))
        with proton.scope("step", metrics={"flops": 3}):
            pass
        proton.finalize()
    """)
    run = daemon.launch([os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket, "run",
                         "--as-proton", "--", installed.python, script],
                        env=dict(OUTSIDE, PROTOND_PYTHON_DIR=installed.site_packages))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        os.path.join(installed.site_packages, "protond", "__init__.py"), "session 0"]
    root, _ = daemon.hatchet("as_proton")
    assert children(root)["step"]["metrics"] == {"flops": 3}


def test_an_editable_install_uses_the_shim_of_the_checkouts_build_tree(tmp_path):
    checkout = fake_checkout(tmp_path, built=True)
    editable = install_in_new_venv(str(tmp_path), str(checkout / "client-lib" / "python"), "-e")
    run = run_program("""
        from protond import _shim
        print(_shim.library()._name if _shim.library() else _shim.load_error())
    """, str(tmp_path), OUTSIDE, python=editable.python)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"{checkout}/build/bin/libprotond_shim.so\n"


def test_a_source_checkout_uses_the_shim_of_its_build_tree(tmp_path, daemon):
    checkout = fake_checkout(tmp_path, built=True)
    run = daemon.run("""
        from protond import _shim
        import protond.profiler as proton
        print(_shim.library()._name if _shim.library() else _shim.load_error())
        print("id", proton.start("checkout"))
        with proton.scope("step", metrics={"n": 1}):
            pass
        proton.finalize()
    """, env={"PYTHONPATH": str(checkout / "client-lib" / "python"), "PROTOND_SHIM": None})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [f"{checkout}/build/bin/libprotond_shim.so", "id 0"]
    root, _ = daemon.hatchet("checkout")
    assert children(root)["step"]["metrics"] == {"n": 1}


def test_a_source_checkout_without_a_build_says_in_one_line_which_variable_to_set(tmp_path):
    checkout = fake_checkout(tmp_path, built=False)
    run = run_program("""
        import protond.profiler as proton
        print(proton.start("unbuilt"))
    """, str(tmp_path), {"PYTHONPATH": str(checkout / "client-lib" / "python"),
                         "PROTOND_SHIM": None})
    assert run.returncode == 0, run.stderr
    assert run.stdout == "None\n"
    assert run.stderr == (f"protond.profiler: profiling is off: no protond shim at "
                          f"{checkout}/build/bin/libprotond_shim.so (this source checkout's "
                          "build tree); set PROTOND_SHIM to the path of libprotond_shim.so\n")


def test_a_protond_shim_that_cannot_be_loaded_is_named_in_one_line(tmp_path):
    missing = tmp_path / "nowhere" / "libprotond_shim.so"
    run = run_program("""
        import protond.profiler as proton
        print(proton.start("missing"))
    """, str(tmp_path), {"PROTOND_SHIM": str(missing)})
    assert run.returncode == 0, run.stderr
    assert run.stdout == "None\n"
    assert run.stderr == (f"protond.profiler: profiling is off: cannot load {missing} "
                          f"(PROTOND_SHIM): {missing}: cannot open shared object file: No such "
                          "file or directory\n")
