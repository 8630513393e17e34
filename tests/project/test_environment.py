"""The environment variables, declared once (``autograder/environment.py``): the new names
``AUTOGRADER_*`` read first, the old ``LAB05_*`` still read with a one-line warning naming the new."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from autograder import environment, paths

#: id -> (the environment, the value expected, whether a warning is expected)
READS = {
    "new": ({"AUTOGRADER_CACHE": "/new"}, "/new", False),
    "old": ({"LAB05_CACHE": "/old"}, "/old", True),
    "both": ({"AUTOGRADER_CACHE": "/new", "LAB05_CACHE": "/old"}, "/new", False),
    "empty-new": ({"AUTOGRADER_CACHE": "", "LAB05_CACHE": "/old"}, "/old", True),
    "neither": ({}, None, False),
}


@pytest.mark.parametrize("case_id", READS)
def test_a_variable_is_read_by_its_new_name_then_its_old(case_id, capsys, monkeypatch):
    """Is AUTOGRADER_CACHE read first, LAB05_CACHE only without it, and is the old name's use a
    one-line warning on stderr naming the new one?"""
    given, expected, warned = READS[case_id]
    monkeypatch.setattr(environment, "_warned", set())
    assert environment.get("CACHE", given) == expected
    error = capsys.readouterr().err
    if warned:
        assert error == "warning: $LAB05_CACHE is deprecated; set $AUTOGRADER_CACHE instead\n"
    else:
        assert error == ""


def test_the_old_name_warns_once_per_process(capsys, monkeypatch):
    """Is the warning for one old name given once however often it is read?"""
    monkeypatch.setattr(environment, "_warned", set())
    for _ in range(3):
        assert environment.get("SHARD_KEY", {"LAB05_SHARD_KEY": "k" * 16}) == "k" * 16
    assert capsys.readouterr().err.count("\n") == 1


def test_an_undeclared_variable_is_refused():
    """Is asking for a variable no module declared a ValueError naming it and the declared ones?"""
    with pytest.raises(ValueError, match=r"environment\.name") as raised:
        environment.get("NO_SUCH_THING", {})
    assert "'NO_SUCH_THING'" in str(raised.value) and "CACHE" in str(raised.value)


#: id -> (the variable set, the CLI's lab folder expected: relative to the repository)
LAB_VARIABLES = {
    "new": ("AUTOGRADER_LAB", "tests/fixtures/lab06"),
    "old": ("LAB05_LAB", "tests/fixtures/lab06"),
}


@pytest.mark.parametrize("case_id", LAB_VARIABLES)
def test_the_lab_is_chosen_by_either_name(case_id):
    """Does a fresh process take the lab's folder from AUTOGRADER_LAB, and from LAB05_LAB with the
    warning?"""
    variable, folder = LAB_VARIABLES[case_id]
    script = "from autograder import paths; print(paths.LAB_ROOT)"
    clean = {name: value for name, value in os.environ.items() if not name.endswith("_LAB")}
    run = subprocess.run(
        [sys.executable, "-c", script],
        env={**clean, variable: str(paths.ROOT / folder)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.strip() == str(paths.ROOT / folder)
    assert ("deprecated; set $AUTOGRADER_LAB" in run.stderr) == (variable == "LAB05_LAB")


#: The shell scripts the grader ships or runs in its containers: each reads its settings through its
#: ``setting NAME DEFAULT`` function, which must follow ``environment.get``'s rule.
SCRIPTS = {
    "setup.sh": paths.PACKAGE / "platforms" / "common" / "templates" / "setup.sh",
    "run_autograder": paths.PACKAGE / "platforms" / "gradescope" / "templates" / "run_autograder",
    "prairielearn-entrypoint": paths.PACKAGE / "platforms" / "prairielearn" / "templates" / "entrypoint",
    "container-entrypoint": paths.PACKAGE / "local" / "templates" / "entrypoint",
}
_SETTING = re.compile(r"^setting\(\) \{\n.*?^\}\n", re.MULTILINE | re.DOTALL)


def _setting(script: str, environ: dict[str, str]) -> tuple[str, str]:
    """``setting CACHE /default`` run by ``script``'s own function in ``environ``: (stdout, stderr)."""
    function = _SETTING.search(SCRIPTS[script].read_text(encoding="utf-8"))
    assert function is not None, f"{script} has no setting() function"
    clean = {name: value for name, value in os.environ.items() if not name.endswith("_CACHE")}
    run = subprocess.run(
        ["bash", "-c", function.group(0) + "setting CACHE /default"],
        env={**clean, **environ},
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout, run.stderr


#: id -> the environment (READS' cases, and neither name set)
SHELL_READS = {**{case_id: environ for case_id, (environ, _, _) in READS.items()}, "neither": {}}


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("case_id", SHELL_READS)
def test_the_scripts_read_a_variable_as_the_grader_does(script, case_id, capsys):
    """Does each shell script's ``setting`` give the value ``environment.get`` gives (else the
    default), and the very warning it prints for an old name?"""
    environ = SHELL_READS[case_id]
    environment._warned.discard("CACHE")
    wanted = environment.get("CACHE", environ) or "/default"
    assert _setting(script, environ) == (wanted, capsys.readouterr().err)


def test_the_scripts_read_only_declared_variables_and_every_script_variable():
    """Does every ``setting NAME`` of the scripts name a variable ``environment.VARIABLES`` declares,
    does some script read each variable declared for the scripts, and does none read an old
    ``LAB05_`` name but through ``setting``?"""
    texts = {name: path.read_text(encoding="utf-8") for name, path in SCRIPTS.items()}
    read = {name for text in texts.values() for name in re.findall(r"\$\(setting ([A-Z_]+)", text)}
    assert read <= set(environment.VARIABLES)
    for_scripts = (
        "PYTHON",
        "ISOLATION",
        "SOURCE",
        "CHILD_ENV",
        "SKIP_INSTALL",
        "REPO",
        "CRANFIELD",
        "GRADE_ROOT",
        "HOME",
    )
    assert set(for_scripts) <= read
    direct = [name for name, text in texts.items() if re.search(r"\$\{LAB05_", text)]
    assert direct == []
