"""The package as users get it: its version is the project's (CMake's project()), and it finds
the shim of a source checkout's build tree or says in one line which variable to set."""
import os
import re
import shutil

from conftest import BIN_DIR, PACKAGE_DIR, REPO, children, run_program


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


def test_the_package_version_is_the_cmake_project_version(tmp_path):
    run = run_program("import protond; print(protond.__version__)", str(tmp_path), {})
    assert run.returncode == 0, run.stderr
    assert run.stdout == cmake_project_version() + "\n", (
        "protond.__version__ (client-lib/python/protond/__init__.py) differs from project() in "
        "the top CMakeLists.txt")


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
