#!/usr/bin/env python3
"""The GPU checks' own promises, kept without a GPU (ctest label unit): hatchet_check.py's rules,
the comparers with Proton failing on empty trees, on a line of protonctl's tree they cannot
read, and on a kernel the program launches that is missing from both sides alike, and
job_arrivals.py refusing a verdict that disagrees with the job's own clock."""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_python_api  # noqa: E402
import compare_with_proton  # noqa: E402
import hatchet_check  # noqa: E402
import sessions_compare  # noqa: E402

MUL = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_10MulFunctorIfEEEEviT0_"
ADD = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_21CUDAFunctorOnSelf_addIfEEEEviT0_"
GEMM = "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT"


def kernel(name, count):
    return {"children": [], "frame": {"name": name, "type": "function"},
            "metrics": {"count": count, "device_id": "0", "device_type": "CUDA",
                        "time (ns)": 1000 * count}}


def scope(name, *children):
    return {"children": list(children), "frame": {"name": name, "type": "function"},
            "metrics": {}}


def write_hatchet(path, children):
    root = {"children": children, "frame": {"name": "ROOT", "type": "function"},
            "metrics": {"count": 0, "time (ns)": 0}}
    with open(path, "w") as f:
        json.dump([root, {"CUDA": {"0": {"arch": "90"}}}], f)
    return path


# compare_with_proton.py's program as Proton records it, and protond's tree of the same
# (protonctl tree -m time/ns,count --mangled, as it renders a session: scopes count their entries).
PROTON_STEP = scope("step", scope("triton", kernel("add_one", 60)),
                    scope("torch", kernel(GEMM, 20), kernel(MUL, 20)),
                    scope("nvtx_range", kernel(ADD, 20)))
PROTOND_TREE = f"""time (ns)  count
   180000      0  ROOT
   180000      1  └─ model
   180000     20     └─ step
    60000     20        ├─ triton
    60000     60        │  └─ add_one
    40000     20        ├─ torch
    20000     20        │  ├─ {GEMM}
    20000     20        │  └─ {MUL}
    20000     20        └─ nvtx_range
    20000     20           └─ {ADD}
"""
HEADER_ONLY = "time (ns)  count\n        0      0  ROOT\n"


class HatchetCheckTest(unittest.TestCase):
    PROFILE = {("train", "step", "add_one"): 4, ("train", "step", MUL): 2, ("train", ADD): 1,
               ("[CUDA memcpy Host-to-Device]",): 3}

    def test_patterns(self):
        self.assertEqual(hatchet_check.count(self.PROFILE, "train/step/add_one"), 4)
        self.assertEqual(hatchet_check.count(self.PROFILE, "train/step/~MUL"), 2)
        self.assertEqual(hatchet_check.count(self.PROFILE, "train/step/*"), 6)
        self.assertEqual(hatchet_check.count(self.PROFILE, "train/**"), 7)
        self.assertEqual(hatchet_check.count(self.PROFILE, "**/~add"), 5)  # add_one too
        self.assertEqual(hatchet_check.count(self.PROFILE, "*"), 3)
        self.assertEqual(hatchet_check.count(self.PROFILE, "step/*"), 0)

    def test_rules(self):
        self.assertEqual(hatchet_check.failures(self.PROFILE, ["train/step/*=6", "*>=3"]), [])
        self.assertEqual(hatchet_check.failures(self.PROFILE, ["train/step/*=5", "*>=4"], "p"),
                         ["p: 6 launches at train/step/*, expected 5",
                          "p: 3 launches at *, expected at least 4"])
        with self.assertRaises(ValueError):
            hatchet_check.failures(self.PROFILE, ["train==1"])

    def test_an_empty_profile_fails_whatever_the_rules(self):
        self.assertEqual(hatchet_check.failures({}, [], "p"),
                         ["p has no kernel launch at all (an empty tree)"])
        self.assertEqual(hatchet_check.failures({}, ["x/**=0"], "p"),
                         ["p has no kernel launch at all (an empty tree)"])

    def test_files(self):
        with tempfile.TemporaryDirectory() as work:
            path = write_hatchet(f"{work}/a.hatchet", [PROTON_STEP])
            self.assertEqual(hatchet_check.main(["x", path, "step/triton/add_one=60"]), 0)
            self.assertEqual(hatchet_check.main(["x", path, "step/triton/add_one=61"]), 1)
            self.assertEqual(hatchet_check.main(["x", write_hatchet(f"{work}/e.hatchet", [])]), 1)
            with open(f"{work}/bad.hatchet", "w") as f:
                f.write("[{")
            self.assertEqual(hatchet_check.main(["x", f"{work}/bad.hatchet"]), 1)
            self.assertEqual(hatchet_check.main(["x", f"{work}/missing.hatchet"]), 1)


