"""The arithmetic behind a layer's parameter count, e.g. ``(3*3*32 + 1) * 64 = 18496``.

Known layer kinds get the formula a textbook writes (Dense, the convolutions,
depthwise and separable convolutions, normalization, Embedding, the recurrent
layers); anything else, and any layer whose formula does not add up to its
weights, falls back to the plain sum of its weight shapes.  The total is always
the sum of the layer's weight sizes, which is what ``layer.count_params()``
returns.  Imported lazily (it reads Keras layer objects).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ParamArithmetic", "param_arithmetic"]

_MAX_TERMS = 12


@dataclass(frozen=True)
class ParamArithmetic:
    """How a layer's parameter count comes about.

    ``expression`` is the formula with its result (``(128 + 1) * 10 = 1290``);
    ``breakdown`` names the weights it counts; ``kind`` is ``"formula"`` for a
    known layer kind, ``"weights"`` for the sum of weight shapes, ``"layers"``
    for a nested model (the sum over its layers) and ``"none"`` for no weights.
    """

    expression: str
    total: int
    trainable: int
    non_trainable: int
    breakdown: str
    kind: str


@dataclass(frozen=True)
class _Weight:
    name: str
    shape: tuple[int, ...]
    trainable: bool

    @property
    def size(self) -> int:
        return math.prod(self.shape)


def param_arithmetic(layer: Any) -> ParamArithmetic:
    """The formula for ``layer``'s parameter count, checked against its weights."""
    weights = _weights(layer)
    total = sum(w.size for w in weights)
    trainable = sum(w.size for w in weights if w.trainable)
    breakdown = " + ".join(f"{w.name} {_dims(w.shape, ' x ')}" for w in weights)
    if not weights:
        return ParamArithmetic("no weights: 0 parameters", 0, 0, 0, "", "none")
    formula = _formula(layer, weights)
    kind = "formula"
    if formula is None or formula[1] != total:
        sub = _sublayer_sum(layer, total)
        if sub is not None:
            formula, kind = sub, "layers"
            children = _children(layer)
            with_weights = sum(1 for c in children if c.weights)
            breakdown = (
                f"its sublayers' parameters ({with_weights} of {len(children)} have weights)"
            )
        else:
            formula, kind = _weights_sum(weights), "weights"
    expression = f"{formula[0]} = {formula[1]}"
    return ParamArithmetic(expression, total, trainable, total - trainable, breakdown, kind)


def _weights(layer: Any) -> list[_Weight]:
    seen: set[int] = set()
    out: list[_Weight] = []
    for variable in getattr(layer, "weights", ()):
        if id(variable) in seen:
            continue
        seen.add(id(variable))
        shape = tuple(int(d) for d in variable.shape)
        name = str(getattr(variable, "name", "weight")).split("/")[-1].split(":")[0]
        out.append(_Weight(name, shape, bool(getattr(variable, "trainable", True))))
    return out


def _dims(shape: Sequence[int], sep: str = "*") -> str:
    return sep.join(str(d) for d in shape) if shape else "1"


def _weights_sum(weights: Sequence[_Weight]) -> tuple[str, int]:
    terms = [_dims(w.shape) for w in weights]
    if len(terms) > _MAX_TERMS:
        rest = sum(w.size for w in weights[_MAX_TERMS - 1 :])
        terms = [*terms[: _MAX_TERMS - 1], f"{rest} (the other {len(weights) - _MAX_TERMS + 1})"]
    return " + ".join(terms), sum(w.size for w in weights)


def _children(layer: Any) -> list[Any]:
    """Direct sublayers: ``model.layers``, or those a subclassed layer tracks."""
    children = getattr(layer, "layers", None)
    if children:
        return list(children)
    flatten = getattr(layer, "_flatten_layers", None)
    if flatten is None:
        return []
    try:
        return list(flatten(include_self=False, recursive=False))
    except TypeError:
        return []


def _sublayer_sum(layer: Any, total: int) -> tuple[str, int] | None:
    children = _children(layer)
    if not children:
        return None
    counts = [int(child.count_params()) if child.built else 0 for child in children]
    if sum(counts) != total:
        return None  # shared weights or weights of its own: the weight sum says it better
    terms = [str(c) for c in counts if c]
    if len(terms) > _MAX_TERMS:
        rest = sum(int(t) for t in terms[_MAX_TERMS - 1 :])
        terms = [*terms[: _MAX_TERMS - 1], str(rest)]
    return (" + ".join(terms) or "0"), total


