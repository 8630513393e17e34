"""What the grader makes of bugs it has not seen: detected, diagnosed, named, false; and the honest corpus.

    .venv/bin/python tools/concept_bugs.py [--mutants N] [--seed S] [--verbose]

Three sets of trusted code are graded in this process, as the child would answer
(``tests/support/inprocess.py``, the engine's judging, scoring and diagnoses unchanged):

- the one-bug variants written from the notes' concepts, ``tests/fixtures/concept_bugs/bugs.py``: per bug,
  *detected* (its function lost points), *diagnosed* (a diagnosis on its function), *named* (a catalogued
  misconception or one of the notes' concepts named), *right concept* (what is named is the bug's concept,
  or a misconception that concept lists), *false* (a diagnosis that some judged case contradicts:
  ``tests/support/premises.py``);
- the one-bug variants by kind of mistake (formula, state, layout, one input, inherited),
  ``tests/fixtures/concept_bugs/kinds.py``, those read off the contract (``contract_kinds.py``) and those
  inside one part of a measure's definition (``parts.py``, ``parts_general.py``), counted the same way;
- single-operator mutants of the reference (``tools/mutants.py``; ``--mutants N``: a sample of N, 0 for
  all): the same counts over the mutants that lose points (one that loses none may be equivalent);
- the honest corpus's bases (``tests/fixtures/answers_corpus/honest/``): full marks, no diagnosis.

It prints the figures (no timing; nothing is written).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import textwrap
import types
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grading.results import DiagnosisKind  # noqa: E402
from autograder.labkit import load  # noqa: E402

load.activate()  # Lab 05 (this repository's lab/) as autograder.lab, which this script imports

from autograder.lab import concepts, spec  # noqa: E402
from autograder.lab.cranfield import bundle  # noqa: E402
from tests.fixtures.concept_bugs.bugs import BUGS  # noqa: E402
from tests.fixtures.concept_bugs.contract_kinds import CONTRACT_BUGS  # noqa: E402
from tests.fixtures.concept_bugs.kinds import KIND_BUGS  # noqa: E402
from tests.fixtures.concept_bugs.parts import PART_BUGS  # noqa: E402
from tests.fixtures.concept_bugs.parts_general import GENERAL_BUGS  # noqa: E402
from tests.support import answers_corpus, subs, truth  # noqa: E402
from tools import mutants as mutant_tools  # noqa: E402

NAMED = (DiagnosisKind.MISCONCEPTION, DiagnosisKind.CONCEPT)


def function_of(source: str) -> str:
    """The name of the (last) function a bug's source defines."""
    return [line for line in textwrap.dedent(source).splitlines() if line.startswith("def ")][-1][4:].split("(")[0]


def right_concept(concept_id: str, diagnosis) -> bool:
    """Is a named diagnosis about the bug's concept (the concept itself, or a misconception it lists)?"""
    concept = concepts.CONCEPTS[concept_id]
    if diagnosis.kind == DiagnosisKind.MISCONCEPTION:
        return diagnosis.id in concept.misconceptions
    return concept.statement in diagnosis.explanation or diagnosis.id == f"condition-concept-{concept_id}"


def measure(graded, functions: dict, affected: set[str]) -> dict:
    """Grading ``functions`` (answering the calls of ``affected``): lost points, diagnoses, contradictions."""
    checks, contradicted = graded.grade(graded.answers(functions, affected))
    lost = {check.function for check in checks if check.function in affected and not check.full}
    shown = [d for check in checks if check.function in affected for d in check.diagnoses]
    return {"lost": lost, "diagnoses": list({d.id: d for d in shown}.values()), "false": contradicted}


