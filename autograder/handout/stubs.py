"""Generate the handout's stubs from the reference solution, so the two cannot drift.

In the lab's ``solutions/PACKAGE/*.py`` (Lab 05: ``solutions/lab05/``) every line between
``# BEGIN SOLUTION`` and ``# END SOLUTION`` is solution-only. Inside a function the block becomes
``raise NotImplementedError(...)`` naming the function and where to read about it; at module level
it is dropped. Signatures, docstrings and everything outside the blocks are copied as they are.
"""

from __future__ import annotations

import re

from autograder.errors import InputError
from autograder.labkit.lab import Lab

BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"

_DEF = re.compile(r"^def (\w+)\(")


def not_implemented_line(lab: Lab, indent: str, function: str, filename: str) -> str:
    """The body a stub gets: an error naming the function, the file and the notes' part."""
    part = lab.notes_parts.get(function)
    where = f"{part} of the notes explains it" if part else "the notes explain it"
    return (
        f"{indent}raise NotImplementedError(\n"
        f'{indent}    "{function} is not implemented yet: write it in {lab.package}/{filename} "\n'
        f'{indent}    "(its docstring has the contract; {where})"\n'
        f"{indent})\n"
    )


def make_stub(lab: Lab, source: str, filename: str) -> str:
    """The stub version of a solution file's source text (a graded file of ``lab``)."""
    out: list[str] = []
    function, inside = None, False
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        match = _DEF.match(line)
        if match:
            function = match.group(1)
        marker = line.strip()
        if marker == BEGIN:
            if inside:
                raise InputError(f"{filename}:{number}: {BEGIN} inside another solution block")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            if indent:
                if function is None:
                    raise InputError(f"{filename}:{number}: {BEGIN} indented outside a function")
                out.append(not_implemented_line(lab, indent, function, filename))
        elif marker == END:
            if not inside:
                raise InputError(f"{filename}:{number}: {END} without {BEGIN}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise InputError(f"{filename}: {BEGIN} is never closed")
    return re.sub(r"\n{4,}", "\n\n\n", "".join(out))


def expected_stubs(lab: Lab) -> dict[str, str]:
    """``{filename: stub text}`` for every graded file of ``lab``, generated from its solutions."""
    return {
        name: make_stub(lab, lab.place.solution_file(name).read_text(encoding="utf-8"), name)
        for name in lab.graded_files
    }


def write_stubs(lab: Lab) -> list[str]:
    """Regenerate ``lab``'s handout stubs; returns the names of the files that changed."""
    changed = []
    for name, text in expected_stubs(lab).items():
        target = lab.place.handout_file(name)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            changed.append(name)
    return changed
