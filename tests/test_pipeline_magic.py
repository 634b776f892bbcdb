"""%tfpipeline and %%tfpipeline driven through the real InteractiveShell."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from tests._support import run_magic
from tfnb_debug import PipelineReport

SETUP = """
import numpy as np, tensorflow as tf, keras
from sklearn.datasets import load_digits
_d = load_digits()
x = _d.images[:96, ..., None].astype("float32")
y = _d.target[:96].astype("int64")
names = [f"digit-{i}" for i in range(10)]
train_ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(8).batch(16)
model = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Flatten(), keras.layers.Dense(10)])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
"""


@pytest.fixture
def ns(shell):
    shell.run_cell(SETUP)
    return shell


def test_line_magic_returns_and_stores_the_report(ns) -> None:
    shown = run_magic(ns, "%tfpipeline train_ds --no-timing -q -o -v rep --class-names names")
    report = shown.result
    assert isinstance(report, PipelineReport)
    assert ns.user_ns["rep"] is report
    assert shown.outputs == []  # -q: nothing displayed (no progress line either)
    assert report.title == "tf.data pipeline train_ds"
    assert {"P02", "P03"} <= set(report.codes())
    assert "digit-" in report.to_text()


def test_line_magic_displays_html_with_images_and_model_findings(ns) -> None:
    shown = run_magic(ns, "%tfpipeline train_ds --model model --no-timing --batches 1")
    assert shown.result is None
    assert "data:image/png;base64," in shown.html
    assert 'data-code="N04"' in shown.html  # digits reach 16, no Rescaling in the model
    assert "N04 unnormalized-input" in shown.text


def test_line_magic_expressions_are_not_mangled(ns) -> None:
    # braces and $ would be expanded by IPython without @no_var_expand
    shown = run_magic(ns, "%tfpipeline --no-timing -q -o -- {'a': train_ds}[ 'a' ]")
    assert isinstance(shown.result, PipelineReport)
    assert shown.result.title == "tf.data pipeline {'a': train_ds}[ 'a' ]"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("%tfpipeline nothing_here", "'nothing_here' is not defined"),
        ("%tfpipeline x", "expected a tf.data.Dataset, got ndarray"),
        ("%tfpipeline iter(train_ds)", "iterator"),
        ("%tfpipeline train_ds --model no_model", "'no_model' is not defined"),
        ("%tfpipeline train_ds --class-names 3 --no-timing", "class_names"),
        ("%tfpipeline", "give the dataset"),
    ],
)
def test_bad_input_is_a_one_line_usage_error(ns, line: str, words: str) -> None:
    with pytest.raises(UsageError) as info:
        run_magic(ns, line)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_cell_magic_inspects_every_dataset_the_cell_creates(ns) -> None:
    cell = """
a_ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32).prefetch(1)
b_ds = a_ds.unbatch().batch(8, drop_remainder=True).prefetch(1)
untouched = train_ds
tf.data.Dataset.range(5)
"""
    shown = run_magic(ns, "%%tfpipeline --no-timing -q -o", cell=cell)
    reports = shown.result
    assert set(reports) == {"a_ds", "b_ds", "result"}  # train_ds existed before the cell
    assert reports["b_ds"].chain.endswith("batch(8, drop_remainder=True) -> prefetch(1)")
    assert reports["result"].chain == "range(5)"
    assert "a_ds" in ns.user_ns  # the cell really ran in the user namespace


def test_cell_magic_lets_the_users_exception_through_unchanged(ns) -> None:
    with pytest.raises(ZeroDivisionError):
        run_magic(ns, "%%tfpipeline -q", cell="ds = tf.data.Dataset.range(3)\n1 / 0\n")
    result = ns.run_cell("%%tfpipeline -q\nraise KeyError('mine')\n")
    assert not result.success and isinstance(result.error_in_exec, KeyError)


def test_cell_magic_without_a_dataset_says_so(ns) -> None:
    with pytest.raises(UsageError, match="created no tf.data.Dataset"):
        run_magic(ns, "%%tfpipeline -q", cell="z = 1\n")
