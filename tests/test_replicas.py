"""Per-replica recording under MirroredStrategy: the "replicas" table, D01 replica-loss-scaling
and D06 replica-divergence.

The rules and the table on hand-made records run without TensorFlow; the
recordings run in one subprocess with two logical CPU devices (configured
before TensorFlow initializes), every scenario in it.  Refresh the golden files
after an intended change with ``TFNB_UPDATE_GOLDEN=1 pytest tests/test_replicas.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests._support import check_golden
from tfnb_debug.diagnostics.distribute import replica_divergence, replica_loss_scaling
from tfnb_debug.diagnostics.fit_data import measured_replica_batch
from tfnb_debug.features.replica_report import replica_table, replicas_summary
from tfnb_debug.ground.reports import Report, sort_findings
from tfnb_debug.records.replicas import MirroredDifference, ReplicaHistory

LAYERS = {"net/hidden": [0, 1], "net/out": [2, 3]}
PATHS = ("net/hidden/kernel", "net/hidden/bias", "net/out/kernel", "net/out/bias")


def history(weight: float, *, replicas: int = 2, records: int = 2) -> ReplicaHistory:
    """Hand-made records: 8 examples per replica, the given example weight on each."""
    values = np.zeros((records, replicas, 3 + len(PATHS)), np.float32)
    for i in range(records):
        for r in range(replicas):
            values[i, r, :3] = (8, 1.0 + 0.5 * r + 0.1 * i, weight)
            values[i, r, 3:] = (3.0 + r, 4.0, 1.0 + 0.25 * r, np.nan if r else 0.0)
    return ReplicaHistory(values=values, paths=PATHS, reductions=("Mean op 'Mean'",))


def test_d01_fires_on_replica_means_only() -> None:
    found = replica_loss_scaling(history(1.0), optimizer="sgd", loss_names=("loss",))
    assert [f.code for f in found] == ["D01"]
    text = found[0].to_text()
    assert "2x" in text and "global_batch_size=16" in text and "`loss`" in text
    assert "8 and 8; Mean op 'Mean'" in text and "scale_regularization_loss" in text
    # averaged over the global batch (8 / 16 per replica), a sum over the examples, one replica
    assert replica_loss_scaling(history(0.5), optimizer="sgd") == []
    assert replica_loss_scaling(history(8.0), optimizer="sgd") == []
    assert replica_loss_scaling(history(1.0, replicas=1), optimizer="sgd") == []
    # a weight that was not found (NaN) is no evidence
    assert replica_loss_scaling(history(float("nan")), optimizer="sgd") == []


def counts(*steps: tuple[float, ...]) -> ReplicaHistory:
    """Hand-made records holding only the examples each replica received per step."""
    values = np.full((len(steps), len(steps[0]), 3 + len(PATHS)), np.nan, np.float32)
    values[:, :, 0] = steps
    return ReplicaHistory(values=values, paths=PATHS)


def test_d03_d04_measured_read_the_examples_each_replica_received() -> None:
    def codes(h: ReplicaHistory, batchnorm: tuple[str, ...] = ("bn",)) -> dict[str, str]:
        steps = list(range(5, 5 + h.n_records))
        found = measured_replica_batch(h, batchnorm=batchnorm, model="net", steps=steps)
        return {f.code: f.to_text() for f in found}

    found = codes(counts((8, 8), (8, 8), (1, 0)))
    assert "at step 7 (1 of 3 recorded step(s))" in found["D04"] and "1 and 0" in found["D04"]
    assert "8 and 8 examples (8 per replica, below 16) in 2 of 3" in found["D03"]
    assert "single example" in codes(counts((16, 16), (2, 1)))["D04"]
    assert (
        "at step 0 "
        in measured_replica_batch(counts((1, 0)), batchnorm=("bn",), model=None)[-1].evidence
    )
    # an even last batch, 16 per replica, one example on every replica of a tiny batch
    assert codes(counts((16, 16), (2, 2))) == {}
    assert list(codes(counts((1, 1), (1, 1)))) == ["D03"]
    # no BatchNormalization that trains per replica, one replica, counts not found
    assert codes(counts((8, 8), (1, 0)), batchnorm=()) == {}
    assert codes(counts((8,), (0,))) == {}
    assert codes(counts((np.nan, np.nan), (np.nan, np.nan))) == {}
    # a step whose counts were not found is no evidence; the others still are
    assert "at step 6" in codes(counts((np.nan, 8), (1, 0), (16, 16)))["D04"]


def test_d06_hint_follows_the_variable() -> None:
    def diff(path: str, aggregation: str, owner: str | None) -> MirroredDifference:
        return MirroredDifference(path, 0.5, 2.0, 2, aggregation, owner)

    found = replica_divergence(
        [
            diff("net/bn/moving_mean", "NONE", "BatchNormalization"),
            diff("net/running/seen", "NONE", "Running"),
            diff("net/dense/kernel", "MEAN", "Dense"),
        ]
    )
    assert [f.code for f in found] == ["D06"] * 3
    assert "synchronized=True" in found[0].hint
    assert 'aggregation="mean"' in found[1].hint and "'net/running/seen'" in found[1].message
    assert ".values" in found[2].hint
    assert "0.5" in found[1].evidence and found[1].target is not None
    assert replica_divergence([]) == []


def _report() -> Report:
    h = history(1.0)
    label = lambda layer: layer.split("/", 1)[1]  # noqa: E731
    return Report(
        title="Gradients of model 'net': 2 recorded step(s)",
        summary=(replicas_summary(h, LAYERS, label),),
        findings=sort_findings(replica_loss_scaling(h, optimizer="sgd")),
        tables=(replica_table(h, LAYERS, label=label),),
    )


def test_replicas_table_text_golden() -> None:
    report = _report()
    table = report.tables[0]
    assert table.columns == ("per replica", "replica 0", "replica 1", "spread")
    assert table.rows[0] == ("examples in the step", 8, 8, None)
    # the layer norm of replica 1's 'out' ignores the variable without a gradient (NaN)
    assert table.rows[-1][1:3] == (pytest.approx(1.0), pytest.approx(1.25))
    assert "differ most on out: 22% of their mean" in report.summary[0]
    check_golden("replicas_report.txt", report.to_text(width=100) + "\n")


def test_replicas_table_html_golden() -> None:
    check_golden("replicas_report.html", _report().to_html() + "\n")


SCRIPT = r'''
import json, os
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
import keras
import numpy as np
import tfnb_debug

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
rng = np.random.default_rng(0)
x = rng.normal(size=(32, 4)).astype("float32")
y = rng.normal(size=(32, 1)).astype("float32")
dist = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(16))


class Running(keras.layers.Layer):
    """Keeps the sum of what it saw: a non-trainable weight updated in call."""

    def __init__(self, aggregation="none", **kw):
        super().__init__(**kw)
        self.aggregation = aggregation

    def build(self, shape):
        self.seen = self.add_weight(shape=(), initializer="zeros", trainable=False,
                                    name="seen", aggregation=self.aggregation)

    def call(self, x, training=False):
        if training:
            self.seen.assign_add(tf.reduce_sum(x))
        return x


def dense_net(*middle):
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="hidden"), *middle,
                             keras.layers.Dense(1, name="out")], name="net")


def loop(kind):
    with strategy.scope():
        net = dense_net()
        sgd = keras.optimizers.SGD(0.1)
    start = [w.numpy() for w in net.trainable_variables]

    @tf.function
    def step(batch):
        def replica(inp):
            xx, yy = inp
            with tf.GradientTape() as tape:
                pred = net(xx, training=True)
                if kind == "mean":
                    loss = tf.reduce_mean(tf.square(pred - yy))
                elif kind == "loss_object":
                    loss = keras.losses.MeanSquaredError()(yy, pred)
                else:
                    per_example = keras.losses.MeanSquaredError(reduction=None)(yy, pred)
                    loss = tf.nn.compute_average_loss(per_example, global_batch_size=16)
            grads = tape.gradient(loss, net.trainable_variables)
            sgd.apply_gradients(zip(grads, net.trainable_variables))
            return loss
        return strategy.run(replica, args=(batch,))

    with tfnb_debug.record_gradients(watch=[net, sgd]) as rec:
        for batch in dist:
            step(batch)
    return rec.result(), net, start


def summary(report):
    table = next((t for t in report.tables if t.name == "replicas"), None)
    return {
        "codes": report.codes(),
        "text": report.to_text(width=200),
        "findings": {f.code: f.to_text() for f in report.findings},
        "table": None if table is None else [list(map(str, r)) for r in table.rows],
        "html": "replicas" in report.to_html(),
    }


out = {}
report, net, start = loop("mean")
out["mean"] = summary(report)
pr = report.history.per_replica
# the numbers of replica 0 in the first step, by hand: its 8 examples, the starting weights
probe = dense_net()
probe.set_weights(start)
with tf.GradientTape() as tape:
    loss0 = tf.reduce_mean(tf.square(probe(x[:8]) - y[:8]))
grads = tape.gradient(loss0, probe.trainable_variables)
hand = [float(tf.sqrt(tf.square(tf.norm(grads[0])) + tf.square(tf.norm(grads[1])))),
        float(tf.sqrt(tf.square(tf.norm(grads[2])) + tf.square(tf.norm(grads[3]))))]
layers = report.history.layer_index()
out["mean_check"] = {
    "replica0_loss": float(pr.column("loss")[0, 0]), "hand_loss": float(loss0),
    "replica0_norms": pr.layer_norms(layers)[0, 0].tolist(), "hand_norms": hand,
    "summed_loss": float(pr.column("loss")[0].sum()), "global_loss": float(report.history.loss[0]),
}
out["loss_object"] = summary(loop("loss_object")[0])

# strategy.run called eagerly: no graph to follow back from the loss
with strategy.scope():
    eager_net = dense_net()
    eager_sgd = keras.optimizers.SGD(0.1)


def eager_replica(inp):
    xx, yy = inp
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(eager_net(xx) - yy))
    grads = tape.gradient(loss, eager_net.trainable_variables)
    eager_sgd.apply_gradients(zip(grads, eager_net.trainable_variables))
    return loss


with tfnb_debug.record_gradients(watch=[eager_net]) as rec:
    for batch in dist:
        strategy.run(eager_replica, args=(batch,))
out["eager"] = summary(rec.result())
out["average"] = summary(loop("average")[0])


def fitted(*middle, train_step_mean=False, epochs=1):
    with strategy.scope():
        if train_step_mean:
            class MeanStep(keras.Sequential):
                def train_step(self, data):
                    xx, yy = data
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(self(xx, training=True) - yy))
                    grads = tape.gradient(loss, self.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                    return {"loss": loss}
            model = MeanStep([keras.Input((4,)), keras.layers.Dense(1, name="out")], name="own_step")
        else:
            model = dense_net(*middle)
        model.compile(keras.optimizers.SGD(0.01), "mse")
    with tfnb_debug.record_gradients() as rec:
        model.fit(x, y, batch_size=16, epochs=epochs, verbose=0, shuffle=False)
    return summary(rec.result())


out["fit"] = fitted()
out["train_step_mean"] = fitted(train_step_mean=True)
out["running_none"] = fitted(Running(name="running"))
out["running_mean"] = fitted(Running("mean", name="running"))
out["bn"] = fitted(keras.layers.BatchNormalization(name="bn"))
out["bn_sync"] = fitted(keras.layers.BatchNormalization(synchronized=True, name="bn"))



# D03 / D04 in a custom loop: what the replicas received, with BatchNormalization
def bn_loop(n, batch, bn="plain", drop=False, from_function=False):
    xs = rng.normal(size=(n, 4)).astype("float32")
    ys = rng.normal(size=(n, 1)).astype("float32")
    middle = [] if bn == "none" else [
        keras.layers.BatchNormalization(synchronized=bn == "sync", name="bn")]
    with strategy.scope():
        net = dense_net(*middle)
        sgd = keras.optimizers.SGD(0.01)
    ds = tf.data.Dataset.from_tensor_slices((xs, ys))
    if from_function:
        data = strategy.distribute_datasets_from_function(
            lambda ctx: ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(
                batch, drop_remainder=drop))
    else:
        data = strategy.experimental_distribute_dataset(ds.batch(batch, drop_remainder=drop))

    @tf.function
    def step(inp):
        def replica(xy):
            with tf.GradientTape() as tape:
                loss = keras.losses.MeanSquaredError()(xy[1], net(xy[0], training=True))
            grads = tape.gradient(loss, net.trainable_variables)
            sgd.apply_gradients(zip(grads, net.trainable_variables))
            return loss
        return strategy.run(replica, args=(inp,))

    with tfnb_debug.record_gradients(watch=[net, sgd]) as rec:
        for inp in data:
            step(inp)
    result = summary(rec.result())
    result["finite_weights"] = all(np.isfinite(w).all() for w in net.get_weights())
    result["examples"] = rec.result().history.per_replica.column("examples").tolist()
    return result


out["bn_17"] = bn_loop(17, 16)              # last global batch 1: replica 1 gets none
out["bn_17_sync"] = bn_loop(17, 16, "sync")
out["bn_17_none"] = bn_loop(17, 16, "none")
out["bn_17_drop"] = bn_loop(17, 16, drop=True)
out["bn_19"] = bn_loop(19, 16)              # last global batch 3: 2 and 1
out["bn_20"] = bn_loop(20, 16)              # last global batch 4: 2 and 2
out["bn_fn_tiny"] = bn_loop(32, 4, from_function=True)   # 4 per replica
out["bn_fn_large"] = bn_loop(64, 16, from_function=True)  # 16 per replica

# the magic: %%tfgrad on the hand-written mean, in a real IPython shell
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
shell = InteractiveShell.instance()
shell.user_ns.update(strategy=strategy, dist=dist, dense_net=dense_net, tf=tf, keras=keras)
with capture_output():
    shell.run_line_magic("load_ext", "tfnb_debug")
    shell.run_cell(
        "with strategy.scope():\n"
        "    model = dense_net()\n"
        "    opt = keras.optimizers.SGD(0.1)\n"
        "@tf.function\n"
        "def train(batch):\n"
        "    def replica(inp):\n"
        "        xx, yy = inp\n"
        "        with tf.GradientTape() as tape:\n"
        "            loss = tf.reduce_mean(tf.square(model(xx) - yy))\n"
        "        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))\n"
        "        return loss\n"
        "    return strategy.run(replica, args=(batch,))\n"
    )
with capture_output() as cap:
    shell.run_cell("%%tfgrad\nfor batch in dist:\n    train(batch)\n")
out["magic"] = "\n".join(o.data.get("text/plain", "") for o in cap.outputs) + cap.stdout
# the same magic on a custom loop whose model has BatchNormalization, 17 examples in batches of 16
shell.user_ns["dist17"] = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((x[:17], y[:17])).batch(16))
with capture_output():
    shell.run_cell(
        "with strategy.scope():\n"
        "    bn_model = dense_net(keras.layers.BatchNormalization(name='bn'))\n"
        "    bn_opt = keras.optimizers.SGD(0.01)\n"
        "@tf.function\n"
        "def bn_train(batch):\n"
        "    def replica(inp):\n"
        "        with tf.GradientTape() as tape:\n"
        "            loss = keras.losses.MeanSquaredError()(inp[1], bn_model(inp[0], training=True))\n"
        "        bn_opt.apply_gradients(zip(tape.gradient(loss, bn_model.trainable_variables), bn_model.trainable_variables))\n"
        "        return loss\n"
        "    return strategy.run(replica, args=(batch,))\n"
    )
with capture_output() as cap:
    shell.run_cell("%%tfgrad\nfor batch in dist17:\n    bn_train(batch)\n")
out["magic_bn"] = "\n".join(o.data.get("text/plain", "") for o in cap.outputs) + cap.stdout
print("RESULT " + json.dumps(out))
'''


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every scenario, recorded in one subprocess (two logical CPUs, MirroredStrategy)."""
    script = tmp_path_factory.mktemp("replicas") / "replicas.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=400
    )
    lines = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, run.stdout[-2000:] + run.stderr[-3000:]
    return dict(json.loads(lines[-1].removeprefix("RESULT ")))


