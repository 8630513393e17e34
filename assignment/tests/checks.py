"""``grader.check("q1")`` ... ``grader.check("q6")`` in ``lab05.ipynb``: the public checks of one
part of the lab, with Python's standard library only.

The cases are those of ``public_cases.py``, the table ``pytest`` runs too. A check reloads your
``lab05/metrics.py`` and ``lab05/runs.py`` first, so it sees the code you last saved. When every
case passes it says so in one line; otherwise it counts the failed and the passed cases and shows
the failed ones only, each with its message: the function, the input, the notes' value, yours and
a hint.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from public_cases import CASES, cases_for, problem


@dataclass(frozen=True)
class CheckResult:
    """What ``grader.check(question)`` found: ``failures`` maps each failed case to its message."""

    question: str
    possible: int
    failures: dict

    @property
    def passed_all(self) -> bool:
        return not self.failures

    @property
    def score(self) -> int:
        return self.possible - len(self.failures)

    def _count(self) -> str:
        failed = len(self.failures)
        return f"{failed} of {self.possible} cases failed, {self.possible - failed} passed; the failed ones:"

    def __repr__(self) -> str:
        if self.passed_all:
            return f"{self.question} results: All test cases passed!"
        lines = [f"{self.question} results:", f"    {self._count()}"]
        for case_id, message in self.failures.items():
            lines += [f"    {case_id} result:", "        ❌ Test case failed", f"        {message}"]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        question = html.escape(self.question)
        if self.passed_all:
            return f"<p><strong><code>{question}</code> results: All test cases passed!</strong></p>"
        failed = "".join(
            f"<li><strong><code>{html.escape(case_id)}</code>: ❌ Test case failed</strong>"
            f"<pre style='white-space: pre-wrap'>{html.escape(message)}</pre></li>"
            for case_id, message in self.failures.items()
        )
        return f"<p><strong><code>{question}</code> results:</strong> {html.escape(self._count())}</p><ul>{failed}</ul>"


class Grader:
    """The notebook's ``grader``: ``grader.check("q3")`` runs the public cases of question q3."""

    def check(self, question: str) -> CheckResult:
        cases = cases_for(question)
        if not cases:
            known = sorted({case.question for case in CASES})
            raise ValueError(f"grader.check({question!r}): there is no such question; the questions are {known}")
        failures = {}
        for case in cases:
            message = problem(case, reload=True)
            if message:
                failures[case.id] = message
        return CheckResult(question, len(cases), failures)


grader = Grader()
