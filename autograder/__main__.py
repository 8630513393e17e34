import sys

from autograder.labkit import load

load.activate()  # the lab $LAB05_LAB names, if any, before anything imports autograder.lab

from autograder.cli import main  # noqa: E402

sys.exit(main())
