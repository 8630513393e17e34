"""The comparison with otter-grader: the same correct submission graded by ``otter run`` with an
otter suite doing the equivalent checks (the public checks plus all of Cranfield).

otter-grader comes from ``requirements/test.txt`` (the test tools; the handout does not use otter);
where it is not installed, or ``otter run`` fails, ``unavailable`` says why and the benchmark prints that
instead of a ratio.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

from measure import PYTHON, environment, run

from autograder import paths
from autograder.labkit import load

load.activate()  # Lab 05 (this repository's lab/) as autograder.lab, which this script imports

OTTER_PUBLIC = """
OK_FORMAT = False
from otter.test_files import test_case
import math, sys
sys.path.insert(0, {handout_tests!r})
from public_cases import CASES
name = "public"

def _close(a, e):
    if isinstance(e, (list, tuple)):
        return len(a) == len(e) and all(_close(x, y) for x, y in zip(a, e))
    if isinstance(e, dict):
        return set(a) == set(e) and all(_close(a[k], e[k]) for k in e)
    return abs(float(a) - float(e)) <= 1e-6

@test_case(points=35)
def test_public(env):
    import os, tempfile
    for case in CASES:
        function = env[case.function]
        if case.function == "write_run":
            path = os.path.join(tempfile.mkdtemp(), "demo.run")
            function(path, *case.args[1:], **case.kwargs)
            rows = [line.split() for line in open(path)]
            assert [r[2] for r in rows] == [e[2] for e in case.expected], case.id
        else:
            assert _close(function(*case.args, **case.kwargs), case.expected), case.id
"""

OTTER_CRANFIELD = """
OK_FORMAT = False
from otter.test_files import test_case
import json
name = "cranfield"
BUNDLE = json.load(open({bundle!r}))
SPECS = {specs!r}

@test_case(points=30)
def test_per_query(env):
    wrong = 0
    for system in ("tfidf", "bm25"):
        rankings = BUNDLE["systems"][system]["rankings"]
        for label, (function, kwargs) in SPECS.items():
            expected = BUNDLE["systems"][system]["values"][label]
            for query_id, judgments in BUNDLE["qrels"].items():
                value = env[function](rankings.get(query_id, []), judgments, **kwargs)
                wrong += abs(value - expected[query_id]) > 1e-6
    assert wrong == 0, wrong

@test_case(points=35)
def test_runs(env):
    import os, tempfile, collections
    import ir_measures
    Query = collections.namedtuple("GenericQuery", ["query_id", "text"])
    queries = [Query(q, t) for q, t in BUNDLE["queries"]]
    texts = dict(BUNDLE["queries"])
    for system in ("tfidf", "bm25"):
        hits = {{texts[q]: [(d, BUNDLE["titles"].get(d, ""), s) for d, s in h]
                for q, h in BUNDLE["systems"][system]["results"].items()}}
        path = os.path.join(tempfile.mkdtemp(), system + ".run")
        env["write_run"](path, system, lambda text, k: hits[text][:k], queries, k=100)
        run = list(ir_measures.read_trec_run(path))
        names = ("P(rel=1)@10", "R(rel=1)@100", "RR(rel=1)", "AP(rel=1)", "nDCG@10")
        measures = [ir_measures.parse_measure(m) for m in names]
        scores = ir_measures.calc_aggregate(measures, BUNDLE["qrels"], run)
        for measure, label in zip(measures, ("P@10", "R@100", "RR", "AP", "nDCG@10")):
            assert abs(scores[measure] - BUNDLE["systems"][system]["aggregates"][label]) < 1e-6, (system, label)
"""


def otter_program() -> str | None:
    """The ``otter`` command of this interpreter's environment, or None when it is not installed."""
    beside = Path(PYTHON).parent / "otter"
    return str(beside) if beside.is_file() else shutil.which("otter")


def otter_zip(work: Path, bundle_path: Path) -> Path:
    from autograder.lab import measures

    specs = {label: (spec.function, dict(spec.kwargs)) for label, spec in measures.CRANFIELD.items()}
    path = work / "otter-autograder.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("otter_config.json", json.dumps({"lang": "python", "zips": False, "pdf": False}))
        archive.writestr("tests/public.py", OTTER_PUBLIC.format(handout_tests=str(paths.HANDOUT / "tests")))
        archive.writestr("tests/cranfield.py", OTTER_CRANFIELD.format(bundle=str(bundle_path), specs=specs))
    return path


class Otter:
    """``otter run`` on the reference solution as one script, ready to be timed; ``unavailable``
    is the reason it cannot run here (then ``time`` must not be called)."""

    def __init__(self, work: Path, cache: Path, solution: dict):
        self.work, self.cache, self.unavailable, self.score = work, cache, "", ""
        program = otter_program()
        if program is None:
            self.unavailable = "otter-grader is not installed in this environment (requirements/test.txt)"
            return
        from autograder.lab import cranfield

        bundle_path = work / "bundle.json"
        os.environ["AUTOGRADER_CACHE"] = str(cache)
        bundle_path.write_text(json.dumps(cranfield.bundle()))
        script = work / "otter" / "submission.py"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(
            "\n".join(solution[name].replace("from __future__ import annotations\n", "") for name in solution)
        )
        (work / "otter-out").mkdir(exist_ok=True)
        archive = otter_zip(work, bundle_path)
        self.command = [program, "run", "-a", str(archive), "-o", str(work / "otter-out"), "--no-logo", str(script)]
        try:
            self.time()  # the first run warms the disk cache; it also tells whether otter works here
        except (RuntimeError, OSError) as error:
            self.unavailable = f"`otter run` failed here: {str(error).strip().splitlines()[-1][:300]}"
            return
        result = json.loads((work / "otter-out" / "results.json").read_text())
        self.score = f"{sum(test.get('score', 0) for test in result['tests']):g}/100"

    def time(self) -> float:
        return run(self.command, environment(self.cache))[0]
