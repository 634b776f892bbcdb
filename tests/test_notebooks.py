"""Every notebook under notebooks/ runs top to bottom on a real kernel without an error output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.notebook_runner import (
    NOTEBOOKS,
    displayed_text,
    error_outputs,
    execute_notebook,
    execute_offline,
    expectation_failures,
    offline_available,
)

ALL = sorted(NOTEBOOKS.glob("*.ipynb"))
OFFLINE_OK = offline_available()


def test_there_are_notebooks() -> None:
    assert ALL, "notebooks/ has no notebook"


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_committed_without_outputs(path: Path) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, path.name


@pytest.mark.slow
@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_notebook_runs_without_errors(path: Path, tmp_path: Path) -> None:
    """Run it for real; where the machine allows, with the network cut off (loopback only)."""
    nb = execute_offline(path, tmp_path / path.name) if OFFLINE_OK else execute_notebook(path)
    assert error_outputs(nb) == []
    shown = displayed_text(nb)
    assert "tfnb_debug" in shown  # the extension loaded and said so
    # Each mistake shows the finding it teaches, and its fix shows it no more.
    assert expectation_failures(nb) == []


@pytest.mark.skipif(not OFFLINE_OK, reason="unshare -n is not permitted on this machine")
def test_offline_namespace_really_has_no_network() -> None:
    """The offline runs above prove something only if the namespace has no route out."""
    import subprocess
    import sys

    from tests.notebook_runner import OFFLINE

    code = "from tests.notebook_runner import network_is_cut; print(network_is_cut())"
    inside = subprocess.run([*OFFLINE, sys.executable, "-c", code], capture_output=True, text=True)
    assert inside.stdout.strip() == "True", inside.stderr
