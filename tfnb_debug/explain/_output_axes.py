"""Axes the model's output keeps that its labels do not have, and the layer they came from.

``fit(x, y)`` on a classifier whose output is ``(B, T, C)`` or ``(B, H, W, C)``
while the labels are one value (or one row) per example: Keras' loss refuses
the ranks.  The cause is not the labels' shape but a layer path that never
removes the per-position axes: ``Dense`` acts on the last axis only, an
``Embedding`` adds a token axis, an RNN with ``return_sequences=True`` keeps
its time axis, a convolution keeps the spatial axes.  This check walks the
output's main path back (the first input of each layer) to the layer where the
extra axes entered (or the model's ``Input``, when the data has them) and
offers only fixes this path supports: ``return_sequences=False`` on an RNN that
is on it, or a pooling/``Flatten`` after the last layer that works per
position, named by place.  Labels per position (tagging, segmentation) fit the
same evidence, so that cause is named too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tfnb_debug.diagnostics.shape_hints import AXIS_DROPPERS, RNN_LAYERS
from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import fmt, shape_of

# Layers that act on each position alone: they neither add nor remove an axis, so a pooling
# placed before them changes nothing they need.
_PER_POSITION = frozenset(
    {
        "Dense",
        "EinsumDense",
        "Dropout",
        "SpatialDropout1D",
        "SpatialDropout2D",
        "Activation",
        "ReLU",
        "LeakyReLU",
        "PReLU",
        "ELU",
        "Softmax",
        "LayerNormalization",
        "BatchNormalization",
        "GaussianNoise",
        "GaussianDropout",
        "Identity",
    }
)


@dataclass(frozen=True)
class PathLayer:
    """One layer on the output's main path: its name, class, ranks and whether it keeps a sequence."""

    name: str
    class_name: str
    in_rank: int | None
    out_rank: int | None
    returns_sequences: bool = False
    in_shape: tuple[int | None, ...] | None = None  # its (first) input's shape


def output_path(tensor: Any, limit: int = 400) -> list[PathLayer]:
    """The layers from the model's Input (first) to the one that made ``tensor`` (last)."""
    path: list[PathLayer] = []
    current = tensor
    while current is not None and len(path) < limit:
        history = getattr(current, "_keras_history", None)
        operation = getattr(history, "operation", None)
        if operation is None:
            break
        cls = type(operation).__name__
        if cls == "InputLayer":
            path.append(PathLayer(str(operation.name), cls, _rank(current), _rank(current)))
            break
        try:
            node = operation._inbound_nodes[getattr(history, "node_index", 0)]
            inputs = list(node.input_tensors)
        except Exception:
            break
        first = inputs[0] if inputs else None
        layer = getattr(operation, "forward_layer", operation)  # a Bidirectional's own RNN
        path.append(
            PathLayer(
                str(operation.name),
                cls,
                _rank(first),
                _rank(current),
                bool(getattr(layer, "return_sequences", False)),
                shape_of(first),
            )
        )
        current = first
    return list(reversed(path))


def _rank(tensor: Any) -> int | None:
    try:
        return len(tensor.shape)
    except Exception:
        return None


def dataset_labels(x: Any) -> Any:
    """The label spec of a dataset of ``(x, y)`` (or ``(x, y, w)``) elements, else UNREAD."""
    spec = getattr(x, "element_spec", None)
    if isinstance(spec, tuple) and len(spec) in (2, 3):
        return spec[1]
    return UNREAD


def _loss_name(model: Any) -> str:
    loss = getattr(model, "loss", None)
    if isinstance(loss, str):
        return loss
    name = getattr(loss, "name", None) or getattr(loss, "__name__", "")
    return str(name or "")