class CompareWithProtonTest(unittest.TestCase):
    def compare(self, proton_children, text):
        with tempfile.TemporaryDirectory() as work:
            theirs = compare_with_proton.leaves(compare_with_proton.proton_tree(
                write_hatchet(f"{work}/p.hatchet", proton_children)))
        ours, unparsed = compare_with_proton.protond_tree(text)
        return compare_with_proton.compare(theirs, compare_with_proton.leaves(ours), unparsed)

    def test_the_same_trees_agree(self):
        self.assertEqual(self.compare([scope("model", PROTON_STEP)], PROTOND_TREE), [])

    def test_two_empty_trees_do_not_agree(self):
        problems = self.compare([], HEADER_ONLY)
        self.assertIn("Proton's tree has no kernel launch at all (an empty tree)", problems)
        self.assertIn("protond's tree has no kernel launch at all (an empty tree)", problems)
        self.assertTrue(self.compare([], ""))

    def test_a_line_that_cannot_be_read_is_a_difference(self):
        for line in ("a note the parser does not know",
                     "    60000  sixty        │  └─ add_one"):
            problems = self.compare([scope("model", PROTON_STEP)], PROTOND_TREE + line + "\n")
            self.assertIn(f"protonctl tree: cannot read line 12: {line!r}", problems)

    def test_a_kernel_missing_from_both_sides_is_a_difference(self):
        step = scope("step", scope("triton", kernel("add_one", 60)),
                     scope("torch", kernel(GEMM, 20), kernel(MUL, 20)))
        text = "".join(line + "\n" for line in PROTOND_TREE.splitlines()[:9])
        text = text.replace("├─ torch", "└─ torch").replace("│  ├─ nvjet", "   ├─ nvjet")
        text = text.replace(f"│  └─ {MUL}", f"   └─ {MUL}")
        problems = self.compare([scope("model", step)], text)
        self.assertEqual(problems, [
            f"{side}'s tree: 0 launches at model/step/nvtx_range/{rule}"
            for side in ("Proton", "protond")
            for rule in ("~add, expected 20", "*, expected 20")])


class CompareFilesTest(unittest.TestCase):
    def test_empty_python_api_files_do_not_agree(self):
        with tempfile.TemporaryDirectory() as work:
            theirs = write_hatchet(f"{work}/theirs.hatchet", [])
            ours = write_hatchet(f"{work}/ours.hatchet", [])
            for context in ("shadow", "python"):
                self.assertEqual(compare_python_api.check_files(theirs, ours, context), [
                    "Proton's file has no kernel launch at all (an empty tree)",
                    "protond's file has no kernel launch at all (an empty tree)"])

    def test_a_session_that_recorded_while_deactivated_fails(self):
        mul = kernel(MUL, 7)
        sessions = {
            # b_only ran while "a" was deactivated: its 3 launches must not be in "a".
            "a": [scope("a_only", kernel("add_one", 5)), scope("both", kernel("add_one", 7), mul),
                  scope("both_again", kernel(MUL, 4)), scope("b_only", kernel("add_one", 3))],
            "b": [scope("both", kernel("add_one", 7), mul), scope("b_only", kernel("add_one", 3)),
                  scope("both_again", kernel(MUL, 4)), scope("after_a", kernel("add_one", 2))],
        }
        with tempfile.TemporaryDirectory() as work:
            for who in ("theirs", "ours"):
                for session, children in sessions.items():
                    write_hatchet(f"{work}/{who}_{session}.hatchet", children)
            self.assertEqual(sessions_compare.check_files(work), [
                "session a: Proton's file: 3 launches at b_only/**, expected 0",
                "session a: protond's file: 3 launches at b_only/**, expected 0"])
            for who in ("theirs", "ours"):
                write_hatchet(f"{work}/{who}_a.hatchet", sessions["a"][:3])
            self.assertEqual(sessions_compare.check_files(work), [])


