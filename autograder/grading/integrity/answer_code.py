"""What a graded file's code does with its functions' arguments and its data, read (never run),
for ``answer_tables``: the findings that say "this looks answers up" rather than "this computes"
(a key of the arguments, a table searched, data decoded or read, an entry of a table of data
returned as it is).

Each function is read with ``answer_flow`` (what its values are made of, which are keys made of
the arguments). The findings:

- ``keyed``: a key of the arguments (hashed, serialised, frozen, or a count of the calls) looks
  up (``[]``, ``.get``, ``in``) data of the module or of a class that no function fills under an
  argument key, or is compared with constants or with such data. A memo is computation and
  passes: ``functools.lru_cache``, or a dict filled with ``cache[key] = value`` in a function.
  A hash or a count of one argument is enough; a serialised or frozen key needs two
  (``GAINS[str(gain)]`` looks up an option, not a call).
- ``searched``: an argument compared with the entries of a module-level literal whose entries are
  containers (a list of ``(arguments, answer)`` searched in a loop).
- ``decoded``: data decoded (base64, hex, zlib/lzma/bz2/gzip, pickle, marshal, ``json.loads``,
  ``ast.literal_eval``, ``codecs.decode``, ``struct.unpack``...) from anything but the arguments;
  code built at run time (``exec``, ``eval``, ``compile``).
- ``read``: a file read from a path that is not an argument (``open``, ``read_text``,
  ``importlib.resources``, ``numpy.load``, ``sqlite3`` but an in-memory database, ``shelve``...),
  the network, another program, or the caller's frames (``sys._getframe``, ``inspect`` but what
  ``INTROSPECTION`` lists, ``gc``).
- ``returned``: a function the grader calls (one of the lab's, or what the file binds to a lab's
  name: a closure a factory returns, a lambda, a class's ``__call__``, a decorator's wrapper)
  returns an entry of a table as it is: read by a key of its arguments or found by iterating the
  table, with no arithmetic over its arguments on the way (``answer_flow``'s ``looked``), followed
  through the file's helpers, from a table that holds data written in the file (``data`` or more
  constants flow into it, counting a string as one per 16 characters, or data read or decoded: a
  literal, a string unpacked, a file, a database, a table handed in as a default argument, a
  class's attributes read with ``getattr``, the module's names read with ``globals()``), not a
  table computed from a few constants (``[1 / log2(r + 1) for r in range(1, 1001)]`` is a function
  of its key) nor the arguments' data an object carries (``self.ranking``). Looking answers up
  returns what was stored; computing returns what arithmetic over the arguments made.
- ``compared`` (counted; ``answer_tables`` sets how many make an if/elif chain of answers):
  tests of an argument for equality or membership against a literal, and ``match`` cases on one.

A key compared with constants is evidence only where the comparison decides what is returned or
raised (the test of an ``if`` that returns or raises, of a conditional expression, or in a
returned value): a debug counter that prints on its first call answers nothing.

Written-out tables of numbers that only computation uses (a literal list of discounts that every
function multiplies with the arguments' grades and that none returns as it is) are
``computational``: ``answer_tables`` leaves their constants out of its counted rules.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from autograder.grading.integrity.answer_flow import Called, Flow, Info, Module, Scope, dotted, own_nodes

LOOKUPS = {"get", "__getitem__", "pop", "index"}
CODE = {"exec", "eval", "compile", "types.FunctionType", "types.CodeType"}
DECODERS = CODE | {"bytes.fromhex", "bytearray.fromhex", "zlib.decompress", "lzma.decompress", "bz2.decompress"}
DECODERS |= {"gzip.decompress", "zlib.decompressobj", "lzma.LZMADecompressor", "bz2.BZ2Decompressor", "pickle.loads"}
DECODERS |= {"pickle.Unpickler", "marshal.loads", "json.loads", "ast.literal_eval", "codecs.decode", "struct.unpack"}
DECODERS |= {"struct.iter_unpack", "numpy.frombuffer", "yaml.load", "yaml.safe_load", "tomllib.loads", "int.from_bytes"}
DECODER_PREFIXES = ("base64.", "binascii.a2b_", "binascii.unhexlify")
FILE_OPENERS = {"open", "io.open", "codecs.open", "os.open", "gzip.open", "bz2.open", "lzma.open", "tarfile.open"}
READERS = FILE_OPENERS | {"os.read", "numpy.load", "numpy.loadtxt", "numpy.genfromtxt", "numpy.fromfile"}
READERS |= {"numpy.memmap", "sqlite3.connect", "shelve.open", "dbm.open", "pkgutil.get_data", "linecache.getline"}
READERS |= {"linecache.getlines", "runpy.run_path", "importlib.util.spec_from_file_location", "zipfile.ZipFile"}
READERS |= {"fileinput.input", "mmap.mmap", "os.system", "os.popen", "sys._getframe", "gc.get_objects"}
READERS |= {"gc.get_referrers", "gc.get_referents"}
READER_PREFIXES: tuple[str, ...] = ("importlib.resources.", "pandas.read_", "urllib.", "requests.", "http.")
READER_PREFIXES += ("socket.", "subprocess.", "inspect.", "ftplib.", "httpx.")
PATH_READERS = ("numpy.", "pandas.")  # readers of a file that the arguments may name
READ_METHODS = {"read_text", "read_bytes", "open"}
#: What ``inspect`` may be asked without reading frames, source files or other objects: a callable's
#: signature and kind (an allow-list: the rest of ``inspect`` reads).
INTROSPECTION = {"inspect.signature", "inspect.Signature", "inspect.Parameter", "inspect.getfullargspec"}
INTROSPECTION |= {"inspect.isfunction", "inspect.ismethod", "inspect.isclass", "inspect.isroutine", "inspect.isbuiltin"}
INTROSPECTION |= {"inspect.iscoroutinefunction", "inspect.isgeneratorfunction"}
IN_MEMORY = {":memory:", ""}  # sqlite3.connect's databases that start empty and read no file
EMPTY_CALLS = {"dict", "list", "set", "collections.OrderedDict", "collections.defaultdict", "collections.Counter"}
FILLERS = {"update", "setdefault", "__setitem__", "extend", "append", "insert", "add", "fromkeys"}
SQL_METHODS = {"execute", "executemany", "executescript"}
STORES = FILLERS | SQL_METHODS  # what puts data into a table or a database
_PUTS = re.compile(r"\b(insert|replace|update)\b", re.IGNORECASE)
_COMPARISONS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)
Rule = Literal["keyed", "searched", "decoded", "read", "returned"]  # the docstring's findings (``compared`` is counted)
Found = tuple[int, Rule, str]  # (line, rule, text): answer_tables makes each a Finding


@dataclass
class Findings:
    found: list[Found] = field(default_factory=list)
    compared: list[int] = field(default_factory=list)  # the lines of tests of arguments against literals
    computational: set[int] = field(default_factory=set)  # ids of the written-out tables only computation uses


def _aliases(nodes: list[ast.AST]) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _literal(node: ast.AST | None) -> bool:
    """A constant other than None, a bool or ``...``, or a display of constants only."""
    if isinstance(node, ast.Constant):
        return node.value is not None and not isinstance(node.value, bool) and node.value is not Ellipsis
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_literal(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys) and all(
            k is not None and _literal(k) and _literal(v) for k, v in zip(node.keys, node.values)
        )
    return False


def _containers(node: ast.AST) -> bool:
    """Is ``node`` a literal container whose entries are containers (a table of records)?"""
    displays = (ast.List, ast.Tuple, ast.Set, ast.Dict)
    if not isinstance(node, displays):
        return False
    return any(isinstance(item, displays) for item in (node.values if isinstance(node, ast.Dict) else node.elts))


def _entries(node: ast.AST) -> int:
    """How many entries a literal container display has (0 for anything else)."""
    if isinstance(node, ast.Dict):
        return len(node.keys)
    return len(node.elts) if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else 0


def _decodes(name: str, from_arguments: bool) -> bool:
    """Does calling ``name`` build code, or decode data that is not the arguments?"""
    return name in CODE or ((name in DECODERS or name.startswith(DECODER_PREFIXES)) and not from_arguments)


def _mode(node: ast.Call) -> ast.expr | None:
    """The mode a file opener is called with: its second argument or ``mode=``."""
    return node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)


def _writes(mode: ast.AST | None) -> bool:
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(set(mode.value) & set("wax"))


def _lab_name(target: ast.AST, functions: Collection[str]) -> bool:
    """Is the target the name of a function the lab grades (one of ``functions``: a plain name, or
    ``globals()[...]``)?"""
    if isinstance(target, ast.Name):
        return target.id in functions
    return (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Call)
        and dotted(target.value.func) in ("globals", "vars")
    )


def _in_memory(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value in IN_MEMORY


def _puts(node: ast.Call) -> bool:
    """Does the call put rows into a database: ``execute``, ``executemany`` or ``executescript``
    of an INSERT, REPLACE or UPDATE, or of SQL the code builds?"""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr in SQL_METHODS and node.args):
        return False
    sql = node.args[0]
    return not (isinstance(sql, ast.Constant) and isinstance(sql.value, str)) or bool(_PUTS.search(sql.value))


def _weight(node: ast.AST) -> int:
    """The data a piece of code writes down: one per constant, a string or bytes one per 16
    characters (docstrings left out)."""
    found = 0
    for item in ast.walk(node):
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and item.body:
            first = item.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found -= _weight(first.value)
        if isinstance(item, ast.Constant) and item.value is not None and not isinstance(item.value, bool):
            found += 1 + len(item.value) // 16 if isinstance(item.value, (str, bytes)) else 1
    return found


def _numbers(node: ast.AST) -> bool:
    """A written-out list or tuple of numbers (a table of a function of the position)."""
    if not isinstance(node, (ast.List, ast.Tuple)) or len(node.elts) < 2:
        return False
    items = [item.operand if isinstance(item, ast.UnaryOp) else item for item in node.elts]
    return all(isinstance(i, ast.Constant) and type(i.value) in (int, float) for i in items)


def _filled(node: ast.AST) -> set[str]:
    """The names a statement binds or fills: its targets, the containers it stores into or
    fills with a method, the attributes it sets (by their last name)."""
    found: set[str] = set()
    for item in ast.walk(node):
        if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store):
            found.add(item.id)
        elif isinstance(item, (ast.Subscript, ast.Attribute)) and isinstance(item.ctx, ast.Store):
            base = item.value if isinstance(item, ast.Subscript) else item
            found.add(dotted(base).split(".")[-1])
        elif isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr in STORES:
            found.add(dotted(item.func.value).split(".")[-1])
    return found - {""}


class Reader:
    """The whole file: its data, its scopes, what they learn from each other, the findings."""

    def __init__(self, tree: ast.Module, data: int, graded: Collection[str]) -> None:
        self.tree, self.data, self.graded = tree, data, graded  # graded: the functions the lab grades
        nodes = list(ast.walk(tree))
        self.module = Module(aliases=_aliases(nodes))
        self.memos: set[str] = set()  # containers a function fills under argument keys
        self.carried: set[str] = set()  # attributes a method sets to its arguments' data (self.ranking = ranking)
        self.filled: set[str] = set()  # containers that start with content or are filled at import
        self.out = Findings()
        self.entries: set[int] = set()  # the scopes (by id) the grader may call
        for body in [tree.body] + [node.body for node in tree.body if isinstance(node, ast.ClassDef)]:
            for node in own_nodes(body):
                self._module_statement(node)
        for node in nodes:  # self.x = ... in methods
            if isinstance(node, ast.Assign) and not self._empty(node.value):
                self.filled.update(t.attr for t in node.targets if isinstance(t, ast.Attribute))
        functions = [n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        self.module.defined.update(f.name for f in functions)
        self.module.classes.update(n.name for n in tree.body if isinstance(n, ast.ClassDef))
        self.handed = self._handed(nodes)
        self.returned: set[str] = set()  # tables an entry function returns an entry of
        self.sources = self._sources(functions)
        self.weights: dict[str, int] = {}

    def _handed(self, nodes: list[ast.AST]) -> set[str | int]:
        """The functions the grader may call: the lab's functions, and what the file binds to a
        lab's name (``<lab function> = answer``, ``globals()[name] = ...``, ``setattr(...)``, a
        decorator of a lab's function): a function or class by name (a class: its ``__call__``), a
        lambda (by id), or what a factory called there returns (a closure, a lambda)."""
        bound: list[ast.expr] = []
        for node in nodes:
            if isinstance(node, ast.Assign) and any(_lab_name(t, self.graded) for t in node.targets):
                bound.append(node.value)
            elif isinstance(node, ast.Call) and self.module.name(node.func) == "setattr" and len(node.args) == 3:
                bound.append(node.args[2])
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in self.graded:
                bound += [ast.Call(func=d, args=[], keywords=[]) for d in node.decorator_list]
        defs = {n.name: n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        found: set[str | int] = set(self.graded)
        while bound:
            value = bound.pop()
            if isinstance(value, ast.Lambda):
                found.add(id(value))
            elif isinstance(value, (ast.Name, ast.Attribute)):
                found.add(value.id if isinstance(value, ast.Name) else value.attr)
            elif isinstance(value, ast.Call):  # a class, or a factory: what it returns
                factory = defs.get(value.func.id if isinstance(value.func, ast.Name) else "")
                if isinstance(value.func, ast.Call):
                    bound.append(value.func)  # a decorator with arguments
                elif isinstance(factory, ast.ClassDef):
                    found.add(factory.name)
                elif factory is not None and factory.name not in found:
                    found.add(factory.name)
                    returned = [n.value for n in own_nodes(factory.body) if isinstance(n, ast.Return)]
                    bound += [r for r in returned if isinstance(r, (ast.Lambda, ast.Name, ast.Call))]
        return found

    def _entry(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, owner: str) -> bool:
        """Is the function one the grader may call (``_handed``: not a method of the same name),
        or the ``__call__`` of a class handed out?"""
        if isinstance(node, ast.Lambda):
            return id(node) in self.handed
        if owner:  # a method: the grader calls only the __call__ of a class handed out
            return node.name == "__call__" and owner in self.handed
        return node.name in self.handed

    def _sources(self, functions: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> dict[str, list[ast.AST]]:
        """Per name of the module's (or a class's) data and per function, the code its content
        comes from: the statements at import that bind or fill it, the functions that fill it, a
        function's own body; ``weight`` follows the names they read."""
        found: dict[str, list[ast.AST]] = {}
        for body in [self.tree.body] + [n.body for n in self.tree.body if isinstance(n, ast.ClassDef)]:
            for statement in body:
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    for name in _filled(statement):
                        found.setdefault(name, []).append(statement)
        for node in self.tree.body:  # a class holds its attributes; globals() the module's names
            if isinstance(node, ast.ClassDef):
                found[node.name] = [s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
            elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault("globals()", []).append(node)
        for function in functions:
            body = function.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # its docstring
            found.setdefault(function.name, []).extend(body)
            for name in _filled(function) & (set(self.module.data) | self.filled):
                found.setdefault(name, []).append(function)
        return found

    def _loads(self, code: ast.AST) -> bool:
        """Does the code read or decode data (a file, a database, a blob): data however few its constants?"""
        for node in ast.walk(code):
            if isinstance(node, ast.Call):
                name = self.module.name(node.func)
                if name == "sqlite3.connect" and _in_memory(node.args[0] if node.args else None):
                    continue
                if name in READERS | DECODERS or name.startswith(READER_PREFIXES + DECODER_PREFIXES):
                    return True
        return False

    def weight(self, name: str) -> int:
        """The data that flows into ``name``: the constants of the code its content comes from,
        and of the data and functions that code reads, once each (for a literal or a default: its
        own, and those of what it reads)."""
        if name in self.module.literals:  # its own constants, and the data and functions it reads
            code = self.module.literals[name]
            names = {n.id for n in ast.walk(code) if isinstance(n, ast.Name) and n.id in self.sources}
            return _weight(code) + self.data * self._loads(code) + sum(self.weight(n) for n in names)
        if name not in self.weights:
            seen, stack, total = {name}, [name], 0
            while stack:
                for code in self.sources.get(stack.pop(), []):
                    if isinstance(code, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        reads = [code.name]
                    else:
                        total += _weight(code) + self.data * self._loads(code)
                        reads = [
                            n.id for n in ast.walk(code) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                        ]
                    for read in reads:
                        if read not in seen and read in self.sources:
                            seen.add(read)
                            stack.append(read)
            self.weights[name] = total
        return self.weights[name]

    def _module_statement(self, node: ast.AST) -> None:
        """Module and class data: where each name is bound, whether it is a table of records,
        whether it starts with content or is filled at import (then it is no memo)."""
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for name in (n for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)):
                table = _containers(node.value) or self.module.data.get(name.id, (0, False))[1]
                self.module.data[name.id] = (node.lineno, table)
                if not self._empty(node.value) or isinstance(node, ast.AugAssign):
                    self.filled.add(name.id)
            self.filled.update(dotted(t.value) for t in targets if isinstance(t, ast.Subscript))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FILLERS:
            self.filled.add(dotted(node.func.value))
        elif isinstance(node, ast.Call) and _puts(node):
            self.filled.add(dotted(node.func.value) if isinstance(node.func, ast.Attribute) else "")

    def _empty(self, node: ast.AST) -> bool:
        """An empty container, as a memo starts: {}, [], set(), dict(), defaultdict(float), an
        in-memory database..."""
        if isinstance(node, (ast.Dict, ast.List, ast.Set, ast.Tuple)):
            return not (node.keys if isinstance(node, ast.Dict) else node.elts)
        if not isinstance(node, ast.Call):
            return False
        name = self.module.name(node.func)
        if name == "sqlite3.connect":
            return bool(node.args) and _in_memory(node.args[0])
        if node.keywords:
            return False
        return name in EMPTY_CALLS and (not node.args or (name.endswith("defaultdict") and len(node.args) == 1))

    def scopes(self) -> list[Scope]:
        """Every function and lambda; a nested one knows its enclosing scope's names."""
        found: list[Scope] = []

        def visit(body: list[ast.stmt], outer: Scope | None, owner: str) -> None:
            for node in own_nodes(body):
                if isinstance(node, ast.ClassDef):
                    visit(node.body, outer, node.name)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    scope = self._scope(node, outer, bool(owner) and not isinstance(node, ast.Lambda))
                    found.append(scope)
                    if self._entry(node, owner):
                        self.entries.add(id(scope))
                    visit(scope.body, scope, "")

        visit(self.tree.body, None, "")
        return found

    def _scope(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, outer: Scope | None, method: bool
    ) -> Scope:
        arguments = node.args
        positional = [a.arg for a in arguments.posonlyargs + arguments.args]
        static = any(dotted(d) == "staticmethod" for d in getattr(node, "decorator_list", ()))
        selves = frozenset(positional[:1]) if method and not static else frozenset()
        variadic = frozenset(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
        stored = self._defaults(arguments)
        own = frozenset(set(positional) | {a.arg for a in arguments.kwonlyargs} | variadic) - selves - set(stored)
        body: list[ast.stmt] = node.body if isinstance(node.body, list) else [ast.Return(node.body, lineno=node.lineno)]
        scope = Scope(
            body=body, name=getattr(node, "name", "a lambda"), params=own, variadic=variadic, selves=selves, outer=outer
        )
        if outer is not None:
            scope.params |= outer.params
            scope.variadic |= outer.variadic
        scope.env.update({p: Flow.parameter(p) for p in own})
        scope.env.update({p: Info(table=table) for p, table in stored.items()})
        return scope

    def _option(self, name: str) -> bool:
        """Is the module's ``name`` a constant (``DEFAULT_GAIN = "linear"``): a default option, not data?"""
        bound = self.sources.get(name, [])
        return bool(bound) and all(
            isinstance(b, (ast.Assign, ast.AnnAssign)) and isinstance(b.value, (ast.Constant, ast.UnaryOp))
            for b in bound
        )

    def _defaults(self, arguments: ast.arguments) -> dict[str, str]:
        """The parameters whose default is data, not an option the grader passes (``_t=_TABLE``,
        ``_t=_load()``): each with the table it holds (the module's name, or its own label)."""
        positional = arguments.posonlyargs + arguments.args
        pairs = list(zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults))
        pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
        found: dict[str, str] = {}
        for argument, default in pairs:
            if isinstance(default, ast.Name) and default.id in self.module.data and not self._option(default.id):
                found[argument.arg] = default.id
            elif not isinstance(default, (ast.Constant, ast.Name, ast.Attribute, ast.UnaryOp)):
                found[argument.arg] = f"the default of {argument.arg} at line {default.lineno}"
                self.module.literals[found[argument.arg]] = default
        return found

    def read(self) -> Findings:
        scopes = self.scopes()  # enclosing functions before the functions they enclose
        learnt = None
        for round_ in range(4):  # loops settle; key makers and memos reach their callers
            for scope in scopes:
                Flow(self.module, scope).bind_all()
            for scope in scopes:
                Judge(self, scope).learn()
            now = (dict(self.module.makers), set(self.memos), dict(self.module.lookers))
            if round_ and now == learnt:
                break
            learnt = now
        for scope in scopes:
            Judge(self, scope).judge()
        for body in [self.tree.body] + [node.body for node in self.tree.body if isinstance(node, ast.ClassDef)]:
            Judge(self, Scope(body=body, name="")).judge()
        self.out.computational = self._computational(scopes)
        return self.out

    def _computational(self, scopes: list[Scope]) -> set[int]:
        """The written-out tables of numbers (by the id of their literal) that functions read and
        no function the grader calls returns an entry of as it is; bound once, at import."""
        bound: dict[str, list[ast.AST]] = {}
        for node in self.tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for name in _filled(node):
                    bound.setdefault(name, []).append(node)
        read_in_functions = {
            n.id for scope in scopes for n in scope.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
        found = set()
        for name, statements in bound.items():
            (statement, *more) = statements
            fillers = [c for c in self.sources.get(name, []) if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef))]
            if more or fillers or name in self.returned or name not in read_in_functions:
                continue
            value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
            if value is not None and _numbers(value):
                found.add(id(value))
        return found


