#!/usr/bin/env python3
"""Lists every test that skipped in a run of the test command, and fails on one that is not
expected to skip there (tests/skips_allowed.txt). A skip reads as a pass in ctest and pytest
summaries; a test that backs a documented claim must not skip unnoticed.

Usage: check_skips.py ALLOWED GTEST_SKIPS [CTEST_OUTPUT|PYTEST_OUTPUT ...]
  GTEST_SKIPS: the file PROTOND_SKIPPED_TESTS named ("BINARY SUITE.TEST<tab>REASON" lines)
  CTEST_OUTPUT: ctest's output ("... Test  #5: NAME ....***Skipped")
  PYTEST_OUTPUT: pytest's output with -rs ("SKIPPED [1] FILE:LINE: REASON")
"""
import re
import sys

CTEST_SKIP = re.compile(r"Test +#\d+: (\S+) \.*\*\*\*Skipped")
PYTEST_SKIP = re.compile(r"^SKIPPED \[\d+\] (\S+?):? (.*)$")


def read_allowed(path):
    allowed = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if " -- " not in line:
                sys.exit(f"{path}:{number}: expected 'REGEX -- why', got: {line}")
            pattern, why = line.split(" -- ", 1)
            allowed.append((re.compile(pattern), why))
    return allowed


def read_skips(gtest_skips, outputs):
    skips = []  # (name, reason)
    try:
        with open(gtest_skips) as f:
            for line in f:
                name, _, reason = line.rstrip("\n").partition("\t")
                skips.append((name, reason))
    except FileNotFoundError:
        pass  # no GoogleTest test skipped
    for path in outputs:
        with open(path) as f:
            for line in f:
                if match := CTEST_SKIP.search(line):
                    skips.append(("ctest " + match.group(1), "exited 77"))
                elif match := PYTEST_SKIP.match(line):
                    skips.append(("pytest " + match.group(1), match.group(2)))
    return sorted(set(skips))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    allowed = read_allowed(sys.argv[1])
    unexpected = 0
    skips = read_skips(sys.argv[2], sys.argv[3:])
    print(f"skipped tests: {len(skips)}")
    for name, reason in skips:
        expected = any(pattern.match(name) for pattern, _ in allowed)
        print(f"  {'expected  ' if expected else 'UNEXPECTED'} {name}: {reason}")
        unexpected += not expected
    if unexpected:
        print(f"{unexpected} test(s) skipped that must run here; a skip is not a pass "
              f"(tests/skips_allowed.txt lists the expected ones)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
