"""The handout's stubs are generated from the solutions and cannot drift from them."""

import ast
import importlib.util

import pytest

from autograder import paths
from autograder.handout import stubs
from autograder.lab import spec
from autograder.labkit.load import default as default_lab


def _module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _public_functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: node for node in tree.body if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
    }


@pytest.mark.parametrize("name", spec.GRADED_FILES)
def test_stub_is_generated_from_solution(name):
    """Is the committed stub exactly what `python -m autograder stubs` generates?"""
    committed = paths.handout_file(name).read_text(encoding="utf-8")
    assert committed == stubs.expected_stubs(default_lab())[name], (
        f"assignment/lab05/{name} differs from the stub generated from solutions/lab05/{name}: "
        "run `.venv/bin/python -m autograder stubs`"
    )


@pytest.mark.parametrize("name", spec.GRADED_FILES)
def test_signatures_and_docstrings_match(name):
    """Do stub and solution declare the same functions, signatures and docstrings?"""
    stub, solution = _public_functions(paths.handout_file(name)), _public_functions(paths.solution_file(name))
    assert list(stub) == list(solution)
    for function in solution:
        assert ast.dump(stub[function].args) == ast.dump(solution[function].args), function
        assert ast.get_docstring(stub[function]) == ast.get_docstring(solution[function]), function
        assert ast.get_docstring(solution[function]), f"{function} has no docstring"


API = {
    "metrics.py": [
        "confusion_matrix",
        "accuracy",
        "precision_at_k",
        "recall_at_k",
        "reciprocal_rank",
        "average_precision",
        "dcg_at_k",
        "ndcg_at_k",
        "evaluate",
        "largest_differences",
    ],
    "runs.py": ["write_run"],
}


@pytest.mark.parametrize("name", spec.GRADED_FILES)
def test_api_is_the_contract(name):
    """Does each graded file define exactly DESIGN.md's functions, in order?"""
    assert list(_public_functions(paths.solution_file(name))) == API[name]


@pytest.mark.parametrize("function", API["metrics.py"] + API["runs.py"])
def test_every_stub_raises_naming_itself(function):
    """Does calling a stub raise NotImplementedError that names the function and the notes?"""
    name = "runs.py" if function == "write_run" else "metrics.py"
    module = _module(paths.handout_file(name), f"stub_{name[:-3]}")
    parameters = list(ast.parse(paths.handout_file(name).read_text()).body)
    node = next(n for n in parameters if isinstance(n, ast.FunctionDef) and n.name == function)
    required = len(node.args.args) - len(node.args.defaults)
    with pytest.raises(NotImplementedError) as raised:
        getattr(module, function)(*[None] * required)
    assert function in str(raised.value) and "of the notes" in str(raised.value)


@pytest.mark.parametrize(
    "source, problem",
    [
        ("def f():\n    # BEGIN SOLUTION\n    return 1\n", "never closed"),
        ("def f():\n    # END SOLUTION\n", "without"),
        ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n", "inside another"),
    ],
    ids=["unclosed", "end-without-begin", "nested"],
)
def test_malformed_solution_markers_are_errors(source, problem):
    """Does a malformed solution block stop stub generation with a clear error?"""
    with pytest.raises(ValueError, match=problem):
        stubs.make_stub(default_lab(), source, "metrics.py")


def test_module_level_solution_block_is_dropped():
    """Is a solution-only helper at module level removed from the stub, not replaced?"""
    source = (
        "import math\n\n# BEGIN SOLUTION\ndef _helper():\n    return 1\n# END SOLUTION\n\n\n"
        'def f():\n    """Doc."""\n    # BEGIN SOLUTION\n    return _helper()\n    # END SOLUTION\n'
    )
    stub = stubs.make_stub(default_lab(), source, "metrics.py")
    assert "_helper" not in stub and '"f is not implemented yet' in stub
    assert '"""Doc."""' in stub
