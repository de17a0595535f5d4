#!/usr/bin/env python3
"""scripts/check_layers.py on small trees: it passes allowed uses and names each forbidden one."""

import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check_layers.py"
ALLOW = """\
common:
view: common
daemon: view common
cli: view common
tests: *
"""


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.dir.name)
        subprocess.run(["git", "init", "-q", str(self.root)], check=True)
        self.write("layers.txt", ALLOW)
        self.write("common/text.h", "")
        self.write("view/tree.h", '#include "common/text.h"\n')
        self.write("cli/tree_command.cc", '#include "view/tree.h"\n#include <vector>\n')
        self.write("daemon/service.cc", '#include "view/tree.h"\n#include "absl/status.h"\n')

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        subprocess.run(["git", "add", name], cwd=self.root, check=True)

    def check(self):
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(self.root), "--allow",
                               str(self.root / "layers.txt")], capture_output=True, text=True)

    def test_allowed_uses_pass(self):
        run = self.check()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("every use between parts allowed", run.stdout)

    def test_an_include_against_the_layers_fails_and_is_named(self):
        self.write("daemon/service.cc", '#include "view/tree.h"\n#include "cli/tree_command.h"\n')
        self.write("cli/tree_command.h", "")
        run = self.check()
        self.assertEqual(run.returncode, 1)
        self.assertIn('daemon/service.cc:2: daemon -> cli (#include "cli/tree_command.h")',
                      run.stdout)

    def test_a_header_beside_the_file_is_its_own_part(self):
        self.write("daemon/store.h", "")
        self.write("daemon/store.cc", '#include "store.h"\n')
        self.assertEqual(self.check().returncode, 0)

    def test_linking_a_target_of_a_forbidden_part_fails(self):
        self.write("cli/CMakeLists.txt", "add_library(protond_cli_tree tree_command.cc)\n")
        self.write("daemon/CMakeLists.txt",
                   "add_executable(protond main.cc)\n"
                   "# protond_cli_tree in a comment is no use\n"
                   "target_link_libraries(protond PRIVATE\n  protond_cli_tree absl::status)\n")
        run = self.check()
        self.assertEqual(run.returncode, 1)
        self.assertIn("daemon/CMakeLists.txt:3: daemon -> cli (links protond_cli_tree)",
                      run.stdout)
        self.assertEqual(run.stdout.count("->"), 1, run.stdout)

    def test_an_internal_folder_is_used_only_from_its_own_folder(self):
        self.write("view/internal/builder.h", "")
        self.write("view/tree_test.cc", '#include "view/internal/builder.h"\n')
        self.assertEqual(self.check().returncode, 0)
        self.write("tests/run_test.cc", '#include "view/internal/builder.h"\n')
        run = self.check()
        self.assertEqual(run.returncode, 1)
        self.assertIn("tests/run_test.cc:1: includes view/internal/builder.h, internal to view/",
                      run.stdout)

    def test_a_test_may_use_any_part_and_the_code_beside_it_may_not(self):
        self.write("cli/tree_command.h", "")
        self.write("daemon/service_test.cc", '#include "cli/tree_command.h"\n')
        self.write("daemon/region_fuzzer.cc", '#include "cli/tree_command.h"\n')
        self.write("cli/CMakeLists.txt", "add_library(protond_cli_tree tree_command.cc)\n")
        self.write("daemon/CMakeLists.txt",
                   "protond_test(protond_service_test SOURCES service_test.cc\n"
                   "  LIBS protond_cli_tree)\n"
                   "target_link_libraries(protond_service_test PRIVATE protond_cli_tree)\n")
        run = self.check()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.write("daemon/service.cc", '#include "cli/tree_command.h"\n')
        run = self.check()
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stdout.count("->"), 1, run.stdout)
        self.assertIn("daemon/service.cc:1: daemon -> cli", run.stdout)

    def test_a_testing_helper_may_use_any_part_and_only_tests_may_include_it(self):
        self.write("cli/tree_command.h", "")
        self.write("daemon/testing/fixture.h", '#include "cli/tree_command.h"\n')
        self.write("daemon/service_test.cc", '#include "daemon/testing/fixture.h"\n')
        run = self.check()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.write("daemon/service.cc", '#include "daemon/testing/fixture.h"\n')
        run = self.check()
        self.assertEqual(run.returncode, 1)
        self.assertIn("daemon/service.cc:1: product code includes the test helper "
                      "daemon/testing/fixture.h", run.stdout)

    def test_a_tests_use_of_an_internal_folder_still_fails(self):
        self.write("daemon/internal/rows.h", "")
        self.write("tests/faults_test.cc", '#include "daemon/internal/rows.h"\n')
        run = self.check()
        self.assertEqual(run.returncode, 1)
        self.assertIn("internal to daemon/", run.stdout)

    def test_a_part_allowed_nothing_fails_on_any_use(self):
        self.write("shim/ring.cc", '#include "common/text.h"\n')
        self.write("layers.txt", ALLOW + "shim:\n")
        run = self.check()
        self.assertEqual(run.returncode, 1)
        self.assertIn("shim -> common", run.stdout)


if __name__ == "__main__":
    unittest.main()
