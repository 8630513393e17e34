"""What the otter test files ``q1.py`` ... ``q6.py`` share: one otter test case per public case of a
question (``public_cases.py``), whose failure shows the case's message alone.

Otter prints "Error at line N in test qN:" and the line of the test file that raised before an
exception's message. For a ``PublicCheckFailed`` it prints only the message, which already names
the function, the input, the notes' value, yours and a hint; any other exception (a bug in a
check) keeps otter's usual report. When a case fails, ``grader.check`` shows the failed cases
only, after a line that counts them and the passed ones (otter would list every passed case too).
"""

from otter.test_files import test_case
from public_cases import cases_for, problem

try:
    from otter.test_files.exception_test import ExceptionTestFile
except ImportError:  # another otter: its usual report
    ExceptionTestFile = None


class PublicCheckFailed(AssertionError):
    """A public case that failed; its message says why."""


def _message(original):
    def message(self, excp, context=0):
        if isinstance(excp, PublicCheckFailed):
            return str(excp)
        return original(self, excp, context)

    message.public_checks = True
    return message


def _count(test_file):
    failed = sum(not result.passed for result in test_file.test_case_results)
    total = len(test_file.test_case_results)
    return f"{failed} of {total} cases failed, {total - failed} passed; the failed ones:"


def _failures_only(original, heading):
    """``original`` (a TestFile's text or HTML report) of the failed cases only, ``heading`` (the
    count) after its first line; as it was when every case passed."""

    def report(self, *args, **kwargs):
        results = self.test_case_results
        if all(result.passed for result in results):
            return original(self, *args, **kwargs)
        count = _count(self)
        self.test_case_results = [result for result in results if not result.passed]
        try:
            text = original(self, *args, **kwargs)
        finally:
            self.test_case_results = results
        first, _, rest = text.partition("\n" if heading == "text" else "</p>")
        return f"{first}\n    {count}\n{rest}" if heading == "text" else f"{first}</p><p>{count}</p>{rest}"

    report.public_checks = True
    return report


if ExceptionTestFile is not None and not getattr(ExceptionTestFile._generate_error_message, "public_checks", False):
    ExceptionTestFile._generate_error_message = _message(ExceptionTestFile._generate_error_message)
    ExceptionTestFile.summary = _failures_only(ExceptionTestFile.summary, "text")
    ExceptionTestFile._repr_html_ = _failures_only(ExceptionTestFile._repr_html_, "html")


def _check(case):
    def check():
        message = problem(case, reload=True)
        if message:
            raise PublicCheckFailed(message)

    return check


def test_cases(question):
    """``{"test_<case id>": otter test case}`` for every public case of ``question``."""
    return {f"test_{case.id}": test_case(name=case.id, points=1)(_check(case)) for case in cases_for(question)}
