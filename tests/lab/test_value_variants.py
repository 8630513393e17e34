"""Honest answers in any form get every point: the grader judges the value, never the type
(namedtuples, numpy arrays and numbers, OrderedDict, defaultdict, Counter, Fraction, Decimal,
subclasses that redefine nothing). Lying objects are in the hostile suite."""

from __future__ import annotations

import pytest

from autograder.labkit.load import default as default_lab
from autograder.local import batch
from tests.support import subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


def wrap(function: str, signature: str, returned: str, imports: str = "") -> str:
    """The reference's ``function`` returning ``returned`` (an expression of ``value``)."""
    arguments = ", ".join(parameter.split("=")[0] for parameter in signature.split(", "))
    return (
        f"{imports}\n_reference_{function} = {function}\n\n\ndef {function}({signature}):\n"
        f"    value = _reference_{function}({arguments})\n    return {returned}\n"
    )


CM = "retrieved, relevant, collection_size"
EV = "run, qrels, measure"
LD = "scores_a, scores_b, n=2"
RK = "ranking, judgments, k, rel=1"
GK = "ranking, judgments, k, gain='linear'"
R1 = "ranking, judgments, rel=1"

VARIANTS = [
    (
        "cm-namedtuple",
        "confusion_matrix",
        CM,
        "Cells(*value)",
        "import collections\nCells = collections.namedtuple('Cells', 'tp fp fn tn')",
    ),
    (
        "cm-namedtuple-with-a-method",
        "confusion_matrix",
        CM,
        "Cells(*value)",
        "import collections\nclass Cells(collections.namedtuple('Base', 'tp fp fn tn')):\n"
        "    def total(self):\n        return sum(self)",
    ),
    ("cm-list", "confusion_matrix", CM, "list(value)"),
    ("cm-numpy-array", "confusion_matrix", CM, "np.array(value)", "import numpy as np"),
    ("cm-numpy-ints", "confusion_matrix", CM, "tuple(np.int64(x) for x in value)", "import numpy as np"),
    ("evaluate-ordereddict", "evaluate", EV, "collections.OrderedDict(sorted(value.items()))", "import collections"),
    ("evaluate-defaultdict", "evaluate", EV, "collections.defaultdict(float, value)", "import collections"),
    ("evaluate-counter", "evaluate", EV, "collections.Counter(value)", "import collections"),
    ("evaluate-dict-subclass", "evaluate", EV, "Scores(value)", "class Scores(dict):\n    pass"),
    ("evaluate-numpy-values", "evaluate", EV, "{q: np.float64(v) for q, v in value.items()}", "import numpy as np"),
    ("precision-numpy-float32", "precision_at_k", RK, "np.float32(value)", "import numpy as np"),
    ("recall-fraction", "recall_at_k", RK, "Fraction(value)", "from fractions import Fraction"),
    ("ap-decimal", "average_precision", R1, "Decimal(value)", "from decimal import Decimal"),
    ("rr-float-subclass", "reciprocal_rank", R1, "Score(value)", "class Score(float):\n    pass"),
    ("dcg-numpy-float64", "dcg_at_k", GK, "np.float64(value)", "import numpy as np"),
    ("ndcg-ints-when-exact", "ndcg_at_k", GK, "int(value) if value in (0, 1) else value"),
    ("largest-tuple", "largest_differences", LD, "tuple(value)"),
    ("largest-numpy-array", "largest_differences", LD, "np.array(value, dtype=str)", "import numpy as np"),
    ("largest-numpy-str", "largest_differences", LD, "[np.str_(q) for q in value]", "import numpy as np"),
]


#: The jail with the grader's interpreter; the uid mode with the system's, as on Gradescope and in
#: the container (numpy from the distribution: ``tools/install-system-packages``).
MODES = {"jail": {"isolation": "jail"}, "uid": {"isolation": "uid", "python": "/usr/bin/python3"}}


@pytest.fixture(scope="module", params=list(MODES))
def graded(request, tmp_path_factory, cranfield):
    folder = tmp_path_factory.mktemp(f"variants-{request.param}")
    for case_id, function, signature, returned, *imports in VARIANTS:
        source = wrap(function, signature, returned, *imports)
        subs.write(folder / "in" / case_id, {"metrics.py": subs.with_function("metrics.py", source)})
    summary = batch.grade_batch(
        [folder / "in"],
        folder / "out",
        jobs=2,
        progress=False,
        rubric_path=subs.test_rubric(folder),
        lab=default_lab(),
        **MODES[request.param],
    )
    assert {result.isolation for result in summary.results} == {request.param}
    return {result.submission: result for result in summary.results}


def test_there_are_enough_variants():
    """Are at least 15 container and number variants tried?"""
    assert len(VARIANTS) >= 15 and len({v[0] for v in VARIANTS}) == len(VARIANTS)


@pytest.mark.parametrize("variant", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_honest_variant_gets_full_marks(graded, variant):
    """Does a correct answer returned in another container or number type get every point, with no
    diagnosis and no flag, in the jail and in the uid mode?"""
    result = graded[variant[0]]
    failing = [
        (check.name, [case.message for case in check.cases if not case.passed][:2])
        for check in result.checks
        if check.score < check.max_score
    ]
    assert result.score == 100, failing
    assert result.flags == () and all(check.diagnoses == () for check in result.checks)
