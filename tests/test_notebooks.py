"""Execute every notebook under ``notebooks/`` headless; any cell error fails the test.

Notebooks are found by glob, so new notebooks are picked up automatically.  Each
one runs with nbclient in a fresh ``python3`` kernel, with ``notebooks/`` as the
working directory.  Executed outputs are kept in memory only: the committed
notebooks are never rewritten.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _optional import need, requires

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
KERNEL_NAME = "python3"
# Seconds per cell: the longest cell takes about 10 s on the 2-core machine under load.  Not more, because after
# notebook 01's ipywidgets cell the client sometimes (measured: 3 to 5 runs in 8, with ipykernel 6.31 and 7.4, pyzmq
# 26.4 and 27.3, nbclient 0.11) receives the cell's reply only when its wait times out, and then goes on without an
# error: every such stall lasts exactly this timeout.
TIMEOUT = 120


def test_notebooks_exist() -> None:
    """The parametrised tests below must not be silently empty."""
    assert NOTEBOOKS, f"no notebooks found in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_committed_clean(path: Path) -> None:
    """Committed notebooks are valid nbformat 4, carry no outputs or execution counts, and name the python3 kernel."""
    nbformat = need("nbformat")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(not cell.outputs and cell.execution_count is None for cell in code), f"{path.name} has outputs"
    assert nb.metadata.get("kernelspec", {}).get("name") == KERNEL_NAME


@pytest.fixture(scope="session")
def kernel_name() -> str:
    """The ``python3`` kernel, installed for this interpreter if it is missing.

    jupyter_client normally finds ``python3`` through ipykernel (installed
    kernelspec or its built-in native spec), and launches a spec whose command
    is plain ``python`` with the current interpreter.  Only if neither is
    found, register ipykernel's spec for this interpreter.
    """
    kernelspec = need("jupyter_client.kernelspec")
    if KERNEL_NAME not in kernelspec.find_kernel_specs():
        subprocess.run(
            [sys.executable, "-m", "ipykernel", "install", "--user", "--name", KERNEL_NAME],
            check=True,
            capture_output=True,
        )
    assert KERNEL_NAME in kernelspec.find_kernel_specs(), "no python3 kernel available"
    return KERNEL_NAME


@pytest.mark.slow
@requires("ipykernel")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, kernel_name: str) -> None:
    nbclient, nbformat = need("nbclient"), need("nbformat")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{path.name}: a cell raised an error\n{exc}", pytrace=False)
