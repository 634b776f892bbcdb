"""The transformation chain read from real tf.data pipelines (graph first, _inputs() walk fallback)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from tfnb_debug.collect.pipeline import _from_walk, _walk_objects, read_structure

AUTOTUNE = tf.data.AUTOTUNE


def kinds(ds: tf.data.Dataset) -> list[str]:
    return [s.kind for s in read_structure(ds).stages if not s.internal]


def flip(x: tf.Tensor) -> tf.Tensor:
    return tf.image.random_flip_left_right(x)


IMAGES = tf.data.Dataset.from_tensor_slices(np.zeros((20, 8, 8, 1), np.float32))


def test_the_issue_example_chain_reads_as_written() -> None:
    ds = (
        tf.data.Dataset.from_tensor_slices(np.zeros((1000, 8, 8, 1), np.float32))
        .shuffle(4)
        .map(flip, num_parallel_calls=AUTOTUNE)
        .cache()
        .batch(32)
        .prefetch(AUTOTUNE)
    )
    structure = read_structure(ds)
    assert structure.source == "graph"
    assert structure.text() == (
        "from_tensor_slices(1000) -> shuffle(4) -> map(parallel=AUTOTUNE, random ops: yes) "
        "-> cache(memory) -> batch(32, drop_remainder=False) -> prefetch(AUTOTUNE)"
    )
    # every stage of the main chain got its live dataset object (for per-prefix timing)
    assert all(s.dataset is not None for s in structure.stages)
    assert structure.stages[-1].dataset is ds


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda: tf.data.Dataset.range(10).map(lambda x: x + 1), ["range", "map"]),
        (lambda: tf.data.Dataset.range(10).filter(lambda x: x > 2), ["range", "filter"]),
        (
            lambda: tf.data.Dataset.range(10).repeat(3).take(7).skip(1),
            ["range", "repeat", "take", "skip"],
        ),
        (lambda: tf.data.Dataset.range(10).shard(2, 0), ["range", "shard"]),
        (
            lambda: tf.data.Dataset.range(10).padded_batch(2).unbatch(),
            ["range", "padded_batch", "unbatch"],
        ),
        (lambda: tf.data.Dataset.range(10).ragged_batch(3), ["range", "batch"]),
        (
            lambda: tf.data.Dataset.range(4).interleave(
                lambda x: tf.data.Dataset.range(x), cycle_length=2, num_parallel_calls=2
            ),
            ["range", "interleave"],
        ),
        (lambda: tf.data.Dataset.from_tensors([1, 2]), ["tensor"]),
        (
            lambda: tf.data.Dataset.from_generator(
                lambda: iter([1, 2]), output_signature=tf.TensorSpec((), tf.int32)
            ),
            ["generator"],
        ),
    ],
)
def test_common_transformations_are_named(build, expected) -> None:  # type: ignore[no-untyped-def]
    assert kinds(build()) == expected


def test_parameters_batch_shuffle_prefetch_cache_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ds = (
        tf.data.Dataset.range(100)
        .cache(str(tmp_path / "c"))
        .shuffle(50, reshuffle_each_iteration=False)
        .batch(8, drop_remainder=True)
        .prefetch(3)
    )
    stages = read_structure(ds).stages
    assert stages[1].param("filename") == str(tmp_path / "c")
    assert stages[2].param("buffer_size") == 50
    assert stages[2].param("reshuffle_each_iteration") is False
    assert (stages[3].param("batch_size"), stages[3].param("drop_remainder")) == (8, True)
    assert stages[4].param("buffer_size") == 3
    assert stages[0].param("elements") == 100


def test_zip_and_concatenate_show_their_branches() -> None:
    a = tf.data.Dataset.range(10)
    b = tf.data.Dataset.range(5).map(lambda x: x * 2)
    zipped = read_structure(tf.data.Dataset.zip((a, b)).batch(2))
    assert zipped.text().startswith("zip[range(10) | range(5) -> map(random ops: no)] -> batch(2")
    joined = read_structure(a.concatenate(tf.data.Dataset.range(3)))
    assert joined.text() == "concatenate[range(10) | range(3)]"


def test_random_ops_detected_in_map_functions() -> None:
    def stateless_fixed(x: tf.Tensor) -> tf.Tensor:
        return tf.image.stateless_random_flip_left_right(x, seed=(1, 2))

    layer = keras.layers.RandomFlip("horizontal")
    random_stage = read_structure(IMAGES.map(flip)).stages[-1]
    keras_stage = read_structure(IMAGES.map(lambda x: layer(x, training=True))).stages[-1]
    fixed_stage = read_structure(IMAGES.map(stateless_fixed)).stages[-1]
    plain_stage = read_structure(IMAGES.map(lambda x: x / 255.0)).stages[-1]
    python_stage = read_structure(
        IMAGES.map(lambda x: tf.py_function(lambda v: v, [x], tf.float32))
    ).stages[-1]
    assert random_stage.random_ops is True
    assert keras_stage.random_ops is True  # stateless op seeded from a SeedGenerator variable
    assert fixed_stage.random_ops is False  # a constant seed repeats every epoch
    assert plain_stage.random_ops is False
    assert python_stage.random_ops is None and python_stage.python_function


def test_walk_fallback_matches_the_graph_kinds() -> None:
    ds = IMAGES.shuffle(4).map(flip, num_parallel_calls=AUTOTUNE).cache().batch(4).prefetch(1)
    walked = _from_walk(_walk_objects(ds))
    assert [s.kind for s in walked] == kinds(ds)
    assert walked[2].random_ops is True
    assert walked[4].param("batch_size") == 4


def test_degrades_to_the_walk_then_unknown_when_private_apis_break(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    ds = tf.data.Dataset.range(10).batch(2)

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AttributeError("_as_serialized_graph is gone")

    monkeypatch.setattr(ds, "_as_serialized_graph", broken)
    structure = read_structure(ds)
    assert structure.source == "inputs" and [s.kind for s in structure.stages] == ["range", "batch"]
    monkeypatch.setattr(ds, "_inputs", broken)
    structure = read_structure(ds)
    assert structure.source == "unknown" and not structure.known and structure.text() == "unknown"
