"""The Keras access module: private names, layer walks, model checks, and one memory estimate."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug import TfnbDebugError
from tfnb_debug.collect import keras_access
from tfnb_debug.collect.keras_access import (
    PRIVATE,
    all_sublayers,
    check_model,
    direct_sublayers,
    layer_paths,
    model_leaves,
    private,
    require_keras_model,
)

L = keras.layers


def nested() -> keras.Model:
    inner = keras.Sequential(
        [keras.Input((4,), name="i"), L.Dense(3, name="a"), L.Dense(2, name="b")], name="inner"
    )
    inp = keras.Input((4,), name="x")
    out = L.Dense(1, name="head")(inner(inp))
    return keras.Model(inp, out, name="outer")


def test_every_private_name_resolves_in_the_installed_keras_and_tensorflow() -> None:
    for name in PRIVATE:
        assert private(name) is not None, name
    assert keras_access.Layer is keras.layers.Layer  # the module-level lazy form
    assert keras_access.Loss is keras.losses.Loss
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        keras_access.Nope  # noqa: B018


def test_layer_walks_of_a_nested_model() -> None:
    model = nested()
    paths = [p for p, _ in layer_paths(model)]
    assert paths == ["x", "inner", "inner/i", "inner/a", "inner/b", "head"]
    assert [c.name for c in direct_sublayers(model)] == ["x", "inner", "head"]
    assert sorted(c.name for c in all_sublayers(model)) == ["a", "b", "head", "i", "inner", "x"]
    # model.layers, nested models opened (a Sequential's .layers leaves its InputLayer out)
    assert [c.name for c in model_leaves(model)] == ["x", "a", "b", "head"]
    assert direct_sublayers(object()) == [] and all_sublayers(3) == []


def test_walks_fall_back_to_layers_when_flatten_layers_fails() -> None:
    class Broken:
        def __init__(self, layers: list[object]) -> None:
            self.layers = layers
            self.name = "broken"

        def _flatten_layers(self, **_: object) -> list[object]:
            raise RuntimeError("half built")

    leaf = L.Dense(2, name="leaf")
    outer = Broken([Broken([leaf])])
    assert all_sublayers(outer) == [outer.layers[0], leaf]
    assert [p for p, _ in layer_paths(outer)] == ["broken", "broken/leaf"]


def test_one_validator_two_shapes() -> None:
    with pytest.raises(TfnbDebugError, match=r"^MODEL must be a Keras model, got ndarray$"):
        require_keras_model(np.zeros(3))
    with pytest.raises(
        TfnbDebugError,
        match=r"^model must be a Keras 3 model or layer, got ndarray: pass the model object",
    ):
        check_model(np.zeros(3))
    unbuilt = keras.Sequential([L.Dense(2)], name="later")
    with pytest.raises(TfnbDebugError, match="MODEL 'later' is not built yet"):
        require_keras_model(unbuilt)
    assert require_keras_model(unbuilt, built=False) is unbuilt
    check_model(L.Dense(2))  # a plain layer is fine for %tfshape


def test_tfshape_and_tfmem_agree_on_bytes(shell: InteractiveShell) -> None:
    """One estimator: the same weights + gradients + optimizer state, and the same total.

    After ``fit`` the optimizer is built, and its real variables (slots plus its
    step counter and learning rate) are what both commands count; a frozen
    layer and BatchNorm's moving statistics are weights without gradients.
    """
    shell.run_cell(
        """
import numpy as np, keras
L = keras.layers
model = keras.Sequential(
    [keras.Input((6,)), L.Dense(16, name="d1"), L.BatchNormalization(name="bn"),
     L.Dense(8, name="frozen", trainable=False), L.Dense(3, name="out")],
    name="agree",
)
model.compile(optimizer="adam", loss="mse")
x = np.random.default_rng(0).normal(size=(16, 6)).astype("float32")
model.fit(x, np.zeros((16, 3), "float32"), batch_size=8, epochs=1, verbose=0)
"""
    )
    shape = run_magic(shell, "%tfshape -q -o model x[:8]").result.memory[0]
    mem = run_magic(shell, "%%tfmem -q -o --model model --batch-size 8", cell="pass").result
    (estimate,) = mem.estimates
    model = shell.user_ns["model"]
    assert model.optimizer.built
    assert shape.params == estimate.parameters == model.count_params()
    assert shape.trainable_params == estimate.trainable_parameters
    parameter_bytes = estimate.weight_bytes + estimate.gradient_bytes + estimate.optimizer_bytes
    assert shape.param_bytes == parameter_bytes
    assert shape.activation_bytes == estimate.activation_bytes == 8 * (16 + 16 + 8 + 3) * 4
    assert shape.total_bytes == estimate.training_bytes
    assert shape.bytes_per_param == 16  # fp32 Adam, as the %tfshape line says