JOB_ARRIVALS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "device",
                            "job_arrivals.py")
NAMED = ("rank {rank} (pid 804, vm) arrives last at 36 of 38 collective calls, on average "
         "{ms} after the first; rank 0 waited 431 ms in all\n")
NONE = "no rank is late: rank 0 is last at 25 of 38 calls (66%), less than the 74% needed\n"


class JobArrivalsTest(unittest.TestCase):
    """Two ranks' all-reduce arrivals, 8 ms apart; rank 1 `lateness_ms` behind rank 0."""

    def judge(self, lateness_ms, verdict, calls=30, rank1_calls=None):
        with tempfile.TemporaryDirectory() as folder:
            for rank, offset_ms, n in ((0, 0, calls), (1, lateness_ms, rank1_calls or calls)):
                with open(os.path.join(folder, f"rank{rank}.txt"), "w") as f:
                    f.writelines(f"{int((i * 8 + offset_ms) * 1e6)}\n" for i in range(n))
            report = os.path.join(folder, "job")
            with open(report, "w") as f:
                f.write(verdict)
            done = subprocess.run([sys.executable, JOB_ARRIVALS, folder, report],
                                  capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr

    def test_the_late_rank_named_with_its_lateness_agrees(self):
        code, out = self.judge(10, NAMED.format(rank=1, ms="10.4 ms"))
        self.assertEqual(code, 0, out)
        self.assertIn("job clock: rank 1 is clearly late", out)

    def test_lateness_in_microseconds_is_read(self):
        self.assertEqual(self.judge(0.8, NAMED.format(rank=1, ms="790 us"))[0], 0)

    def test_a_lateness_off_by_more_than_a_fifth_is_refused(self):
        code, out = self.judge(10, NAMED.format(rank=1, ms="12.5 ms"))
        self.assertEqual(code, 1)
        self.assertIn("not within 2.00 ms of the job clock's 10.00 ms", out)

    def test_the_wrong_rank_is_refused(self):
        code, out = self.judge(10, NAMED.format(rank=0, ms="10.0 ms"))
        self.assertEqual(code, 1)
        self.assertIn("names rank 0, the job's clock rank 1", out)

    def test_no_rank_named_in_a_job_with_a_clearly_late_rank_is_refused(self):
        code, out = self.judge(3, NONE)
        self.assertEqual(code, 1)
        self.assertIn("names no rank, but the job's clock has rank 1 clearly late", out)

    def test_a_rank_named_in_a_balanced_job_is_refused(self):
        code, out = self.judge(0.1, NAMED.format(rank=1, ms="0.1 ms"))
        self.assertEqual(code, 1)
        self.assertIn("in a job the clock has balanced", out)

    def test_no_rank_named_in_a_balanced_job_agrees(self):
        code, out = self.judge(0.1, NONE)
        self.assertEqual(code, 0, out)
        self.assertIn("job clock: the job is balanced", out)

    def test_ranks_with_different_call_counts_are_refused(self):
        code, out = self.judge(10, NONE, rank1_calls=29)
        self.assertEqual(code, 1)
        self.assertIn("different numbers of all-reduces", out)


if __name__ == "__main__":
    with contextlib.redirect_stdout(io.StringIO()):  # the checkers' own tables
        unittest.main()
