"""What a user can cause, as one tree: ``UsageError`` is the base of every exception an
instructor, a TA, a student's input, a missing file or setting, or a machine that cannot grade
can raise; the command line (``cli.main``) prints its message and exits 2. Any other exception
is a bug of the grader: its traceback is shown, with a request to report it, and the exit is 1.

Each class names what is wrong and what to do in its message. The kinds below derive from the
built-in exception their raise sites used before, so that a caller catching ``ValueError``,
``FileNotFoundError`` or ``RuntimeError`` still catches them. Classes raised in one place (the
rubric's ``RubricError``, the sandbox's ``IsolationError``...) live beside their code and derive
from ``UsageError`` directly: one level below it, no deeper. The sandbox's child programs
(``sandbox/child/``) import only the standard library and keep their own classes."""

from __future__ import annotations


class UsageError(Exception):
    """Something a user can cause and fix (a file, an option, a setting, the machine); never a bug
    of the grader. Its message names what is wrong and what to do."""


class InputError(UsageError, ValueError):
    """An option, a setting or a file's content is not valid: the message names it and what is allowed."""


class MissingError(UsageError, FileNotFoundError):
    """A file or folder a command needs is not there: the message names it and how to make or pass it."""


class SetupError(UsageError, RuntimeError):
    """This installation or machine cannot do what was asked (a tool, a package, data not installed or
    unreachable): the message says what to install or run."""