@pytest.mark.slow
def test_d01_fires_on_a_hand_written_mean_in_strategy_run(recorded: dict[str, Any]) -> None:
    mean = recorded["mean"]
    assert "D01" in mean["codes"], mean["text"]
    d01 = mean["findings"]["D01"]
    assert "2 replicas' gradients" in d01 and "2x" in d01
    assert "compute_average_loss(per_example_loss, global_batch_size=16)" in d01
    # the custom train_step with tf.reduce_mean under fit: the same cause
    assert "D01" in recorded["train_step_mean"]["codes"]
    # clean twins: a Keras loss object, compute_average_loss, fit's compiled loss
    for twin in ("loss_object", "average", "fit"):
        assert "D01" not in recorded[twin]["codes"], recorded[twin]["text"]
        assert recorded[twin]["table"][2] == ["examples' total weight", "0.5", "0.5", "None"]
    # and under the %%tfgrad magic in a real IPython shell
    assert "D01 replica-loss-scaling (error)" in recorded["magic"]
    assert "[replicas]" in recorded["magic"]


@pytest.mark.slow
def test_the_replicas_table_holds_each_replicas_own_numbers(recorded: dict[str, Any]) -> None:
    table = recorded["mean"]["table"]
    assert table[0] == ["examples in the step", "8", "8", "None"]
    assert [row[0] for row in table[3:]] == ["grad norm hidden", "grad norm out"]
    assert recorded["mean"]["html"]
    check = recorded["mean_check"]
    # replica 0's loss and layer norms in the first step are those of its 8 examples
    assert check["replica0_loss"] == pytest.approx(check["hand_loss"], rel=1e-5)
    assert check["replica0_norms"] == pytest.approx(check["hand_norms"], rel=1e-5)
    # the replicas' losses sum to the recorded (all-reduced) loss
    assert check["summed_loss"] == pytest.approx(check["global_loss"], rel=1e-5)
    # fit under the strategy: the same table, from fit's own step
    assert recorded["fit"]["table"][0] == ["examples in the step", "8", "8", "None"]


