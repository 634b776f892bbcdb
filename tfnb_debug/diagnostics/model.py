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

from tfnb_debug.ground.reports import Finding, finding

__all__ = [
    "LossInfo",
    "OutputInfo",
    "TargetRows",
    "check_loss_pairing",
    "describe_loss",
    "describe_outputs",
    "output_losses",
    "softmax_under_binary",
    "target_rows",
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
    """The layer producing one model output, its activation and its unit count; ``source``
    names the layer that applies the activation when it is another one (the last layer of a
    nested model)."""

    layer: str
    activation: str | None
    units: int | None
    source: str = ""


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


def _activation_of(layer: Any, depth: int = 0) -> tuple[str | None, Any]:
    """The output activation of ``layer`` (None or "linear": logits; ``UNKNOWN``: cannot tell)
    and the layer that applies it.

    Shape-only layers (Reshape, Flatten, ...) and nested models are followed back to
    the layer that computes the values; a Lambda or custom layer without an
    ``activation`` attribute is ``UNKNOWN``, so no pairing rule guesses about it.
    """
    kind = type(layer).__name__
    if kind == "Softmax":
        return "softmax", layer
    if hasattr(layer, "activation"):
        activation = layer.activation
        if activation is None:
            return None, layer
        name = getattr(activation, "__name__", None) or type(activation).__name__
        return str(name).lower(), layer
    if depth > 50:
        return UNKNOWN, layer
    if kind in _PASS_THROUGH or hasattr(layer, "outputs"):
        try:
            tensors = [layer.input] if kind in _PASS_THROUGH else list(layer.outputs)
        except Exception:
            return UNKNOWN, layer
        history = getattr(tensors[0], "_keras_history", None) if len(tensors) == 1 else None
        source = getattr(history, "operation", None)
        if source is not None and source is not layer:
            return _activation_of(source, depth + 1)
    return UNKNOWN, layer


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
        activation, source = _activation_of(layer)
        name = str(getattr(layer, "name", "?"))
        source_name = str(getattr(source, "name", "?"))
        infos.append(
            OutputInfo(
                layer=name,
                activation=activation,
                units=int(units) if units is not None else None,
                source=source_name if source_name != name else "",
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


def check_loss_pairing(model: Any, y: Any = None, *, loss: Any = None) -> list[Finding]:
    """M01-M05 for a compiled model; ``y`` (NumPy-convertible labels) enables M04 and M05.

    ``loss`` overrides the compiled loss (as ``%tfgrad --loss`` does).
    """
    findings: list[Finding] = []
    matched = output_losses(model, loss)
    for (out, info), labels in zip(
        matched, _labels_per_output(model, y, len(matched)), strict=True
    ):
        if info is None:
            continue
        findings.extend(_pairing(out, info, labels))
        if labels is not None:
            findings.extend(_labels(out, info, labels))
    return findings


def _labels_per_output(model: Any, y: Any, outputs: int) -> list[np.ndarray | None]:
    """The labels of each output: ``y`` itself for one output; for several, a dict by output
    name or a list/tuple by position (None where they cannot be matched)."""
    if y is None or outputs != 1 and not isinstance(y, dict | list | tuple):
        return [None] * outputs
    if outputs == 1:
        return [_as_array(y)]
    names = list(getattr(model, "output_names", []) or [])
    if isinstance(y, dict) and len(names) == outputs:
        return [_as_array(y.get(name)) for name in names]
    if isinstance(y, list | tuple) and len(y) == outputs and not _is_numeric_sequence(y):
        return [_as_array(v) for v in y]
    return [None] * outputs


def _pairing(out: OutputInfo, loss: LossInfo, labels: np.ndarray | None = None) -> list[Finding]:
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
    if act == "softmax" and loss.kind == "binary" and units is not None and units > 1:
        layer = f"layer '{out.source}' (inside '{out.layer}')" if out.source else f"'{out.layer}'"
        targets = target_rows(labels, units) if labels is not None else None
        return [
            softmax_under_binary(
                place,
                units,
                loss.name,
                targets,
                producer=f"the softmax of {layer}",
                sigmoid=f"give {layer} activation='sigmoid'",
                logits="make it linear and use BinaryCrossentropy(from_logits=True)",
                evidence=f"activation softmax, {units} units, loss {loss.name}",
            )
        ]
    softmaxed = act == "softmax" or (act in (None, "linear") and loss.from_logits)
    if softmaxed and loss.kind == "categorical" and (units or 0) > 1 and labels is not None:
        targets = target_rows(labels, units or 0)
        if targets is not None and targets.independent:
            return [_softmax_on_independent(out, loss, units or 0, targets, place)]
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


@dataclass(frozen=True)
class TargetRows:
    """What the targets of a binary loss over ``units`` outputs say about the classes:
    ``least``..``most`` 1s per row of 0/1 targets, or ``ids`` (integer class ids, one
    per example)."""

    least: int
    most: int
    ids: bool = False

    @property
    def independent(self) -> bool:
        """Rows with several 1s, or none: labels a softmax (rows summing to 1) cannot reach."""
        return not self.ids and (self.most >= 2 or self.least == 0)


def target_rows(y: np.ndarray, units: int) -> TargetRows | None:
    """:class:`TargetRows` of labels ``y`` for ``units`` outputs; None for soft targets or
    another shape."""
    if not y.size or not np.all(np.isfinite(y)):
        return None
    if y.ndim >= 2 and y.shape[-1] == units and bool(np.isin(y, (0, 1)).all()):
        ones = y.reshape(-1, units).sum(axis=-1)
        return TargetRows(int(ones.min()), int(ones.max()))
    if (y.ndim == 1 or y.shape[-1] == 1) and bool(np.all(np.equal(np.mod(y, 1), 0))):
        return TargetRows(1, 1, ids=True)
    return None


def softmax_under_binary(
    place: str,
    units: int,
    loss: str,
    targets: TargetRows | None,
    *,
    producer: str,
    sigmoid: str,
    logits: str,
    evidence: str,
) -> Finding:
    """M03 for a binary cross-entropy over ``units`` > 1 softmax outputs, read by the
    compile-time rule and by the loss watch alike; the targets, when seen, decide the fix.

    ``producer`` names the softmax (``the softmax of layer 'tags'``); ``sigmoid`` says how
    to replace it there (``give layer 'tags' activation='sigmoid'``) and ``logits`` how to
    leave the activation to the loss."""
    if targets is not None and targets.independent:
        return finding(
            "M03",
            f"{loss} scores each of the {units} outputs as its own yes/no, and the targets "
            f"hold {targets.least} to {targets.most} 1s per row (independent labels), but "
            f"{producer} makes the {units} outputs sum to 1: it cannot predict "
            + ("several labels at once" if targets.most >= 2 else "a row without any label")
            + ", so the loss cannot reach its minimum",
            place=place,
            evidence=f"{evidence}; targets 0/1 with {targets.least} to {targets.most} 1s per row",
            hint=f"{sigmoid}, one independent probability per label, and keep {loss}; or {logits}",
        )
    message = (
        f"{loss} on {producer} over {units} outputs: softmax makes the classes exclusive, "
        "binary cross-entropy treats each as a separate yes/no"
    )
    if targets is not None:
        labels = "integer class ids" if targets.ids else "one 1 per row"
        return finding(
            "M03",
            f"{message}; the targets hold one class per example ({labels})",
            place=place,
            evidence=f"{evidence}; targets: {labels}",
            hint="keep the softmax and use "
            + ("sparse_categorical_crossentropy" if targets.ids else "categorical_crossentropy"),
        )
    return finding(
        "M03",
        message,
        place=place,
        evidence=evidence,
        hint="if each example has exactly one class: keep the softmax and use "
        "categorical_crossentropy (one-hot labels) or sparse_categorical_crossentropy "
        f"(integer labels); if an example can carry several of the {units} labels "
        f"(multi-label): {sigmoid} and keep {loss}",
    )


def _softmax_on_independent(
    out: OutputInfo, loss: LossInfo, units: int, targets: TargetRows, place: str
) -> Finding:
    """M03: a categorical cross-entropy (a softmax over the outputs, in the layer or in the
    loss with from_logits) on 0/1 targets whose rows hold several 1s or none."""
    layer = f"'{out.source}' (inside '{out.layer}')" if out.source else f"'{out.layer}'"
    where = "the output layer's softmax" if out.activation == "softmax" else "from_logits=True"
    cannot = "several labels at once" if targets.most >= 2 else "a row without any label"
    return finding(
        "M03",
        f"{loss.name} with {where} makes the {units} outputs of {layer} one distribution "
        f"that sums to 1, but the targets hold {targets.least} to {targets.most} 1s per row "
        f"(independent labels): it cannot predict {cannot}, so the loss cannot reach its "
        "minimum",
        place=place,
        evidence=f"activation {out.activation or 'none'}, {units} units, loss {loss.name}; "
        f"targets 0/1 with {targets.least} to {targets.most} 1s per row",
        hint=f"give {layer} activation='sigmoid' and use binary_crossentropy: one independent "
        "probability per label (or a linear output with BinaryCrossentropy(from_logits=True))",
    )


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
