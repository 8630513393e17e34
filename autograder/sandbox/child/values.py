"""Values leaving the child: the tagged JSON form of what a student function returned (standard
library only; numpy is read only if the submission imported it).

Answers are judged by value, not type. A number is any int or float (or subclass), Fraction,
Decimal or numpy number, and leaves as its base value; a sequence is any list or tuple (or
subclass, such as a namedtuple) or a numpy array; a mapping is any dict (OrderedDict,
defaultdict, Counter, a subclass). Only base values leave, read with the base type's own methods
(``tuple.__iter__``, ``dict.items``, ``float.__float__``), never with the object's. An object
whose class redefines how it compares, converts or iterates is not believed: it leaves as
``other``, naming what it redefines, and the parent rejects it.

    {"type": "int" | "float", "value": ..., "name": "numpy.float32"}     name only when not exact
    {"type": "bool" | "str" | "None", ...}
    {"type": "list" | "tuple", "items": [...], "length": n, "name": ...}
    {"type": "dict", "items": [[key, value], ...], "length": n, "name": ...}
    {"type": "other", "name": ..., "bases": [...], "redefines": [...]}
"""

import math
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for the type checker only: never imported when the child runs
    from collections.abc import Iterable
    from typing import Any

MAX_ITEMS = 20000  # elements of one returned list or dict that are encoded
MAX_STRING = 2000  # characters of one returned string
MAX_DEPTH = 6

#: What a class may not redefine to be read by value: comparison, conversion, arithmetic, iteration.
SUSPECT = frozenset(
    {
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__hash__",
        "__bool__",
        "__float__",
        "__int__",
        "__index__",
        "__complex__",
        "__round__",
        "__trunc__",
        "__floor__",
        "__ceil__",
        "__abs__",
        "__neg__",
        "__pos__",
        "__add__",
        "__radd__",
        "__sub__",
        "__rsub__",
        "__mul__",
        "__rmul__",
        "__truediv__",
        "__rtruediv__",
        "__floordiv__",
        "__rfloordiv__",
        "__mod__",
        "__pow__",
        "__iter__",
        "__len__",
        "__getitem__",
        "__contains__",
        "__reversed__",
        "keys",
        "items",
        "values",
        "get",
    }
)
_BASES = (bool, int, float, str, list, tuple, dict)


def _float_json(value: float) -> float | str:
    return value if math.isfinite(value) else repr(value)  # "nan", "inf", "-inf"


def _name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"[:200]


def _trusted() -> tuple[type, ...]:
    """Standard-library classes whose redefinitions are honest (an OrderedDict compares by order)."""
    collections = sys.modules.get("collections")
    if collections is None:
        return ()
    return tuple(getattr(collections, name) for name in ("OrderedDict", "defaultdict", "Counter"))


def _redefines(kind: type, base: type) -> list[str]:
    """The suspect methods that classes between ``kind`` and its builtin ``base`` define."""
    found: set[str] = set()
    trusted = _trusted()
    for cls in kind.__mro__:
        if cls is base or cls is object:
            break
        if cls not in trusted:
            found |= SUSPECT & set(vars(cls))
    return sorted(found)


def _other(value: "Any", redefines: "Iterable[str]" = ()) -> "dict[str, Any]":
    kind = type(value)
    bases = [base.__name__ for base in kind.__mro__[1:] if base.__module__ == "builtins" and base is not object]
    return {"type": "other", "name": _name(kind), "bases": bases[:5], "redefines": list(redefines)[:10]}


def _tagged(tag: str, kind: type, base: type, **fields: "Any") -> "dict[str, Any]":
    if kind is not base:
        fields["name"] = _name(kind)
    return {"type": tag, **fields}


def _sequence(tag: str, kind: type, base: type, items: "list[Any]", length: int, depth: int) -> "dict[str, Any]":
    return _tagged(tag, kind, base, items=[encode(item, depth + 1) for item in items], length=length)


def _numpy(value: "Any", kind: type, depth: int) -> "dict[str, Any] | None":
    """numpy's numbers, booleans and arrays, or None when ``value`` is none of them."""
    numpy = sys.modules.get("numpy")
    if numpy is None or not isinstance(value, (numpy.generic, numpy.ndarray)):
        return None
    if isinstance(value, numpy.ndarray):
        items = numpy.ndarray.tolist(value)  # the base method: plain Python values, nested per dimension
        if not isinstance(items, list):  # a 0-d array holds one value
            return encode(items, depth)
        return {
            "type": "list",
            "name": _name(kind),
            "items": [encode(item, depth + 1) for item in items[:MAX_ITEMS]],
            "length": len(items),
            "shape": list(value.shape)[:4],
        }
    item = numpy.generic.item(value)  # the base method: the plain Python value (bool, int, float, str...)
    if isinstance(item, (bool, int, float, str)):
        found = _encode(item, depth)
        found["name"] = _name(kind)
        return found
    return _other(value)


def _standard_number(value: "Any", kind: type) -> "dict[str, Any] | None":
    """Fraction and Decimal (and their subclasses), or None."""
    for module, name in (("fractions", "Fraction"), ("decimal", "Decimal")):
        base = getattr(sys.modules.get(module), name, None)
        if base is not None and isinstance(value, base):
            return {"type": "float", "value": _float_json(float(base.__float__(value))), "name": _name(kind)}
    return None


def encode(value: "Any", depth: int = 0) -> "dict[str, Any]":
    """The tagged JSON form of a returned value (see the module's docstring); never raises."""
    try:
        return _encode(value, depth)
    except Exception:  # an object that breaks even the base methods: it leaves as an unreadable other
        return {"type": "other", "name": _name(type(value)), "bases": [], "redefines": []}


def _encode(value: "Any", depth: int) -> "dict[str, Any]":
    kind = type(value)  # type() cannot be faked by the object, unlike __class__
    if depth > MAX_DEPTH:
        return {"type": "too-deep"}
    if value is None:
        return {"type": "None"}
    found = _numpy(value, kind, depth)  # first: numpy's float64 and str_ are also float and str
    if found is not None:
        return found
    base = next((candidate for candidate in _BASES if isinstance(value, candidate)), None)
    if base is not None:
        suspect = _redefines(kind, base)
        if suspect:
            return _other(value, suspect)
    if base is bool:
        return {"type": "bool", "value": bool.__bool__(value)}
    if base is int:
        number = int.__index__(value)
        return _tagged("int", kind, int, value=number if abs(number) < 1 << 53 else float(number))
    if base is float:
        return _tagged("float", kind, float, value=_float_json(float.__float__(value)))
    if base is str:
        text = str.__str__(value)
        return _tagged("str", kind, str, value=text[:MAX_STRING], truncated=len(text) > MAX_STRING)
    if base in (list, tuple):
        items = list(base.__iter__(value))
        return _sequence(base.__name__, kind, base, items[:MAX_ITEMS], len(items), depth)
    if base is dict:
        pairs = list(dict.items(value))
        return _tagged(
            "dict",
            kind,
            dict,
            length=len(pairs),
            items=[[encode(k, depth + 1), encode(v, depth + 1)] for k, v in pairs[:MAX_ITEMS]],
        )
    found = _standard_number(value, kind)
    return found if found is not None else _other(value)
