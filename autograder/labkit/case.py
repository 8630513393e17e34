"""A case: one call of a student function with JSON-able inputs (its expected value comes from
elsewhere: the notes, the hidden reference, or a computation made live), and how a case says the
call must raise.

Inputs may name grader-side objects the child builds: ``{"$measure": name}`` (the grader's own
measures), ``{"$search": scenario}``, ``{"$queries": scenario}``, ``{"$path": name}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autograder.labkit.call_forms import bind
from autograder.labkit.kinds import TUNING


@dataclass(frozen=True)
class Case:
    id: str
    function: str
    description: str  # what is tested, shown also for hidden cases
    args: tuple[Any, ...]  # JSON-able
    kwargs: dict[str, Any] = field(default_factory=dict)
    public: bool = False  # call, expected and actual may be shown to the student
    hint: str = ""  # what a wrong value usually means (the public cases' hints)
    form: str = ""  # how the call is made (``call_forms.FORMS``; "": data positional, tuning by keyword)

    def label(self) -> str:
        """What was tested, with the parameters that matter (k, rel, gain, n) when the description
        does not already say them: a hidden case's feedback names them."""
        shown = [
            f"{key}={value!r}"
            for key, value in self.kwargs.items()
            if key in TUNING and f"{key}=" not in self.description and f"@{value}" not in self.description
        ]
        return f"{self.description} ({', '.join(shown)})" if shown else self.description

    def call_text(self, limit: int = 240, parameters: tuple[str, ...] = ()) -> str:
        """The call as it is made: in its ``form``, bound by the function's ``parameters``."""
        args, kwargs, partial = bind(parameters, self.args, self.kwargs, self.form)
        named = [f"{key}={_show(v)}" for key, v in kwargs.items()]
        shown = [_show(arg) for arg in args] + ([] if partial else named)
        called = f"functools.partial({', '.join([self.function, *named])})" if partial else self.function
        text = f"{called}({', '.join(shown)})"
        return text if len(text) <= limit else text[: limit - 3] + "..."


#: The tags that ask the child for the contract's other sequences and mappings (a tuple, a read-only
#: mapping, a 1-D numpy array, a run whose rankings are numpy arrays): the same data in the parent.
CONTRACT_TAGS = ("$tuple", "$readonly", "$array", "$arrays")


def _show(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1:
        ((tag, arg),) = value.items()
        if tag.startswith("$"):
            if tag == "$tuple":
                return repr(tuple(arg))
            if tag == "$readonly":
                return f"MappingProxyType({arg!r})"
            if tag == "$array":
                return f"numpy.array({arg!r})"
            if tag == "$arrays":
                return "{" + ", ".join(f"{key!r}: numpy.array({items!r})" for key, items in arg.items()) + "}"
            return {
                "$measure": str(arg),
                "$search": "search_fn",
                "$queries": "queries",
                "$queries-once": "iter(queries)",
                "$path": repr(arg),
            }.get(tag, repr(value))
    return repr(value)


def plain(value: Any) -> Any:
    """An argument's plain data: a tuple's items, a read-only mapping's (``{"$tuple": ...}``,
    ``{"$readonly": ...}``, ``{"$array": ...}``, ``{"$arrays": ...}`` ask the child to pass the
    contract's other sequences and mappings)."""
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in CONTRACT_TAGS:
        return next(iter(value.values()))
    return value


#: A tuning parameter's valid values (the contracts of the labs' functions: k, rel and n positive
#: integers, gain linear or exp); a call given another must raise ValueError.
def valid_tuning(kwargs: dict[str, Any]) -> bool:
    def positive(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 1

    return all(positive(kwargs[key]) for key in ("k", "rel", "n") if key in kwargs) and kwargs.get(
        "gain", "linear"
    ) in ("linear", "exp")


RAISES = "raises"


def raises(error: str = "ValueError") -> dict[str, str]:
    """The expected outcome of a call that must raise ``error``."""
    return {RAISES: error}
