"""M03 loss-activation-mismatch, regression-loss form: a squashed classifier output (softmax,
or sigmoid per class) trained with a loss that compares values (MSE, MAE, Huber, log-cosh)
on class targets, written ten ways, with twins that must stay silent.

The family (written before the rule, from Keras' losses guide and the classic user reports
"classifier with mean_squared_error stuck at chance", "accuracy does not improve with
mean_absolute_error"): Keras pairs a softmax with ``categorical_crossentropy`` and a sigmoid
with ``binary_crossentropy`` because their gradient at the logits is ``p - y``.  A loss that
compares values instead multiplies that by the activation's derivative (``p (1 - p)`` for a
sigmoid, the softmax Jacobian), which is ~0 wherever a unit saturates, also on the wrong
side: an example the model gets confidently wrong gives almost no gradient, and training
stalls near chance.  The evidence is the compiled loss (string, function or object), the
output's activation and units (the layer's own activation or an Activation layer after it),
and the targets the magic saw: 0/1 rows with one 1 (one class per example), 0/1 rows with
several (multi-label), or 0/1 values for a single sigmoid unit.  Not this family: continuous
targets in [0, 1] (a bounded regression), soft targets that are not 0/1 (distillation with
MSE on probabilities is a method), a linear output (no saturation to stall the gradient), and
a cross-entropy already in place.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic

DATA = """
import numpy as np, keras, tensorflow as tf
rng = np.random.default_rng(0)
x = rng.normal(size=(96, 6)).astype("float32")
ids = (x[:, 0] > 0).astype("int64") + (x[:, 1] > 0.5)     # 3 classes
onehot = np.eye(3, dtype="float32")[ids]
onehot10 = np.eye(10, dtype="float32")[rng.integers(0, 10, 96)]
tags = (x[:, :4] > 0).astype("float32")                   # multi-label, several 1s per row
yes = (x[:, 2] > 0).astype("float32")                     # one binary label per example
share = 1 / (1 + np.exp(-x[:, 3]))                        # a bounded regression target
soft = np.exp(x[:, :3]) / np.exp(x[:, :3]).sum(1, keepdims=True)   # teacher probabilities
ds = tf.data.Dataset.from_tensor_slices((x, onehot)).batch(16)
def net(units, activation, loss, **compile_args):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(units, activation=activation, name="out")])
    model.compile("adam", loss, **compile_args)
    return model
"""


def fit(y: str, extra: str = "") -> str:
    return f"model.fit(x, {y}, batch_size=16, epochs=2, verbose=0{extra})"


@dataclass(frozen=True)
class Case:
    """A model, the magic that looks at it, what its M03 must say and must not say; no
    ``expect`` means the magic must show no M03."""

    name: str
    code: str
    magic: str
    cell: str | None = None
    expect: tuple[str, ...] = ()
    refuse: tuple[str, ...] = ()


#: the single-label fix, wrong for multi-label targets
CATEGORICAL = "categorical_crossentropy"
BINARY = "binary_crossentropy"

BUGGY = [
    Case(
        "softmax-mse-string-fit",
        "model = net(3, 'softmax', 'mse', metrics=['accuracy'])",
        "%%tfgrad -q -o",
        fit("onehot"),
        ("'out'", "mse", CATEGORICAL),
        (BINARY,),
    ),
    Case(
        "softmax-mae-lint-arrays",
        "model = net(3, 'softmax', 'mean_absolute_error')",
        "%tflint model --data (x, onehot) -o",
        None,
        ("mean_absolute_error", CATEGORICAL),
        (BINARY,),
    ),
    Case(
        "softmax-mse-object-fit",
        "model = net(10, 'softmax', keras.losses.MeanSquaredError())",
        "%%tfgrad -q -o",
        fit("onehot10"),
        (CATEGORICAL,),
        (BINARY,),
    ),
    Case(
        "sigmoid-multilabel-mse-lint",
        "model = net(4, 'sigmoid', 'mse')",
        "%tflint model --data (x, tags) -o",
        None,
        (BINARY,),
        (CATEGORICAL,),
    ),
    Case(
        "sigmoid-binary-mse-fit",
        "model = net(1, 'sigmoid', 'mse', metrics=['accuracy'])",
        "%%tfgrad -q -o",
        fit("yes"),
        (BINARY,),
        (CATEGORICAL,),
    ),
    Case(
        "softmax-huber-object-lint",
        "model = net(3, 'softmax', keras.losses.Huber())",
        "%tflint model --data (x, onehot) -o",
        None,
        (CATEGORICAL,),
    ),
    Case(
        "softmax-mse-lint-dataset",
        "model = net(3, 'softmax', 'mean_squared_error')",
        "%tflint model --data ds -o",
        None,
        (CATEGORICAL,),
    ),
    Case(
        "activation-layer-mse-fit",
        "keras.utils.set_random_seed(0)\n"
        "model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, name='scores'),\n"
        "                          keras.layers.Activation('softmax', name='probs')])\n"
        "model.compile('sgd', 'mse')",
        "%%tfgrad -q -o",
        fit("onehot"),
        ("'probs'", CATEGORICAL),
    ),
    Case(
        "sigmoid-binary-mae-column-fit",
        "model = net(1, 'sigmoid', keras.losses.mean_absolute_error)",
        "%%tfgrad -q -o",
        fit("yes[:, None]"),
        (BINARY,),
    ),
    Case(
        "softmax-logcosh-validation-fit",
        "model = net(3, 'softmax', 'log_cosh')",
        "%%tfgrad -q -o",
        fit("onehot", ", validation_split=0.25"),
        (CATEGORICAL,),
    ),
]

TWINS = [
    Case(
        "softmax-crossentropy",
        "model = net(3, 'softmax', 'categorical_crossentropy')",
        "%%tfgrad -q -o",
        fit("onehot"),
    ),
    Case(
        "sigmoid-multilabel-bce",
        "model = net(4, 'sigmoid', 'binary_crossentropy')",
        "%tflint model --data (x, tags) -o",
    ),
    Case(
        "sigmoid-bounded-regression",
        "model = net(1, 'sigmoid', 'mse')",
        "%%tfgrad -q -o",
        fit("share"),
    ),
    Case(
        "softmax-distillation-mse",
        "model = net(3, 'softmax', 'mse')",
        "%tflint model --data (x, soft) -o",
    ),
    Case("linear-regression", "model = net(1, None, 'mse')", "%%tfgrad -q -o", fit("share")),
]


def _run(shell: InteractiveShell, case: Case) -> list[str]:
    """The texts of the M03 findings the case's magic showed."""
    assert shell.run_cell(DATA).success
    assert shell.run_cell(case.code).success
    shown = run_magic(shell, case.magic, case.cell)
    return [f.to_text() for f in shown.result.findings if f.code == "M03"]


@pytest.mark.parametrize("case", BUGGY, ids=[c.name for c in BUGGY])
def test_m03_regression_loss_on_class_targets(shell: InteractiveShell, case: Case) -> None:
    found = _run(shell, case)
    assert len(found) == 1, found
    for part in case.expect:
        assert part in found[0], (part, found[0])
    for part in case.refuse:
        assert part not in found[0], (part, found[0])


@pytest.mark.parametrize("case", TWINS, ids=[c.name for c in TWINS])
def test_m03_silent_on_the_twins(shell: InteractiveShell, case: Case) -> None:
    assert _run(shell, case) == []
