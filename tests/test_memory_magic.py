"""``%%tfmem`` through a real InteractiveShell, and the model memory estimate (M06)."""

from __future__ import annotations

import threading

import keras
import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug import TfnbDebugError
from tfnb_debug.features.memory import MemoryReport, ModelMemoryReport, estimate_model_memory

SETUP = """
import numpy as np, keras, tensorflow as tf
model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8)])
model.compile(optimizer="adam", loss="mse")
x = np.zeros((32, 16), "float32"); y = np.zeros((32, 8), "float32")
"""


def _sampler_alive() -> bool:
    return any(t.name == "tfnb_debug-memory-sampler" for t in threading.enumerate())


def test_tfmem_shows_plot_table_steps_and_estimate(shell: InteractiveShell) -> None:
    shell.run_cell(SETUP)
    shown = run_magic(
        shell,
        "%%tfmem --interval 10 -v rep",
        cell="model.fit(x, y, batch_size=8, epochs=1, verbose=0)\n'{not expanded} $x'",
    )
    assert shown.result == "{not expanded} $x"  # no -o: the cell's own last value
    report = shell.user_ns["rep"]
    assert isinstance(report, MemoryReport)
    assert report.title == "%%tfmem"
    assert len(report.step_times) == 4
    assert report.estimates[0].model == shell.user_ns["model"].name
    assert "<svg" in shown.html  # the memory plot
    assert "[memory]" in shown.text and "host RSS" in shown.text
    assert "4 training step(s) seen via fit" in shown.text


def test_tfmem_quiet_output_and_model_option(shell: InteractiveShell) -> None:
    shell.run_cell(SETUP)
    shown = run_magic(shell, "%%tfmem -q -o --model model --batch-size 8", cell="z = x * 2")
    assert shown.outputs == []
    report = shown.result
    assert isinstance(report, MemoryReport)
    assert report.step_times == ()
    (estimate,) = report.estimates
    assert estimate.batch_size == 8
    assert estimate.activation_bytes == 8 * 8 * 4  # Dense(8) output x batch 8 x float32
    assert shell.user_ns["z"].shape == (32, 16)  # the cell ran, once, in the user namespace


def test_tfmem_user_error_reaches_the_user_with_the_partial_report(
    shell: InteractiveShell,
) -> None:
    shell.run_cell(SETUP)
    with pytest.raises(ZeroDivisionError):
        run_magic(shell, "%%tfmem -q -v rep", cell="model.train_on_batch(x, y)\n1 / 0")
    report = shell.user_ns["rep"]
    assert report.error.startswith("ZeroDivisionError")
    assert len(report.step_times) == 1
    assert not _sampler_alive()
    result = shell.run_cell("%%tfmem -q\nraise ValueError('mine')")
    assert not result.success  # the cell is marked failed (no nested run_cell)
    assert isinstance(result.error_in_exec, ValueError)


def test_tfmem_interrupt_stops_the_sampler_and_restores_keras(shell: InteractiveShell) -> None:
    original = keras.callbacks.CallbackList.__dict__["on_train_batch_end"]
    with pytest.raises(KeyboardInterrupt):
        run_magic(shell, "%%tfmem -q", cell="raise KeyboardInterrupt")
    assert not _sampler_alive()
    assert keras.callbacks.CallbackList.__dict__["on_train_batch_end"] is original


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("%%tfmem --interval 0", "interval_ms=0.0 is out of range"),
        ("%%tfmem --model nothing_here", "'nothing_here' is not defined"),
        ("%%tfmem -v 2bad", "-v needs a Python variable name"),
    ],
)
def test_tfmem_bad_options_are_usage_errors(
    shell: InteractiveShell, line: str, message: str
) -> None:
    shell.user_ns["ran"] = 0
    with pytest.raises(UsageError, match=message):
        run_magic(shell, line, cell="ran += 1")
    assert shell.user_ns["ran"] == 0  # nothing ran
    assert not _sampler_alive()


def _mlp(optimizer: str | keras.optimizers.Optimizer = "adam") -> keras.Model:
    model = keras.Sequential([keras.Input((100,)), keras.layers.Dense(200), keras.layers.Dense(10)])
    model.compile(optimizer=optimizer, loss="mse")
    return model


