"""What each expression of one function is made of, for ``answer_code``: a small data flow over
the function's body, read (never run): the arguments it depends on, the key it makes of them, the
table it is an entry of as it is.

For every local name it keeps an ``Info``: the parameters the value depends on, whether it is a
whole argument (``ranking``, ``tuple(ranking)``, ``judgments.items()``, ``ranking[:k]``) or only
part of one (a document of the ranking, a grade), the module's or class's data it reads, and
whether it is a *key* made of the arguments:

- ``hash``: ``hashlib``, ``hmac``, ``hash()``, ``zlib.crc32``... of anything the arguments reach;
- ``serial``: ``repr``, ``str``, ``json.dumps``, ``pickle.dumps``, an f-string, ``%``, ``.join``,
  ``.format``, ``.encode`` of a whole argument;
- ``frozen``: ``tuple``, ``frozenset``, ``sorted``... of a whole argument, a tuple of several,
  ``locals()``;
- ``count``: a ``global`` the function increments (answers picked by the order of the calls).

Hash, serial and count keys stay keys through any computation on them (the characters of a
``repr`` summed into a home-made hash); a frozen key only as it is (iterating ``tuple(ranking)``
gives documents, not keys).

It also keeps which table a value is an *entry* of, as it is (``looked``): an entry read by a key
of the arguments (``T[key]``, ``T.get(key)``, ``db.execute(sql, (key,))``, ``getattr(C, key)``,
``globals()[key]``), found by iterating the table (``for key, value in T``; not ``range``'s
numbers nor ``enumerate``'s counts), or returned as it is by a function of the file that reads
one. A table is the module's or a class's data, a display of constants (``{("d1", 3): 0.5}``) or
a parameter's computed default. The entry stays one through conversions, containers and
arithmetic with constants (``float(T[key])``, ``T[key] * 1.0``, ``T[key]()``). A comparison's
truth is computed, and so is arithmetic over the arguments (``grade * DISCOUNTS[i]``: two operands
depend on the arguments, or one that is no entry), a call over them by the same test
(``numpy.dot(grades, DISCOUNTS[:n])``) and calling what a table holds with the arguments' data
(``GAINS[gain](grade)``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

HASHERS = ("hashlib.", "hmac.", "mmh3.", "xxhash.", "blake3.", "zlib.crc32", "zlib.adler32", "binascii.crc")
SERIALISERS = {"repr", "str", "ascii", "format", "bytes", "bytearray", "json.dumps", "pickle.dumps", "marshal.dumps"}
SERIALISERS |= {"pprint.pformat", "reprlib.repr", "yaml.dump", "yaml.safe_dump", "codecs.encode", "struct.pack"}
SERIALISERS |= {"base64.b64encode", "base64.b85encode", "base64.b32encode", "base64.b16encode", "binascii.hexlify"}
SERIAL_METHODS = {"encode", "join", "format"}
FREEZERS = {"tuple", "frozenset", "sorted", "list", "set", "dict", "map", "zip", "enumerate", "reversed", "filter"}
FREEZERS |= {"iter", "numpy.array", "numpy.asarray", "collections.OrderedDict", "collections.Counter"}
WHOLE_METHODS = {"items", "keys", "values", "copy"}
MUTATORS = {"update", "append", "extend", "add", "insert"}  # the argument's content goes into the receiver
ENTRY_METHODS = {"get", "__getitem__", "pop", "execute"}  # methods that read an entry of a table by a key
Kind = Literal["", "count", "hash", "serial", "frozen"]  # the kind of key a value is ("": none)
STRONG = ("count", "hash", "serial")  # kinds of key that survive any computation on them


@dataclass(frozen=True)
class Info:
    """What one expression is made of."""

    params: frozenset[str] = frozenset()  # the parameters it depends on
    key: str = ""  # how the arguments became a key ("hashlib.sha1", "repr", "a tuple"...)
    kind: Kind = ""  # "count", "hash", "serial" or "frozen"
    whole: bool = False  # a whole argument, not a part of one
    table: str = ""  # the module's or class's data it reads
    looked: str = ""  # the module's or class's table it is an entry of, as it is (not computed from)


EMPTY = Info()


def merge(a: Info, b: Info) -> Info:
    strong = a if a.kind in STRONG else b if b.kind in STRONG else a if a.kind else b
    return Info(
        params=a.params | b.params,
        key=strong.key,
        kind=strong.kind,
        whole=a.whole or b.whole,
        table=a.table or b.table,
        looked=a.looked or b.looked,
    )


def element(info: Info) -> Info:
    """A part of the value, or a value computed from it: a strong key stays one."""
    strong = info.kind in STRONG
    return Info(
        params=info.params,
        key=info.key if strong else "",
        kind=info.kind if strong else "",
        whole=False,
        table=info.table,
        looked=info.looked,
    )


def iterated(info: Info) -> Info:
    """An item of the value: an entry of a table when the value is the table itself."""
    item = element(info)
    return replace(item, looked=info.table) if info.table and not info.params and not info.looked else item


def dotted(node: ast.AST | None) -> str:
    """``a.b.c`` for a chain of names, "" for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def own_nodes(body: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of ``body`` in source order, not entering nested functions or classes (yielded)."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


@dataclass(frozen=True)
class Called:
    """A call as written: the called thing's full name, imports resolved, and for a method call
    its receiver and the method's name (None and "" for any other call)."""

    name: str
    receiver: ast.expr | None
    method: str


@dataclass
class Module:
    """What the whole file says that every function's flow needs."""

    aliases: dict[str, str]  # imported name -> module path ("np" -> "numpy", "sha1" -> "hashlib.sha1")
    # module or class data name -> (line, entries are containers)
    data: dict[str, tuple[int, bool]] = field(default_factory=dict)
    makers: dict[str, Kind] = field(default_factory=dict)  # functions that return a key of their arguments -> its kind
    defined: set[str] = field(default_factory=set)  # the names of the file's functions and methods
    lookers: dict[str, str] = field(default_factory=dict)  # functions that return an entry of a table -> the table
    literals: dict[str, ast.AST] = field(default_factory=dict)  # "the literal at line 12" -> the display
    classes: set[str] = field(default_factory=set)  # the file's classes (getattr reads their attributes)

    def name(self, node: ast.AST | None) -> str:
        """The called thing's full name, imports resolved ("np.load" -> "numpy.load")."""
        head, _, rest = dotted(node).partition(".")
        head = self.aliases.get(head, head)
        return f"{head}.{rest}" if rest else head

    def called(self, node: ast.Call) -> Called:
        """The call's name, receiver and method."""
        if isinstance(node.func, ast.Attribute):
            return Called(self.name(node.func), node.func.value, node.func.attr)
        return Called(self.name(node.func), None, "")


@dataclass
class Scope:
    """One function or lambda ("" for the module's own code) and what its names are made of."""

    body: list[ast.stmt]
    name: str
    params: frozenset[str] = frozenset()  # its parameters and its enclosing functions' (not self)
    variadic: frozenset[str] = frozenset()  # *args and **kwargs (its own and its enclosing functions')
    selves: frozenset[str] = frozenset()  # self, cls
    outer: Scope | None = None  # the enclosing function, whose names it sees
    env: dict[str, Info] = field(default_factory=dict)
    counters: set[str] = field(default_factory=set)  # globals it counts its calls with
    nodes: list[ast.AST] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.nodes = list(own_nodes(self.body))

    def find(self, name: str) -> Info | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.env:
                return scope.env[name]
            if name in scope.selves:
                return None
            scope = scope.outer
        return None


class Flow:
    """One scope's names and expressions."""

    def __init__(self, module: Module, scope: Scope, cache: dict[int, Info] | None = None):
        self.module, self.scope, self.env = module, scope, scope.env
        self.cache = cache  # once the names are settled: each expression is read once

    @staticmethod
    def parameter(name: str) -> Info:
        return Info(params=frozenset({name}), whole=True)

    def info(self, node: ast.AST | None) -> Info:
        if self.cache is None:
            return self._info(node)
        if id(node) not in self.cache:
            self.cache[id(node)] = self._info(node)
        return self.cache[id(node)]

    def _info(self, node: ast.AST | None) -> Info:
        """What ``node`` is made of, read by its kind of expression."""
        if node is None or isinstance(node, ast.Lambda):
            return EMPTY
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.Starred):
            return self.info(node.value)
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.JoinedStr):
            return self._f_string(node)
        if isinstance(node, ast.BinOp):
            return self._operation(node)
        if isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            return replace(self._binding(node), looked="")  # a truth value computed, no entry
        if isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)) and _data(node):
            label = f"the literal at line {getattr(node, 'lineno', 0)}"
            self.module.literals[label] = node
            return Info(table=label)
        if isinstance(node, (ast.Tuple, ast.List)):
            return self._tuple(node)
        return self._binding(node)

    def _name(self, node: ast.Name) -> Info:
        """A local name's value, else the module's data it names."""
        found = self.scope.find(node.id)
        if found is not None:
            return found
        return Info(table=node.id) if node.id in self.module.data else EMPTY

    def _attribute(self, node: ast.Attribute) -> Info:
        """The data of ``self`` or of the module it reads, else a part of its owner."""
        owner = node.value
        if isinstance(owner, ast.Name) and (owner.id in self.scope.selves or owner.id in self.module.data):
            return Info(table=f"{owner.id}.{node.attr}")
        return element(self.info(owner))

    def _subscript(self, node: ast.Subscript) -> Info:
        """A part of its value and of its index; a slice of a whole argument is one."""
        base, index = self.info(node.value), self.info(node.slice)
        part = merge(element(base), element(index))
        looked = base.table if base.table and not base.params and index.params else base.looked
        return replace(part, whole=base.whole and isinstance(node.slice, ast.Slice), looked=looked)

    def _f_string(self, node: ast.JoinedStr) -> Info:
        """Its values together; a serial key of the arguments when one is whole or a key."""
        parts = [self.info(v.value) for v in node.values if isinstance(v, ast.FormattedValue)]
        return self._made(parts, "serial", "an f-string", any(p.whole or p.kind for p in parts))

    def _operation(self, node: ast.BinOp) -> Info:
        """A ``%``-formatting of a string: a serial key of a whole argument (or a frozen key);
        any other operation: its operands' parts (``_binding``)."""
        if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
            right = self.info(node.right)
            return self._made([right], "serial", "%-formatting", right.whole or right.kind == "frozen")
        operands = [self.info(node.left), self.info(node.right)]
        found = self._binding(node)
        computed = sum(1 for o in operands if o.params) >= 2 or any(o.params and not o.looked for o in operands)
        return replace(found, looked="") if computed else found

    def _tuple(self, node: ast.Tuple | ast.List) -> Info:
        """Its items together; a frozen key of two whole arguments or more; whole with one."""
        parts = [self.info(item) for item in node.elts]
        made = self._made(parts, "frozen", "a tuple", sum(p.whole for p in parts) >= 2)
        return replace(made, whole=any(p.whole for p in parts))

    def _binding(self, node: ast.AST) -> Info:
        """Any other expression: its children's parts together, once a comprehension has bound its
        targets; a ``:=`` binds its target and is its value."""
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for generator in node.generators:
                self.iterate(generator.target, generator.iter)
            items = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            looked = next((i.looked for i in map(self.info, items) if i.looked), "")
            found = EMPTY
            for child in ast.iter_child_nodes(node):
                found = merge(found, element(self.info(child)))
            return replace(found, looked=looked)
        if isinstance(node, ast.NamedExpr):
            value = self.info(node.value)
            self.bind(node.target, value)
            return value
        found = EMPTY
        for child in ast.iter_child_nodes(node):
            found = merge(found, element(self.info(child)))
        return found

    @staticmethod
    def _made(parts: list[Info], kind: Kind, key: str, made: bool) -> Info:
        """The parts together; a key of ``kind`` when ``made`` and they reach an argument."""
        found = EMPTY
        for part in parts:
            found = merge(found, element(part) if part.kind != "frozen" or made else replace(part, whole=False))
        if made and found.params and found.kind not in STRONG:
            return replace(found, key=key, kind=kind)
        return found

    def _call(self, node: ast.Call) -> Info:
        """What a call returns, from its receiver's and its arguments' parts (in that order)."""
        called = self.module.called(node)
        receiver = self.info(called.receiver)
        parts = [self.info(a) for a in node.args] + [self.info(k.value) for k in node.keywords]
        merged = element(receiver)
        for part in parts:
            merged = merge(merged, element(part))
        return replace(
            self._returned(called, receiver, parts, merged), looked=self._entry(node, called, receiver, parts)
        )

    def _entry(self, node: ast.Call, called: Called, receiver: Info, parts: list[Info]) -> str:
        """The table whose entry the call returns as it is: a lookup of one by a key of the
        arguments, a function of the file that returns one, a conversion of one; "" when the
        call computes (a function of the file that computes, a callable held in a name or a table)."""
        short = called.method or called.name
        if not isinstance(node.func, ast.Attribute) and not any(p.params for p in parts):
            stored = self.info(node.func).looked
            if stored:
                return stored  # a stored value called with nothing of the arguments (``T[key]()``)
        if called.method in ENTRY_METHODS and receiver.table and not receiver.params and any(p.params for p in parts):
            return receiver.table
        if called.method in ENTRY_METHODS and receiver.looked:
            return receiver.looked  # an entry of an entry (``TABLES.get(name).get(key)``)
        if called.name == "getattr" and len(node.args) >= 2 and parts[1].params:
            owner = node.args[0]
            if isinstance(owner, ast.Name) and (owner.id in self.module.classes or owner.id in self.module.data):
                return owner.id  # an attribute of a class or of the module's data, named by the arguments
        if short in self.module.defined:
            return self.module.lookers.get(short, "")
        if isinstance(node.func, ast.Name) and (
            self.scope.find(node.func.id) is not None or node.func.id in self.module.data
        ):
            return ""
        given = [receiver, *parts]
        depend = [p for p in given if p.params]
        if (
            not isinstance(node.func, (ast.Name, ast.Attribute))
            or len(depend) >= 2
            or any(not p.looked for p in depend)
        ):
            return ""  # a call over the arguments computes (numpy.dot(grades, DISCOUNTS[:n]))
        return next((p.looked for p in given if p.looked), "")

    def _returned(self, called: Called, receiver: Info, parts: list[Info], merged: Info) -> Info:
        """By what is called: a hash, a serialiser, a key maker, ``locals()`` or a freezer of a
        whole argument make a key; ``.items()``, ``.keys()``... of a whole argument are one."""
        name = called.name
        if name.startswith(HASHERS) or name == "hash":
            return _hashed(merged, name)
        if _serialises(called, receiver, parts):
            return self._made(
                [*parts, receiver], "serial", name if name in SERIALISERS else f".{called.method}()", True
            )
        if name in self.module.makers and merged.params:
            return replace(merged, key=f"{name}()", kind=self.module.makers[name])
        if name == "locals":
            return Info(params=self.scope.params | self.scope.variadic, key="locals()", kind="frozen", whole=True)
        if name in ("globals", "vars") and not parts:
            return Info(table="globals()")  # the module's names: a table of them
        if name in FREEZERS and parts and parts[0].whole:
            return _frozen(merged, name)
        return replace(merged, whole=called.method in WHOLE_METHODS and receiver.whole)

    def iterate(self, target: ast.AST, iterable: ast.expr) -> None:
        """Bind a loop's target to the items of what it iterates: entries of a table, but the
        numbers of ``range`` and the counts of ``enumerate``, which are positions."""
        info = self.info(iterable)
        name = self.module.name(iterable.func) if isinstance(iterable, ast.Call) else ""
        if name == "range":
            self.bind(target, replace(element(info), looked=""))
        elif name == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            self.bind(target.elts[0], replace(element(info), looked=""))
            self.bind(target.elts[1], iterated(info))
        else:
            self.bind(target, iterated(info))

    def bind(self, target: ast.AST, info: Info) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = merge(self.env[target.id], info) if target.id in self.env else info
        elif isinstance(target, (ast.Tuple, ast.List)):
            for item in target.elts:
                self.bind(item, element(info))
        elif isinstance(target, ast.Starred):
            self.bind(target.value, element(info))

    def bind_all(self) -> None:
        """One pass over the scope's statements (twice makes loops settle)."""
        for node in self.scope.nodes:
            if isinstance(node, ast.Global):
                self.scope.counters.update(node.names)
            elif isinstance(node, ast.Assign):
                value = self.info(node.value)
                for target in node.targets:
                    self.bind(target, value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self.bind(node.target, self.info(node.value))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                if node.target.id in self.scope.counters and self.scope.params | self.scope.variadic:
                    self.env[node.target.id] = Info(
                        params=frozenset({node.target.id}), key="a count of its calls", kind="count"
                    )
                else:
                    self.bind(node.target, self.info(node.value))
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                self.iterate(node.target, node.iter)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                self.bind(node.optional_vars, self.info(node.context_expr))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                receiver = node.func.value
                if isinstance(receiver, ast.Name) and self.scope.find(receiver.id) is not None:
                    for argument in node.args:
                        self.bind(receiver, self.info(argument))

    def keyed(self, info: Info, more: frozenset[str] = frozenset()) -> bool:
        """Is ``info`` a key made of the call's arguments? A hash or a count of one argument; a
        serialised or frozen key of two (with ``more``: the parameters of what it looks up)."""
        if info.kind in ("count", "hash"):
            return bool(info.params)
        covered = sum(2 if p in self.scope.variadic else 1 for p in (info.params | more) & self.scope.params)
        return info.kind in ("serial", "frozen") and covered >= 2


def _data(node: ast.AST) -> bool:
    """Is ``node`` a display of data only: constants, or displays of them (a table written in a
    function, ``{("d1", "d2"): 0.5}``)?"""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Dict):
        return bool(node.keys) and all(k is not None and _data(k) and _data(v) for k, v in zip(node.keys, node.values))
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return bool(node.elts) and all(_data(item) for item in node.elts)
    return False


def _serialises(called: Called, receiver: Info, parts: list[Info]) -> bool:
    """Does the call serialise a whole argument (or a frozen key): a serialiser of one, or a
    method such as ``.join`` with one or on one?"""
    whole = any(p.whole or p.kind == "frozen" for p in parts)
    return (called.name in SERIALISERS and whole) or (called.method in SERIAL_METHODS and (whole or receiver.whole))


def _hashed(merged: Info, name: str) -> Info:
    """A hasher's result: a hash key of what it hashes, unless that is a count of the calls already."""
    return merged if merged.kind == "count" else replace(merged, key=name, kind="hash")


def _frozen(merged: Info, name: str) -> Info:
    """A freezer's result on a whole argument: whole, and a frozen key unless already a strong one."""
    frozen = merged.kind in STRONG
    return replace(merged, whole=True, key=merged.key if frozen else name, kind=merged.kind if frozen else "frozen")
