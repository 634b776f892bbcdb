"""A layer that must size a weight from an axis whose length is unknown (None), and where the None
came from.

A ``Dense`` after ``Flatten`` sizes its kernel from the flattened length; when the
sequence axis before the ``Flatten`` has no fixed length (``Input(shape=(None,))``,
a ``TextVectorization`` without ``output_sequence_length``, a ``tf.data`` pipeline
of ragged lengths) Keras refuses: "Shapes used to initialize variables must be
fully-defined".  :func:`unknown_axis_weight` walks the failing layer's input back
through the model graph to the first tensor whose non-batch axis is None and
names the layer that made it, with the fix that fits that origin.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._operands import parsed_file
from tfnb_debug.explain._violation import Violation, fmt, shape_of

_UNDEFINED = re.compile(
    r"must be fully-defined \(no `None` dimensions\)\. Received: shape=\(([^)]*)\) for "
    r"variable path='([^']+)'"
)


def _origin(tensor: Any, limit: int = 200) -> tuple[Any, Any, list[Any]] | None:
    """(the layer that first made a None non-batch axis, its output, the layers after it)."""
    path: list[Any] = []
    current = tensor
    found = None
    while current is not None and len(path) < limit:
        history = getattr(current, "_keras_history", None)
        operation = getattr(history, "operation", None)
        if operation is None:
            break
        shape = shape_of(current)
        if shape is not None and any(d is None for d in shape[1:]):
            found = (operation, current, list(reversed(path)))
        else:
            break
        path.append(operation)
        try:
            node = operation._inbound_nodes[getattr(history, "node_index", 0)]
            inputs = list(node.input_tensors)
        except Exception:
            break
        current = inputs[0] if inputs else None
    return found


def _input_of(call: LiveCall, layer_name: str) -> Any:
    """The tensor the named layer was given: the call's own input for a layer call, else the
    output of the layer before it in a Sequential's list."""
    inputs = call.values.get("inputs", UNREAD)
    if inputs is not UNREAD and hasattr(inputs, "_keras_history"):
        return inputs
    layers = call.values.get("layers", UNREAD)
    if not isinstance(layers, list | tuple):
        return None
    for index, layer in enumerate(layers):
        if getattr(layer, "name", None) == layer_name and index > 0:
            before = layers[index - 1]
            return before if hasattr(before, "_keras_history") else getattr(before, "output", None)
    return None


def unknown_axis_weight(call: LiveCall, exc: BaseException) -> Violation | None:
    match = _UNDEFINED.search(str(exc))
    if match is None:
        return None
    parts = match.group(2).split("/")
    layer_name = parts[-2] if len(parts) >= 2 else ""
    tensor = _input_of(call, layer_name)
    if tensor is None:
        return None
    found = _origin(tensor)
    if found is None:
        return None
    origin, made, after = found
    kind = type(origin).__name__
    between = [type(a).__name__ for a in after]
    flattened = "Flatten" in between or "Reshape" in between
    shape = fmt(shape_of(made))
    dims = shape_of(made) or ()
    if kind == "InputLayer" and len(dims) >= 3 and dims[-1] is None and not flattened:
        # the Input's own last axis is undeclared: the features per step, not a length
        steps = ", ".join("None" if d is None else str(d) for d in dims[1:-1])
        source = f"the model's Input {shape} does not declare its last (feature) axis"
        fixes = (
            f"declare the features each step has: `keras.Input(shape=({steps}, n_features))` "
            "(the data's last axis); only the steps axis may stay None"
        )
    elif kind == "InputLayer" and len(dims) == 4 and dims[1] is None and dims[2] is None:
        source = f"the model's Input {shape} has no fixed height and width"
        backbone = _backbone_without_size(call.filename)
        size = f"input_shape=(height, width, {dims[-1]})"
        fixes = (
            f"give the backbone its image size, `{backbone}(..., {size})`"
            if backbone
            else f"give the Input its image size, `keras.Input(shape=(height, width, {dims[-1]}))`"
        )
    elif kind == "InputLayer":
        fixed = ", ".join("maxlen" if d is None else str(d) for d in dims[1:])
        fixed = f"({fixed},)" if len(dims) == 2 else f"({fixed})"
        source = f"the model's Input {shape} has no fixed length"
        fixes = f"give the Input its fixed length, `keras.Input(shape={fixed})` (the data's length)"
    elif (
        kind == "TextVectorization"
        and getattr(origin, "_output_mode", "int") != "int"
        and (
            _vocabulary_size(origin) <= 2  # only the padding/OOV tokens: never adapted
        )
    ):
        mode = getattr(origin, "_output_mode", "")
        source = (
            f"TextVectorization '{origin.name}' (output_mode='{mode}') has no vocabulary yet, "
            "so its output width (one column per token) is unknown"
        )
        fixes = (
            f"adapt '{origin.name}' on the texts before the model is built "
            "(`vectorizer.adapt(texts)`), or give it `vocabulary=`"
        )
    elif kind == "TextVectorization":
        source = (
            f"TextVectorization '{origin.name}' has no output_sequence_length, so each batch is "
            "as long as its longest text"
        )
        fixes = f"set `output_sequence_length=N` on '{origin.name}'"
    else:
        source = f"{kind} '{origin.name}' gives {shape}, with a length that is not fixed"
        fixes = f"fix that length at '{origin.name}'"
    if flattened:
        fixes += (
            ", or replace the Flatten with GlobalAveragePooling2D, which works for any size"
            if len(dims) == 4
            else ", or replace the Flatten with GlobalAveragePooling1D (or an RNN), which "
            "works for any length"
        )
        sequences = [
            a for a in after if getattr(getattr(a, "forward_layer", a), "return_sequences", False)
        ]
        if sequences:
            last = sequences[-1]
            fixes += (
                f", or let {type(last).__name__} '{last.name}' return its last step only "
                "(return_sequences=False) and drop the Flatten"
            )
    return Violation(
        "S01",
        layer_name,
        f"layer '{layer_name}' must size its weights from its input's last axis, but that axis "
        f"is unknown (None): {source}"
        + (f", and {' -> '.join(between)} carries the None to it" if between else ""),
        fixes,
        f"weight shape ({match.group(1)}); input {fmt(shape_of(tensor))}",
        quote_call=False,  # the layer list adds nothing to the shapes
    )


def _backbone_without_size(filename: str) -> str:
    """``keras.applications.VGG16`` when the cell builds such a backbone without input_shape."""
    import ast

    tree = parsed_file(filename)
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or ".applications." not in ast.unparse(node.func):
            continue
        if not any(k.arg in ("input_shape", "input_tensor") for k in node.keywords):
            return ast.unparse(node.func)
    return ""


def _vocabulary_size(layer: Any) -> int:
    try:
        return int(layer.vocabulary_size())
    except Exception:
        return 0
