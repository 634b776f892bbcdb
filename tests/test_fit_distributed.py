"""D03 tiny-replica-batch and D04 empty-replica-batch from fit's arguments under
MirroredStrategy (2 logical CPUs, in a subprocess: devices are set before TensorFlow starts)."""

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
import tfnb_debug

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
rng = np.random.default_rng(0)

def build(bn="plain"):
    layers = [keras.Input((4,)), keras.layers.Dense(8)]
    if bn != "none":
        layers.append(keras.layers.BatchNormalization(synchronized=bn == "sync", name="bn"))
    layers.append(keras.layers.Dense(1))
    with strategy.scope():
        model = keras.Sequential(layers, name="net")
        model.compile(keras.optimizers.SGD(0.01), "mse")
    return model

def codes(model, x, y=None, **kw):
    with tfnb_debug.record_gradients() as rec:
        model.fit(x, y, epochs=1, verbose=0, shuffle=False, **kw)
    report = rec.result()
    return {f.code: f.to_text() for f in report.findings if f.code in ("D03", "D04")}, model

out = {}
x17 = rng.normal(size=(17, 4)).astype("float32"); y17 = rng.normal(size=(17, 1)).astype("float32")
found, model = codes(build(), x17, y17, batch_size=16)
out["arrays_17"] = found
out["arrays_17_nan_weights"] = not all(np.isfinite(w).all() for w in model.get_weights())
out["arrays_18"] = codes(build(), rng.normal(size=(18, 4)).astype("float32"),
                         rng.normal(size=(18, 1)).astype("float32"), batch_size=16)[0]
ds = tf.data.Dataset.from_tensor_slices((x17, y17))
out["dataset_17"] = codes(build(), ds.batch(16))[0]
out["dataset_17_drop"] = codes(build(), ds.batch(16, drop_remainder=True))[0]
out["no_bn"] = codes(build("none"), x17, y17, batch_size=16)[0]
x64 = rng.normal(size=(64, 4)).astype("float32"); y64 = rng.normal(size=(64, 1)).astype("float32")
out["tiny"] = codes(build(), x64, y64, batch_size=8)[0]
out["tiny_sync"] = codes(build("sync"), x64, y64, batch_size=8)[0]
out["large"] = codes(build(), x64, y64, batch_size=32)[0]
print("RESULT " + json.dumps(out))
"""


@pytest.mark.slow
def test_d03_d04_fire_on_their_repros_and_stay_silent_on_the_twins(tmp_path: Path) -> None:
    script = tmp_path / "fit_distributed.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0")
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300
    )
    lines = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, run.stdout[-2000:] + run.stderr[-3000:]
    out = json.loads(lines[-1].removeprefix("RESULT "))
    # 17 examples, batch 16, 2 replicas: the last global batch of 1 leaves a replica empty,
    # and BatchNormalization over it writes NaN into the weights while fit's loss stays finite
    assert out["arrays_17_nan_weights"]
    d04 = out["arrays_17"]["D04"]
    assert "last batch 1, 2 replicas" in d04 and "drop_remainder=True" in d04 and "'bn'" not in d04
    assert "bn" in d04
    assert "D04" in out["dataset_17"]
    assert "D04" not in out["arrays_18"] and "D04" not in out["dataset_17_drop"]
    assert out["no_bn"] == {}  # no BatchNormalization: neither D03 nor D04
    # batch 8 over 2 replicas: 4 examples per replica for BatchNormalization
    d03 = out["tiny"]["D03"]
    assert "4 examples per replica" in d03 and "synchronized=True" in d03
    assert out["tiny_sync"] == {} and out["large"] == {}
