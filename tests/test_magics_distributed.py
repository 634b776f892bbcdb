"""Every magic on a model built in ``strategy.scope()``: MirroredStrategy over 2 logical CPUs.

One subprocess (logical devices are set before TensorFlow initializes) runs a
real IPython shell with the extension loaded and drives ``%%tfcheck``,
``%%tfmem`` and ``%%tfgrad`` (each with ``--live``) over four training styles:
``fit``, ``fit`` with a custom ``train_step`` that calls ``self.compute_loss``,
and custom loops with ``strategy.run`` over ``experimental_distribute_dataset``
and over ``distribute_datasets_from_function``; then ``%tfshape`` and
``%tfpipeline``.  Every style first runs without a magic: the losses and the
trained weights under each magic must equal those.  The models are clean
(no finding expected).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._support import check_golden

ROOT = Path(__file__).resolve().parents[1]
MAGICS = ("tfcheck", "tfmem", "tfgrad")
STYLES = ("fit", "train_step", "loop_eds", "loop_dff")

SCRIPT = r'''
import json, re, traceback
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

SETUP = """
import time
import numpy as np, keras, tensorflow as tf
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
rng = np.random.default_rng(0)
x = rng.normal(size=(64, 8)).astype("float32")
y = (x @ rng.normal(size=(8, 1))).astype("float32")
train_ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
x_bad = x.copy(); x_bad[40] = np.nan  # in the third batch, on replica 1's half
bad_ds = tf.data.Dataset.from_tensor_slices((x_bad, y)).batch(16)

class StepModel(keras.Model):
    def train_step(self, data):
        xb, yb = data
        with tf.GradientTape() as tape:
            pred = self(xb, training=True)
            loss = self.compute_loss(x=xb, y=yb, y_pred=pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}

def build(cls=keras.Model):
    keras.utils.set_random_seed(0)
    with strategy.scope():
        inp = keras.Input((8,))
        hidden = keras.layers.Dense(16, "relu", bias_initializer="ones", name="hidden")(inp)
        out = keras.layers.Dense(1, bias_initializer="ones", name="out")(hidden)
        model = cls(inp, out, name="net")
        model.compile(keras.optimizers.SGD(0.01), "mse")
    return model

def build_log():  # a log of negative values in one layer: NaN from the first step
    keras.utils.set_random_seed(0)
    with strategy.scope():
        inp = keras.Input((8,))
        h = keras.layers.Dense(16, name="hidden")(inp)
        h = keras.layers.Lambda(lambda t: tf.math.log(t), name="logit")(h)
        model = keras.Model(inp, keras.layers.Dense(1, name="out")(h), name="net")
        model.compile(keras.optimizers.SGD(0.01), "mse")
    return model

class Batches(keras.callbacks.Callback):  # each batch's loss; sleeps past --live-interval
    def on_train_batch_end(self, batch, logs=None):
        seen.append(float(logs["loss"]))
        time.sleep(0.06)

def fit_losses(model, x=x):
    model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False, callbacks=[Batches()])

