"""End to end on a real ipykernel through nbclient: the box follows the error output, run-all stops."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tests.notebook_runner import KERNEL_NAME, _kernel_dir

CELLS = [
    "%load_ext tfnb_debug",
    "import tensorflow as tf\ntf.add(tf.ones((4, 3)), tf.ones((4, 2)))",
    "print('this cell must not run')",
]


@pytest.mark.slow
def test_failed_cell_is_an_error_for_nbclient_and_gets_the_box(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    monkeypatch.setenv(
        "JUPYTER_PATH", _kernel_dir() + os.pathsep + os.environ.get("JUPYTER_PATH", "")
    )
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "3")
    monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", "0")
    client = NotebookClient(
        nb, timeout=300, kernel_name=KERNEL_NAME, resources={"metadata": {"path": str(tmp_path)}}
    )
    with pytest.raises(CellExecutionError, match="InvalidArgumentError"):
        client.execute()

    outputs = nb.cells[1].outputs
    kinds = [o.output_type for o in outputs]
    assert "error" in kinds and "display_data" in kinds
    assert kinds.index("error") < kinds.index("display_data"), "the box comes under the traceback"
    error = outputs[kinds.index("error")]
    assert error.ename == "InvalidArgumentError" and "Incompatible shapes" in error.evalue
    box = outputs[kinds.index("display_data")].data
    assert "S07 incompatible-op-shapes (error) at op AddV2" in box["text/plain"]
    assert 'data-code="S07"' in box["text/html"]
    assert nb.cells[2].outputs == [], "run-all stopped at the failed cell"