def _named(weights: Sequence[_Weight]) -> dict[str, _Weight] | None:
    named: dict[str, _Weight] = {}
    for w in weights:
        if w.name in named:
            return None  # two weights share a name (e.g. Bidirectional): no single formula
        named[w.name] = w
    return named


def _formula(layer: Any, weights: Sequence[_Weight]) -> tuple[str, int] | None:
    import keras

    named = _named(weights)
    if named is None:
        return None
    L = keras.layers
    kernel = named.get("kernel")
    bias = named.get("bias")
    if isinstance(layer, L.Dense) and kernel and len(kernel.shape) == 2 and len(named) <= 2:
        n_in, units = kernel.shape
        return _affine(str(n_in), n_in, units, bias is not None)
    if isinstance(layer, L.Embedding) and "embeddings" in named and len(named) == 1:
        rows, cols = named["embeddings"].shape
        return f"{rows} * {cols}", rows * cols
    separable = (L.SeparableConv1D, L.SeparableConv2D)
    if isinstance(layer, separable) and {"depthwise_kernel", "pointwise_kernel"} <= set(named):
        dw = named["depthwise_kernel"].shape
        pw = named["pointwise_kernel"].shape
        depth = f"{_dims(dw[:-2])}*{dw[-2]}*{dw[-1]}"
        point = _affine(f"{pw[-2]}", pw[-2], pw[-1], bias is not None)
        return f"{depth} + {point[0]}", math.prod(dw) + point[1]
    depthwise = (L.DepthwiseConv1D, L.DepthwiseConv2D)
    if isinstance(layer, depthwise) and "kernel" in named and len(named) <= 2:
        k = named["kernel"].shape
        window, channels, mult = k[:-2], k[-2], k[-1]
        outputs = f"{channels}*{mult}" if mult != 1 else str(channels)
        per = _dims(window)
        if bias is not None:
            return f"({per} + 1) * {outputs}", (math.prod(window) + 1) * channels * mult
        return f"{per} * {outputs}", math.prod(window) * channels * mult
    transposed = (L.Conv1DTranspose, L.Conv2DTranspose, L.Conv3DTranspose)
    conv = (L.Conv1D, L.Conv2D, L.Conv3D)
    if isinstance(layer, transposed + conv) and kernel and len(named) <= 2:
        k = kernel.shape
        n_out, n_in = (k[-2], k[-1]) if isinstance(layer, transposed) else (k[-1], k[-2])
        fan_in = f"{_dims(k[:-2])}*{n_in}"
        return _affine(fan_in, math.prod(k[:-2]) * n_in, n_out, bias is not None)
    norms = (L.BatchNormalization, L.LayerNormalization, L.GroupNormalization)
    if isinstance(layer, norms) and weights and all(w.shape == weights[0].shape for w in weights):
        size = weights[0].size
        width = _dims(weights[0].shape)
        names = ", ".join(w.name for w in weights)
        return f"{len(weights)} * {width} ({names})", len(weights) * size
    return _recurrent(layer, named)


def _affine(fan_in: str, n_in: int, n_out: int, has_bias: bool) -> tuple[str, int]:
    if has_bias:
        return f"({fan_in} + 1) * {n_out}", (n_in + 1) * n_out
    return f"{fan_in} * {n_out}", n_in * n_out


def _recurrent(layer: Any, named: dict[str, _Weight]) -> tuple[str, int] | None:
    import keras

    L = keras.layers
    gates = {L.SimpleRNN: 1, L.LSTM: 4, L.GRU: 3}
    n_gates = next((g for cls, g in gates.items() if isinstance(layer, cls)), None)
    if n_gates is None or set(named) - {"kernel", "recurrent_kernel", "bias"}:
        return None
    if "kernel" not in named or "recurrent_kernel" not in named:
        return None
    n_in, cols = named["kernel"].shape
    units = cols // n_gates
    bias = named.get("bias")
    bias_rows = 0 if bias is None else (bias.size // (n_gates * units))
    inner = f"{n_in} + {units}" + (f" + {bias_rows}" if bias_rows else "")
    total = n_gates * (n_in + units + bias_rows) * units
    head = f"{n_gates} * " if n_gates > 1 else ""
    return f"{head}({inner}) * {units}", total