PARAMS = 100 * 200 + 200 + 200 * 10 + 10


@pytest.mark.parametrize(
    ("optimizer", "per_param"),
    [
        ("adam", 16),
        (keras.optimizers.SGD(momentum=0.9), 12),
        ("sgd", 8),
        (keras.optimizers.Adam(amsgrad=True), 20),
    ],
)
def test_bytes_per_parameter_by_optimizer(optimizer: object, per_param: int) -> None:
    report = estimate_model_memory(_mlp(optimizer))  # type: ignore[arg-type]
    assert isinstance(report, ModelMemoryReport)
    assert report.estimate.parameters == PARAMS
    assert report.estimate.optimizer_source == "rule"
    assert report.estimate.bytes_per_parameter == per_param


def test_built_optimizer_counts_its_real_variables() -> None:
    model = _mlp("adam")
    model.fit(np.zeros((4, 100), "float32"), np.zeros((4, 10), "float32"), verbose=0)
    estimate = estimate_model_memory(model).estimate
    assert estimate.optimizer_source == "built"
    # m and v per parameter, plus Adam's scalar iterations/learning-rate variables
    assert 2 * 4 * PARAMS <= estimate.optimizer_bytes <= 2 * 4 * PARAMS + 64  # type: ignore[operator]


def test_mixed_precision_halves_the_activations() -> None:
    fp32 = estimate_model_memory(_mlp(), batch_size=32).estimate
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        fp16 = estimate_model_memory(_mlp(), batch_size=32).estimate
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert fp32.activation_bytes == 32 * (200 + 10) * 4
    assert fp16.activation_dtype == "float16"
    assert fp16.activation_bytes == fp32.activation_bytes // 2  # type: ignore[operator]
    assert fp16.weight_bytes == fp32.weight_bytes  # variables stay float32


def test_m06_fires_only_when_the_estimate_exceeds_the_device() -> None:
    model = _mlp("adam")  # 16 B x 22,210 parameters = 347 KiB, + activations
    roomy = estimate_model_memory(model, batch_size=64)  # against the host's RAM
    assert "M06" not in roomy.codes()
    tight = estimate_model_memory(model, batch_size=64, device_memory=256 * 1024)
    assert tight.codes() == ["M06"]
    assert "needs at least" in tight.findings[0].message
    assert "activations" in tight.findings[0].evidence


