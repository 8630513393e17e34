"""Bugs written from the notes' concepts, not from the catalogue (``tests/fixtures/concept_bugs/bugs.py``),
graded in this process (``tests/support/truth.py``): every one loses points, no diagnosis of any contradicts
a judged case (``tests/support/premises.py``), and where a diagnosis names one of the notes' concepts, it is
a concept that governs the function. ``tools/concept_bugs.py`` prints the figures."""

from __future__ import annotations

import pytest

from autograder.grading.results import DiagnosisKind
from autograder.lab import concepts, spec
from tests.fixtures.concept_bugs.bugs import BUGS
from tests.fixtures.concept_bugs.kinds import KIND_BUGS
from tests.support import answers_corpus, subs, truth
from tools import concept_bugs as concept_tools
from tools.concept_bugs import function_of, right_concept

pytestmark = pytest.mark.cranfield


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return truth.Grader(cranfield, tmp_path_factory.mktemp("concept-bugs"))


def _graded(graded, bug) -> tuple[list, list, str]:
    function = function_of(bug["source"])
    functions = truth.load(subs.with_function(spec.FUNCTIONS[function], bug["source"]), f"bug_{function}")
    checks, contradicted = graded.grade(graded.answers(functions, {function}))
    return [check for check in checks if check.function == function], contradicted, function


@pytest.mark.parametrize("bug", BUGS, ids=[bug["id"] for bug in BUGS])
def test_a_bug_from_the_notes_loses_points_and_is_never_explained_falsely(graded, bug):
    """Does a bug written from one of the notes' concepts lose points, with no diagnosis that a judged case
    contradicts and no concept named that does not govern its function?"""
    checks, contradicted, function = _graded(graded, bug)
    assert bug["concept"] in concepts.CONCEPTS
    assert not all(check.full for check in checks), "the bug passes every check"
    assert contradicted == []
    named = [d for check in checks for d in check.diagnoses if d.kind == DiagnosisKind.CONCEPT]
    governing = concepts.for_function(function)
    assert [d.id for d in named if not any(_names(d, concept) for concept in governing)] == []


def _names(diagnosis, concept) -> bool:
    """Does the diagnosis name ``concept`` (by its id, or in the notes' words)?"""
    return diagnosis.id == f"condition-concept-{concept.id}" or concept.statement in diagnosis.explanation


NAMED = [
    # (bug id): a diagnosis names the bug's own concept, or a misconception that concept lists
    "cm-fn-all-relevant",
    "p-grade-equals-rel",
    "recall-over-min-k-r",
    "ap-top-10",
    "ap-over-min-r-length",
    "dcg-discount-over-rank",
    "dcg-exp-half",
    "evaluate-skips-no-relevant",
    "rr-index-from-0-clamped",
    "rr-top-20",
    "ap-deeper-than-1000-ignored",
    "run-crlf",
    "run-no-final-newline",
    "evaluate-reuses-last-ranking",
    "differences-relative",
    "differences-ties-by-a-score",
    "recall-top-k-plus-one",
    "ap-over-min-r-length",
    "run-resorted-by-score",
]


@pytest.mark.parametrize("bug_id", NAMED)
def test_a_bug_from_the_notes_is_named_by_its_concept(graded, bug_id):
    """Is an unseen bug whose failing cases are exactly those where its concept decides named by that
    concept (the notes' words and part)?"""
    bug = next(bug for bug in BUGS if bug["id"] == bug_id)
    checks, _, _ = _graded(graded, bug)
    shown = [d for check in checks for d in check.diagnoses]
    assert any(right_concept(bug["concept"], d) for d in shown), [d.id for d in shown]


HONEST_WRITERS = [
    # (id, a write_run the contract allows): full marks, no diagnosis
    (
        "more-decimals",
        'out.write(f"{query.query_id} Q0 {doc_id} {rank} {score:.12f} {system_name}\\n")',
    ),
    (
        "print",
        "print(query.query_id, 'Q0', doc_id, rank, format(score, '.8f'), system_name, file=out)",
    ),
    ("tabs", 'out.write(f"{query.query_id}\\tQ0\\t{doc_id}\\t{rank}\\t{score:.8f}\\t{system_name}\\n")'),
    ("two-spaces", 'out.write(f"{query.query_id}  Q0  {doc_id}  {rank}  {score:.8f}  {system_name}\\n")'),
    (
        "join",
        'out.write(" ".join([str(query.query_id), "Q0", doc_id, str(rank), "%.8f" % score, system_name]) + "\\n")',
    ),
]


def _writer(line: str) -> str:
    return f"""
        def write_run(path, system_name, search_fn, queries, k=100):
            if isinstance(k, bool) or not isinstance(k, int) or k < 1:
                raise ValueError(f"k must be a positive integer, got {{k!r}}")
            if not system_name or any(c.isspace() for c in system_name):
                raise ValueError("system_name must be a non-empty word")
            with open(path, "w", encoding="utf-8", newline="\\n") as out:
                for query in queries:
                    for rank, (doc_id, _title, score) in enumerate(list(search_fn(query.text, k))[:k], start=1):
                        {line}
        """


