"""Which lab the engine grades: ``autograder.lab`` is Lab 05's package unless ``$LAB05_LAB`` names
another lab's folder, whose ``lab/`` package then stands in for it (``docs/LABS.md``). Run before
anything imports ``autograder.lab`` (``python -m autograder`` does it first)."""

from __future__ import annotations

import importlib.util
import sys

from autograder import paths


def activate() -> str:
    """Make ``autograder.lab`` the lab ``paths.LAB_PACKAGE`` holds; returns its folder."""
    if "autograder.lab" in sys.modules or paths.LAB_PACKAGE == paths.PACKAGE / "lab":
        return (
            str(sys.modules["autograder.lab"].__path__[0])
            if "autograder.lab" in sys.modules
            else str(paths.LAB_PACKAGE)
        )
    init = paths.LAB_PACKAGE / "__init__.py"
    if not init.is_file():
        raise SystemExit(f"error: $LAB05_LAB={paths.LAB_ROOT} holds no lab package (lab/__init__.py): see docs/LABS.md")
    spec = importlib.util.spec_from_file_location(
        "autograder.lab", init, submodule_search_locations=[str(paths.LAB_PACKAGE)]
    )
    assert spec is not None and spec.loader is not None  # a file that exists always has a spec
    module = importlib.util.module_from_spec(spec)
    sys.modules["autograder.lab"] = module
    spec.loader.exec_module(module)
    import autograder

    autograder.lab = module  # type: ignore[attr-defined]
    return str(paths.LAB_PACKAGE)
