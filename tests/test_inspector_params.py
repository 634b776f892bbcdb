"""The parameter arithmetic of the inspector, checked against Keras' own count for each layer kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import pytest

from tfnb_debug.widgets.params import param_arithmetic

L = keras.layers


def _built(layer: Any, shape: tuple[int | None, ...]) -> Any:
    layer.build(shape)
    return layer


CASES: list[tuple[str, Callable[[], Any], str, str]] = [
    (
        "conv2d",
        lambda: _built(L.Conv2D(64, 3), (None, 8, 8, 32)),
        "(3*3*32 + 1) * 64 = 18496",
        "formula",
    ),
    (
        "conv2d-no-bias",
        lambda: _built(L.Conv2D(64, 3, use_bias=False), (None, 8, 8, 32)),
        "3*3*32 * 64 = 18432",
        "formula",
    ),
    (
        "conv2d-groups",
        lambda: _built(L.Conv2D(64, 3, groups=4), (None, 8, 8, 32)),
        "(3*3*8 + 1) * 64 = 4672",
        "formula",
    ),
    ("conv1d", lambda: _built(L.Conv1D(8, 5), (None, 20, 3)), "(5*3 + 1) * 8 = 128", "formula"),
    (
        "conv3d",
        lambda: _built(L.Conv3D(4, (2, 3, 3)), (None, 6, 6, 6, 2)),
        "(2*3*3*2 + 1) * 4 = 148",
        "formula",
    ),
    (
        "conv2d-transpose",
        lambda: _built(L.Conv2DTranspose(16, 3), (None, 8, 8, 32)),
        "(3*3*32 + 1) * 16 = 4624",
        "formula",
    ),
    ("dense", lambda: _built(L.Dense(10), (None, 128)), "(128 + 1) * 10 = 1290", "formula"),
    (
        "dense-no-bias",
        lambda: _built(L.Dense(10, use_bias=False), (None, 128)),
        "128 * 10 = 1280",
        "formula",
    ),
    (
        "depthwise",
        lambda: _built(L.DepthwiseConv2D(3), (None, 8, 8, 32)),
        "(3*3 + 1) * 32 = 320",
        "formula",
    ),
    (
        "depthwise-mult",
        lambda: _built(L.DepthwiseConv2D(3, depth_multiplier=2), (None, 8, 8, 32)),
        "(3*3 + 1) * 32*2 = 640",
        "formula",
    ),
    (
        "separable",
        lambda: _built(L.SeparableConv2D(64, 3), (None, 8, 8, 32)),
        "3*3*32*1 + (32 + 1) * 64 = 2400",
        "formula",
    ),
    (
        "batchnorm",
        lambda: _built(L.BatchNormalization(), (None, 8, 8, 32)),
        "4 * 32 (gamma, beta, moving_mean, moving_variance) = 128",
        "formula",
    ),
    (
        "batchnorm-no-center",
        lambda: _built(L.BatchNormalization(center=False), (None, 32)),
        "3 * 32 (gamma, moving_mean, moving_variance) = 96",
        "formula",
    ),
    (
        "layernorm",
        lambda: _built(L.LayerNormalization(), (None, 5, 16)),
        "2 * 16 (gamma, beta) = 32",
        "formula",
    ),
    (
        "embedding",
        lambda: _built(L.Embedding(1000, 64), (None, 10)),
        "1000 * 64 = 64000",
        "formula",
    ),
    ("simple-rnn", lambda: _built(L.SimpleRNN(8), (None, 5, 3)), "(3 + 8 + 1) * 8 = 96", "formula"),
    ("lstm", lambda: _built(L.LSTM(8), (None, 5, 3)), "4 * (3 + 8 + 1) * 8 = 384", "formula"),
    ("gru", lambda: _built(L.GRU(8), (None, 5, 3)), "3 * (3 + 8 + 2) * 8 = 312", "formula"),
    (
        "gru-reset-before",
        lambda: _built(L.GRU(8, reset_after=False), (None, 5, 3)),
        "3 * (3 + 8 + 1) * 8 = 288",
        "formula",
    ),
]


@pytest.mark.parametrize(("label", "make", "expression", "kind"), CASES, ids=[c[0] for c in CASES])
def test_formula_matches_keras_count(
    label: str, make: Callable[[], Any], expression: str, kind: str
) -> None:
    layer = make()
    arithmetic = param_arithmetic(layer)
    assert arithmetic.expression == expression
    assert arithmetic.kind == kind
    assert arithmetic.total == layer.count_params()
    assert arithmetic.trainable == sum(int(np.prod(w.shape)) for w in layer.trainable_weights)
    assert arithmetic.non_trainable == arithmetic.total - arithmetic.trainable


def test_batchnorm_splits_trainable_and_moving_statistics() -> None:
    arithmetic = param_arithmetic(_built(L.BatchNormalization(), (None, 16)))
    assert (arithmetic.trainable, arithmetic.non_trainable) == (32, 32)


def test_wrappers_and_attention_sum_their_sublayers() -> None:
    bidirectional = _built(L.Bidirectional(L.LSTM(4)), (None, 5, 3))
    arithmetic = param_arithmetic(bidirectional)
    assert (arithmetic.kind, arithmetic.expression) == ("layers", "128 + 128 = 256")
    assert arithmetic.total == bidirectional.count_params()

    attention = L.MultiHeadAttention(num_heads=2, key_dim=4)
    x = np.zeros((1, 5, 8), "float32")
    attention(x, x)
    arithmetic = param_arithmetic(attention)
    assert (arithmetic.kind, arithmetic.expression) == ("layers", "72 + 72 + 72 + 72 = 288")
    assert arithmetic.total == attention.count_params() == 288
    assert arithmetic.breakdown.startswith("its sublayers' parameters (4 of ")


def test_a_nested_model_sums_its_layers() -> None:
    inner = keras.Sequential([keras.Input((4,)), L.Dense(3), L.Dense(2)], name="inner")
    arithmetic = param_arithmetic(inner)
    assert arithmetic.kind == "layers"
    assert arithmetic.expression == "15 + 8 = 23"
    assert arithmetic.total == inner.count_params()


def test_a_layer_without_weights() -> None:
    arithmetic = param_arithmetic(_built(L.ReLU(), (None, 3)))
    assert (arithmetic.total, arithmetic.kind) == (0, "none")
    assert arithmetic.expression == "no weights: 0 parameters"


def test_a_custom_layer_whose_formula_would_be_wrong_falls_back_to_weights() -> None:
    class ScaledDense(L.Dense):
        """A Dense with an extra weight: the Dense formula does not apply."""

        def build(self, input_shape: Any) -> None:
            super().build(input_shape)
            self.scale = self.add_weight(shape=(self.units,), name="scale")

    layer = _built(ScaledDense(5), (None, 7))
    arithmetic = param_arithmetic(layer)
    assert arithmetic.kind == "weights"
    assert arithmetic.expression == "7*5 + 5 + 5 = 45"
    assert arithmetic.total == layer.count_params() == 45


def test_a_subclassed_layer_with_sublayers_sums_them() -> None:
    class Block(L.Layer):
        def __init__(self) -> None:
            super().__init__(name="block")
            self.conv = L.Conv2D(4, 3, name="conv")
            self.bn = L.BatchNormalization(name="bn")

        def call(self, x: Any) -> Any:
            return self.bn(self.conv(x))

    block = Block()
    block(np.zeros((1, 8, 8, 3), "float32"))
    arithmetic = param_arithmetic(block)
    assert (arithmetic.kind, arithmetic.expression) == ("layers", "112 + 16 = 128")
    assert arithmetic.total == block.count_params()