def test_subclassed_model_activations_unknown_unless_given() -> None:
    class Net(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = keras.layers.Dense(4)

        def call(self, inputs: object) -> object:
            return self.dense(inputs)

    net = Net()
    net(np.zeros((1, 3), "float32"))
    estimate = estimate_model_memory(net, batch_size=16).estimate
    assert estimate.optimizer == "none (not compiled)"
    assert estimate.activation_bytes is None
    given = estimate_model_memory(net, batch_size=16, activation_elements=4).estimate
    assert given.activation_bytes == 16 * 4 * 4


def test_estimate_rejects_non_models() -> None:
    with pytest.raises(TfnbDebugError, match="needs a Keras model"):
        estimate_model_memory("model")


LOOP = """
opt = keras.optimizers.SGD(0.01)
for _ in range(12):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x) ** 2)
    grads = tape.gradient(loss, model.trainable_weights)
    opt.apply_gradients(zip(grads, model.trainable_weights))
"""


def test_tfgrad_mem_adds_the_memory_section_and_restores_everything(
    shell: InteractiveShell,
) -> None:
    from keras.src.optimizers.base_optimizer import BaseOptimizer

    original = BaseOptimizer.__dict__["apply_gradients"]
    shell.run_cell(SETUP)
    plain = run_magic(shell, "%%tfgrad -q -o", cell=LOOP).result
    shown = run_magic(shell, "%%tfgrad --mem -q -o", cell=LOOP)
    report = shown.result
    assert type(report) is type(plain)  # still the gradient report, with memory added
    assert [s.title for s in report.sections][-1] == "memory over the cell's run"
    assert "memory over the cell's run" not in [s.title for s in plain.sections]
    memory_text = report.sections[-1].text
    assert "12 training step(s) seen via apply_gradients" in memory_text
    assert "host RSS" in memory_text
    assert "<svg" in report.to_html()  # the memory plot
    assert BaseOptimizer.__dict__["apply_gradients"] is original
    assert not _sampler_alive()


def test_tfshape_mem_in_the_cell_magic_only(shell: InteractiveShell) -> None:
    shell.run_cell(SETUP)
    report = run_magic(shell, "%%tfshape --mem -q -o", cell="out = model(x)").result
    assert report.sections[-1].title == "memory over the cell's run"
    assert report.table(report.tables[0].name).rows  # the shape table is still there
    with pytest.raises(UsageError, match="--mem records memory while a cell runs"):
        run_magic(shell, "%tfshape --mem model x")
    # the user's error still reaches them, with the memory section in the partial report
    with pytest.raises(ValueError):
        run_magic(shell, "%%tfshape --mem -q -v part", cell="model(np.zeros((2, 5)))")
    assert shell.user_ns["part"].sections[-1].title == "memory over the cell's run"
    assert not _sampler_alive()


def test_tfpipeline_mem(shell: InteractiveShell) -> None:
    shell.run_cell("import tensorflow as tf")
    shown = run_magic(
        shell,
        "%%tfpipeline --mem --no-timing -q -o",
        cell="ds = tf.data.Dataset.range(64).batch(8).prefetch(2)",
    )
    (report,) = shown.result.values()
    assert report.sections[-1].title == "memory over the cell's run"
    with pytest.raises(UsageError, match="use it with %%tfpipeline"):
        run_magic(shell, "%tfpipeline --mem ds")
    assert not _sampler_alive()


GRAPH_STEP = (
    "opt = keras.optimizers.SGD(0.01)\n"
    "@tf.function\n"
    "def step():\n"
    "    with tf.GradientTape() as tape:\n"
    "        loss = tf.reduce_mean(model(x) ** 2)\n"
    "    grads = tape.gradient(loss, model.trainable_weights)\n"
    "    opt.apply_gradients(zip(grads, model.trainable_weights))\n"
)


def test_tfmem_counts_steps_of_a_tf_function_traced_in_an_earlier_cell(
    shell: InteractiveShell,
) -> None:
    shell.run_cell(SETUP)
    shell.run_cell(GRAPH_STEP + "step()\n")
    report = run_magic(shell, "%%tfmem -q -o", cell="for _ in range(20):\n    step()").result
    # the sample taken when the cell ends always sees the 20 new iterations
    assert report.step_sources == ("tf.function (counted at each sample)",)
    assert int(shell.user_ns["opt"].iterations.numpy()) == 21


def test_tfmem_says_how_many_tf_function_steps_ran_not_how_many_samples_saw_one(
    shell: InteractiveShell,
) -> None:
    """32 steps in a custom loop used to read "13 training step(s) seen": the samples at
    which the optimizer's count had moved, not the steps."""
    shell.run_cell(SETUP)
    shell.run_cell(GRAPH_STEP)
    report = run_magic(shell, "%%tfmem -q -o", cell="for _ in range(32):\n    step()").result
    assert int(shell.user_ns["opt"].iterations.numpy()) == 32
    assert "32 training step(s) seen (32 inside tf.function" in report.summary[0], report.summary


def test_the_live_view_counts_tf_function_steps_from_before_the_first_sample() -> None:
    """The live view's step count reads the optimizer's count against its count before the
    cell's first step (as the final report does), not against the first sample that saw
    it: the optimizer is found when the step function traces, and here every step runs
    before the sampler reads it once."""
    import tensorflow as tf

    from tfnb_debug.features.memory import MemoryLive, track_memory

    model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8)])
    opt = keras.optimizers.SGD(0.01)
    x = np.zeros((32, 16), "float32")

    @tf.function
    def step() -> None:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x) ** 2)
        grads = tape.gradient(loss, model.trainable_weights)
        opt.apply_gradients(zip(grads, model.trainable_weights, strict=True))

    with track_memory(interval_ms=60_000) as tracker:
        for _ in range(12):
            step()  # traced at the first call: the optimizer is watched from then on
        tracker.recorder.sampler.sample()  # the first reading that sees the optimizer
        part = MemoryLive(tracker).live_part()
    assert int(opt.iterations.numpy()) == 12
    assert part.step == 12
    assert "12 training step(s) seen" in tracker.report.summary[0], tracker.report.summary
