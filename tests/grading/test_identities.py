"""Two people sharing an SID or an email are named, with who gives each identifier, and kept apart."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest

from autograder.grading.course import standing
from autograder.grading.results import Status, Student, SubmissionResult
from autograder.local import classwork


def _result(submission: str, *students: Student) -> SubmissionResult:
    return SubmissionResult(submission=submission, status=Status.GRADED, students=students)


ANA = Student("Ana Diaz", "ana@uni.edu", "1001")
BEN_SAME_SID = Student("Ben Ode", "ben@uni.edu", "1001")
BEN_SAME_EMAIL = Student("Ben Ode", "ana@uni.edu", "2002")


@dataclass(frozen=True)
class Case:
    id: str
    results: tuple
    said: list
    rows: tuple = ()  # the standing's rows: (name, the submission that counts)


CASES = [
    Case(
        "distinct",
        (_result("s1", ANA), _result("s2", Student("Ben Ode", "ben@uni.edu", "2002"))),
        [],
        (("Ana Diaz", "s1"), ("Ben Ode", "s2")),
    ),
    Case(
        "same-person-twice",
        (_result("s1", ANA), _result("s2", Student("Ana D.", " ANA@uni.edu", "1001 "))),
        [],
        (("Ana D.", "s2"),),
    ),
    Case(
        "one-sid-two-emails",
        (_result("s1", ANA), _result("s2", BEN_SAME_SID)),
        ["SID 1001 is given to 2 people (email ana@uni.edu: Ana Diaz (s1); email ben@uni.edu: Ben Ode (s2))"],
        (("Ana Diaz", "s1"), ("Ben Ode", "s2")),
    ),
    Case(
        "one-email-two-sids",
        (_result("s1", ANA), _result("s2", BEN_SAME_EMAIL)),
        ["email ana@uni.edu is given to 2 people (SID 1001: Ana Diaz (s1); SID 2002: Ben Ode (s2))"],
        (("Ana Diaz", "s1"), ("Ben Ode", "s2")),
    ),
    Case(
        "inside-a-group",
        (_result("g1", ANA, BEN_SAME_SID),),
        ["SID 1001 is given to 2 people (email ana@uni.edu: Ana Diaz (g1); email ben@uni.edu: Ben Ode (g1))"],
        (("Ana Diaz", "g1"), ("Ben Ode", "g1")),
    ),
    Case(
        "shared-sid-resubmitted",  # Ana's two submissions stay hers (joined by her email), Ben's his
        (_result("s1", ANA), _result("s2", BEN_SAME_SID), _result("s3", ANA)),
        [
            "SID 1001 is given to 2 people (email ana@uni.edu: Ana Diaz (s1), Ana Diaz (s3); "
            "email ben@uni.edu: Ben Ode (s2))"
        ],
        (("Ana Diaz", "s3"), ("Ben Ode", "s2")),
    ),
    Case(
        "both-identifiers-shared",  # Ben gives Ana's SID and Cy Ana's email: three people still
        (_result("s1", ANA), _result("s2", BEN_SAME_SID), _result("s3", Student("Cy Ray", "ana@uni.edu", "3003"))),
        [
            "email ana@uni.edu is given to 2 people (SID 1001: Ana Diaz (s1); SID 3003: Cy Ray (s3))",
            "SID 1001 is given to 2 people (email ana@uni.edu: Ana Diaz (s1); email ben@uni.edu: Ben Ode (s2))",
        ],
        (("Ana Diaz", "s1"), ("Ben Ode", "s2"), ("Cy Ray", "s3")),
    ),
    Case(
        "sid-only",
        (_result("s1", Student("Ana", "", "1001")), _result("s2", Student("Ben", "", "1001"))),
        [],
        (("Ben", "s2"),),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_shared_identities(case):
    """Is each SID given with two emails (or email with two SIDs) named with who gives it, and
    nothing said of one person named twice alike?"""
    assert standing.shared_identities(case.results) == case.said


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_class_report_names_shared_identities(case):
    """Do the class report's facts name every shared SID or email and what to do, and say
    nothing when no identifier is shared?"""
    results = list(case.results)
    said = classwork.facts(standing.Rules(), standing.build(results), results)
    if case.said:
        assert said["shared identities"].startswith("; ".join(case.said) + ": kept apart, a row each")
        assert "correct the SID or email" in said["shared identities"]
    else:
        assert "shared identities" not in said


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_batch_warns_of_shared_identities(case):
    """Does the batch say on stderr each shared SID or email, one warning line each, with what to do?"""
    stream = io.StringIO()
    classwork.warn_shared(case.results, stream)
    assert stream.getvalue() == "".join(f"warning: {line}{classwork.SHARED_ADVICE}\n" for line in case.said)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_people_sharing_an_identifier_keep_their_own_rows(case):
    """Does each person keep their own row with their own submission, however many identifiers
    they share with others, while one person named twice alike stays one row?"""
    found = standing.build(list(case.results))
    assert tuple((row.student.name, row.chosen.submission) for row in found.rows) == case.rows
    assert sorted(f"{kind} {value}" for kind, value in found.shared) == sorted(
        line.split(" is given")[0].replace("SID", "sid") for line in case.said
    )
