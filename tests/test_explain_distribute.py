"""D05 and D07 under the automatic diagnosis, with real strategies (in subprocesses).

Logical CPU devices must be configured before TensorFlow initializes, and a
MultiWorkerMirroredStrategy needs one process per worker, so each scenario
runs in fresh interpreters.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

MIRRORED = r"""
import json, os
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

shell = InteractiveShell.instance()
with capture_output():
    shell.run_line_magic("load_ext", "tfnb_debug")
    shell.run_cell(
        "import numpy as np, keras, tensorflow as tf\n"
        "strategy = tf.distribute.MirroredStrategy(['/cpu:0', '/cpu:1'])\n"
        "x = np.zeros((16, 4), 'float32'); y = np.zeros((16, 1), 'float32')"
    )
CELLS = {
    "model_outside": '''
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
with strategy.scope():
    model.compile("adam", "mse")
model.fit(x, y, verbose=0)
''',
    "optimizer_outside": '''
opt = keras.optimizers.Adam()
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(opt, "mse")
model.fit(x, y, verbose=0)
''',
    "loop_outside": '''
net = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
sgd = keras.optimizers.SGD(0.1)
dist = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(8))
@tf.function
def step(batch):
    def replica(inp):
        xx, yy = inp
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(net(xx) - yy))
        sgd.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))
        return loss
    return strategy.run(replica, args=(batch,))
for batch in dist:
    step(batch)
''',
    "built_outside": '''
with strategy.scope():  # created in the scope without an Input: built by its first call
    late = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(1)])
    late.compile("adam", "mse")
late(x[:2])  # the first call, outside the scope
late.fit(x, y, verbose=0)
''',
    "built_inside": '''
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.Adam(), "mse")
model.fit(x, y, verbose=0)
''',
}
out = {}
for name, code in CELLS.items():
    with capture_output() as cap:
        result = shell.run_cell(code)
    boxes = [o.data["text/plain"] for o in cap.outputs if "tfnb-explain" in o.data.get("text/html", "")]
    out[name] = {"success": bool(result.success), "box": "\n".join(boxes)}
print("RESULT " + json.dumps(out))
"""

WORKER = r"""
import json, os, sys
index, ports = int(sys.argv[1]), sys.argv[2].split(",")
os.environ["TF_CONFIG"] = json.dumps(
    {"cluster": {"worker": [f"localhost:{p}" for p in ports]}, "task": {"type": "worker", "index": index}}
)
import numpy as np
import tensorflow as tf
import keras
from tfnb_debug import explain_exception

strategy = tf.distribute.MultiWorkerMirroredStrategy()
x = np.zeros((16, 4), "float32"); y = np.zeros((16, 1), "float32")
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("adam", "mse")
try:
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    found = "fit ran"
except Exception as err:
    report = explain_exception(err)
    found = report.to_text() if report is not None else "no diagnosis: " + str(err)[:300]
print("RESULT " + json.dumps({"index": index, "found": found}))
"""


def _run(script: Path, *args: str, timeout: int = 240) -> subprocess.Popen[str]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0")
    env.pop("TF_CONFIG", None)
    return subprocess.Popen(
        [sys.executable, str(script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=str(script.parent),
    )


def _result(proc: subprocess.Popen[str], timeout: int = 240) -> dict:
    out, _ = proc.communicate(timeout=timeout)
    lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
    assert lines, out[-3000:]
    return json.loads(lines[-1].removeprefix("RESULT "))


@pytest.mark.slow
def test_d05_names_what_was_built_outside_the_scope(tmp_path: Path) -> None:
    script = tmp_path / "mirrored.py"
    script.write_text(MIRRORED)
    out = _result(_run(script))
    model = out["model_outside"]
    assert not model["success"]
    assert "D05 outside-strategy-scope (error)" in model["box"]
    assert "model 'sequential' (`model`)" in model["box"] and "strategy.scope()" in model["box"]
    optimizer = out["optimizer_outside"]["box"]
    assert "optimizer Adam (`opt`) was created outside" in optimizer
    assert "model 'sequential" not in optimizer.split("[")[0]  # the model was built inside
    late = out["built_outside"]["box"]  # `colocate_vars_with must only be passed ...`
    assert "D05 outside-strategy-scope (error)" in late
    assert "`late`) was created inside `strategy.scope()` but built outside it" in late
    assert "first call" in late and "model.compile" not in late.split("--")[-1]
    loop = out["loop_outside"]["box"]
    assert "`net`" in loop and "`sgd`" in loop and "`opt`" not in loop  # only what the cell uses
    assert out["built_inside"] == {"success": True, "box": ""}


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@pytest.mark.slow
def test_d07_multi_worker_fit_says_what_works(tmp_path: Path) -> None:
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    ports = ",".join(str(p) for p in _free_ports(2))
    procs = [_run(script, str(i), ports) for i in range(2)]
    results = [_result(p) for p in procs]
    chief = next(r for r in results if r["index"] == 0)["found"]
    if chief == "fit ran":
        pytest.skip("this Keras runs fit under MultiWorkerMirroredStrategy: D07 has nothing to say")
    assert "D07 unsupported-distribution (error)" in chief, chief
    assert "MultiWorkerMirroredStrategy" in chief
    assert "strategy.run" in chief and "experimental_distribute_dataset" in chief
