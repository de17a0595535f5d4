"""Vector metrics (issue 26): lists, tuples and tensors given as metrics are summed element-wise,
as Proton sums them, through the shim, the daemon and its store into the .hatchet file."""
import os
import subprocess

import pytest

from conftest import BIN_DIR, children

TWICE = """
import protond.profiler as proton
proton.start("vec")
for _ in range(2):
    with proton.scope("s", {{"v": [1, 2, 3], "w": (0.5, 1), "n": 1}}):
        pass
{more}
proton.finalize()
"""


def test_a_list_given_twice_is_summed_element_wise(daemon):
    run = daemon.run(TWICE.format(more=""))
    assert run.returncode == 0, run.stderr
    root, _ = daemon.hatchet("vec")
    assert children(root)["s"]["metrics"] == {"v": [2, 4, 6], "w": [1.0, 2.0], "n": 2}
    # ROOT's placeholders for the summed metrics, a vector's in its shape.
    assert root["metrics"] == {"v": [0, 0, 0], "w": [0, 0], "n": 0}
    protonctl = [os.path.join(BIN_DIR, "protonctl"), "--socket", daemon.socket]
    tree = subprocess.run(protonctl + ["tree", "1", "-m", "v,w"], capture_output=True, text=True)
    assert tree.returncode == 0, tree.stderr
    assert "[2, 4, 6]" in tree.stdout and "[1.000, 2.000]" in tree.stdout, tree.stdout


def test_a_vector_of_another_size_or_type_is_refused_in_protons_words(daemon):
    run = daemon.run(TWICE.format(more="""
for metrics in ({"v": [1, 2]}, {"v": 7}, {"n": [1, 2]}, {"e": []}, {"e": [1, [2]]},
                {"e": [1, "2"]}, {"e": list(range(513))}):
    try:
        with proton.scope("s", metrics):
            pass
    except (TypeError, ValueError) as error:
        print(type(error).__name__, error)
"""))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "ValueError size mismatch for metric v: current=3, new=2",
        "ValueError Metric value type mismatch for valueId 1 (v): current=std::vector<int64_t>, "
        "new=int64_t",
        "ValueError Metric value type mismatch for valueId 3 (n): current=int64_t, "
        "new=std::vector<int64_t>",
        "ValueError metric 'e' is empty; a vector metric needs at least one element",
        "TypeError metric 'e' has a nested list; a vector metric is a flat list of int or float",
        "TypeError metric 'e' has an element of type str; metrics are int or float, or lists, "
        "tuples or 1-D tensors of them",
        "ValueError vector metric 'e' has 513 elements; it needs 1 to 512",
    ]
    root, _ = daemon.hatchet("vec")
    assert children(root)["s"]["metrics"] == {"v": [2, 4, 6], "w": [1.0, 2.0], "n": 2}


def test_a_tensor_is_a_vector_and_a_one_element_tensor_a_scalar(daemon):
    pytest.importorskip("torch")
    run = daemon.run("""
import torch
import protond.profiler as proton
proton.start("vec")
device = "cuda" if torch.cuda.is_available() else "cpu"
for _ in range(2):
    with proton.scope("s", {"v": torch.tensor([1, 2, 3], device=device),
                            "f": torch.tensor([0.5, 1.5], device=device),
                            "one": torch.tensor([4], device=device)}):
        pass
proton.finalize()
""")
    assert run.returncode == 0, run.stderr
    root, _ = daemon.hatchet("vec")
    assert children(root)["s"]["metrics"] == {"v": [2, 4, 6], "f": [1.0, 3.0], "one": 8}
