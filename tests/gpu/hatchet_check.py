#!/usr/bin/env python3
"""Rules on the kernel launches of a profile, for the GPU checks (tests/device/*.sh and the
comparers beside this file): which kernels must be where, how many times. A profile is a Hatchet
file in Proton's layout ([ROOT, device_info]; a kernel, copy or set is a node with a "count") or
the same as {path: count}, a path being the tuple of frame names below ROOT.

A rule is PATTERN=N (the launches at the nodes PATTERN matches, added up, are N) or PATTERN>=N.
PATTERN is slash-separated, one part per frame below ROOT: a frame's name as it is, `~REGEX` (a
frame whose name contains a match, case-insensitive: `~mul` for PyTorch's MulFunctor kernels),
`*` (any one frame) or `**` (any number of frames, none included). So `train/backward/*>=1` says
some kernel ran right under train/backward, and `*=0` that none ran outside a scope.

A profile without a single launch fails every check, whatever its rules: an empty tree must
never pass for one that agrees.

Usage: tests/gpu/hatchet_check.py FILE.hatchet RULE...  (exit code 1 when a rule fails)
"""
import json
import re
import sys


class ProfileError(Exception):
    """A file that is not a profile: missing, not JSON, not in Proton's layout."""


def load(path):
    """ROOT of the Hatchet file at `path`; ProfileError saying what is wrong with it."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as error:
        raise ProfileError(f"{path}: {error}") from error
    if not isinstance(data, list) or not data or not isinstance(data[0], dict) or \
            not isinstance(data[0].get("children"), list):
        raise ProfileError(f"{path}: not a Hatchet file in Proton's layout ([ROOT, device_info])")
    return data[0]


def launches(root):
    """{path: count} of every node below `root` with a count above 0."""
    found = {}

    def walk(node, path):
        for child in node.get("children", []):
            here = path + (child["frame"]["name"],)
            count = child.get("metrics", {}).get("count", 0)
            if count:
                found[here] = found.get(here, 0) + count
            walk(child, here)

    walk(root, ())
    return found


def matches(parts, path):
    """Whether the pattern `parts` (a list) matches all of `path` (a tuple of names)."""
    if not parts:
        return not path
    head, rest = parts[0], parts[1:]
    if head == "**":
        return any(matches(rest, path[i:]) for i in range(len(path) + 1))
    if not path:
        return False
    if head == "*":
        name_matches = True
    elif head.startswith("~"):
        name_matches = re.search(head[1:], path[0], re.IGNORECASE) is not None
    else:
        name_matches = head == path[0]
    return name_matches and matches(rest, path[1:])


def count(profile, pattern):
    """The launches at the paths of `profile` ({path: count}) that `pattern` matches."""
    parts = pattern.split("/")
    return sum(n for path, n in profile.items() if matches(parts, path))


def parse_rule(rule):
    """(pattern, operator, number) of "PATTERN=N" or "PATTERN>=N"; ValueError if neither."""
    match = re.fullmatch(r"(.*[^=>])(>=|=)(\d+)", rule)
    if not match:
        raise ValueError(f"rule '{rule}' is neither PATTERN=N nor PATTERN>=N")
    return match.group(1), match.group(2), int(match.group(3))


def failures(profile, rules, side="the profile"):
    """What is wrong with `profile` ({path: count}) by `rules`, one line each; [] when nothing."""
    if not profile:
        return [f"{side} has no kernel launch at all (an empty tree)"]
    found = []
    for rule in rules:
        pattern, operator, wanted = parse_rule(rule)
        seen = count(profile, pattern)
        if seen != wanted if operator == "=" else seen < wanted:
            at_least = "" if operator == "=" else "at least "
            found.append(f"{side}: {seen} launches at {pattern}, expected {at_least}{wanted}")
    return found


def show(profile, limit=40):
    """The `limit` paths of `profile` with the most launches, one line each, for the log."""
    rows = sorted(profile.items(), key=lambda item: -item[1])[:limit]
    return "\n".join(f"  {n:8}  {'/'.join(name[:60] for name in path)}" for path, n in rows)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        profile = launches(load(argv[1]))
        problems = failures(profile, argv[2:], argv[1])
    except (ProfileError, ValueError) as error:
        profile, problems = {}, [str(error)]
    print(show(profile))
    for problem in problems:
        print("FAIL:", problem)
    print(f"{argv[1]}: " + ("every rule holds" if not problems else f"{len(problems)} failed"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
