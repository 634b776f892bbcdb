"""track_memory on real TensorFlow: R01 on a real leak, step markers, patches and thread restored."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf

from tfnb_debug import TfnbDebugError
from tfnb_debug.features.memory import MemoryThresholds, track_memory

SAMPLER = "tfnb_debug-memory-sampler"
HAS_GPU = bool(tf.config.list_physical_devices("GPU"))


def _originals() -> dict[str, Any]:
    from keras.src.backend.tensorflow.trainer import TensorFlowTrainer
    from keras.src.optimizers.base_optimizer import BaseOptimizer

    return {
        "on_train_batch_end": keras.callbacks.CallbackList.__dict__["on_train_batch_end"],
        "train_on_batch": TensorFlowTrainer.__dict__["train_on_batch"],
        "apply": BaseOptimizer.__dict__["apply"],
        "apply_gradients": BaseOptimizer.__dict__["apply_gradients"],
    }


def _sampler_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == SAMPLER]


@pytest.fixture
def untouched() -> Iterator[None]:
    """Every test leaves Keras unpatched and no sampler thread behind."""
    before = _originals()
    yield
    assert _originals() == before
    assert _sampler_threads() == []


def _dense(units: int = 1024) -> keras.Model:
    return keras.Sequential([keras.Input((32,)), keras.layers.Dense(units)])


def _custom_loop(model: keras.Model, steps: int, keep: list[Any] | None) -> None:
    """An eager custom training loop; with ``keep`` every step's 2 MiB output stays alive."""
    optimizer = keras.optimizers.SGD(0.01)
    x = tf.random.stateless_normal((512, 32), seed=(1, 2))
    for _ in range(steps):
        with tf.GradientTape() as tape:
            out = model(x)
            loss = tf.reduce_mean(out**2)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights, strict=True))
        if keep is not None:
            keep.append(out)


@pytest.mark.slow
def test_r01_fires_for_tensors_kept_in_a_list_and_not_without_the_list(untouched: None) -> None:
    model = _dense()
    _custom_loop(model, 5, None)  # warm up: tracing and first allocations
    with track_memory(interval_ms=20) as clean:
        _custom_loop(model, 80, None)
    assert clean.report is not None
    assert len(clean.report.step_times) == 80
    assert clean.report.step_sources == ("apply_gradients",)
    assert "R01" not in clean.report.codes(), clean.report.to_text()

    kept: list[Any] = []
    with track_memory(interval_ms=20) as leaky:
        _custom_loop(model, 80, kept)
    report = leaky.report
    assert report is not None
    r01 = [f for f in report.findings if f.code == "R01"]
    assert r01, report.to_text()
    assert all("per step" in f.message for f in r01)
    # 80 outputs of 512 x 1024 float32 = 2 MiB each stayed alive.  The malloc heap (glibc)
    # shows all of it; RSS may show less when the leak reuses pages freed earlier.
    names = [s.name for s in report.series]
    grown = "host malloc heap" if "host malloc heap" in names else "host RSS"
    assert any(f.place.startswith(f"{grown}, steps") for f in r01)
    if grown == "host malloc heap":
        assert report.series_named(grown).delta > 0.9 * 80 * 2 * 2**20
    kept.clear()


def test_r01_is_a_trend_test_its_thresholds_decide(untouched: None) -> None:
    """The same leaky run with a threshold above its rise does not fire: the numbers decide."""
    model = _dense(256)
    _custom_loop(model, 2, None)
    kept: list[Any] = []
    strict = MemoryThresholds(growth_min_bytes=10 * 2**30)
    with track_memory(interval_ms=20, thresholds=strict) as mem:
        _custom_loop(model, 20, kept)
    assert mem.report is not None
    assert "R01" not in mem.report.codes()
    kept.clear()


def test_fit_marks_one_step_per_batch_and_names_the_model(untouched: None) -> None:
    model = _dense(8)
    model.compile(optimizer="adam", loss="mse")
    x = np.zeros((40, 32), "float32")
    y = np.zeros((40, 8), "float32")
    with track_memory(interval_ms=10) as mem:
        model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    report = mem.report
    assert report is not None
    assert len(report.step_times) == 10  # 5 batches x 2 epochs
    assert report.step_sources == ("fit",)
    assert list(report.step_times) == sorted(report.step_times)
    # the model trained in the block gets an estimate: Adam in fp32 is 16 bytes per parameter
    assert [e.model for e in report.estimates] == [model.name]
    assert report.estimates[0].bytes_per_parameter == pytest.approx(16.0, rel=0.01)
    assert "model memory estimate" in [t.name for t in report.tables]


