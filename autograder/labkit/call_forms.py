"""The ways the contract lets a function be called, and the one place a case's arguments are bound
to its parameters' names for them.

A case holds its arguments as the lab writes them (the data positionally, the tuning parameters by
keyword): features, variants, premises and the expected values all read that form. A case of another
form is sent, and shown, bound here by the names of the reference's parameters (its record's
``parameters``, which a test proves equal to the reference's signature):

- ``keywords``: every argument by its name, ``f(ranking=..., judgments=..., k=3)``;
- ``positional``: every argument by position, in the signature's order, ``f(r, j, 3)`` (a
  parameter after one left to its default stays a keyword);
- ``partial``: the tuning parameters bound by ``functools.partial``, as a lab's measures for a
  function of a run are made, then the data positionally: ``functools.partial(f, k=3)(r, j)``.

So a function whose parameters are misnamed, reordered, keyword-only or positional-only fails them.
"""

from __future__ import annotations

from typing import Any

#: The forms a case may be sent in ("" is the lab's own: data positional, tuning by keyword).
FORMS = ("keywords", "positional", "partial")


def bind(
    parameters: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any], form: str
) -> tuple[tuple[Any, ...], dict[str, Any], bool]:
    """``(args, kwargs, partial)`` of a call of ``form`` with ``args`` and ``kwargs``, for a function
    of ``parameters``; ``partial``: the keyword arguments are bound by ``functools.partial`` first."""
    if not form:
        return args, kwargs, False
    if form not in FORMS:
        raise ValueError(f"bind: unknown call form {form!r}: use one of {', '.join(FORMS)} (or '' for the lab's own)")
    unknown = [key for key in kwargs if key not in parameters[len(args) :]]
    if len(args) > len(parameters) or unknown:
        raise ValueError(
            f"bind: a call with {len(args)} positional arguments and keywords {sorted(kwargs)} does not fit the "
            f"parameters {parameters}: correct the record's parameters (they must be the reference's)"
        )
    if form == "partial":
        return args, kwargs, True
    named = {**dict(zip(parameters, args)), **kwargs}
    if form == "keywords":
        return (), named, False
    positional = []
    for name in parameters:
        if name not in named:
            break
        positional.append(named.pop(name))
    return tuple(positional), named, False