def extra_axes(labels: tuple[int | None, ...], output: tuple[int | None, ...], loss: str) -> int:
    """How many axes between the batch and the last one the output has and the labels lack.

    A sparse loss takes one class id per position (labels of the output's rank
    minus one, a trailing axis of 1 allowed); other losses take the output's
    last axis in the labels' last axis, and a label vector ``(B,)`` stands for
    ``(B, 1)``.
    """
    rank = len(labels)
    sparse = "sparse" in loss.lower()
    if sparse:
        core = rank - 1 if rank >= 2 and labels[-1] == 1 else rank
        return (len(output) - 1) - core
    if rank == 1:
        return len(output) - 2 if output[-1] == 1 else 0
    if labels[-1] != output[-1]:
        return 0  # a class/feature width that differs is the label rules' evidence
    return len(output) - rank


@dataclass(frozen=True)
class AxesMismatch:
    """What the check found, as the parts of a contract violation (S07)."""

    argument: str
    problem: str
    hint: str
    evidence: str


def extra_output_axes(call: LiveCall, exc: BaseException) -> AxesMismatch | None:
    """``fit``/``evaluate`` whose labels lack axes the model's output keeps: the layer they
    came from and the fix that path supports."""
    model = call.receiver
    x, y = call.values.get("x", UNREAD), call.values.get("y", UNREAD)
    if y is UNREAD or y is None:
        y = dataset_labels(x)
    labels = shape_of(y)
    try:
        outputs = list(model.outputs)
    except Exception:
        return None
    if labels is None or not labels or len(outputs) != 1:
        return None
    tensor = outputs[0]
    out_shape = shape_of(tensor)
    if out_shape is None or len(out_shape) < 2:
        return None
    loss = _loss_name(model)
    extra = extra_axes(labels, out_shape, loss)
    if extra < 0:
        return _summarized(call, labels, out_shape, -extra, loss, output_path(tensor))
    if extra < 1 or extra > len(out_shape) - 2:
        return None
    path = output_path(tensor)
    if len(path) < 2:
        return None
    rank = len(out_shape)
    middle = out_shape[1 : 1 + extra]
    kept = f"ax{'es' if extra > 1 else 'is'} {', '.join(str(d) for d in middle)}"
    origin, origin_index = path[0], 0
    for index in range(len(path) - 1, 0, -1):
        layer = path[index]
        if layer.in_rank is not None and layer.in_rank < rank:
            origin, origin_index = layer, index
            break
    rnns = [p for p in path[origin_index:] if p.class_name in RNN_LAYERS and p.returns_sequences]
    pooling = "GlobalAveragePooling1D()" if extra == 1 else f"GlobalAveragePooling{extra}D()"
    if origin.class_name == "InputLayer":
        data_shape = shape_of(x)
        if (
            data_shape is not None
            and origin.out_rank is not None
            and len(data_shape) < origin.out_rank
        ):
            return None  # the Input declares axes the data does not have: not this mistake
        data = f" (x {fmt(data_shape)})" if data_shape is not None else ""
        came = f"these axes come from the input '{origin.name}' itself{data}"
    else:
        came = (
            f"{kept} entered at '{origin.name}' ({origin.class_name}: rank {origin.in_rank} "
            f"to {origin.out_rank})"
        )
    after = origin
    for layer in path[origin_index + 1 :]:
        if layer.class_name not in _PER_POSITION:
            after = layer
    stays = [p.name for p in path[origin_index + 1 :] if p.class_name in _PER_POSITION][:3]
    through = (
        f"; {', '.join(repr(s) for s in stays)} act{'s' if len(stays) == 1 else ''} on the last "
        f"axis only and keep{'s' if len(stays) == 1 else ''} them"
        if stays
        else ""
    )
    if rnns:
        fix = (
            f"set return_sequences=False on '{rnns[-1].name}' so it returns one vector per "
            f"example (or add {pooling} after it)"
        )
    elif after is path[-1]:
        # the output layer itself keeps the axes (a convolution head): pool before it
        fix = (
            f"pool the per-position axes before the output layer '{after.name}' ({pooling}, "
            f"then a Dense({out_shape[-1]}) output in place of the {after.class_name})"
        )
    else:
        where = (
            "as the first layer (after the Input)"
            if after.class_name == "InputLayer"
            else f"after '{after.name}'"
        )
        fix = f"add keras.layers.Flatten() or {pooling} {where}"
    per_position = (
        f"; if each position has its own label (tagging, segmentation), the labels need shape "
        f"{fmt((labels[0], *middle, *(labels[1:] if len(labels) > 1 else ())))} instead"
    )
    text_y = call.text("y") if "y" in call.values else "the labels"
    each = "one value" if len(labels) == 1 or "sparse" in loss.lower() else "one row"
    data_shape = shape_of(x)
    if data_shape is not None and len(data_shape) == rank and data_shape[1:] == out_shape[1:]:
        # the output has the shape of the input: an autoencoder's (or a denoiser's) target
        # is its input; a classifier's head pools
        text_x = call.text("x") or "x"
        fix = (
            f"two causes fit: the model outputs one {fmt(out_shape[1:])} per example, the shape "
            f"of its input `{text_x}`: if it reconstructs its input (an autoencoder, a "
            f"denoiser), its targets are its inputs, `fit({text_x}, {text_x})`; if it should "
            f"predict {text_y}, {fix}"
        )
    return AxesMismatch(
        f"{call.method or 'fit'}(..., {text_y})",
        f"the labels {fmt(labels)} have {each} per example, but the model output "
        f"{fmt(out_shape)} keeps {kept} per example ({loss or 'the loss'})",
        fix + per_position,
        evidence=f"{came}{through}",
    )


