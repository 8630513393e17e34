import argparse
import os
import sys
from pathlib import Path

from autograder import bytecode, environment

bytecode.use()  # before the engine and its libraries are imported: their bytecode comes from the cache

# ``--lab FOLDER`` (the CLI's global option) chooses the lab before the engine is imported: ``paths``
# reads the lab's folder from $AUTOGRADER_LAB when it is imported, and the children inherit it.
_early = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
_early.add_argument("--lab", type=Path)
_chosen = _early.parse_known_args()[0].lab
if _chosen is not None:
    os.environ[environment.name("LAB")] = str(_chosen.resolve())

from autograder.errors import UsageError  # noqa: E402
from autograder.labkit import load  # noqa: E402

try:
    load.activate()  # the chosen lab, if any, before anything imports autograder.lab
except UsageError as error:  # a folder that is no lab: what the CLI says of any user's mistake
    print(f"error: {error}", file=sys.stderr)
    sys.exit(2)

from autograder.cli import main  # noqa: E402

sys.exit(main())