@pytest.mark.parametrize("line", [row[1] for row in HONEST_WRITERS], ids=[row[0] for row in HONEST_WRITERS])
def test_an_honest_run_writer_keeps_every_point(graded, line):
    """Does a run writer the contract allows (more decimals, print, other whitespace between the columns,
    which trec_eval splits on, join) get full marks and no diagnosis?"""
    checks, contradicted, _ = _graded(graded, {"source": _writer(line)})
    assert [(check.name, check.score) for check in checks if not check.full] == []
    assert [d.id for check in checks for d in check.diagnoses] == [] and contradicted == []


@pytest.mark.parametrize("bug", KIND_BUGS, ids=[bug["id"] for bug in KIND_BUGS])
def test_a_bug_of_a_weak_kind_is_never_explained_falsely(graded, bug):
    """Does no diagnosis of a one-bug variant of a weak kind (a formula shift, state kept between calls, a run
    file's layout, one kind of input, a DCG mistake ndcg inherits) contradict a judged case?"""
    function = function_of(bug["source"])
    functions = truth.load(subs.with_function(spec.FUNCTIONS[function], bug["source"]), f"kind_{function}")
    _, contradicted = graded.grade(graded.answers(functions, set(bug.get("affects", [function]))))
    assert contradicted == []


KIND_NAMED = [
    # (bug id in kinds.py, the diagnosis that says which quantity is off; state kept between calls is said
    # through the sandbox: tests/end_to_end/test_counterexamples.py)
    ("p-reads-k-plus-one", "top-k-plus-one"),
    ("dcg-reads-k-plus-one", "top-k-plus-one"),
    ("recall-over-k", "recall-over-documents-read"),
]


@pytest.mark.parametrize("bug_id, diagnosis_id", KIND_NAMED, ids=[row[0] for row in KIND_NAMED])
def test_a_formula_shift_is_told_which_quantity_is_off(graded, bug_id, diagnosis_id):
    """Is a formula variant that only shifts values told which quantity is off (not only "too high")?"""
    bug = next(bug for bug in KIND_BUGS if bug["id"] == bug_id)
    checks, contradicted, _ = _graded(graded, bug)
    assert diagnosis_id in {d.id for check in checks if not check.full for d in check.diagnoses}
    assert contradicted == []


LINES_BEFORE = [
    # (bug id in kinds.py, the diagnosis its run writer's failing checks get)
    ("run-append-mode", "run-appended"),
    ("run-header-line", "run-lines-before"),
]


@pytest.mark.parametrize("bug_id, diagnosis_id", LINES_BEFORE, ids=[row[0] for row in LINES_BEFORE])
def test_a_run_file_right_but_for_lines_before_it_is_told_which(graded, bug_id, diagnosis_id):
    """Is a run writer whose files are right but for a line before the results told whether that line was left
    at the path (the file opened for appending) or written by it (a header), with the notes' run file format?"""
    bug = next(bug for bug in KIND_BUGS if bug["id"] == bug_id)
    checks, contradicted, _ = _graded(graded, bug)
    shown = {d.id: d for check in checks if not check.full for d in check.diagnoses}
    assert diagnosis_id in shown, list(shown)
    assert concepts.CONCEPTS["run-file-format"].statement in shown[diagnosis_id].explanation
    assert contradicted == []


def test_a_layout_slip_costs_its_share_only(graded):
    """Does a run writer whose lines end with \\r\\n lose only the layout cases of the format check
    (trec_eval reads its file right: content, evaluation and the example keep their points)?"""
    bug = next(bug for bug in BUGS if bug["id"] == "run-crlf")
    checks, _, _ = _graded(graded, bug)
    lost = {check.name: check.max_score - check.score for check in checks if not check.full}
    [format_check] = [check for check in checks if check.name in lost]
    failed = [case.id for case in format_check.cases if not case.passed]
    assert failed and all(case_id.endswith(":layout") for case_id in failed), failed
    share = len(failed) / len(format_check.cases)
    assert lost[format_check.name] == pytest.approx(format_check.max_score * share, abs=1e-3)  # points to 4 places


BASES = answers_corpus.bases()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy styles warn on empty slices; the answers are right
@pytest.mark.parametrize("name, source", BASES, ids=[name for name, _ in BASES])
def test_an_honest_style_keeps_every_point_and_no_diagnosis(graded, name, source):
    """Does every honest style of the answers corpus (its 31 bases: loops, numpy, fractions, classes...) get
    full marks on every metric's checks, with no diagnosis, now that the grader tries more inputs?"""
    metrics = {function for function, file in spec.FUNCTIONS.items() if file == "metrics.py"}
    functions = {**graded.solution["runs.py"], **vars(concept_tools._module(source, f"honest_{name}"))}
    checks, contradicted = graded.grade(graded.answers(functions, metrics))
    checks = [check for check in checks if check.function in metrics]  # the run writer's calls are not re-run
    assert [(check.name, check.score) for check in checks if not check.full] == []
    assert [d.id for check in checks for d in check.diagnoses] == [] and contradicted == []
