"""Findings P01-P12 and N04 on real tf.data pipelines: each fires on a case and not on a close variant."""

from __future__ import annotations

import time
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from sklearn.datasets import load_digits

from tfnb_debug import PipelineThresholds, inspect_pipeline

AUTOTUNE = tf.data.AUTOTUNE
_DIGITS = load_digits()
X = _DIGITS.images[:200, ..., None].astype("float32")  # real 8x8 digits, values 0..16
Y = _DIGITS.target[:200].astype("int64")


def codes(ds: tf.data.Dataset, **kwargs: Any) -> list[str]:
    kwargs.setdefault("throughput", False)
    kwargs.setdefault("augmentation", False)
    return inspect_pipeline(ds, **kwargs).codes()


def base(x: np.ndarray = X, y: np.ndarray = Y) -> tf.data.Dataset:
    return tf.data.Dataset.from_tensor_slices((x, y))


def flip(x: tf.Tensor, y: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    return tf.image.random_flip_left_right(x), y


def small_model(*, rescale: bool = False, batchnorm: bool = False, units: int = 10) -> keras.Model:
    layers: list[Any] = [keras.Input((8, 8, 1))]
    if rescale:
        layers.append(keras.layers.Rescaling(1 / 16))
    layers.append(keras.layers.Flatten())
    if batchnorm:
        layers += [keras.layers.Dense(16), keras.layers.BatchNormalization()]
    layers.append(keras.layers.Dense(units))
    model = keras.Sequential(layers)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def good(ds: tf.data.Dataset) -> tf.data.Dataset:
    return ds.batch(32).prefetch(AUTOTUNE)


def test_p01_cache_after_random_map() -> None:
    bad = base().map(flip, num_parallel_calls=AUTOTUNE).cache()
    fixed = base().cache().map(flip, num_parallel_calls=AUTOTUNE)
    assert "P01" in codes(good(bad))
    assert "P01" not in codes(good(fixed))
    # a deterministic map before cache() is the recommended pattern
    assert "P01" not in codes(
        good(base().map(lambda x, y: (x / 16, y), num_parallel_calls=AUTOTUNE).cache())
    )


def test_p02_missing_or_misplaced_prefetch() -> None:
    assert "P02" in codes(base().batch(32))
    assert "P02" in codes(
        base().batch(32).prefetch(1).map(lambda x, y: (x, y), num_parallel_calls=2)
    )
    assert "P02" not in codes(good(base()))


def test_p03_small_shuffle_buffer_and_threshold_override() -> None:
    report = inspect_pipeline(good(base().shuffle(10)), throughput=False)
    (p03,) = [f for f in report.findings if f.code == "P03"]
    assert "10/200" in p03.evidence and p03.place.startswith("stage 1 shuffle(10)")
    assert "P03" not in codes(good(base().shuffle(200)))
    assert "P03" not in codes(
        good(base().shuffle(10)), thresholds=PipelineThresholds(min_shuffle_buffer=5)
    )
    # shuffling an infinite (repeated) stream with a tiny buffer is reported too
    assert "P03" in codes(good(base().repeat().shuffle(10)))


def test_p04_sequential_map() -> None:
    assert "P04" in codes(good(base().map(lambda x, y: (x / 16, y))))
    assert "P04" not in codes(
        good(base().map(lambda x, y: (x / 16, y), num_parallel_calls=AUTOTUNE))
    )
    # TensorFlow's own helper maps (ragged_batch, unbatch) are not the user's
    assert "P04" not in codes(tf.data.Dataset.range(10).ragged_batch(3).unbatch().prefetch(1))


def test_p05_float64_element() -> None:
    assert "P05" in codes(good(base(X.astype("float64"))))
    assert "P05" not in codes(good(base()))


def test_p06_float_class_ids_but_not_one_hot_or_regression() -> None:
    assert "P06" in codes(good(base(y=Y.astype("float32"))))
    assert "P06" not in codes(good(base()))
    one_hot = np.eye(10, dtype="float32")[Y]
    assert "P06" not in codes(good(base(y=one_hot)))
    assert "P06" not in codes(good(base(y=Y.astype("float32") + 0.5)))
    # 0/1 labels as floats are what a binary cross-entropy takes
    assert "P06" not in codes(good(base(y=(Y % 2).astype("float32"))))


def test_p07_value_range_outside_and_mixed() -> None:
    assert "P07" in codes(good(base(X * 20)))  # up to 320
    assert "P07" not in codes(good(base(X * 15)))  # [0, 240]: raw pixels are a usual range
    scaled = base(X[:32] / 16, Y[:32]).concatenate(base(X[32:64] * 15, Y[32:64]))
    assert "P07" in codes(scaled.batch(32).prefetch(1))  # batch 0 in [0,1], batch 1 up to 240
    assert "P07" not in codes(base(X[:64] / 16, Y[:64]).batch(32).prefetch(1))


def test_p08_shuffle_after_batch() -> None:
    assert "P08" in codes(base().batch(32).shuffle(8).prefetch(1))
    assert "P08" not in codes(base().shuffle(200).batch(32).prefetch(1))
    assert "P08" not in codes(base().batch(32).unbatch().shuffle(200).batch(32).prefetch(1))
    # examples reshuffled each epoch before batching do not always share a batch
    assert "P08" not in codes(base().shuffle(200).batch(32).shuffle(8).prefetch(1))
    fixed_order = base().shuffle(200, reshuffle_each_iteration=False).batch(32).shuffle(8)
    assert "P08" in codes(fixed_order.prefetch(1))


def token_sequences(length: int = 20) -> tf.data.Dataset:
    """A stream of token ids cut into sequences of ``length + 1`` (one example each)."""
    ids = np.random.default_rng(0).integers(0, 30, 2000).astype("int64")
    return tf.data.Dataset.from_tensor_slices(ids).batch(length + 1, drop_remainder=True)


def split_input_target(sequence: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    return sequence[:-1], sequence[1:]


def test_p08_silent_when_the_earlier_batch_builds_the_examples() -> None:
    # batch(seq + 1) cuts the stream into sequences, the map splits each into (input,
    # target): the shuffle after them reorders examples, which the last batch groups
    examples = token_sequences().map(split_input_target, num_parallel_calls=AUTOTUNE)
    ds = examples.shuffle(100).batch(16, drop_remainder=True).prefetch(AUTOTUNE)
    assert "P08" not in codes(ds)
    # the split may come after the training batch: it still cuts what batch(seq + 1) made
    later = token_sequences().shuffle(100).batch(16).map(split_input_target).prefetch(1)
    assert "P08" not in codes(later)


def test_p08_still_fires_on_a_real_batch_then_shuffle() -> None:
    # the same examples, batched for training and then shuffled: whole batches reorder
    examples = token_sequences().map(split_input_target, num_parallel_calls=AUTOTUNE)
    report = inspect_pipeline(
        examples.batch(16).shuffle(8).prefetch(1), throughput=False, augmentation=False
    )
    (p08,) = [f for f in report.findings if f.code == "P08"]
    assert "batch(16" in p08.message
    # a second batch() of batches whose elements were never split is no evidence
    assert "P08" in codes(base().batch(8).shuffle(20).batch(4).prefetch(1))


def test_label_distribution_left_out_for_a_target_per_position() -> None:
    examples = token_sequences().map(split_input_target, num_parallel_calls=AUTOTUNE)
    report = inspect_pipeline(
        examples.shuffle(100).batch(16).prefetch(1), throughput=False, augmentation=False
    )
    label = report_sample_labels(report)
    assert label == []  # an argmax over 20 positions is no class
    one_hot = np.eye(10, dtype="float32")[Y]
    report = inspect_pipeline(good(base(y=one_hot)), throughput=False, augmentation=False)
    assert report_sample_labels(report) == ["label distribution"]


def report_sample_labels(report: Any) -> list[str]:
    return [p.title for p in report.pictures if p.kind == "labels"]


def test_p09_shuffle_before_cache() -> None:
    assert "P09" in codes(good(base().shuffle(200).cache()))
    assert "P09" not in codes(good(base().cache().shuffle(200)))


def test_p10_partial_final_batch_with_batchnorm() -> None:
    model = small_model(batchnorm=True)
    partial = base().shuffle(200).batch(32).prefetch(1)  # 200 % 32 = 8
    assert "P10" in codes(partial, model=model)
    assert "P10" not in codes(
        base().shuffle(200).batch(32, drop_remainder=True).prefetch(1), model=model
    )
    assert "P10" not in codes(
        base(X[:192], Y[:192]).shuffle(192).batch(32).prefetch(1), model=model
    )
    assert "P10" not in codes(partial, model=small_model())  # no BatchNormalization


def test_p12_label_out_of_range_from_model_or_class_names() -> None:
    shifted = good(base(y=Y + 1))  # 1..10 for 10 outputs
    assert "P12" in codes(shifted, model=small_model(rescale=True))
    assert "P12" not in codes(good(base()), model=small_model(rescale=True))
    assert "P12" in codes(shifted, class_names=[str(i) for i in range(10)])
    assert "P12" not in codes(shifted, class_names=[str(i) for i in range(11)])


def test_n04_unnormalized_input() -> None:
    assert "N04" in codes(good(base()), model=small_model())  # digits reach 16
    assert "N04" not in codes(good(base()), model=small_model(rescale=True))
    assert "N04" not in codes(good(base(X / 16)), model=small_model())
    assert "N04" not in codes(good(base()))  # no model given: nothing to say


def _slow(x: tf.Tensor, y: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    def sleepy(a: np.ndarray) -> np.ndarray:
        time.sleep(0.03)
        return a

    out = tf.numpy_function(sleepy, [x], tf.float32)
    return tf.ensure_shape(out, x.shape), y


@pytest.mark.slow
def test_p02_p04_silent_when_the_measured_pipeline_is_a_small_share_of_the_step() -> None:
    # in memory: map without num_parallel_calls, no prefetch; a model whose step costs
    # far more than a batch of the pipeline (measured about 2% here)
    mlp = keras.Sequential(
        [
            keras.Input((8, 8, 1)),
            keras.layers.Flatten(),
            keras.layers.Dense(1024, "relu"),
            keras.layers.Dense(1024, "relu"),
            keras.layers.Dense(10),
        ]
    )
    mlp.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    ds = base().map(lambda x, y: (x / 16, y)).shuffle(200).batch(32)
    report = inspect_pipeline(ds, model=mlp, per_stage=False, augmentation=False)
    assert report.batches_per_s and report.model_steps_per_s
    assert report.model_steps_per_s / report.batches_per_s < 0.1
    assert not {"P02", "P04"} & set(report.codes()), report.to_text()
    # without a model nothing measures the share: both are reported, with the batch time
    report = inspect_pipeline(ds, per_stage=False, augmentation=False)
    for code in ("P02", "P04"):
        (found,) = [f for f in report.findings if f.code == code]
        assert "ms a batch (no model given" in found.evidence
    # a model whose step cannot be timed (not compiled) measures no share either
    uncompiled = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Flatten()])
    report = inspect_pipeline(ds, model=uncompiled, per_stage=False, augmentation=False)
    (p02,) = [f for f in report.findings if f.code == "P02"]
    assert "train step was not timed" in p02.evidence and "no model given" not in p02.evidence


def test_p02_p04_fire_with_the_share_when_the_pipeline_is_a_large_share() -> None:
    slow = base().batch(16).map(_slow)  # ~30 ms a batch, sequential, no prefetch
    report = inspect_pipeline(
        slow, model=small_model(rescale=True), per_stage=False, max_seconds=0.3, max_batches=8
    )
    for code in ("P02", "P04"):
        (found,) = [f for f in report.findings if f.code == code]
        assert "train step" in found.evidence and "% of model" in found.evidence, found.evidence


def test_p11_input_bound_against_the_models_step_rate() -> None:
    slow = base().batch(16).map(_slow).prefetch(1)  # at most ~33 batches/s
    tiny = small_model(rescale=True)
    fast_report = inspect_pipeline(
        slow, model=tiny, per_stage=False, max_seconds=0.3, max_batches=8
    )
    assert "P11" in fast_report.codes()
    assert fast_report.model_steps_per_s and fast_report.model_steps_per_s > 60

    wide = np.random.default_rng(0).normal(size=(512, 256)).astype("float32")
    labels = (np.arange(512) % 10).astype("int64")
    heavy = keras.Sequential(
        [
            keras.Input((256,)),
            keras.layers.Dense(2048, "relu"),
            keras.layers.Dense(2048, "relu"),
            keras.layers.Dense(10),
        ]
    )
    heavy.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    fast = (
        tf.data.Dataset.from_tensor_slices((wide, labels))
        .cache()
        .repeat()
        .batch(256)
        .prefetch(AUTOTUNE)
    )
    report = inspect_pipeline(fast, model=heavy, per_stage=False, max_seconds=0.3)
    assert "P11" not in report.codes()
    assert report.batches_per_s and report.model_steps_per_s
    assert report.batches_per_s > report.model_steps_per_s