def bugs(graded, verbose: bool, table: list[dict] = BUGS, title: str = "own bugs") -> list[str]:
    rows = []
    for bug in table:
        function = function_of(bug["source"])
        file = spec.FUNCTIONS[function]
        functions = truth.load(subs.with_function(file, bug["source"]), f"bug_{bug['id'].replace('-', '_')}")
        found = measure(graded, functions, set(bug.get("affects", [function])))
        named = [d for d in found["diagnoses"] if d.kind in NAMED]
        rows.append(
            {
                **bug,
                **found,
                "detected": bool(found["lost"]),
                "named": named,
                "right": any(right_concept(bug["concept"], d) for d in named),
            }
        )
    lines = []
    for row in rows:
        if verbose:
            kinds = ", ".join(f"{d.kind}:{d.id}" for d in row["diagnoses"]) or "-"
            lines.append(f"  {row['id']:<36} {row['concept']:<26} {'lost' if row['detected'] else 'PASSES':<7} {kinds}")
            lines += [f"      FALSE: {problem}" for problem in row["false"]]
    total = len(rows)
    detected = [row for row in rows if row["detected"]]
    lines.append(
        f"{title}: {total}; detected {len(detected)}; diagnosed {sum(bool(r['diagnoses']) for r in detected)}; "
        f"named {sum(bool(r['named']) for r in detected)} (its concept: {sum(r['right'] for r in detected)}); "
        f"false {sum(bool(r['false']) for r in rows)}"
    )
    return lines


def mutant_figures(graded, sample: int, seed: int, verbose: bool) -> list[str]:
    generated = [m for file in spec.GRADED_FILES for m in mutant_tools.generate(file)]
    compiled = []
    for mutant in generated:
        try:
            compile(mutant.source, mutant.id, "exec")
        except SyntaxError:
            continue
        compiled.append(mutant)
    chosen = random.Random(seed).sample(compiled, sample) if 0 < sample < len(compiled) else compiled
    counts = {"killed": 0, "diagnosed": 0, "named": 0, "false": 0}
    lines = []
    for mutant in chosen:
        try:
            functions = truth.load(mutant.source, f"mutant_{mutant.id.replace('-', '_')}")
        except Exception:  # a mutant that fails when loaded: every function of its file is gone
            continue
        affected = {name for name, file in spec.FUNCTIONS.items() if file == mutant.file}
        found = measure(graded, functions, affected)
        if not found["lost"]:
            continue
        counts["killed"] += 1
        counts["diagnosed"] += bool(found["diagnoses"])
        counts["named"] += any(d.kind in NAMED for d in found["diagnoses"])
        counts["false"] += bool(found["false"])
        if verbose and found["false"]:
            lines += [f"  {mutant.id}: FALSE: {problem}" for problem in found["false"]]
    lines.append(
        f"mutants: {len(chosen)} of {len(compiled)}; losing points {counts['killed']}; diagnosed "
        f"{counts['diagnosed']}; named {counts['named']}; false {counts['false']}"
    )
    return lines


def _module(source: str, name: str) -> types.ModuleType:
    """A corpus file imported as a module (dataclasses look their module up in ``sys.modules``)."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, name, "exec"), module.__dict__)
    return module


def honest(graded, verbose: bool) -> list[str]:
    full, flagged, lines = 0, 0, []
    metrics = [name for name, file in spec.FUNCTIONS.items() if file == "metrics.py"]
    for name, source in answers_corpus.bases():
        functions = {**graded.solution["runs.py"], **vars(_module(source, f"honest_{name.replace('+', '_')}"))}
        found = measure(graded, functions, set(metrics))
        full += not found["lost"]
        flagged += bool(found["diagnoses"])
        if verbose and (found["lost"] or found["diagnoses"]):
            lines.append(f"  {name}: lost {sorted(found['lost'])}, diagnoses {[d.id for d in found['diagnoses']]}")
    lines.append(f"honest bases: {len(answers_corpus.bases())}; full marks {full}; with a diagnosis {flagged}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=120, help="mutants sampled (0: every one)")
    parser.add_argument("--seed", type=int, default=32, help="the sample's seed")
    parser.add_argument("--verbose", action="store_true", help="a line per bug, and every false diagnosis")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # numpy's warnings from honest styles and mutants (np.mean of [])
    with tempfile.TemporaryDirectory(prefix="concept-bugs-") as folder:
        graded = truth.Grader(bundle(), Path(folder))
        kinds = bugs(graded, args.verbose, KIND_BUGS, "bugs by kind (kinds.py)")
        kinds += bugs(graded, args.verbose, CONTRACT_BUGS, "bugs from the contract (contract_kinds.py)")
        kinds += bugs(graded, args.verbose, PART_BUGS, "bugs inside a definition's parts (parts.py)")
        kinds += bugs(graded, args.verbose, GENERAL_BUGS, "bugs of the kinds left undiagnosed (parts_general.py)")
        for line in bugs(graded, args.verbose) + kinds + mutant_figures(graded, args.mutants, args.seed, args.verbose):
            print(line)
        for line in honest(graded, args.verbose):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
