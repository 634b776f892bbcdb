"""Loss/output pairing rules M01-M05 for compiled Keras models.

:func:`check_loss_pairing` reads the model's compiled loss and the activation
of the layer that produces each output (Sequential and functional models; a
subclassed model has no graph to read, so it gets no M findings).  With labels
it also checks the class count (M04) and the label encoding (M05).
``%tfgrad`` runs it; ``%tflint`` can reuse it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tfnb_debug.reports import Finding, finding

__all__ = [
    "LossInfo",
    "OutputInfo",
    "check_loss_pairing",
    "describe_loss",
    "describe_outputs",
    "output_losses",
]

_KINDS = {
    "sparse_categorical_crossentropy": "sparse",
    "sparsecategoricalcrossentropy": "sparse",
    "categorical_crossentropy": "categorical",
    "categoricalcrossentropy": "categorical",
    "categorical_focal_crossentropy": "categorical",
    "categoricalfocalcrossentropy": "categorical",
    "binary_crossentropy": "binary",
    "binarycrossentropy": "binary",
    "binary_focal_crossentropy": "binary",
    "binaryfocalcrossentropy": "binary",
}


@dataclass(frozen=True)
class LossInfo:
    """A cross-entropy loss as compiled: its kind (sparse/categorical/binary) and from_logits."""

    name: str
    kind: str
    from_logits: bool


@dataclass(frozen=True)
class OutputInfo:
    """The layer producing one model output, its activation and its unit count."""

    layer: str
    activation: str | None
    units: int | None


def describe_loss(loss: Any) -> LossInfo | None:
    """A :class:`LossInfo` for a cross-entropy loss (string, function or Loss object), else None."""
    if loss is None:
        return None
    if isinstance(loss, str):
        name = loss
        from_logits = False
    else:
        fn = getattr(loss, "fn", None)
        name = getattr(fn, "__name__", None) or type(loss).__name__
        if not hasattr(loss, "fn") and callable(loss) and hasattr(loss, "__name__"):
            name = loss.__name__
        kwargs = getattr(loss, "_fn_kwargs", {}) or {}
        from_logits = bool(getattr(loss, "from_logits", kwargs.get("from_logits", False)))
    kind = _KINDS.get(name.lower())
    if kind is None:
        return None
    return LossInfo(name=name, kind=kind, from_logits=from_logits)


# Layers that only move values around: the output keeps the activation of their input.
_PASS_THROUGH = {"Reshape", "Flatten", "Dropout", "Permute", "Identity"}
UNKNOWN = "unknown"


def _activation_of(layer: Any, depth: int = 0) -> str | None:
    """The output activation of ``layer`` (None or "linear": logits; ``UNKNOWN``: cannot tell).

    Shape-only layers (Reshape, Flatten, ...) and nested models are followed back to
    the layer that computes the values; a Lambda or custom layer without an
    ``activation`` attribute is ``UNKNOWN``, so no pairing rule guesses about it.
    """
    kind = type(layer).__name__
    if kind == "Softmax":
        return "softmax"
    if hasattr(layer, "activation"):
        activation = layer.activation
        if activation is None:
            return None
        name = getattr(activation, "__name__", None) or type(activation).__name__
        return str(name).lower()
    if depth > 50:
        return UNKNOWN
    if kind in _PASS_THROUGH or hasattr(layer, "outputs"):
        try:
            tensors = [layer.input] if kind in _PASS_THROUGH else list(layer.outputs)
        except Exception:
            return UNKNOWN
        history = getattr(tensors[0], "_keras_history", None) if len(tensors) == 1 else None
        source = getattr(history, "operation", None)
        if source is not None and source is not layer:
            return _activation_of(source, depth + 1)
    return UNKNOWN


def describe_outputs(model: Any) -> list[OutputInfo] | None:
    """The producing layer of each output of a Sequential/functional model (None if unknown)."""
    try:
        outputs = list(model.outputs)
    except Exception:
        return None
    infos = []
    for tensor in outputs:
        history = getattr(tensor, "_keras_history", None)
        layer = getattr(history, "operation", None) if history is not None else None
        if layer is None:
            return None
        units = tensor.shape[-1] if len(tensor.shape) else None
        infos.append(
            OutputInfo(
                layer=str(getattr(layer, "name", "?")),
                activation=_activation_of(layer),
                units=int(units) if units is not None else None,
            )
        )
    return infos


def output_losses(model: Any, loss: Any = None) -> list[tuple[OutputInfo, LossInfo | None]]:
    """Each output of a Sequential/functional model with its cross-entropy loss (None: another
    loss or none); empty when the outputs or the losses cannot be matched."""
    outputs = describe_outputs(model)
    if loss is None:
        loss = getattr(model, "loss", None)
    if not outputs or loss is None:
        return []
    if isinstance(loss, dict):
        names = list(getattr(model, "output_names", []) or [])
        losses = [loss.get(n) for n in names] if len(names) == len(outputs) else []
    elif isinstance(loss, list | tuple):
        losses = list(loss)
    else:
        losses = [loss] * len(outputs)
    if len(losses) != len(outputs):
        return []
    return [(out, describe_loss(raw)) for out, raw in zip(outputs, losses, strict=True)]


def _pairs(model: Any, loss: Any = None) -> list[tuple[OutputInfo, LossInfo]]:
    return [(out, info) for out, info in output_losses(model, loss) if info is not None]


def check_loss_pairing(model: Any, y: Any = None, *, loss: Any = None) -> list[Finding]:
    """M01-M05 for a compiled model; ``y`` (NumPy-convertible labels) enables M04 and M05.

    ``loss`` overrides the compiled loss (as ``%tfgrad --loss`` does).
    """
    findings: list[Finding] = []
    pairs = _pairs(model, loss)
    labels = _as_array(y) if len(pairs) == 1 else None
    for out, loss in pairs:
        findings.extend(_pairing(out, loss))
        if labels is not None:
            findings.extend(_labels(out, loss, labels))
    return findings


def _pairing(out: OutputInfo, loss: LossInfo) -> list[Finding]:
    place = f"output layer '{out.layer}'"
    act, units = out.activation, out.units
    if act == "softmax" and units == 1:
        return [
            finding(
                "M03",
                f"softmax over 1 unit always outputs 1.0, so {loss.name} cannot learn anything",
                place=place,
                evidence=f"activation softmax, {units} unit, loss {loss.name}",
                hint="for two classes use Dense(1, activation='sigmoid') with binary_crossentropy, "
                "or Dense(2, activation='softmax') with a categorical loss",
            )
        ]
    if loss.kind in ("sparse", "categorical") and units == 1:
        return [
            finding(
                "M03",
                f"{loss.name} over a single output unit: the softmax of one value is always "
                "1.0, so the loss is always 0 and nothing is learned",
                place=place,
                evidence=f"activation {act or 'none'}, 1 unit, loss {loss.name}",
                hint="for two classes use Dense(1, activation='sigmoid') with binary_crossentropy; "
                "for N classes give the output layer N units",
            )
        ]
    if act == "sigmoid" and loss.kind in ("sparse", "categorical") and (units or 0) > 1:
        return [
            finding(
                "M03",
                f"sigmoid output over {units} classes with {loss.name}: the classes do not "
                "compete, the loss expects one distribution over them",
                place=place,
                evidence=f"activation sigmoid, {units} units, loss {loss.name}",
                hint="use activation='softmax' (or a linear output with from_logits=True); keep "
                "sigmoid only for multi-label targets with binary_crossentropy",
            )
        ]
    if act == "softmax" and loss.kind == "binary" and (units or 0) > 1:
        return [
            finding(
                "M03",
                f"binary cross-entropy on a {units}-way softmax: softmax makes the classes "
                "exclusive, binary cross-entropy treats each as a separate yes/no",
                place=place,
                evidence=f"activation softmax, {units} units, loss {loss.name}",
                hint="use categorical_crossentropy (one-hot labels) or "
                "sparse_categorical_crossentropy (integer labels)",
            )
        ]
    if act in ("softmax", "sigmoid") and loss.from_logits:
        return [
            finding(
                "M01",
                f"the output layer already applies {act}, but {loss.name} has from_logits=True: "
                f"the loss applies {act} a second time and its gradients shrink",
                place=place,
                evidence=f"activation {act}, loss {loss.name}(from_logits=True)",
                hint="remove the activation from the last layer (recommended), or set "
                "from_logits=False",
            )
        ]
    if act in (None, "linear") and not loss.from_logits:
        return [
            finding(
                "M02",
                f"the output layer is linear (logits), but {loss.name} has from_logits=False: "
                "it treats raw scores as probabilities",
                place=place,
                evidence=f"activation {act or 'none'}, loss {loss.name}(from_logits=False)",
                hint=f"pass {_ctor(loss)}(from_logits=True) to compile",
            )
        ]
    return []


def _ctor(loss: LossInfo) -> str:
    return {
        "sparse": "keras.losses.SparseCategoricalCrossentropy",
        "categorical": "keras.losses.CategoricalCrossentropy",
        "binary": "keras.losses.BinaryCrossentropy",
    }[loss.kind]


def _as_array(y: Any) -> np.ndarray | None:
    if y is None or isinstance(y, dict | list | tuple) and not _is_numeric_sequence(y):
        return None
    try:
        array = np.asarray(y)
    except Exception:
        return None
    if array.dtype == object or array.size == 0 or not np.issubdtype(array.dtype, np.number):
        return None
    return array


def _is_numeric_sequence(y: Any) -> bool:
    return isinstance(y, list | tuple) and all(isinstance(v, int | float) for v in y)


def _labels(out: OutputInfo, loss: LossInfo, y: np.ndarray) -> list[Finding]:
    units = out.units
    if units is None or loss.kind == "binary":
        return []
    place = f"output layer '{out.layer}'"
    whole = bool(np.all(np.isfinite(y)) and np.all(np.equal(np.mod(y, 1), 0)))
    if loss.kind == "sparse":
        one_hot = (
            units > 1
            and y.ndim >= 2
            and y.shape[-1] == units
            and bool(np.isin(y, (0, 1)).all())
            and bool(np.all(y.sum(axis=-1) == 1))
        )
        if one_hot:
            return [
                finding(
                    "M05",
                    f"{loss.name} expects integer class ids, but the labels are one-hot "
                    f"(shape {tuple(y.shape)})",
                    place=place,
                    evidence=f"labels shape {tuple(y.shape)}, values 0/1, rows sum to 1",
                    hint="use categorical_crossentropy, or pass y.argmax(axis=-1)",
                )
            ]
        if whole and y.size:
            top, low = int(np.max(y)), int(np.min(y))
            if low < 0:
                return [
                    finding(
                        "M04",
                        f"the labels hold negative class ids (down to {low}); {loss.name} "
                        f"needs ids from 0 to {units - 1}",
                        place=place,
                        evidence=f"label range [{low}, {top}], {units} output units",
                        hint="fix the label encoding so that ids run from 0 to units - 1 "
                        "(e.g. drop or remap a -1 'missing' label)",
                    )
                ]
            if top >= units:
                return [
                    finding(
                        "M04",
                        f"the labels hold class ids up to {top}, but the output has {units} units",
                        place=place,
                        evidence=f"label range [{low}, {top}], {units} output units",
                        hint=f"give the last layer {top + 1} units, or fix the label encoding "
                        "(ids must run from 0 to units - 1)",
                    )
                ]
        return []
    # categorical
    integer_ids = units > 1 and whole and (y.ndim == 1 or y.shape[-1] == 1)
    if integer_ids:
        return [
            finding(
                "M05",
                f"{loss.name} expects one-hot labels of width {units}, but the labels are "
                f"integer class ids (shape {tuple(y.shape)})",
                place=place,
                evidence=f"labels shape {tuple(y.shape)}, whole numbers",
                hint="use sparse_categorical_crossentropy, or one-hot encode the labels "
                f"(keras.utils.to_categorical(y, {units}))",
            )
        ]
    if y.ndim >= 2 and y.shape[-1] != units:
        return [
            finding(
                "M04",
                f"the labels have {y.shape[-1]} classes, but the output has {units} units",
                place=place,
                evidence=f"labels shape {tuple(y.shape)}, {units} output units",
                hint=f"give the last layer {y.shape[-1]} units, or fix the label encoding",
            )
        ]
    return []
