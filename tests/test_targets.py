"""What the targets ask of the output: M03 when the output activation cannot reach them, M07
for an accuracy on a regression; through %tflint --data and %%tfgrad, and silent on the fix."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.diagnostics.targets import accuracy_on_regression, unreachable_targets
from tfnb_debug.features.model_outputs import check_targets

RNG = np.random.default_rng(0)
X = RNG.normal(size=(256, 4)).astype("float32")
Y = (X @ RNG.normal(size=(4,))).astype("float32")  # about half negative


def model(activation: str | None, loss: Any = "mse", metrics: Any = ()) -> keras.Model:
    m = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(8, activation="relu", name="hidden"),
            keras.layers.Dense(1, activation=activation, name="out"),
        ]
    )
    m.compile("adam", loss, metrics=list(metrics))
    return m


def codes(found: list[Any]) -> list[str]:
    return [f.code for f in found]


@pytest.mark.parametrize(
    ("activation", "reach"),
    [("relu", "[0, inf)"), ("sigmoid", "[0, 1]"), ("tanh", "[-1, 1]"), ("softplus", "[0, inf)")],
)
def test_m03_an_output_range_that_cannot_reach_the_targets(activation: str, reach: str) -> None:
    found = check_targets(model(activation), Y)
    assert codes(found) == ["M03"]
    assert f"applies {activation}, whose outputs stay in {reach}" in found[0].message
    assert "cannot fall below" in found[0].message
    assert found[0].hint.startswith("use a linear output (activation=None) in 'out'")
    assert check_targets(model(None), Y) == []  # the fix


def test_m03_reads_the_loss_floor_not_a_single_target() -> None:
    # a few targets a hair below 0 under a ReLU output: the floor is a tiny share of the
    # variance, not a fault; sigmoid targets in [0, 1] (a probability regression) are fine
    mostly = np.abs(Y).copy()
    mostly[:3] = -1e-3
    assert check_targets(model("relu"), mostly) == []
    assert check_targets(model("sigmoid"), keras.ops.sigmoid(Y).numpy()) == []
    # Huber and MAE compare output and target directly too; a cross-entropy is not judged here
    assert codes(check_targets(model("relu", keras.losses.Huber()), Y)) == ["M03"]
    assert codes(check_targets(model("relu", "mae"), Y)) == ["M03"]
    assert unreachable_targets("out", "relu", "binary_crossentropy", Y) == []


def test_m07_accuracy_on_a_regression_and_not_on_class_ids() -> None:
    found = check_targets(model(None, metrics=["accuracy"]), Y)
    assert codes(found) == ["M07"] and "'accuracy' on a regression (mse" in found[0].message
    assert "metrics=['mae']" in found[0].hint
    assert check_targets(model(None, metrics=["mae"]), Y) == []
    # 0/1 targets under MSE with "accuracy" (a classifier trained with MSE): the accuracy is
    # meaningful for them (no M07); the loss is not (M03: binary_crossentropy)
    found = check_targets(model("sigmoid", metrics=["accuracy"]), (Y > 0).astype("float32"))
    assert codes(found) == ["M03"] and "loss='binary_crossentropy'" in found[0].hint
    assert accuracy_on_regression("out", 3, "mse", ["accuracy"], np.array([0, 2, 1])) == []


@pytest.mark.slow
def test_through_the_magics(shell: InteractiveShell) -> None:
    shell.user_ns.update(x=X, y=Y, model=model("relu", metrics=["accuracy"]))
    lint = run_magic(shell, "%tflint -q -o model --data (x,y)").result
    assert {"M03", "M07"} <= set(lint.codes())
    run_magic(shell, "%%tfgrad -q -o -v rep --no-live", "model.fit(x, y, epochs=2, verbose=0)")
    assert {"M03", "M07"} <= set(shell.user_ns["rep"].codes())
    shell.user_ns["model"] = model(None, metrics=["mae"])
    lint = run_magic(shell, "%tflint -q -o model --data (x,y)").result
    assert not {"M03", "M07"} & set(lint.codes())


def test_n05_nonfinite_training_arrays_named_by_rows_and_columns() -> None:
    from tfnb_debug.features.model_outputs import check_fit_data

    x = X.copy()
    x[[3, 7], 2] = np.nan
    found = check_fit_data(x, Y)
    assert codes(found) == ["N05"]
    assert "2 in x (2 of 256 rows, column 2)" in found[0].message
    assert "a lower learning rate does not help" in found[0].hint
    assert check_fit_data(X, Y) == []
    assert codes(check_fit_data({"a": X}, np.where(Y > 3, np.inf, Y))) == ["N05"]


@pytest.mark.slow
def test_n05_under_tfgrad_and_no_trial_of_a_learning_rate(shell: InteractiveShell) -> None:
    x = X.copy()
    x[5, 0] = np.nan
    shell.user_ns.update(x=x, y=Y, model=model(None))
    run_magic(shell, "%%tfgrad -o -v rep --no-live", "model.fit(x, y, epochs=2, verbose=0)")
    report = shell.user_ns["rep"]
    assert "N05" in report.codes() and "G05" in report.codes()
    assert "fix trials" not in [t.name for t in report.tables]  # NaN data: no rate cures it
