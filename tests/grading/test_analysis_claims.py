"""The analysis file's shape (``grading/analysis/claims.py``), read as untrusted student input:
each malformed file gets one message naming its line and field; the handout's own shape check
(``assignment/tests/analysis_shape.py``, what students run) refuses the same files on the same line."""

from __future__ import annotations

import runpy
import subprocess
import sys
from types import SimpleNamespace

import pytest

from autograder import paths
from autograder.grading.analysis import claims

#: the handout's shape check, read from its file (the handout is not a package of this repository)
handout = SimpleNamespace(**runpy.run_path(str(paths.HANDOUT / "tests" / "analysis_shape.py")))

NAMES = claims.Names(systems=tuple(handout.SYSTEMS), measures=tuple(handout.MEASURES))

CLAIM = """claims:
  - query: "1"
    measure: AP
    values: {tfidf: 0.2501, bm25: 0.2155}
    better: tfidf
    documents:
      - doc: 184
        grade: 2
        ranks: {tfidf: 2, bm25: 4}
"""

#: (id, file, its line in the message, words the grader's message has)
MALFORMED = [
    ("not-yaml", "claims: [\n", 2, ["not valid YAML"]),
    ("no-claims-key", "claim: []\n", 1, ["claims is missing"]),
    ("claims-not-a-list", "claims: {query: 1}\n", 1, ["claims", "valid list"]),
    (
        "unknown-measure",
        CLAIM.replace("measure: AP", "measure: MAP"),
        3,
        ["claims[0].measure", "'MAP' is not a measure"],
    ),
    (
        "unknown-field",
        CLAIM.replace("    better: tfidf\n", "    better: tfidf\n    why: words\n"),
        6,
        ["claims[0].why", "not a field"],
    ),
    ("missing-documents", CLAIM.split("    documents:")[0], 2, ["claims[0].documents is missing"]),
    (
        "no-documents",
        CLAIM.split("    documents:")[0] + "    documents: []\n",
        6,
        ["claims[0].documents", "at least 1"],
    ),
    (
        "one-system-value",
        CLAIM.replace("values: {tfidf: 0.2501, bm25: 0.2155}", "values: {tfidf: 0.2501}"),
        4,
        ["claims[0].values", "each system once"],
    ),
    ("value-as-text", CLAIM.replace("bm25: 0.2155}", "bm25: high}"), 4, ["claims[0].values.bm25", "'high'"]),
    (
        "better-unknown",
        CLAIM.replace("better: tfidf", "better: TF-IDF"),
        5,
        ["claims[0].better", "'TF-IDF' is not a system"],
    ),
    (
        "rank-zero",
        CLAIM.replace("{tfidf: 2, bm25: 4}", "{tfidf: 0, bm25: 4}"),
        9,
        ["documents[0].ranks.tfidf", "greater than or equal to 1"],
    ),
    (
        "rank-missing-system",
        CLAIM.replace("{tfidf: 2, bm25: 4}", "{tfidf: 2}"),
        9,
        ["documents[0].ranks", "each system once"],
    ),
    ("grade-as-float", CLAIM.replace("grade: 2", "grade: 2.5"), 8, ["documents[0].grade", "2.5"]),
    ("grade-as-bool", CLAIM.replace("grade: 2", "grade: true"), 8, ["documents[0].grade", "True"]),
    (
        "document-twice",
        CLAIM + "      - doc: '184'\n        grade: 2\n        ranks: {tfidf: 2, bm25: 4}\n",
        7,
        ["listed twice"],
    ),
    (
        "runs-unknown-system",
        CLAIM.replace("    better: tfidf\n", "    better: tfidf\n    runs: {BM25: my.run}\n"),
        6,
        ["claims[0].runs", "'BM25' is not a system"],
    ),
    (
        "runs-a-path",
        CLAIM.replace("    better: tfidf\n", "    better: tfidf\n    runs: {bm25: ../etc/passwd}\n"),
        6,
        ["claims[0].runs", "'../etc/passwd' is not a run file's name"],
    ),
    (
        "runs-not-text",
        CLAIM.replace("    better: tfidf\n", "    better: tfidf\n    runs: {bm25: 7}\n"),
        6,
        ["claims[0].runs.bm25", "valid string"],
    ),
    ("alias", "claims:\n  - &one {query: 1}\n  - *one\n", 2, ["alias"]),
    ("python-tag", "claims: !!python/object/apply:os.system ['true']\n", 1, ["YAML tag (!!...) is not allowed"]),
]


