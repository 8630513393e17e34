"""``python -m autograder``: a thin command line over the library; each subcommand parses its
arguments and calls one function, whose signature holds the defaults."""

from __future__ import annotations

import argparse
import sys


def _table(args) -> int:
    from autograder import cranfield

    reference = cranfield.bundle()
    print("Lab 04's runs written by the reference write_run, evaluated by ir_measures "
          "(truncated to 4 decimals, as the notes print):\n")
    print(cranfield.table(reference))
    problems = cranfield.disagreements(reference)
    print("\n" + ("every number of the notes' table reproduces" if not problems
                  else "DIFFERS from the notes:\n  " + "\n  ".join(problems)))
    return 1 if problems else 0


def _seed(args) -> int:
    from autograder.solution import load_lab05

    print(f"Cranfield cached in {load_lab05().data.seed_cache(args.folder)}")
    return 0


def _stubs(args) -> int:
    from autograder import stubs

    changed = stubs.write_stubs()
    print(f"regenerated {', '.join(changed)}" if changed else "the stubs are up to date")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    table = commands.add_parser("table", help="write both Cranfield runs with the reference "
                                "and print the evaluation table next to the notes' numbers")
    table.set_defaults(run=_table)

    seed = commands.add_parser("seed-cranfield", help="copy cran.all.1400, cran.qry and cranqrel "
                               "from FOLDER into ir_datasets' cache (for offline machines)")
    seed.add_argument("folder")
    seed.set_defaults(run=_seed)

    stubs = commands.add_parser("stubs", help="regenerate the handout's stubs from solutions/")
    stubs.set_defaults(run=_stubs)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (FileNotFoundError, ValueError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