@pytest.mark.slow
def test_an_eager_strategy_run_has_losses_and_norms_but_no_example_weight(
    recorded: dict[str, Any],
) -> None:
    eager = recorded["eager"]
    table = {row[0]: row[1:] for row in eager["table"]}
    assert table["examples in the step"] == ["None", "None", "None"]
    assert table["examples' total weight"] == ["None", "None", "None"]
    assert all(float(v) > 0 for v in table["grad norm out"][:2])
    assert all(float(v) > 0 for v in table["loss (as differentiated)"][:2])
    assert "D01" not in eager["codes"]  # not checked eagerly: no evidence, no finding


@pytest.mark.slow
def test_d06_names_the_variable_whose_copies_differ(recorded: dict[str, Any]) -> None:
    d06 = recorded["running_none"]["findings"]["D06"]
    assert "'net/running/seen'" in d06 and "aggregation NONE" in d06
    assert 'aggregation="mean"' in d06
    assert "D06" not in recorded["running_mean"]["codes"]
    bn = recorded["bn"]["findings"]["D06"]
    assert "moving_mean" in bn and "synchronized=True" in bn
    assert "D06" not in recorded["bn_sync"]["codes"]
    assert "D06" not in recorded["fit"]["codes"] and "D06" not in recorded["mean"]["codes"]


