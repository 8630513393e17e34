import argparse
import os
import sys
from pathlib import Path

from autograder import environment

# ``--lab FOLDER`` (the CLI's global option) chooses the lab before the engine is imported: ``paths``
# reads the lab's folder from $AUTOGRADER_LAB when it is imported, and the children inherit it.
_early = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
_early.add_argument("--lab", type=Path)
_chosen = _early.parse_known_args()[0].lab
if _chosen is not None:
    os.environ[environment.name("LAB")] = str(_chosen.resolve())

from autograder.labkit import load  # noqa: E402

load.activate()  # the chosen lab, if any, before anything imports autograder.lab

from autograder.cli import main  # noqa: E402

sys.exit(main())
