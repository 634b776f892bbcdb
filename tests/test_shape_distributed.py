"""%tfshape on a model built and called under MirroredStrategy (2 logical CPUs, in a subprocess).

Logical devices must be configured before TensorFlow initializes, so this runs
in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import json
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
import keras
import numpy as np
from tfnb_debug import record_shapes, trace_shapes
from tfnb_debug.collect import _patching

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    model = keras.Sequential(
        [keras.Input((6,)), keras.layers.Dense(4, activation="relu", name="d"),
         keras.layers.BatchNormalization(name="bn"), keras.layers.Dense(2, name="out")],
        name="mirrored",
    )
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).standard_normal((4, 6)).astype("float32")
    model(x)
    report = trace_shapes(model, x)
    with record_shapes() as rec:
        model(x)
variables = [type(v.value).__name__ for v in model.trainable_variables]
print(json.dumps({
    "replicas": strategy.num_replicas_in_sync,
    "variables": sorted(set(variables)),
    "paths": [c.path for c in report.calls],
    "shapes": [c.outputs[0].shape for c in report.calls],
    "total": report.total_params,
    "count_params": model.count_params(),
    "bytes_per_param": report.memory[0].bytes_per_param,
    "has_stats": all(c.stats is not None for c in report.calls),
    "cell_paths": [c.path for c in rec.report.calls],
    "patched": _patching.is_patched(),
}))
"""


@pytest.mark.slow
def test_trace_under_mirrored_strategy(tmp_path: Path) -> None:
    script = tmp_path / "mirrored.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0")
    root = Path(__file__).resolve().parents[1]
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["replicas"] == 2
    assert result["variables"] == ["MirroredVariable"]
    assert result["paths"] == ["mirrored", "mirrored/d", "mirrored/bn", "mirrored/out"]
    assert result["shapes"] == [[4, 2], [4, 4], [4, 4], [4, 2]]
    assert result["total"] == result["count_params"]
    assert result["bytes_per_param"] == 16
    assert result["has_stats"] is True
    assert result["cell_paths"] == result["paths"]
    assert result["patched"] is False
