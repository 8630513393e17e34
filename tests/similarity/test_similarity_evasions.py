"""Similarity an instructor can rely on: copies disguised with the evasions of
``tools/evasions.py`` still score above the threshold; a ring of identical copies, a leaked
solution copied by most of a class, and a student's own resubmission are each handled as such."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from autograder import paths
from autograder.lab import spec
from autograder.labkit.load import default as default_lab
from autograder.reports import similarity_html
from autograder.similarity import compare as similarity
from autograder.similarity.compare import KNOWN, SimilaritySettings
from tools import evasions

HERE = Path(__file__).parents[1] / "fixtures" / "similarity"
DEFAULT = SimilaritySettings()
KEEP = evasions.handout_names()


def _files(folder: Path) -> dict[str, str]:
    return {name: (folder / name).read_text(encoding="utf-8") for name in spec.GRADED_FILES}


LOOPS = _files(HERE / "loop-style")
ARRAYS = _files(HERE / "array-style")
SOLUTION = _files(paths.SOLUTIONS / "lab05")


def _disguised(files: dict[str, str], chosen, seed: int = 0) -> dict[str, str]:
    return {
        name: evasions.disguise(text, chosen, KEEP, random.Random(f"{seed}-{name}")) for name, text in files.items()
    }


def _score(a: dict, b: dict) -> float:
    found = similarity.analyse({"a": a, "b": b}, SimilaritySettings(threshold=0.0001), lab=default_lab())
    return found.pairs[0].score if found.pairs else 0.0


# from the cheapest to the strongest; the case: a ``pass`` after every line and ``x += y``
EVASIONS = [
    ("pass", ("pass",)),
    ("augmented", ("augmented",)),
    ("pass-and-augmented", ("pass", "augmented")),
    ("no-ops-and-comments", ("no-ops", "comments")),
    ("dead-code", ("dead-code",)),
    ("loops-and-helpers", ("loops", "helpers")),
    ("rename-reorder-swap-imports", ("rename", "reorder", "swap", "imports", "comparisons")),
    ("every-one-canonical-undoes", tuple(list(evasions.EVASIONS)[:12])),
    ("all-of-them", tuple(evasions.EVASIONS)),
]


@pytest.mark.parametrize("chosen", [row[1] for row in EVASIONS], ids=[row[0] for row in EVASIONS])
@pytest.mark.parametrize("original", [LOOPS, SOLUTION], ids=["loop-style", "solution"])
def test_a_copy_disguised_with_evasions_still_scores_above_the_threshold(original, chosen):
    """Does a copy disguised with these evasions still score at or above the threshold against
    its original, while the honest pair loop-style / array-style stays below it?"""
    assert _score(_disguised(original, chosen), original) >= DEFAULT.threshold
    assert _score(LOOPS, ARRAYS) < DEFAULT.threshold


def _class(size: int, seed: int) -> dict[str, dict[str, str]]:
    """Honest-looking fillers: array-style with a few functions of each one's own."""
    from tests.similarity.test_similarity import _random_code

    return {f"other{n:02d}": {"metrics.py": ARRAYS["metrics.py"] + _random_code(seed + n)} for n in range(size)}


@pytest.mark.parametrize("ring", [11, 12, 20], ids=["ring-of-11", "ring-of-12", "ring-of-20"])
def test_a_ring_of_identical_copies_is_an_identical_group_and_its_pairs_are_listed(ring):
    """In a class of 29, are ``ring`` byte-identical copies of loop-style (more than the common
    limit) listed as one identical group, and every pair among them listed?"""
    batch = _class(29 - ring, 100)
    batch.update({f"ring{n:02d}": dict(LOOPS) for n in range(ring)})
    found = similarity.analyse(batch, lab=default_lab())
    members = tuple(sorted(f"ring{n:02d}" for n in range(ring)))
    assert found.identical == (members,)
    listed = {(pair.a, pair.b) for pair in found.pairs}
    assert {(a, b) for i, a in enumerate(members) for b in members[i + 1 :]} <= listed
    assert all(pair.a.startswith("ring") == pair.b.startswith("ring") for pair in found.pairs)  # none with others
    shown = similarity_html.section(found, DEFAULT, {})
    assert "Identical submissions: 1 group" in shown and f"{ring} submissions: " + ", ".join(members) in shown


def test_a_leaked_solution_copied_by_20_of_29_is_found_against_the_known_solution():
    """Are 20 near-verbatim copies of the solution (each renamed differently) in a class of 29
    each paired with the known solution, although the copies are most of the class, and the 9
    others not?"""
    batch = _class(9, 200)
    batch.update({f"leak{n:02d}": _disguised(SOLUTION, ("rename", "comments"), seed=n) for n in range(20)})
    found = similarity.analyse(batch, known={"solutions": SOLUTION}, lab=default_lab())
    against = {pair.a for pair in found.pairs if pair.b == KNOWN + "solutions"}
    assert against == {f"leak{n:02d}" for n in range(20)}


SAME_STUDENT = [
    ("same-student", {"first": "ada", "resubmitted": "ada"}, []),
    ("two-students", {"first": "ada", "resubmitted": "bob"}, [("first", "resubmitted")]),
    ("no-identity-given", None, [("first", "resubmitted")]),
]


@pytest.mark.parametrize("owners, expected", [r[1:] for r in SAME_STUDENT], ids=[r[0] for r in SAME_STUDENT])
def test_a_students_own_submissions_are_never_a_pair(owners, expected):
    """Is a student's resubmission (almost the same code) never paired with her first attempt,
    identical or not, while two students' would be?"""
    resubmitted = {name: text + "\n\ndef _extra(x):\n    return x\n" for name, text in LOOPS.items()}
    batch = {"first": LOOPS, "resubmitted": resubmitted, "arrays": ARRAYS}
    found = similarity.analyse(batch, owners=owners, lab=default_lab())
    assert [(pair.a, pair.b) for pair in found.pairs] == expected
    again = similarity.analyse(
        {"first": LOOPS, "again": dict(LOOPS)},
        owners=owners and dict(zip(("first", "again"), owners.values())),
        lab=default_lab(),
    )
    assert again.identical == (() if expected == [] else (("again", "first"),))