def _summarized(
    call: LiveCall,
    labels: tuple[int | None, ...],
    out_shape: tuple[int | None, ...],
    missing: int,
    loss: str,
    path: list[PathLayer],
) -> AxesMismatch | None:
    """Labels per position (a tagger's, a mask's) on a model whose path removes the positions'
    axis: the layer that removed it (the nearest to the output) and how to keep it."""
    remover = None
    for layer in reversed(path):
        if (
            layer.in_rank is not None
            and layer.out_rank is not None
            and layer.in_rank > layer.out_rank
        ):
            remover = layer
            break
    kept = labels[1 : 1 + missing]
    if remover is None:
        return None
    before = remover.in_shape[1 : 1 + missing] if remover.in_shape else None
    if before is not None and any(
        b is not None and k is not None and b != k for b, k in zip(before, kept, strict=False)
    ):
        return None  # the positions it removed are not the labels': another mistake
    if remover.class_name in RNN_LAYERS:
        fix = (
            f"set return_sequences=True on '{remover.name}' so it gives one vector per position "
            "(the Dense layers after it then act on each position)"
        )
        why = "it returns only its last step"
    elif remover.class_name in AXIS_DROPPERS:
        fix = f"remove '{remover.name}' so the output keeps one prediction per position"
        why = (
            "it merges the positions into one feature vector"
            if remover.class_name == "Flatten"
            else "it pools the positions away"
            if "Max" in remover.class_name
            else "it averages the positions away"
        )
    else:
        fix = f"keep the positions' axis through '{remover.name}' to the output"
        why = f"it takes rank {remover.in_rank} to {remover.out_rank}"
    text_y = call.text("y") if "y" in call.values else "the labels"
    single = (labels[0],) if "sparse" in loss.lower() else (labels[0], out_shape[-1])
    return AxesMismatch(
        f"{call.method or 'fit'}(..., {text_y})",
        f"the labels {fmt(labels)} hold one label per position ({', '.join(map(str, kept))}), but "
        f"the model output {fmt(out_shape)} has one prediction per example ({loss or 'the loss'})",
        f"{fix}; if each example has one label, the labels need shape {fmt(single)} instead",
        f"'{remover.name}' ({remover.class_name}) removes the positions' axis: {why}",
    )