@pytest.mark.slow
def test_d03_d04_in_a_custom_loop_read_what_the_replicas_received(
    recorded: dict[str, Any],
) -> None:
    # 17 examples in global batches of 16: the last step gives 1 and 0 examples
    bn = recorded["bn_17"]
    assert bn["examples"] == [[8.0, 8.0], [1.0, 0.0]]
    d04 = bn["findings"]["D04"]
    assert "1 and 0" in d04 and "empty batch" in d04 and "measured in the steps" in d04
    assert "drop_remainder=True" in d04 and "'bn'" in d04
    assert not bn["finite_weights"]  # the NaN the message names, measured
    d03 = bn["findings"]["D03"]
    assert "8 and 8 examples (8 per replica, below 16)" in d03 and "synchronized=True" in d03
    # a last batch of 3: one replica normalizes a single example
    assert "2 and 1" in recorded["bn_19"]["findings"]["D04"]
    # clean twins: synchronized, no BatchNormalization, drop_remainder, an even last batch
    for twin in ("bn_17_sync", "bn_17_none"):
        assert not {"D03", "D04"} & set(recorded[twin]["codes"]), recorded[twin]["text"]
        assert recorded[twin]["finite_weights"]
    for twin in ("bn_17_drop", "bn_20"):
        assert "D04" not in recorded[twin]["codes"] and "D03" in recorded[twin]["codes"]
    # distribute_datasets_from_function: 4 per replica fires, 16 per replica does not
    assert "normalizes over 4 examples" in recorded["bn_fn_tiny"]["findings"]["D03"]
    assert not {"D03", "D04"} & set(recorded["bn_fn_large"]["codes"])
    # the same under the %%tfgrad magic in a real IPython shell
    assert "D04 empty-replica-batch (error)" in recorded["magic_bn"], recorded["magic_bn"]
    assert "D03 tiny-replica-batch (warning)" in recorded["magic_bn"]
    # under fit, D03 is read from fit's arguments once, not measured a second time
    assert "at fit of model 'net'" in recorded["bn"]["findings"]["D03"]
