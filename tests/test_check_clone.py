"""From a clone called ``tfnb_debug`` in a long path: source lines found, tracebacks clean.

The clone gets the test environment as ``.venv`` inside it (a link), as a
fresh clone running ``make test`` has: then Keras' and TensorFlow's own
frames also live under a folder named ``tfnb_debug``, and only the package's
directory tells tfnb_debug's frames apart.
"""

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
    (clone / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    python = clone / ".venv" / "bin" / Path(sys.executable).name
    env = {
        **os.environ,
        "PYTHONPATH": str(clone),
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TF_ENABLE_ONEDNN_OPTS": "0",
    }
    where = subprocess.run(
        [str(python), "-c", "import keras; print(keras.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(clone / ".venv")), where.stdout  # Keras under tfnb_debug/
    tests = [
        "tests/test_check.py::test_n01_in_fit_names_layer_op_and_source_line",
        "tests/test_shape_build.py::test_partial_report_comes_first_then_the_users_own_traceback",
        "tests/test_grad_no_gradient.py",
    ]
    done = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " failed" not in done.stdout and "passed" in done.stdout