def test_eager_fit_is_not_counted_twice(untouched: None) -> None:
    """run_eagerly=True reaches both the optimizer and the callback: still one step per batch."""
    model = _dense(4)
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    x = np.zeros((24, 32), "float32")
    y = np.zeros((24, 4), "float32")
    with track_memory(interval_ms=10) as mem:
        model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert mem.report is not None
    assert len(mem.report.step_times) == 3


def test_train_on_batch_and_graph_mode_steps(untouched: None) -> None:
    model = _dense(4)
    model.compile(optimizer="sgd", loss="mse")
    x = np.zeros((8, 32), "float32")
    y = np.zeros((8, 4), "float32")
    optimizer = keras.optimizers.SGD(0.1)

    @tf.function
    def graph_step() -> None:  # inside tf.function: traced, not an eager step
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x) ** 2)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights, strict=True))

    with track_memory(interval_ms=10) as mem:
        for _ in range(3):
            model.train_on_batch(x, y)
        graph_step()
    assert mem.report is not None
    assert len(mem.report.step_times) == 3
    assert mem.report.step_sources == ("train_on_batch",)


def _graph_loop(model: keras.Model, optimizer: keras.optimizers.Optimizer) -> Any:
    x = tf.random.stateless_normal((512, 32), seed=(3, 4))

    @tf.function
    def step() -> tf.Tensor:
        with tf.GradientTape() as tape:
            out = model(x)
            loss = tf.reduce_mean(out**2)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights, strict=True))
        return out

    return step


def _run_until_sampled(mem: Any, step: Any, keep: list[Any] | None, samples: int) -> None:
    """Take steps until the sampler has read ``samples`` times (a count, not a clock)."""
    sampler = mem.recorder.sampler
    while len(sampler.times) < samples:
        out = step()
        if keep is not None:
            keep.append(out)


@pytest.mark.slow
def test_steps_inside_tf_function_are_counted_and_r01_fits_over_them(untouched: None) -> None:
    model = _dense()
    optimizer = keras.optimizers.SGD(0.01)
    step = _graph_loop(model, optimizer)
    step()  # traced before the block, as when the loop cell is run again
    with track_memory(interval_ms=5, optimizers=[optimizer]) as clean:
        _run_until_sampled(clean, step, None, 40)
    report = clean.report
    assert report is not None
    # no eager step marks: the steps were counted from the optimizer at each sample
    assert report.step_sources == ("tf.function (counted at each sample)",)
    assert len(report.step_times) >= 8
    assert "R01" not in report.codes(), report.to_text()

    kept: list[Any] = []
    with track_memory(interval_ms=5, optimizers=[optimizer]) as leaky:
        _run_until_sampled(leaky, step, kept, 40)
    assert leaky.report is not None
    r01 = [f for f in leaky.report.findings if f.code == "R01"]
    assert r01 and all("training steps" in f.message for f in r01), leaky.report.to_text()
    kept.clear()


def test_optimizer_traced_inside_the_block_is_watched(untouched: None) -> None:
    model = _dense(8)
    optimizer = keras.optimizers.SGD(0.01)
    step = _graph_loop(model, optimizer)
    with track_memory(interval_ms=5) as mem:
        _run_until_sampled(mem, step, None, 12)
    recording = mem.recorder.recording
    assert recording is not None
    counts = [c for c in recording.sample_steps if c is not None]
    assert counts and counts[-1] == int(optimizer.iterations.numpy())


def test_each_optimizer_counts_from_its_own_steps(untouched: None) -> None:
    """A notebook optimizer that took 7 steps in an earlier cell, and a new one that the block
    traces and steps 3 times: 3 steps, not 0 (the old count is not the new one's start)."""
    old_model, old = _dense(8), keras.optimizers.SGD(0.01)
    old_step = _graph_loop(old_model, old)
    for _ in range(7):
        old_step()
    model, optimizer = _dense(8), keras.optimizers.SGD(0.01)
    step = _graph_loop(model, optimizer)
    with track_memory(interval_ms=5, optimizers=[old]) as mem:
        for _ in range(3):
            step()
    assert mem.report is not None and mem.recorder.recording is not None
    assert mem.recorder.recording.graph_steps == 3
    assert "3 training step(s) seen (3 inside tf.function" in mem.report.summary[0]