def loop_losses(model, dist):
    loss_fn = keras.losses.MeanSquaredError()
    @tf.function
    def step(batch):
        def replica(inp):
            xb, yb = inp
            with tf.GradientTape() as tape:
                loss = loss_fn(yb, model(xb, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            model.optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return strategy.reduce("SUM", strategy.run(replica, args=(batch,)), axis=None)
    for batch in dist:
        seen.append(float(step(batch)))
        time.sleep(0.06)

def per_replica_ds(ctx):
    size = ctx.get_per_replica_batch_size(16)
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    return ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(size)

STYLES = {
    "fit": "model = build(); fit_losses(model)",
    "train_step": "model = build(StepModel); fit_losses(model)",
    "loop_eds": "model = build(); loop_losses(model, strategy.experimental_distribute_dataset(train_ds))",
    "loop_dff": "model = build(); loop_losses(model, strategy.distribute_datasets_from_function(per_replica_ds))",
}
"""

shell = InteractiveShell.instance()
with capture_output():
    shell.run_line_magic("load_ext", "tfnb_debug")
    assert shell.run_cell(SETUP).success


def run(cell):
    shell.user_ns["seen"] = []
    shell.user_ns.pop("rep", None)
    with capture_output() as cap:
        res = shell.run_cell(cell)
    err = res.error_in_exec or res.error_before_exec
    texts = [str(o.data.get("text/plain", "")) for o in cap.outputs]
    htmls = [str(o.data.get("text/html", "")) for o in cap.outputs]
    return {
        "error": None if err is None else "".join(traceback.format_exception(err))[-3000:],
        "losses": list(shell.user_ns["seen"]),
        "weights": [w.tolist() for w in shell.user_ns["model"].get_weights()]
        if "model" in shell.user_ns else None,
        "texts": texts,
        "html": htmls[-1] if htmls else "",
    }, shell.user_ns.get("rep")


out = {"baseline": {}, "magics": {}, "other": {}}
for style, code in shell.user_ns["STYLES"].items():
    result, _ = run(code)
    out["baseline"][style] = {k: result[k] for k in ("error", "losses", "weights")}
for magic in ("tfcheck", "tfmem", "tfgrad"):
    for style, code in shell.user_ns["STYLES"].items():
        result, rep = run(f"%%{magic} --live --live-interval 0.05 -v rep\n{code}")
        live = [t for t in result["texts"] if t.startswith(f"%%{magic} live:")]
        steps = None
        if rep is not None:
            steps = {
                "tfcheck": lambda: rep.steps,
                "tfmem": lambda: int(re.search(r"(\d+) training step", rep.summary[0]).group(1)),
                "tfgrad": lambda: int(rep.history.total_steps),
            }[magic]()
        out["magics"][f"{magic}/{style}"] = {
            "error": result["error"],
            "losses": result["losses"],
            "weights": result["weights"],
            "live": live,
            "report": result["texts"][-1] if result["texts"] else "",
            "codes": sorted(rep.codes()) if rep is not None else None,
            "steps": steps,
            "notes": list(getattr(rep, "notes", ())) if rep is not None else [],
        }

shell.user_ns["model"] = shell.user_ns["build"]()
for name, cell in {
    "shape_line": "%tfshape --no-stats -v rep model x[:16]",
    "shape_cell": "%%tfshape --no-stats -v rep\nmodel(x[:15])",
    "shape_fit": "%%tfshape --no-stats -v rep\nfit_losses(model)",
    "check_nan_fit": "%%tfcheck -v rep\nmodel = build(); fit_losses(model, x_bad)",
    "check_log_fit": "%%tfcheck -v rep\nmodel = build_log(); fit_losses(model)",
    "check_nan_loop": "%%tfcheck -v rep\nmodel = build(); loop_losses(model, strategy.experimental_distribute_dataset(bad_ds))",
    "pipeline_eds": "%tfpipeline --no-timing -q -v rep strategy.experimental_distribute_dataset(train_ds)",
    "pipeline_ds": "%tfpipeline --no-timing -q -v rep train_ds",
    "pipeline_dff": "%tfpipeline --no-timing -v rep strategy.distribute_datasets_from_function(per_replica_ds)",
}.items():
    result, rep = run(cell)
    out["other"][name] = {
        "error": result["error"],
        "text": rep.to_text(width=160) if rep is not None else "",
        "html": rep.to_html() if rep is not None else "",
        "codes": sorted(rep.codes()) if rep is not None else None,
        "chain": getattr(rep, "chain", None),
        "notes": list(getattr(rep, "notes", ())) if rep is not None else [],
    }
print("RESULT " + json.dumps(out))
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    script = tmp_path_factory.mktemp("magics_distributed") / "magics.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, done.stdout[-2000:] + done.stderr[-4000:]
    out: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("style", STYLES)
def test_the_uninstrumented_run_trains(results: dict[str, Any], style: str) -> None:
    base = results["baseline"][style]
    assert base["error"] is None, base["error"]
    assert len(base["losses"]) == 4 and all(v > 0 for v in base["losses"]), base["losses"]


@pytest.mark.slow
@pytest.mark.parametrize("magic", MAGICS)
@pytest.mark.parametrize("style", STYLES)
def test_magic_under_mirrored_strategy(results: dict[str, Any], magic: str, style: str) -> None:
    got = results["magics"][f"{magic}/{style}"]
    base = results["baseline"][style]
    assert got["error"] is None, got["error"]
    # the user's results: the same losses and trained weights as without the magic
    assert got["losses"] == base["losses"]
    assert got["weights"] == base["weights"]
    # 64 examples in global batches of 16: 4 steps, whatever the style
    assert got["steps"] == 4, got["report"]
    assert got["codes"] == [], got["report"]  # a clean model: no finding
    # the live view showed and updated while the cell ran (each step sleeps past the interval)
    assert len(got["live"]) >= 2, got["live"]
    report = got["report"]
    assert not report.startswith(f"%%{magic} live:")  # the report replaced the live view
    if magic == "tfcheck":
        assert "checked over 4 optimizer step(s)" in report, report
    if magic == "tfmem":
        assert "4 training step(s) seen" in report, report
        # logical CPU devices share the host's allocator: one host series, said so
        assert "host memory only, shared by the 2 replicas" in report, report
    if magic == "tfgrad":
        assert "4 optimizer step(s) taken" in report, report
        assert "2 replicas" in report


@pytest.mark.slow
def test_tfshape_shows_the_per_replica_batch(results: dict[str, Any]) -> None:
    line = results["other"]["shape_line"]
    assert line["error"] is None, line["error"]
    note = "per replica: (8, 8) on 2 replicas (model 'net' was built under a tf.distribute strategy"
    assert note in line["text"] and "per replica: (8, 8) on 2 replicas" in line["html"]
    assert "the table shows the global batch, (16, 8))" in line["text"]
    check_golden("shape_distributed.txt", line["text"] + "\n")
    check_golden("shape_distributed.html", line["html"] + "\n")
    cell = results["other"]["shape_cell"]  # 15 examples: the replicas get 8 and 7
    assert cell["error"] is None, cell["error"]
    assert "per replica: (8, 8) or (7, 8) on 2 replicas" in cell["text"], cell["text"]


@pytest.mark.slow
def test_tfshape_around_fit_says_its_rows_are_per_replica(results: dict[str, Any]) -> None:
    """Inside fit each replica calls the model on its half: the rows hold 8 of 16 examples."""
    fit = results["other"]["shape_fit"]
    assert fit["error"] is None, fit["error"]
    assert "(8, 8)" in fit["text"] and "(16, 8)" not in fit["text"], fit["text"]
    assert (
        "per replica: the rows of model 'net' were recorded inside each of its 2 replicas, "
        "so they hold one replica's share of the global batch (8 of 16 examples)"
    ) in fit["text"]


@pytest.mark.slow
@pytest.mark.parametrize("style", ["fit", "loop"])
def test_tfcheck_names_a_nan_input_on_one_replica(results: dict[str, Any], style: str) -> None:
    """The NaN is in the third batch, on replica 1: N05 at the model's input (the layer checks
    run inside every replica), after 2 steps (a step counts once all replicas' gradients passed)."""
    got = results["other"][f"check_nan_{style}"]
    last = got["error"].strip().splitlines()[-1]
    assert "%%tfcheck stopped the cell at the first NaN/Inf: N05 nonfinite-input" in last, last
    assert got["codes"] == ["N05"], got["text"]
    assert "at step 3 (2 optimizer step(s) had been applied)" in got["text"], got["text"]


@pytest.mark.slow
def test_tfcheck_names_the_op_that_made_a_nan_inside_a_replica(results: dict[str, Any]) -> None:
    """The failing layer's input is copied out of the replica that failed and the layer re-run
    alone: the op and the user's source line, as without a strategy."""
    got = results["other"]["check_log_fit"]
    assert got["codes"] == ["N01"], got["text"]
    assert "at step 1 (0 optimizer step(s) had been applied)" in got["text"]
    assert "first bad op: Log created at <ipython-input-" in got["text"], got["text"]
    assert "tf.math.log(t)" in got["text"]


@pytest.mark.slow
def test_tfpipeline_on_distributed_datasets(results: dict[str, Any]) -> None:
    eds, plain = results["other"]["pipeline_eds"], results["other"]["pipeline_ds"]
    assert eds["error"] is None, eds["error"]
    # experimental_distribute_dataset keeps the dataset it was given: the same chain and findings
    assert eds["chain"] == plain["chain"] and eds["codes"] == plain["codes"]
    assert eds["notes"][0].startswith(
        "a distributed dataset (strategy.experimental_distribute_dataset on 2 replicas): "
        "inspected the tf.data.Dataset it distributes"
    )
    assert not any("distributed" in n for n in plain["notes"])
    dff = results["other"]["pipeline_dff"]
    error = dff["error"].strip().splitlines()[-1]
    assert error.startswith("IPython.core.error.UsageError: got a distributed dataset "), error
    assert "distribute_datasets_from_function on 2 replicas" in error
    assert "dataset_fn(tf.distribute.InputContext())" in error


@pytest.mark.gpu
def test_tfmem_reads_each_gpu_allocator_under_mirrored_strategy() -> None:
    """On 2+ GPUs every replica's device has its own allocator: one series per GPU, each moved
    by the training (skipped without 2 GPUs)."""
    import keras
    import numpy as np
    import tensorflow as tf

    from tfnb_debug.features.memory import track_memory

    gpus = tf.config.list_logical_devices("GPU")
    if len(gpus) < 2:
        pytest.skip("needs 2 or more GPUs")
    strategy = tf.distribute.MirroredStrategy([g.name for g in gpus[:2]])
    with strategy.scope():
        model = keras.Sequential(
            [keras.Input((256,)), keras.layers.Dense(1024), keras.layers.Dense(1)]
        )
        model.compile(keras.optimizers.SGD(0.01), "mse")
    x = np.ones((512, 256), "float32")
    y = np.ones((512, 1), "float32")
    with track_memory(interval_ms=5) as mem:
        model.fit(x, y, batch_size=128, epochs=1, verbose=0)
    report = mem.report
    assert report is not None
    for gpu in gpus[:2]:
        series = report.series_named(f"{gpu.name.split('device:')[-1]} allocator")
        assert series.peak > 0, report.to_text()
    assert not any("host memory only" in n for n in report.notes)
    assert len(report.step_times) == 4
