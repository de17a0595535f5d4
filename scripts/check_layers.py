#!/usr/bin/env python3
"""Fails when one part of the tree uses another that ARCHITECTURE.md's layout does not allow.

Usage: check_layers.py [--root DIR] [--allow FILE]

A part is a folder named in the allow-list (scripts/layers.txt); a file belongs to the longest
one its path starts with. A part uses another when one of its files includes a header of it
(`#include "daemon/..."`, and the generated "protond.pb.h" of proto/), or when its CMakeLists.txt
links a target that the other part defines. Every arrow not in the allow-list is printed as
FILE:LINE: PART -> PART (what), and the exit status is 1.

A test (a file named *_test.* or *_fuzzer.*, a helper in a testing/ folder, and the targets
protond_test and protond_fuzzer make) may use any part: it checks a part against the real other
side of its contract, such as the daemon's ring reader against the shim's writer. The product
code beside it may not, and product code never includes a testing/ helper.

One more rule, for every part and its tests: a folder named internal/ is used only from the
folder that holds it (and below).
"""

import argparse
import pathlib
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".h", ".cc", ".cpp", ".c", ".cu", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# Headers that live elsewhere than their include path says.
INCLUDE_ROOTS = {
    "protond.pb.h": "proto/protond.pb.h",
    "protond.grpc.pb.h": "proto/protond.grpc.pb.h",
    "protond/": "shim/include/protond/",
    "ProtonInstrument/": "mlir-instrument/include/ProtonInstrument/",
}
TARGET_DEFINITION = re.compile(r"\b(?:add_library|add_executable|protond_test|protond_fuzzer)\(\s*"
                               r"([A-Za-z0-9_.+-]+)")
LINKING_CALL = re.compile(r"\b(target_link_libraries|protond_test|protond_fuzzer)\(")
TEST_FILE = re.compile(r"_(test|fuzzer)\.[a-z]+$")
TEST_TARGET = re.compile(r"\b(?:protond_test|protond_fuzzer)\(\s*([A-Za-z0-9_.+-]+)")


def read_allow_list(path):
    """Returns {part: set of parts it may use}; '*' means any part."""
    allowed = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" not in line:
            sys.exit(f"{path}:{number}: expected 'part: parts it may use', got {line!r}")
        part, uses = line.split(":", 1)
        allowed[part.strip()] = set(uses.split())
    return allowed


def part_of(path, parts):
    """The longest part that `path` (relative to the root) lies in, or None."""
    best = None
    for part in parts:
        if (path == part or path.startswith(part + "/")) and (best is None or len(part) > len(best)):
            best = part
    return best


def tracked_files(root):
    listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit(f"git ls-files in {root} failed: {listed.stderr.strip()}")
    return [name for name in listed.stdout.splitlines() if (root / name).is_file()]


def include_target(include, including_file, root):
    """The path (relative to root) that an include names, or None for a header of no part."""
    for prefix, location in INCLUDE_ROOTS.items():
        if include == prefix or (prefix.endswith("/") and include.startswith(prefix)):
            return location + include[len(prefix):]
    beside = pathlib.PurePosixPath(including_file).parent / include
    if (root / beside).exists():
        return str(beside)
    if (root / include).exists():
        return include
    return None


def is_test_code(path):
    """Whether `path` is a test, a fuzzer, or a helper that only they use (in a testing/ folder)."""
    return bool(TEST_FILE.search(path)) or "testing" in pathlib.PurePosixPath(path).parts[:-1]


def internal_owner(path):
    """The folder allowed to use `path` when it lies in an internal/ folder, else None."""
    parts = pathlib.PurePosixPath(path).parts
    if "internal" not in parts[:-1]:
        return None
    return "/".join(parts[: parts.index("internal")])


def check_arrow(source, line, user, used_path, what, allowed, parts, problems):
    used = part_of(used_path, parts)
    if used is None or used == user:
        return
    uses = allowed.get(user, set())
    if used != "proto" and "*" not in uses and used not in uses:
        problems.append(f"{source}:{line}: {user} -> {used} ({what})")


def check_includes(root, files, allowed, parts, problems):
    for name in files:
        if not name.endswith(SOURCE_SUFFIXES):
            continue
        user = part_of(name, parts)
        text = (root / name).read_text(errors="replace").splitlines()
        for number, line in enumerate(text, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = include_target(match.group(1), name, root)
            if target is None:
                continue
            owner = internal_owner(target)
            if owner is not None and not (name == owner or name.startswith(owner + "/")):
                problems.append(f"{name}:{number}: includes {target}, internal to {owner}/")
            if is_test_code(target) and not is_test_code(name):
                problems.append(f"{name}:{number}: product code includes the test helper {target}")
            if user is not None and not is_test_code(name):
                check_arrow(name, number, user, target, f'#include "{match.group(1)}"', allowed,
                            parts, problems)


def cmake_calls(text, call):
    """(line, argument text) of each call matched by `call`, up to its closing parenthesis."""
    for match in call.finditer(text):
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        yield text.count("\n", 0, match.start()) + 1, text[match.end():end - 1]


def without_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def check_links(root, files, allowed, parts, problems):
    lists = [name for name in files if pathlib.PurePosixPath(name).name == "CMakeLists.txt"]
    defined_in = {}
    tests = set()
    for name in lists:
        text = without_comments((root / name).read_text())
        for target in TARGET_DEFINITION.findall(text):
            defined_in[target] = str(pathlib.PurePosixPath(name).parent)
        tests.update(TEST_TARGET.findall(text))
    for name in lists:
        user = part_of(name, parts)
        if user is None:
            continue
        text = without_comments((root / name).read_text())
        for line, arguments in cmake_calls(text, LINKING_CALL):
            tokens = arguments.split()
            if tokens and tokens[0] in tests:
                continue
            # The first word names the target being defined or linked, not a dependency.
            for token in tokens[1:]:
                if token in defined_in:
                    check_arrow(name, line, user, defined_in[token] + "/CMakeLists.txt",
                                f"links {token}", allowed, parts, problems)


def main():
    here = pathlib.Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, default=here.parent)
    parser.add_argument("--allow", type=pathlib.Path, default=here / "layers.txt")
    args = parser.parse_args()
    allowed = read_allow_list(args.allow)
    parts = set(allowed) | {"proto"}
    files = tracked_files(args.root)
    problems = []
    check_includes(args.root, files, allowed, parts, problems)
    check_links(args.root, files, allowed, parts, problems)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_layers: {len(problems)} use(s) across parts that {args.allow.name} does not "
              "allow (ARCHITECTURE.md, 'Layout')", file=sys.stderr)
        return 1
    print(f"check_layers: {len(files)} files, every use between parts allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