def grader_message(text: str) -> str:
    with pytest.raises(claims.AnalysisError) as caught:
        claims.parse(text, NAMES)
    return str(caught.value)


@pytest.mark.parametrize(
    ("text", "line", "words"), [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED]
)
def test_malformed_file_gets_its_line_and_field(text, line, words):
    """Does the grader refuse the file with one message naming the line and the field?"""
    message = grader_message(text)
    assert message.startswith(f"analysis.yml, line {line}: "), message
    for word in words:
        assert word in message, message


@pytest.mark.parametrize(
    ("text", "line"), [(case[1], case[2]) for case in MALFORMED], ids=[case[0] for case in MALFORMED]
)
def test_handout_check_refuses_the_same_file_on_the_same_line(text, line):
    """Does the students' shape check refuse every file the grader refuses, on the same line?"""
    with pytest.raises(handout.ShapeError) as caught:
        handout.check(text)
    assert str(caught.value).startswith(f"line {line}: "), caught.value


#: (id, file, the claims read: (query, measure, documents' ids))
VALID = [
    ("one-claim", CLAIM, [("1", "AP", ["184"])]),
    (
        "ids-as-text",
        CLAIM.replace('query: "1"', "query: '1'").replace("doc: 184", "doc: '184'"),
        [("1", "AP", ["184"])],
    ),
    (
        "null-rank-and-tie",
        CLAIM.replace("better: tfidf", "better: tie").replace("bm25: 4}", "bm25: null}"),
        [("1", "AP", ["184"])],
    ),
    (
        "own-run",
        CLAIM.replace("    better: tfidf\n", "    better: tfidf\n    runs: {bm25: my_bm25.run}\n"),
        [("1", "AP", ["184"])],
    ),
    (
        "two-claims",
        CLAIM + CLAIM.split("\n", 1)[1].replace('"1"', '"2"').replace("measure: AP", "measure: nDCG@10 exp"),
        [("1", "AP", ["184"]), ("2", "nDCG@10 exp", ["184"])],
    ),
]


@pytest.mark.parametrize(("text", "expected"), [case[1:] for case in VALID], ids=[case[0] for case in VALID])
def test_valid_file_is_read_by_both_checks(text, expected):
    """Is a well-formed file read into its claims by the grader, and passed by the students' check?"""
    analysis = claims.parse(text, NAMES)
    assert [(claim.query, claim.measure, [d.doc for d in claim.documents]) for claim in analysis.claims] == expected
    assert handout.check(text) == len(expected)


def test_claim_lines_point_at_each_claim():
    """Does each claim carry the line it starts on, for the feedback to name?"""
    text = CLAIM + CLAIM.split("\n", 1)[1]
    assert claims.parse(text, NAMES).lines == (2, 10)


@pytest.mark.parametrize(
    ("size", "refused"), [(claims.MAX_BYTES - 100, False), (claims.MAX_BYTES + 1, True)], ids=["under", "over"]
)
def test_size_cap(size, refused):
    """Is a file over the cap refused before it is parsed, and one under it read?"""
    text = CLAIM + "#" * (size - len(CLAIM) - 1) + "\n"
    if refused:
        assert "larger than 64 KiB" in grader_message(text)
    else:
        assert len(claims.parse(text, NAMES).claims) == 1


def test_template_has_no_claims_and_its_example_is_well_formed():
    """Does the handout's analysis.yml start empty (the students' check then skips, saying why), and
    is its commented example a well-formed claim?"""
    template = (paths.HANDOUT / "analysis.yml").read_text(encoding="utf-8")
    assert handout.check(template) == 0
    example = "\n".join(line[2:] for line in template.splitlines() if line.startswith("# "))
    example = example[example.index("claims:\n") : example.index("(Those numbers")]
    assert [claim.query for claim in claims.parse(example, NAMES).claims] == ["23"]


def test_students_check_skips_an_empty_analysis_and_fails_a_malformed_one(tmp_path):
    """Does `pytest tests/test_analysis.py` in the handout skip the empty template and fail a
    malformed file with its line?"""
    from tests.conftest import make_handout

    folder = make_handout(tmp_path / "handout")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rsf", "tests/test_analysis.py"]
    empty = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)
    assert empty.returncode == 0 and "1 skipped" in empty.stdout and "no claims yet" in empty.stdout, empty.stdout
    (folder / "analysis.yml").write_text(CLAIM.replace("measure: AP", "measure: MAP"), encoding="utf-8")
    broken = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)
    assert broken.returncode == 1 and "analysis.yml, line 3: claims[0].measure 'MAP'" in broken.stdout, broken.stdout
