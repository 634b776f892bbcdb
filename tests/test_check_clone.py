"""%%tfcheck names the source line from a clone called ``tfnb_debug`` in a long path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_source_line_found_from_a_clone_named_tfnb_debug_in_a_long_path(tmp_path: Path) -> None:
    """TensorFlow shortens long paths to "...<suffix>", and the folder is called tfnb_debug."""
    padding = "p" * max(1, 60 - len(str(tmp_path)))
    clone = tmp_path / padding / "tfnb_debug"
    assert len(str(clone)) >= 60
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("tfnb_debug", "tests"):
        shutil.copytree(ROOT / part, clone / part, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", clone / "pyproject.toml")
    env = {
        **os.environ,
        "PYTHONPATH": str(clone),
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TF_ENABLE_ONEDNN_OPTS": "0",
    }
    test = "tests/test_check.py::test_n01_in_fit_names_layer_op_and_source_line"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
