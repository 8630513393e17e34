"""Which lab the engine grades, and a lab folder loaded as a value.

``load(folder)`` imports a lab folder's ``lab/`` package under a name of its own (unique per
folder, so two labs load in one process) and returns its ``Lab``. ``activate()`` imports the lab
``paths.LAB_PACKAGE`` holds as ``autograder.lab`` (this repository's ``lab/``, Lab 05, unless
``--lab`` or ``$AUTOGRADER_LAB`` names another lab's folder, ``docs/LABS.md``); run it before
anything imports ``autograder.lab`` (``python -m autograder`` does it first, the tests' conftest
too); ``default()`` activates it."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import types
from pathlib import Path

from autograder import paths
from autograder.errors import InputError
from autograder.labkit import place
from autograder.labkit.lab import Lab

#: The modules every lab's package holds (``docs/LABS.md``), by the ``Lab`` field they fill.
MODULES = {
    "spec": "spec",
    "registry": "functions.registry",
    "cases": "cases",
    "measures": "measures",
    "cranfield": "cranfield",
    "scenarios": "scenarios",
    "features": "features",
    "concepts": "concepts",
    "misconceptions": "misconceptions.catalogue",
    "variants": "variants",
    "solution": "solution",
}

#: The modules a lab may leave out (a lab without a reference collection or a run writer): the
#: ``labkit/defaults/`` module of that name stands in.
OPTIONAL = ("cranfield", "measures", "scenarios", "variants", "concepts")

_LOADED: dict[place.Place, Lab] = {}


def activate() -> str:
    """Make ``autograder.lab`` the lab ``paths.LAB_PACKAGE`` holds; returns its folder."""
    if "autograder.lab" in sys.modules:
        return str(sys.modules["autograder.lab"].__path__[0])
    init = paths.LAB_PACKAGE / "__init__.py"
    if not init.is_file():
        raise InputError(
            f"the lab folder {paths.LAB_ROOT} (--lab or $AUTOGRADER_LAB) holds no lab package "
            "(lab/__init__.py): see docs/LABS.md"
        )
    module = _imported("autograder.lab", paths.LAB_PACKAGE)
    import autograder

    autograder.lab = module  # type: ignore[attr-defined]
    return str(paths.LAB_PACKAGE)


def default() -> Lab:
    """The lab the environment chooses (``paths``: Lab 05 unless ``$AUTOGRADER_LAB`` names another), the
    one ``autograder.lab`` is."""
    return load(paths.LAB_ROOT, paths.LAB_PACKAGE, paths.LAB_DATA)


def load(folder: Path | str, package: Path | None = None, hidden: Path | None = None) -> Lab:
    """The lab in ``folder`` (its ``lab/`` package, ``grading.yml``, ``assignment/``, ``solutions/``):
    ``package`` is its package's folder (default ``paths.lab_package(folder)``: ``folder/lab``),
    ``hidden`` its hidden reference's (default the package's ``data/``, or ``paths.LAB_DATA`` for the
    environment's lab). Loading the same folder again returns the same ``Lab``."""
    root = Path(folder).resolve()
    package_dir = Path(package).resolve() if package is not None else paths.lab_package(root)
    if hidden is None:  # the environment's lab keeps its hidden reference where the environment says
        hidden = paths.LAB_DATA if package_dir == paths.LAB_PACKAGE else package_dir / "data"
    where = place.Place(root, package_dir, Path(hidden).resolve())
    if where in _LOADED:
        return _LOADED[where]
    if not (package_dir / "__init__.py").is_file():
        raise InputError(
            f"labkit.load: the folder {root} holds no lab package ({package_dir / '__init__.py'} is missing); "
            "a lab folder holds lab/ (its package), grading.yml, assignment/ and solutions/ (docs/LABS.md)"
        )
    if where == place.default():
        activate()
        name = "autograder.lab"  # the environment's lab: the very package the engine imports
    else:
        name = "autograder_lab_" + hashlib.sha256(str(where).encode()).hexdigest()[:12]
        place.PLACES[name] = where
        if name not in sys.modules:
            _imported(name, package_dir)
    modules = {field: _module(name, module) for field, module in MODULES.items()}
    _LOADED[where] = lab = _gathered(name, where, modules)
    return lab


def _module(package: str, module: str) -> types.ModuleType:
    """The lab's module ``module``, or the default one for a module the lab may leave out (``OPTIONAL``)."""
    if module in OPTIONAL and importlib.util.find_spec(f"{package}.{module}") is None:
        return importlib.import_module(f"autograder.labkit.defaults.{module}")
    return importlib.import_module(f"{package}.{module}")


def _imported(name: str, package_dir: Path) -> types.ModuleType:
    """The package in ``package_dir`` imported as ``name`` (its modules import each other relatively)."""
    spec = importlib.util.spec_from_file_location(
        name, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)]
    )
    assert spec is not None and spec.loader is not None  # a file that exists always has a spec
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _gathered(name: str, where: place.Place, modules: dict[str, types.ModuleType]) -> Lab:
    spec = modules["spec"]
    return Lab(
        name=name,
        title=spec.LAB_NAME,
        package=spec.PACKAGE,
        graded_files=tuple(spec.GRADED_FILES),
        given_files=tuple(spec.GIVEN_FILES),
        records=types.MappingProxyType(dict(modules["registry"].FUNCTIONS)),
        functions=types.MappingProxyType(dict(spec.FUNCTIONS)),
        metric_functions=tuple(spec.METRIC_FUNCTIONS),
        returns=types.MappingProxyType(dict(spec.RETURNS)),
        notes_parts=types.MappingProxyType(dict(spec.NOTES_PART)),
        kinds_for=types.MappingProxyType({function: tuple(kinds) for function, kinds in spec.KINDS_FOR.items()}),
        visibilities=tuple(spec.VISIBILITIES),
        tolerance=float(spec.TOLERANCE),
        evaluation_libraries=tuple(spec.EVALUATION_LIBRARIES),
        library_rule_file=spec.LIBRARY_RULE_FILE,
        place=where,
        **modules,
    )