@pytest.mark.parametrize("error", [ValueError("boom"), KeyboardInterrupt()])
def test_thread_stops_and_patches_restored_when_the_block_raises(
    untouched: None, error: BaseException
) -> None:
    model = _dense(4)
    tracker = track_memory(interval_ms=5)
    with pytest.raises(type(error)) as caught, tracker:
        assert _sampler_threads(), "the sampler runs inside the block"
        assert all(hasattr(f, "__wrapped__") for f in _originals().values()), "patched inside"
        _custom_loop(model, 2, None)
        raise error
    assert caught.value is error  # the user's own exception, unchanged
    assert _sampler_threads() == []
    assert tracker.report is not None
    assert tracker.report.error is not None
    assert type(error).__name__ in tracker.report.error
    assert len(tracker.report.step_times) == 2  # the steps before the error are kept


def test_r03_names_the_allocation_that_failed(untouched: None) -> None:
    tracker = track_memory(interval_ms=10)
    with pytest.raises(tf.errors.ResourceExhaustedError), tracker:
        tf.zeros([2**38])  # 1 TiB: TensorFlow's allocator refuses it
    report = tracker.report
    assert report is not None
    assert report.codes() == ["R03"]
    assert "shape[274877906944]" in report.findings[0].evidence


def test_no_r03_for_other_errors(untouched: None) -> None:
    tracker = track_memory(interval_ms=10)
    with pytest.raises(tf.errors.InvalidArgumentError), tracker:
        tf.reshape(tf.zeros([6]), [4])
    assert tracker.report is not None
    assert "R03" not in tracker.report.codes()


def test_r02_compares_the_peak_with_the_capacity(untouched: None) -> None:
    with track_memory(interval_ms=10) as normal:
        tf.zeros([1000]).numpy()
    assert normal.report is not None
    assert "R02" not in normal.report.codes()  # this process is far from the host's RAM
    # The real RSS against a threshold of a millionth of the host's RAM: it passes it.
    low = MemoryThresholds(near_capacity_fraction=1e-6)
    with track_memory(interval_ms=10, thresholds=low) as tight:
        tf.zeros([1000]).numpy()
    assert tight.report is not None
    assert tight.report.codes() == ["R02"]
    assert tight.report.findings[0].place == "host RSS"


def test_report_shape_and_cpu_only_note(untouched: None) -> None:
    with track_memory(interval_ms=5) as mem:
        big = tf.ones([1024, 1024])
        big.numpy()
    report = mem.report
    assert report is not None
    names = [s.name for s in report.series]
    assert names[0] == "host RSS"
    host = report.series_named("host RSS")
    assert len(host.times) >= 2 and host.peak >= max(host.start, host.end)
    assert report.table("memory").rows[0][0] == "host RSS"
    if not HAS_GPU:
        assert "no GPU is visible: host memory only" in report.summary
    text = report.to_text()
    assert "host RSS" in text and "[memory]" in text
    html = report.to_html()
    assert "<svg" in html  # the memory plot
    frame = report.samples_dataframe()
    assert set(frame["series"]) == set(names)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"interval_ms": 0}, "interval_ms=0 is out of range"),
        ({"interval_ms": "fast"}, "must be a number"),
        ({"batch_size": 0}, "batch_size must be a positive integer"),
        (
            {"thresholds": {"growth_min_r2": 0.5}},
            "thresholds must be a tfnb_debug.MemoryThresholds",
        ),
    ],
)
def test_bad_arguments_are_one_line_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(TfnbDebugError, match=message):
        track_memory(**kwargs)
    assert _sampler_threads() == []


def test_thresholds_are_validated() -> None:
    with pytest.raises(TfnbDebugError, match="growth_min_r2=2"):
        MemoryThresholds(growth_min_r2=2)


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason="needs a visible GPU")
def test_gpu_allocator_series_and_peak() -> None:
    with tf.device("/GPU:0"):
        warm = tf.ones([1024, 1024])
        del warm
    with track_memory(interval_ms=5) as mem, tf.device("/GPU:0"):
        block = tf.ones([4096, 4096])  # 64 MiB
        block.numpy()
        del block
    report = mem.report
    assert report is not None
    gpu = report.series_named("GPU:0 allocator")
    assert gpu.kind == "device"
    assert gpu.allocator_peak is not None and gpu.allocator_peak >= 64 * 2**20
    assert gpu.capacity and gpu.capacity > gpu.allocator_peak
    assert not any("no GPU is visible" in line for line in report.summary)
