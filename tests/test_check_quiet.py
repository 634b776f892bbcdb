"""%%tfcheck's op-level re-run keeps TensorFlow's stderr dump and INFO lines out of the cell."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A notebook user's settings: TensorFlow's C++ log on, its Python logger at INFO.
SCRIPT = textwrap.dedent(
    """
    import logging
    import sys

    import keras
    import numpy as np
    import tensorflow as tf
    from IPython.core.interactiveshell import InteractiveShell

    tf.get_logger().setLevel(logging.INFO)


    class Log(keras.layers.Layer):
        def call(self, x):
            return tf.math.log(x * 2.0)


    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), Log(name="log")])
    model.compile(optimizer="sgd", loss="mse")
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "tfnb_debug")
    shell.user_ns.update(
        model=model, x=np.full((8, 4), -1.0, "float32"), y=np.zeros((8, 8), "float32")
    )
    print("<<cell>>", flush=True)
    print("<<cell>>", file=sys.stderr, flush=True)
    shell.run_cell("%%tfcheck\\nmodel.fit(x, y, batch_size=8, verbose=0)")
    print("<<end>>", flush=True)
    print("<<end>>", file=sys.stderr, flush=True)
    """
)


@pytest.mark.slow
def test_rerun_prints_no_tensorflow_dump_nor_info_lines(tmp_path: Path) -> None:
    script = tmp_path / "notebook_cell.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_ENABLE_ONEDNN_OPTS": "0"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout.split("<<cell>>")[1].split("<<end>>")[0]
    err = done.stderr.split("<<cell>>")[1].split("<<end>>")[0]
    assert "N01" in out and "first bad op: Log" in out, out  # the report, with the op found
    for noise in ("Detected Infinity or NaN", "INFO:tensorflow", "check-numerics callback"):
        assert noise not in out and noise not in err, noise + "\n" + err[-3000:]
