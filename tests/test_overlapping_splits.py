"""P17 overlapping-splits: take()/skip() parts of a dataset that reshuffles on every pass,
seen by ``%tfpipeline`` (with the partner given, found in the notebook, or alone) and by
``%%tfgrad`` around ``fit(train_ds, validation_data=val_ds)``; the clean twins (split before
the shuffle, ``reshuffle_each_iteration=False``) stay silent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

import tfnb_debug
from tests._support import run_magic
from tfnb_debug.collect.splits import split_of

N = 320


def _arrays() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(N, 4)).astype("float32")
    return x, (x[:, 0] > 0).astype("int32")


def _shuffled(reshuffle: bool = True) -> tf.data.Dataset:
    x, y = _arrays()
    return (
        tf.data.Dataset.from_tensor_slices((x, y))
        .shuffle(N, seed=1, reshuffle_each_iteration=reshuffle)
        .batch(32)
    )


def _inspect(ds: Any, name: str, against: dict[str, Any] | None = None) -> Any:
    return tfnb_debug.inspect_pipeline(
        ds, name=name, against=against, throughput=False, augmentation=False
    )


def _p17(report: Any) -> Any:
    found = [f for f in report.findings if f.code == "P17"]
    assert len(found) == 1, report.codes()
    return found[0]


def test_p17_counts_the_test_examples_that_were_also_validation_examples() -> None:
    ds = _shuffled()
    test_ds, val_ds = ds.take(2), ds.skip(2)
    found = _p17(_inspect(test_ds, "test_ds", {"val_ds": val_ds}))
    text = found.to_text()
    assert found.severity == "error"
    assert "`test_ds` = source.take(2) and `val_ds` = source.skip(2)" in text
    assert "reshuffles on every pass (shuffle(320))" in text
    shared = int(text.split(" of the 64 examples of `test_ds`")[0].rsplit(": ", 1)[-1])
    assert 30 < shared < 64  # a fresh split each pass: most of the 64 test examples re-drawn
    assert "`test_ds` 64, `val_ds` 256" in found.evidence
    assert "split before shuffling" in found.hint and "reshuffle_each_iteration=False" in found.hint
    assert "files" not in found.hint  # no directory utility here


def test_p17_alone_says_the_split_changes_every_pass() -> None:
    test_ds = _shuffled().take(2)
    found = _p17(_inspect(test_ds, "test_ds"))
    assert "`test_ds` is source.take(2) of a dataset that reshuffles" in found.message
    assert "the split changes every pass" in found.message
    assert "the other part of it (source.skip(2)) shares examples" in found.message
    assert "examples differ between two passes" in found.message
    assert "no other dataset in view" in found.evidence
    rest = _p17(_inspect(_shuffled().skip(2), "rest"))  # a skip is the rest of a split
    assert "(source.take(2))" in rest.message


def test_p17_silent_on_a_lone_random_subset() -> None:
    """shuffle().take(k) not named as an evaluation set, no other part in view: a subset
    drawn anew each epoch may be meant."""
    subset = _shuffled().take(2)
    assert "P17" not in _inspect(subset, "subset").codes()


@pytest.mark.parametrize(
    "make",
    [
        lambda: (_shuffled(reshuffle=False).take(2), _shuffled(reshuffle=False).skip(2)),
        # split first, shuffle only the training part
        lambda: (
            tf.data.Dataset.from_tensor_slices(_arrays()).batch(32).take(2),
            tf.data.Dataset.from_tensor_slices(_arrays()).batch(32).skip(2).shuffle(8),
        ),
    ],
    ids=["reshuffle_each_iteration=False", "split-before-shuffle"],
)
def test_p17_silent_on_stable_splits(make: Any) -> None:
    test_ds, val_ds = make()
    assert split_of(test_ds) is None
    assert "P17" not in _inspect(test_ds, "test_ds", {"val_ds": val_ds}).codes()


def _image_dirs(root: Path) -> Path:
    rng = np.random.default_rng(0)
    for cls in ("cats", "dogs"):
        (root / cls).mkdir(parents=True)
        for i in range(40):
            keras.utils.save_img(
                str(root / cls / f"{i}.png"), rng.integers(0, 255, (8, 8, 3)).astype("uint8")
            )
    return root


def test_tfpipeline_finds_the_tutorial_split_of_image_dataset_from_directory(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    """The transfer-learning tutorial: test = validation.take(n // 5), validation = .skip(n // 5)."""
    root = _image_dirs(tmp_path / "images")
    shell.user_ns["root"] = str(root)
    shell.run_cell(
        "import keras\n"
        "validation_dataset = keras.utils.image_dataset_from_directory(root, batch_size=8, "
        "image_size=(8, 8), shuffle=True, seed=1, validation_split=0.5, subset='validation', "
        "verbose=False)\n"
        "val_batches = int(validation_dataset.cardinality())\n"
        "test_dataset = validation_dataset.take(val_batches // 5)\n"
        "validation_dataset = validation_dataset.skip(val_batches // 5)\n"
    )
    shown = run_magic(shell, "%tfpipeline test_dataset --no-timing -o")
    found = _p17(shown.result)
    assert "P17 overlapping-splits (error)" in shown.text
    assert "`test_dataset` = source.take(1) and `validation_dataset` = source.skip(1)" in (
        found.message
    )
    assert "inside keras.utils.image_dataset_from_directory" in found.message
    assert "of the 8 examples of `test_dataset` were also in one pass" in found.message
    assert "subset='both'" in found.hint and "shuffle=False" in found.hint
    assert "reshuffle_each_iteration=False" not in found.hint  # not the user's own shuffle
    named = run_magic(shell, "%tfpipeline test_dataset --against validation_dataset --no-timing -o")
    again = _p17(named.result)
    assert again.message.split(": ")[0] == found.message.split(": ")[0]


def _fit_model() -> keras.Model:
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    return model


def test_tfgrad_reports_p17_for_fit_on_two_parts_of_one_shuffled_dataset(
    shell: InteractiveShell,
) -> None:
    ds = _shuffled()
    shell.user_ns.update(model=_fit_model(), train_ds=ds.skip(2), val_ds=ds.take(2))
    shown = run_magic(
        shell, "%%tfgrad -o", "model.fit(train_ds, validation_data=val_ds, epochs=2, verbose=0)"
    )
    found = _p17(shown.result)
    assert "P17 overlapping-splits (error) at fit(validation_data=...) of model" in shown.text
    assert "`val_ds` (validation_data) = source.take(2)" in found.message
    assert "`train_ds` (training data) = source.skip(2)" in found.message
    assert "of the 64 examples of `val_ds` were also in one pass of `train_ds`" in found.message


def test_tfgrad_silent_when_the_split_is_made_before_the_shuffle() -> None:
    x, y = _arrays()
    base = tf.data.Dataset.from_tensor_slices((x, y))
    train_ds = base.skip(64).shuffle(256).batch(32)
    val_ds = base.take(64).batch(32)
    model = _fit_model()
    with tfnb_debug.record_gradients() as rec:
        model.fit(train_ds, validation_data=val_ds, epochs=2, verbose=0)
    assert "P17" not in rec.report.codes()


def test_p17_counts_only_what_it_read_whole() -> None:
    """A pass cut at max_examples: the pair's overlap is said of the first examples, and a
    lone dataset's change is not counted (examples past the cut would look changed)."""
    from tfnb_debug.features.splits import split_findings

    ds = _shuffled()
    test_ds, val_ds = ds.take(2), ds.skip(2)
    (pair,) = split_findings(test_ds, "test_ds", {"val_ds": val_ds}, max_examples=16)
    # the overlap of two cut passes is a lower bound; none seen is no evidence of none
    assert "of the first 16 examples of `test_ds`" in pair.message or (
        "not counted" in pair.evidence
    )
    assert "source.take(2)" in pair.message
    (alone,) = split_findings(test_ds, "test_ds", max_examples=16)
    assert "differ between two passes" not in alone.message
    assert "not counted" in alone.evidence
