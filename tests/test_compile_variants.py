"""Every public function and magic on models compiled in the common ways.

``metrics=["accuracy"]``, two outputs with a list and with a dict of losses,
``weighted_metrics=``, ``loss_weights=`` and ``run_eagerly=True``: none of
them may make tfnb_debug raise from inside the package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic

RS = np.random.RandomState(0)
X = RS.rand(16, 4).astype("float32")
Y_CLASS = RS.randint(0, 3, 16)
Y_VALUE = RS.rand(16, 1).astype("float32")


def _single(**compile_kwargs: Any) -> tuple[keras.Model, Any]:
    inp = keras.Input((4,), name="features")
    hidden = keras.layers.Dense(8, activation="relu", name="hidden")(inp)
    out = keras.layers.Dense(3, activation="softmax", name="cls")(hidden)
    model = keras.Model(inp, out, name="single")
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", **compile_kwargs)
    return model, Y_CLASS


def _two_outputs(
    *, as_dict: bool, y_list: bool = False, **compile_kwargs: Any
) -> tuple[keras.Model, Any]:
    inp = keras.Input((4,), name="features")
    hidden = keras.layers.Dense(8, activation="relu", name="hidden")(inp)
    cls = keras.layers.Dense(3, activation="softmax", name="cls")(hidden)
    reg = keras.layers.Dense(1, name="reg")(hidden)
    model = keras.Model(inp, [cls, reg], name="two_outputs")
    if as_dict:
        loss: Any = {"cls": "sparse_categorical_crossentropy", "reg": "mse"}
        y: Any = {"cls": Y_CLASS, "reg": Y_VALUE}
    else:
        loss = ["sparse_categorical_crossentropy", "mse"]
        y = [Y_CLASS, Y_VALUE] if y_list else (Y_CLASS, Y_VALUE)
    model.compile(optimizer="adam", loss=loss, **compile_kwargs)
    return model, y


VARIANTS: dict[str, Callable[[], tuple[keras.Model, Any]]] = {
    "metrics_accuracy": lambda: _single(metrics=["accuracy"]),
    "weighted_metrics": lambda: _single(weighted_metrics=["accuracy"]),
    "run_eagerly": lambda: _single(metrics=["accuracy"], run_eagerly=True),
    "two_outputs_list": lambda: _two_outputs(as_dict=False, metrics=[["accuracy"], ["mae"]]),
    "two_outputs_y_as_list": lambda: _two_outputs(
        as_dict=False, y_list=True, metrics=[["accuracy"], ["mae"]]
    ),
    "two_outputs_dict": lambda: _two_outputs(
        as_dict=True, metrics={"cls": "accuracy", "reg": "mae"}
    ),
    "loss_weights": lambda: _two_outputs(
        as_dict=True, loss_weights={"cls": 1.0, "reg": 0.5}, metrics={"cls": "accuracy"}
    ),
}

FIT = "sm.fit(sx, sy, epochs=1, batch_size=8, verbose=0)"

# (name, how to run it): each gets the shell with sm (model), sx, sy, sds (dataset) defined.
OPERATIONS: dict[str, Callable[[InteractiveShell], Any]] = {
    "%tfshape": lambda sh: run_magic(sh, "%tfshape -q -o sm sx"),
    "record_shapes": lambda sh: sh.run_cell(
        "import tfnb_debug\nwith tfnb_debug.record_shapes() as rec:\n    " + FIT
    ).raise_error(),
    "%tfgrad MODEL X Y": lambda sh: run_magic(sh, "%tfgrad -q -o sm sx sy"),
    "%%tfgrad": lambda sh: run_magic(sh, "%%tfgrad -q -o", FIT),
    "%%tfcheck": lambda sh: run_magic(sh, "%%tfcheck -q -o", FIT),
    "%%tfmem": lambda sh: run_magic(sh, "%%tfmem -q -o", FIT),
    "%tflint": lambda sh: run_magic(sh, "%tflint -q -o sm --data sds"),
    "%tfoverfit": lambda sh: run_magic(sh, "%tfoverfit -q -o sm sds --samples 8 --steps 3"),
    "%tfoverfit (x,y)": lambda sh: run_magic(sh, "%tfoverfit -q -o sm (sx,sy) --steps 3"),
    "%tflint --data (x,y)": lambda sh: run_magic(sh, "%tflint -q -o sm --data (sx,sy)"),
    "%tfconsistency": lambda sh: run_magic(sh, "%tfconsistency -q -o sm sx --export"),
    "inspect": lambda sh: sh.user_ns["tfnb_inspect"](sh.user_ns["sm"], sh.user_ns["sx"]),
    "estimate_model_memory": lambda sh: sh.user_ns["tfnb_estimate"](sh.user_ns["sm"], batch_size=8),
    "inspect_pipeline": lambda sh: sh.user_ns["tfnb_pipeline"](
        sh.user_ns["sds"], model=sh.user_ns["sm"], throughput=False, per_stage=False
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_crash_on_common_compile_variants(
    shell: InteractiveShell, variant: str, operation: str
) -> None:
    import tfnb_debug

    model, y = VARIANTS[variant]()
    shell.user_ns.update(
        sm=model,
        sx=X,
        sy=y,
        # a list of labels of different shapes cannot go into tf.data as it is
        sds=tf.data.Dataset.from_tensor_slices((X, keras.tree.lists_to_tuples(y))).batch(8),
        tfnb_inspect=tfnb_debug.inspect,
        tfnb_estimate=tfnb_debug.estimate_model_memory,
        tfnb_pipeline=tfnb_debug.inspect_pipeline,
    )
    result = OPERATIONS[operation](shell)
    assert result is not None or operation == "record_shapes"
