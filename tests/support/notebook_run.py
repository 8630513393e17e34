"""Running ``lab05.ipynb`` headless with nbclient, in a kernel of a chosen interpreter: the tests'
own (``test_notebook.py``) or a fresh student environment's (``test_handout_install.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

CELL_TIMEOUT = 600  # seconds per cell


def kernel_manager(kernels_dir: Path, python: str) -> KernelManager:
    """A "python3" kernel that runs on ``python`` (its environment's ipykernel), whatever is
    registered globally."""
    spec = kernels_dir / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": f"Python 3 ({python})",
                "language": "python",
            }
        ),
        encoding="utf-8",
    )
    return KernelManager(kernel_name="python3", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels_dir)]))


def execute(
    notebook: nbformat.NotebookNode, workdir: Path, kernels_dir: Path, python: str
) -> CellExecutionError | None:
    """Run ``notebook`` in place (outputs filled in up to the error) in ``workdir``, with a kernel of
    ``python``; the error that stopped it, or None. The kernel is shut down before it returns
    (nbclient leaves alive a kernel whose manager it was handed, unless told ``cleanup_kc``)."""
    client = NotebookClient(
        notebook,
        km=kernel_manager(kernels_dir, python),
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(workdir)}},
    )
    try:
        client.execute(cleanup_kc=True)
    except CellExecutionError as raised:
        return raised
    finally:
        if client.km is not None and client.km.has_kernel:
            client.km.shutdown_kernel(now=True)
    return None


def cell_text(notebook: nbformat.NotebookNode, cell_id: str) -> str:
    """Everything the cell ``cell_id`` printed (streams) and its text/plain results, in order."""
    cells = [cell for cell in notebook.cells if cell.get("id") == cell_id]
    if not cells:
        raise AssertionError(f"the notebook has no cell with id {cell_id!r}")
    parts = []
    for output in cells[0].outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", "") + "\n")
    return "".join(parts)