class Judge:
    """What one scope does: its lookups, comparisons, decoding and reading."""

    def __init__(self, reader: Reader, scope: Scope) -> None:
        self.reader, self.scope, self.flow = reader, scope, Flow(reader.module, scope, {})
        self.where = f"in {scope.name}" if scope.name else "at import"
        self.deciding: set[int] | None = None  # ``_deciding``, read when a comparison needs it

    def _deciding(self) -> set[int]:
        """The comparisons (by id) that decide what the scope returns or raises: in the test of an
        ``if`` whose branches return a value or raise, of a conditional expression, in a returned value."""
        tests: list[ast.AST] = []
        for node in self.scope.nodes:
            if isinstance(node, ast.If):
                branches = list(own_nodes(node.body + node.orelse))
                if any(isinstance(b, ast.Raise) or (isinstance(b, ast.Return) and b.value) for b in branches):
                    tests.append(node.test)
            elif isinstance(node, ast.IfExp):
                tests.append(node.test)
            elif isinstance(node, ast.Return) and node.value is not None:
                tests.append(node.value)
        return {id(n) for test in tests for n in own_nodes([test]) if isinstance(n, ast.Compare)}

    def _root(self, node: ast.AST | None) -> str:
        """The module's or class's data ``node`` reads (through subscripts), if any."""
        while isinstance(node, ast.Subscript):
            node = node.value
        if _literal(node) and isinstance(node, (ast.Dict, ast.Set, ast.List, ast.Tuple)):
            return "a literal"
        info = self.flow.info(node)
        return info.table if info.table and not info.params else ""

    def _table(self, root: str) -> bool:
        """Is ``root`` data no computation fills: not a memo that starts empty and that only
        functions fill, under keys of their arguments?"""
        name = root.split(".")[-1]
        if "." in root and name in self.reader.carried:
            return False  # the arguments' data an object carries, not a table of the file
        return bool(root) and (name not in self.reader.memos or name in self.reader.filled)

    def _named(self, root: str) -> str:
        line = self.reader.module.data.get(root.split(".")[-1], (0,))[0]
        return f"{root} (line {line})" if line else root

    def learn(self) -> None:
        """Key makers (functions returning a key of their arguments), functions returning an entry
        of a table as it is (``lookers``) and memos."""
        for node in self.scope.nodes:
            if isinstance(node, ast.Return) and self.scope.name != "a lambda":
                info = self.flow.info(node.value)
                if info.kind and info.params:
                    self.reader.module.makers.setdefault(self.scope.name, info.kind)
                if info.looked and self._table(info.looked):
                    self.reader.module.lookers.setdefault(self.scope.name, info.looked)
            if isinstance(node, ast.Assign) and self.scope.selves:
                value = self.flow.info(node.value)
                if value.params and not value.table and not value.looked:
                    self.reader.carried.update(
                        t.attr
                        for t in node.targets
                        if isinstance(t, ast.Attribute) and dotted(t.value) in self.scope.selves
                    )
            stored = []
            if isinstance(node, ast.Assign):
                stored = [(t.value, t.slice) for t in node.targets if isinstance(t, ast.Subscript)]
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
                stored = [(node.target.value, node.target.slice)]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                stored = [(node.func.value, node.args[0])] if node.func.attr in ("setdefault", "__setitem__") else []
                if _puts(node):  # rows of the arguments put into a database
                    stored = [(node.func.value, argument) for argument in node.args[1:]]
            for container, key in stored:
                if self.flow.info(key).params:
                    self.reader.memos.add(self._root(container).split(".")[-1])

    def judge(self) -> None:
        for node in self.scope.nodes:
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Return) and id(self.scope) in self.reader.entries:
                self._returned(self.flow.info(node.value), line)
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                self._lookup(node.value, node.slice, line)
            elif isinstance(node, ast.Call):
                self._call(node, line)
            elif isinstance(node, ast.Compare):
                left = node.left
                for op, right in zip(node.ops, node.comparators):
                    if isinstance(op, (ast.In, ast.NotIn)):
                        self._lookup(right, left, line)
                    if isinstance(op, _COMPARISONS):
                        if self.deciding is None:
                            self.deciding = self._deciding()
                        self._compare(left, right, line, op, id(node) in self.deciding)
                    left = right
            elif isinstance(node, ast.Match) and (subject := self.flow.info(node.subject)).params:
                self.reader.out.compared += [case.pattern.lineno for case in node.cases if _pattern(case.pattern)]
                for case in node.cases:
                    if subject.whole and _record(case.pattern):
                        what = f"an argument matched against a literal {type(case.pattern).__name__[5:].lower()}"
                        self._add(
                            case.pattern.lineno, "searched", f"{what} at line {case.pattern.lineno} ({self.where})"
                        )

    @staticmethod
    def _what(info: Info) -> str:
        return "a count of the function's calls" if info.kind == "count" else f"{info.key} of the arguments"

    def _lookup(self, container: ast.AST | None, key: ast.AST, line: int) -> None:
        info, root = self.flow.info(key), self._root(container)
        if self._table(root) and self.flow.keyed(info, self.flow.info(container).params):
            self._add(line, "keyed", f"{self._what(info)} looks up {self._named(root)} at line {line} ({self.where})")

    def _returned(self, info: Info, line: int) -> None:
        """A function the grader calls returns an entry of a table of data as it is."""
        table = info.looked
        if not (table and self._table(table)):
            return
        self.reader.returned.add(table.split(".")[-1])
        if self.reader.weight(table.split(".")[-1]) >= self.reader.data:
            text = f"{self.scope.name} returns an entry of {self._named(table)} as it is at line {line}"
            self._add(line, "returned", f"{text}, with no arithmetic over its arguments")

    def _compare(self, left: ast.expr, right: ast.expr, line: int, op: ast.cmpop, deciding: bool) -> None:
        for mine, other in ((left, right), (right, left)):
            info = self.flow.info(mine)
            if not info.params:
                continue
            constant = _literal(other)
            if constant:
                self.reader.out.compared.append(line)
            if isinstance(op, (ast.In, ast.NotIn)):
                return  # a membership test is a lookup (``_lookup``)
            equal = isinstance(op, (ast.Eq, ast.NotEq))
            theirs = self.flow.info(other)
            data = theirs.table if not theirs.params else ""
            if self.flow.keyed(info) and ((constant and deciding) or self._table(data)):
                what = "constants" if constant else f"the entries of {self._named(data)}"
                self._add(line, "keyed", f"{self._what(info)} compared with {what} at line {line} ({self.where})")
            elif equal and info.whole and constant and _entries(other) >= 2:
                what = f"a literal {type(other).__name__.lower()}"
                self._add(line, "searched", f"an argument compared with {what} at line {line} ({self.where})")
            elif info.whole and self._table(data) and self.reader.module.data.get(data.split(".")[-1], (0, False))[1]:
                what = f"the entries of {self._named(data)}"
                self._add(line, "searched", f"an argument compared with {what} at line {line} ({self.where})")
            return

    def _call(self, node: ast.Call, line: int) -> None:
        """A call: a lookup (``.get``, ``.pop``... of a key), then data decoded or read."""
        called = self.reader.module.called(node)
        first = node.args[0] if node.args else None
        from_arguments = bool(self.flow.info(first).params)
        if called.method in LOOKUPS and first is not None:
            self._lookup(called.receiver, first, line)
        source = self._source(node, called, first, from_arguments)
        if source is not None:
            rule, what = source
            self._add(line, rule, f"{what} at line {line} ({self.where})")

    def _source(
        self, node: ast.Call, called: Called, first: ast.expr | None, from_arguments: bool
    ) -> tuple[Rule, str] | None:
        """The rule and the words for a call that decodes data or code (``decoded``) or reads
        a file, the network, another program or the caller's frames (``read``), not from the
        arguments; None for any other call."""
        name = called.name
        if name in INTROSPECTION or (name == "sqlite3.connect" and _in_memory(first)):
            return None
        if _decodes(name, from_arguments):
            return "decoded", f"{name}()"
        if name in FILE_OPENERS:
            return None if _writes(_mode(node)) or from_arguments else ("read", f"{name}() of a file")
        if name in READERS or name.startswith(READER_PREFIXES):
            return None if from_arguments and name.startswith(PATH_READERS) else ("read", f"{name}()")
        if called.method in READ_METHODS and not self.flow.info(called.receiver).params and not _writes(first):
            return "read", f".{called.method}() of a file"
        return None

    def _add(self, line: int, rule: Rule, text: str) -> None:
        self.reader.out.found.append((line, rule, text))


def _pattern(pattern: ast.pattern) -> bool:
    """A pattern of constants: a value, a choice of values, or a record (``_record``)."""
    if isinstance(pattern, ast.MatchOr):
        return all(_pattern(p) for p in pattern.patterns)
    return isinstance(pattern, ast.MatchValue) or _record(pattern)


def _record(pattern: ast.pattern) -> bool:
    """A sequence or mapping pattern with two constant parts or more (``case (("D1", "D2"), 3):``)."""
    if isinstance(pattern, ast.MatchOr):
        return any(_record(p) for p in pattern.patterns)
    if isinstance(pattern, ast.MatchSequence):
        return sum(map(_pattern, pattern.patterns)) >= 2
    if isinstance(pattern, ast.MatchMapping):
        return len(pattern.keys) + sum(map(_pattern, pattern.patterns)) >= 2
    return False


def read(tree: ast.Module, data: int, functions: Collection[str]) -> Findings:
    """The findings of the file parsed as ``tree`` (RecursionError on code nested too deeply);
    ``data``: how many constants make a table data (``returned``); ``functions``: the functions the
    lab grades."""
    return Reader(tree, data, functions).read()
