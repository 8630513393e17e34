"""What a graded file's code does with its functions' arguments and its data, read (never run),
for ``answer_tables``: the findings that say "this looks answers up" rather than "this computes".

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
  ``importlib.resources``, ``numpy.load``, ``sqlite3``, ``shelve``...), the network, another
  program, or the caller's frames (``sys._getframe``, ``inspect``, ``gc``).
- ``compared`` (counted; ``answer_tables`` sets how many make an if/elif chain of answers):
  tests of an argument for equality or membership against a literal, and ``match`` cases on one.
"""

from __future__ import annotations

import ast
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
EMPTY_CALLS = {"dict", "list", "set", "collections.OrderedDict", "collections.defaultdict", "collections.Counter"}
FILLERS = {"update", "setdefault", "__setitem__", "extend", "append", "insert", "add", "fromkeys"}
_COMPARISONS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)
Rule = Literal["keyed", "searched", "decoded", "read"]  # the docstring's findings (``compared`` is only counted)
Found = tuple[int, Rule, str]  # (line, rule, text): answer_tables makes each a Finding


@dataclass
class Findings:
    found: list[Found] = field(default_factory=list)
    compared: list[int] = field(default_factory=list)  # the lines of tests of arguments against literals


def _aliases(tree: ast.Module) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in ast.walk(tree):
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


class Reader:
    """The whole file: its data, its scopes, what they learn from each other, the findings."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.module = Module(_aliases(tree))
        self.memos: set[str] = set()  # containers a function fills under argument keys
        self.filled: set[str] = set()  # containers that start with content or are filled at import
        self.out = Findings()
        for body in [tree.body] + [node.body for node in tree.body if isinstance(node, ast.ClassDef)]:
            for node in own_nodes(body):
                self._module_statement(node)
        for node in ast.walk(tree):  # self.x = ... in methods
            if isinstance(node, ast.Assign) and not self._empty(node.value):
                self.filled.update(t.attr for t in node.targets if isinstance(t, ast.Attribute))

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

    def _empty(self, node: ast.AST) -> bool:
        """An empty container, as a memo starts: {}, [], set(), dict(), defaultdict(float)..."""
        if isinstance(node, (ast.Dict, ast.List, ast.Set, ast.Tuple)):
            return not (node.keys if isinstance(node, ast.Dict) else node.elts)
        if not isinstance(node, ast.Call) or node.keywords:
            return False
        name = self.module.name(node.func)
        return name in EMPTY_CALLS and (not node.args or (name.endswith("defaultdict") and len(node.args) == 1))

    def scopes(self) -> list[Scope]:
        """Every function and lambda; a nested one knows its enclosing scope's names."""
        found: list[Scope] = []

        def visit(body: list[ast.stmt], outer: Scope | None, in_class: bool) -> None:
            for node in own_nodes(body):
                if isinstance(node, ast.ClassDef):
                    visit(node.body, outer, True)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    scope = self._scope(node, outer, in_class and not isinstance(node, ast.Lambda))
                    found.append(scope)
                    visit(scope.body, scope, False)

        visit(self.tree.body, None, False)
        return found

    def _scope(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, outer: Scope | None, method: bool
    ) -> Scope:
        arguments = node.args
        positional = [a.arg for a in arguments.posonlyargs + arguments.args]
        static = any(dotted(d) == "staticmethod" for d in getattr(node, "decorator_list", ()))
        selves = frozenset(positional[:1]) if method and not static else frozenset()
        variadic = frozenset(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
        own = frozenset(set(positional) | {a.arg for a in arguments.kwonlyargs} | variadic) - selves
        body: list[ast.stmt] = node.body if isinstance(node.body, list) else [ast.Return(node.body, lineno=node.lineno)]
        scope = Scope(
            body=body, name=getattr(node, "name", "a lambda"), params=own, variadic=variadic, selves=selves, outer=outer
        )
        if outer is not None:
            scope.params |= outer.params
            scope.variadic |= outer.variadic
        scope.env.update({p: Flow.parameter(p) for p in own})
        return scope

    def read(self) -> Findings:
        scopes = self.scopes()  # enclosing functions before the functions they enclose
        learnt = None
        for round_ in range(4):  # loops settle; key makers and memos reach their callers
            for scope in scopes:
                Flow(self.module, scope).bind_all()
            for scope in scopes:
                Judge(self, scope).learn()
            now = (dict(self.module.makers), set(self.memos))
            if round_ and now == learnt:
                break
            learnt = now
        for scope in scopes:
            Judge(self, scope).judge()
        for body in [self.tree.body] + [node.body for node in self.tree.body if isinstance(node, ast.ClassDef)]:
            Judge(self, Scope(body=body, name="")).judge()
        return self.out


class Judge:
    """What one scope does: its lookups, comparisons, decoding and reading."""

    def __init__(self, reader: Reader, scope: Scope) -> None:
        self.reader, self.scope, self.flow = reader, scope, Flow(reader.module, scope, {})
        self.where = f"in {scope.name}" if scope.name else "at import"

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
        return bool(root) and (name not in self.reader.memos or name in self.reader.filled)

    def _named(self, root: str) -> str:
        line = self.reader.module.data.get(root.split(".")[-1], (0,))[0]
        return f"{root} (line {line})" if line else root

    def learn(self) -> None:
        """Key makers (functions returning a key of their arguments) and memos."""
        for node in self.scope.nodes:
            if isinstance(node, ast.Return) and self.scope.name != "a lambda":
                info = self.flow.info(node.value)
                if info.kind and info.params:
                    self.reader.module.makers.setdefault(self.scope.name, info.kind)
            stored = []
            if isinstance(node, ast.Assign):
                stored = [(t.value, t.slice) for t in node.targets if isinstance(t, ast.Subscript)]
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
                stored = [(node.target.value, node.target.slice)]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                stored = [(node.func.value, node.args[0])] if node.func.attr in ("setdefault", "__setitem__") else []
            for container, key in stored:
                if self.flow.info(key).params:
                    self.reader.memos.add(self._root(container).split(".")[-1])

    def judge(self) -> None:
        for node in self.scope.nodes:
            line = getattr(node, "lineno", 0)
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
                        self._compare(left, right, line, op)
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

    def _compare(self, left: ast.expr, right: ast.expr, line: int, op: ast.cmpop) -> None:
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
            if self.flow.keyed(info) and (constant or self._table(data)):
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


def read(tree: ast.Module) -> Findings:
    """The findings of the file parsed as ``tree`` (RecursionError on code nested too deeply)."""
    return Reader(tree).read()
