"""Contracts on the shape (and range) of the data a call passes, against what the API or the
model takes.

- ``to_categorical(y, num_classes)`` takes labels from 0 to ``num_classes - 1``.
- The ``tf.image`` ops take images of rank 3 (H, W, C) or 4 (N, H, W, C) and a ``size``
  of two numbers; ``random_crop`` takes one size per axis of the image.
- ``Dataset.from_tensor_slices`` slices every component along its first axis: each one
  rectangular, all of the same length.
- ``Model.fit(x, y)`` takes labels of the output's size on every axis past the batch (the
  axis' chain from :mod:`._lineage` names the layer that made the size; labels that lack
  axes the output keeps are :mod:`._output_axes`'), data of the shape the model's
  ``Input`` declares for one example (not the whole dataset's), and images of the
  spatial size the model was built for.
- A sparse Keras loss is called as ``loss(y_true, y_pred)``, the predictions with the
  class axis.

Each check reads the live arguments of the failing call
(:class:`~tfnb_debug.explain._api.LiveCall`) and the model's symbolic inputs and
outputs, and returns a :class:`~tfnb_debug.explain._violation.Violation` only when
the data breaks the contract; :mod:`tfnb_debug.explain._contracts` registers them.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._dataset_parts import labels_left_by_map
from tfnb_debug.explain._output_axes import dataset_labels, extra_output_axes
from tfnb_debug.explain._sequence_steps import steps_against_input
from tfnb_debug.explain._spatial import differing_axis, size_fix
from tfnb_debug.explain._string_values import (
    TEXT_LAYERS,
    kind_of_strings,
    source_strings,
    text_layer_in,
)
from tfnb_debug.explain._target_columns import TARGET_NAME, columns_for_one_input
from tfnb_debug.explain._violation import Violation, features_spec, fmt, item_text, shape_of

# labels and images -----------------------------------------------------------------------


def to_categorical(call: LiveCall, exc: BaseException) -> Violation | None:
    import numpy as np

    labels, classes = call.value("x"), call.value("num_classes")
    if labels is not UNREAD and _holds_text(labels):
        text = call.text("x")
        return Violation(
            "S11",
            text,
            f"`to_categorical` takes integer class ids, but `{text}` holds class names (text)",
            f"map the names to ids first: `ids, names = pd.factorize({text})` (or a "
            "keras.layers.StringLookup(num_oov_indices=0) adapted on them), then "
            "`to_categorical(ids)`",
        )
    if labels is UNREAD or not isinstance(classes, int):
        return None
    try:
        array = np.asarray(labels)
        low, high = int(array.min()), int(array.max())
    except Exception:
        return None
    if low >= 0 and high < classes:
        return None
    text = call.text("x")
    if low < 0:
        fix = f"the labels hold {low}: re-index them to start at 0"
    elif low == 1 and high == classes:
        fix = f"the labels run from 1 to {high}: use `{text} - 1`, or num_classes={high + 1} and ignore class 0"
    else:
        fix = f"num_classes={high + 1} (the largest label + 1), or re-index the labels to 0..{classes - 1}"
    return Violation(
        "P12",
        text,
        f"`to_categorical` got labels from {low} to {high} with num_classes={classes}",
        fix,
        evidence=f"labels in [{low}, {high}]",
    )


def _holds_text(values: Any) -> bool:
    import numpy as np

    try:
        array = np.asarray(values)
    except Exception:
        return False
    if array.dtype.kind in "US":
        return True
    if array.dtype.kind == "O" and array.size:
        return isinstance(array.ravel()[0], str | bytes)
    return False


def image_rank(call: LiveCall, exc: BaseException) -> Violation | None:
    name = "images" if "images" in call.values else "image"
    if "value" in call.values and "size" in call.values:  # tf.image.random_crop(value, size)
        return _crop_size(call)
    value = call.value(name)
    shape = shape_of(value)
    if shape is None or len(shape) in (3, 4):
        size = call.value("size")
        if isinstance(size, int) or (isinstance(size, list | tuple) and len(size) != 2):
            return Violation(
                "S07",
                call.text("size"),
                f"`{call.api}` takes size=(height, width), got {size!r}",
                "pass two numbers: `size=(h, w)`",
            )
        return None
    text = call.text(name)
    if len(shape) == 2:
        fix = f"a single grayscale image of shape {fmt(shape)} needs a channel axis: `{text}[..., None]` (or `tf.expand_dims({text}, -1)`)"
    elif len(shape) == 5:
        fix = f"fold the extra axis into the batch: `tf.reshape({text}, (-1, {shape[2]}, {shape[3]}, {shape[4]}))`, or map the op over it"
    else:
        fix = "give it (height, width, channels) or (batch, height, width, channels)"
    return Violation(
        "S07",
        text,
        f"`{call.api}` takes images of rank 3 (H, W, C) or 4 (N, H, W, C); `{text}` has rank "
        f"{len(shape)}, shape {fmt(shape)}",
        fix,
    )


_IMAGE_LAYER_RANK = "Expected image tensor to have rank 3 (single image) or 4 (batch of images)"


def image_layer_rank(call: LiveCall, exc: BaseException) -> Violation | None:
    """An image preprocessing layer (RandomRotation, RandomFlip, Resizing...) given a tensor that
    is neither one image (H, W, C) nor a batch (N, H, W, C)."""
    layer = call.callee
    if _IMAGE_LAYER_RANK not in str(exc) or not hasattr(layer, "_inbound_nodes"):
        return None
    name = next(iter(call.values), "")
    shape = shape_of(call.values.get(name, UNREAD)) if name else None
    if shape is None:
        return None
    text = call.texts.get(name) or "image"  # a layer's own frame: its parameter name says little
    kind = type(layer).__name__
    if len(shape) == 2:
        fix = (
            f"an image of shape {fmt(shape)} has no channel axis: add one, `{text}[..., None]` "
            f"(or `tf.expand_dims({text}, -1)`), before {kind}; for a dataset, in the map or on "
            "the arrays before from_tensor_slices"
        )
    elif len(shape) == 5:
        fix = f"fold the extra axis into the batch (`tf.reshape({text}, (-1, *{text}.shape[2:]))`)"
    else:
        fix = "give it one image (height, width, channels) or a batch of them"
    return Violation(
        "S01",
        text,
        f"{kind} '{getattr(layer, 'name', kind)}' takes images of rank 3 (H, W, C) or 4 "
        f"(N, H, W, C); `{text}` has rank {len(shape)}, shape {fmt(shape)}",
        fix,
    )


def _crop_size(call: LiveCall) -> Violation | None:
    shape, size = shape_of(call.value("value")), call.value("size")
    if shape is None or not isinstance(size, list | tuple) or len(size) == len(shape):
        return None
    text = call.text("value")
    full = tuple(size) + tuple(shape[len(size) :]) if len(size) < len(shape) else None
    return Violation(
        "S07",
        call.text("size"),
        f"`{call.api}` takes one size per axis of `{text}` {fmt(shape)}: size {tuple(size)} has "
        f"{len(size)} entries for rank {len(shape)}",
        f"give every axis, the channels included: `size={full}`"
        if full
        else f"give {len(shape)} sizes, one per axis",
    )


# tf.data ---------------------------------------------------------------------------------


def _leaves(value: Any, prefix: str) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out.extend(_leaves(v, item_text(prefix, str(k))))
        return out
    if isinstance(value, tuple):
        out = []
        for i, v in enumerate(value):
            out.extend(_leaves(v, item_text(prefix, i)))
        return out
    return [(prefix, value)]


def _object_rows(value: object, limit: int = 1000) -> list:
    """The items of a 1-D NumPy object array when every one is a sequence, else []."""
    if type(value).__name__ != "ndarray" or str(getattr(value, "dtype", "")) != "object":
        return []
    if getattr(value, "ndim", 0) != 1:
        return []
    items = list(value[:limit])  # type: ignore[index]
    if not items or not all(
        isinstance(i, list | tuple) or type(i).__name__ == "ndarray" for i in items
    ):
        return []
    return items


def from_tensor_slices(call: LiveCall, exc: BaseException) -> Violation | None:
    tensors = call.value("tensors")
    if tensors is UNREAD:
        return None
    text = call.text("tensors")
    leaves = _leaves(tensors, text)
    rows = _object_rows(tensors)
    if rows:
        lengths = sorted({len(t) for t in rows})
        if len(lengths) > 1:
            return Violation(
                "S13",
                text,
                f"`from_tensor_slices` got a NumPy object array of sequences of different lengths "
                f"{lengths[:4]}: it needs one rectangular array",
                f"pad the sequences to one length (`keras.utils.pad_sequences(list({text}), "
                f"padding='post')`), or slice `tf.ragged.constant(list({text}))` and batch "
                "with padded_batch/ragged_batch",
            )
    if isinstance(tensors, list) and tensors and isinstance(tensors[0], list | tuple):
        lengths = sorted({len(t) for t in tensors if isinstance(t, list | tuple)})
        if len(lengths) > 1:
            return Violation(
                "S13",
                text,
                f"`from_tensor_slices` got a Python list of rows of different lengths {lengths[:4]}: "
                "it needs one rectangular array",
                "pad the rows to one length (keras.utils.pad_sequences) or build the dataset with "
                "tf.ragged.constant(...) and padded_batch/ragged_batch",
            )
    firsts = [(name, _length(v)) for name, v in leaves]
    known = [(n, f) for n, f in firsts if f is not None]
    listed_inputs = _inputs_in_a_list(leaves)
    if listed_inputs is not None:
        name, items = listed_inputs
        return Violation(
            "S12",
            text,
            f"`{name}` is a Python list of {len(items)} arrays, which `from_tensor_slices` reads "
            f"as one tensor (its {len(items)} items become the first axis), not as "
            f"{len(items)} inputs of each example",
            f"make it a tuple, `({', '.join(items)})`: a tuple is a structure of separate inputs, "
            "each sliced on its own first axis (a model with several Inputs takes the tuple "
            "as x)",
        )
    if len({f for _, f in known}) > 1:
        listed = ", ".join(f"`{n}` {f}" for n, f in known[:4])
        return Violation(
            "S12",
            text,
            f"`from_tensor_slices` slices every component along its first axis, so all must have "
            f"the same length: {listed}",
            "give every component one entry per example (x and y of the same length); check how "
            "each was built or split",
        )
    return None


def _inputs_in_a_list(leaves: list[tuple[str, Any]]) -> tuple[str, list[str]] | None:
    """(text, items) of a ``[a, b]`` component whose arrays each have the examples' count
    that the other components have, while the list's own length is another number."""
    for name, value in leaves:
        if not (isinstance(value, list) and len(value) > 1 and name.startswith("[")):
            continue
        counts = {_length(item) for item in value}
        others = {_length(v) for n, v in leaves if n != name} - {None}
        if len(counts) == 1 and counts == others and len(value) not in counts:
            return name, [part.strip() for part in name.strip("[]").split(",")]
    return None


def _length(value: Any) -> int | None:
    shape = shape_of(value)
    if shape:
        return shape[0]
    return len(value) if isinstance(value, list) else None


# dimensions: where a wrong size came from -------------------------------------------------


def _fit_xy(call: LiveCall) -> tuple[Any, Any]:
    return call.values.get("x", UNREAD), call.values.get("y", UNREAD)


def target_shape(call: LiveCall, exc: BaseException) -> Violation | None:
    """``fit(x, y)`` whose labels have another size than the model's output on an axis past the
    batch: the output's chain on that axis says which layer made the size (``fit(x, x)``: the
    labels are the inputs, so the output must have the input's shape)."""
    from tfnb_debug.explain._lineage import axis_chain, fmt_chain

    x, y = _fit_xy(call)
    model = call.receiver
    from_dataset = y is UNREAD or y is None
    if from_dataset:
        y = dataset_labels(x)  # a dataset of (x, y) elements: its label spec
    labels = shape_of(y)
    if labels is None or x is UNREAD:
        return None
    try:
        outputs = list(model.outputs)
    except Exception:
        return None
    if len(outputs) != 1:
        return None
    output = outputs[0]
    out_shape = shape_of(output)
    if out_shape is None or len(labels) < 2:
        return None
    loss = model.loss if isinstance(getattr(model, "loss", None), str) else ""
    loss = loss or str(getattr(getattr(model, "loss", None), "name", "") or "")
    # a sparse loss takes one class id per position: its labels are the output less the class axis
    ids = "sparse" in loss.lower() and len(labels) == len(out_shape) - 1
    compared = out_shape[:-1] if ids else out_shape
    if len(compared) != len(labels):
        return None
    axis = differing_axis([compared, (None, *labels[1:])], None)
    if axis is None:
        return None
    if axis == len(labels) - 1 and y is not x and not ids:
        return None  # the class/feature axis: the label rules (M04, M05, S07) read that one
    chain = axis_chain(output, axis)
    if not chain:
        return None
    started_at_label_size = chain[0].size == labels[axis]
    fix = size_fix([chain], "the output", labels[axis])
    text_x, text_y = call.text("x"), call.text("y")
    if y is x:
        what = (
            f"the targets are the inputs themselves (`{text_x}`, {fmt(labels)}), so the model must "
            f"output that shape"
        )
    else:
        named = f"of `{text_x}`" if from_dataset else f"`{text_y}`"
        what = f"the labels {named} have {labels[axis]} on axis {axis}"
        left = labels_left_by_map(call.filename, text_x) if from_dataset else None
        if left is not None:  # a map that changes the inputs and not the labels
            what, fix = what + left[0], left[1]
    if not fix:
        fix = (
            f"the model's input has {chain[0].size} on axis {axis} and the layers change it to "
            f"{out_shape[axis]}: make them return it to {labels[axis]} (compare the strides and "
            "upsampling factors along the chain)"
            if started_at_label_size
            else f"the labels' axis {axis} ({labels[axis]}) does not come from the input's "
            f"({chain[0].size}): build the labels with the output's size, or change the layers"
        )
    return Violation(
        "S07",
        f"fit({text_x})" if from_dataset else f"fit({text_x}, {text_y})",
        f"{what}, but it outputs {fmt(out_shape)} (axis {axis}: {out_shape[axis]} vs "
        f"{labels[axis]})",
        fix,
        evidence=f"axis {axis}: {fmt_chain(chain)}",
    )


def output_axes(call: LiveCall, exc: BaseException) -> Violation | None:
    """Labels that lack axes the model's output keeps (``_output_axes``): S07 with its layer."""
    found = extra_output_axes(call, exc)
    if found is None:
        return None
    return Violation("S07", found.argument, found.problem, found.hint, evidence=found.evidence)


def baked_sample_count(call: LiveCall, exc: BaseException) -> Violation | None:
    """An Input whose shape holds the number of samples (``Input(shape=x.shape)``)."""
    model = call.receiver
    x = call.values.get("x", call.values.get("inputs", call.values.get("arg0", UNREAD)))
    data = shape_of(x)
    try:
        declared = [shape_of(t) for t in model.inputs]
    except Exception:
        return None
    if data is None or len(declared) != 1 or declared[0] is None or len(data) < 2:
        return None
    per_example = declared[0][1:]
    if tuple(per_example) != tuple(data):
        return None
    labels = shape_of(call.values.get("y", UNREAD))
    if labels is None or labels[0] != data[0]:
        return None  # without labels of that length, x may be one example without its batch axis
    text = call.text("x") if "x" in call.values else call.text("inputs")
    return Violation(
        "S01",
        text,
        f"the model's Input has shape {fmt(declared[0])}: its first axis after the batch is "
        f"{data[0]}, the number of samples in `{text}` {fmt(data)}, so every example is expected "
        "to hold the whole dataset",
        f"declare the shape of one example: `keras.Input(shape={text}.shape[1:])` "
        f"(= {fmt(data[1:])})",
    )


def loss_argument_order(call: LiveCall, exc: BaseException) -> Violation | None:
    """A sparse Keras loss called as ``loss(y_pred, y_true)``: the first argument has one
    axis more than the second, on the same leading axes (the predictions' class axis),
    where the contract is ``loss(y_true, y_pred)`` with ``y_pred`` the one with the axis."""
    if "sparse" not in call.api.lower():
        return None
    first, second = call.values.get("y_true", UNREAD), call.values.get("y_pred", UNREAD)
    fs, ss = shape_of(first), shape_of(second)
    if fs is None or ss is None or len(fs) != len(ss) + 1:
        return None
    if any(a is not None and b is not None and a != b for a, b in zip(fs[:-1], ss, strict=False)):
        return None
    dtype = str(getattr(getattr(second, "dtype", None), "name", getattr(second, "dtype", "")))
    ids = f", {dtype} like class ids" if dtype.startswith(("int", "uint")) else ""
    given_true, given_pred = call.text("y_true"), call.text("y_pred")
    callee = call.source.split("(", 1)[0].strip() if "(" in call.source else call.api
    return Violation(
        "S07",
        call.source,
        f"`{call.api}` is called as (y_true, y_pred), but got `{given_true}` of shape "
        f"{fmt(fs)} first and `{given_pred}` of shape {fmt(ss)}{ids} second: the first has "
        "the class axis of predictions, the second looks like the labels",
        f"swap them: labels first, predictions second: `{callee}({given_pred}, {given_true})`"
        ", or pass `y_true=..., y_pred=...` by name",
    )


def data_against_input(call: LiveCall, exc: BaseException) -> Violation | None:
    """Data whose example shape differs from the model's declared Input on a spatial axis."""
    x = call.values.get("x", UNREAD)
    data = shape_of(x)
    spec = getattr(x, "element_spec", None)
    if data is None and spec is not None:
        # a dataset: the shape of its elements' inputs (the first of an (x, y) pair)
        data = shape_of(features_spec(spec))
    model = call.receiver
    try:
        declared = [shape_of(t) for t in model.inputs]
    except Exception:
        return None
    if data is None or len(declared) != 1 or declared[0] is None:
        return None
    want = declared[0]
    if len(want) == len(data) == 3:
        return steps_against_input(call, model, want, data, spec, str(exc))
    if len(want) != len(data) or len(want) != 4:
        return None  # images and sequences only
    differ = [i for i in range(1, len(want) - 1) if want[i] is not None and data[i] != want[i]]
    if not differ or data[-1] != want[-1]:
        return None  # another channel count or order (channels first) is not a size to resize
    text = call.text("x")
    size = tuple(want[i] for i in range(1, len(want) - 1))
    if spec is not None and all(d is not None for d in data[1:]):
        made = (
            " (image_dataset_from_directory resizes to image_size=(256, 256) unless given one)"
            if data[1:3] == (256, 256)
            else ""
        )
        return Violation(
            "S01",
            text,
            f"the model was built for examples of shape {fmt(want[1:])}, but the dataset "
            f"`{text}` yields images of {fmt(data[1:])}{made}",
            f"make the dataset yield {size}: `image_size={size}` where it is made, or "
            + (
                f"`.map(lambda x, y: (tf.image.resize(x, {size}), y))`"
                if isinstance(spec, tuple)
                else f"`.map(lambda x: tf.image.resize(x, {size}))`"
            )
            + "; or build the model for "
            f"{fmt(data[1:])}",
        )
    if spec is not None:
        return None  # a dataset whose image size is not fixed: another rule reads its batches
    return Violation(
        "S01",
        text,
        f"the model was built for examples of shape {fmt(want[1:])}, but `{text}` holds "
        f"{fmt(data[1:])}: layers sized by the input (a Flatten before a Dense) then fail",
        f"resize the data to {size} (tf.image.resize, keras.layers.Resizing), or build the model "
        f"for {fmt(data[1:])} (GlobalAveragePooling instead of Flatten keeps it independent of the "
        "size)",
    )


def series_row(call: LiveCall, exc: BaseException) -> Violation | None:
    """One table row given as a pandas Series (``df.iloc[0]``): Keras reads its values as that
    many examples of one feature, where the model takes one example of that many."""
    x = call.values.get("x", UNREAD)
    if type(x).__name__ != "Series" or not type(x).__module__.startswith("pandas"):
        return None
    try:
        declared = [shape_of(t) for t in call.receiver.inputs]
    except Exception:
        return None
    if len(declared) != 1 or declared[0] is None or declared[0][1:] != (len(x),):
        return None
    text = call.text("x")
    indexed = re.fullmatch(r"(.+)\[([^\[\]]+)\]", text)  # df.iloc[0] -> df.iloc[[0]]
    frame = f"{indexed.group(1)}[[{indexed.group(2)}]]" if indexed else f"{text}.to_frame().T"
    return Violation(
        "S12",
        text,
        f"`{text}` is one row as a pandas Series of {len(x)} values (index {list(x.index)[:6]}); "
        f"Keras reads a Series as {len(x)} examples of one feature, and the model takes one "
        f"example of {len(x)}",
        f"pass the row as a one-row table: `{frame}` (a DataFrame keeps the row axis), or "
        f"`{text}.to_numpy()[None, :]`",
    )


def dataset_columns_for_one_input(call: LiveCall, exc: BaseException) -> Violation | None:
    """A dataset whose features are a dict of columns (``make_csv_dataset``,
    ``from_tensor_slices(dict(df))``) given to a model with one Input that is not keyed."""
    x = call.values.get("x", UNREAD)
    spec = getattr(x, "element_spec", None)
    features = features_spec(spec)
    if not isinstance(features, dict) or len(features) < 2:
        return None
    model = call.receiver
    try:
        inputs = list(model.inputs)
    except Exception:
        return None
    if len(inputs) != 1 or isinstance(getattr(model, "_inputs_struct", None), dict):
        return None
    keys = [str(k) for k in features]
    target = ""
    if features is spec:  # the element is the dict alone: no labels beside it
        named = [k for k in keys if TARGET_NAME.fullmatch(k.lower())]
        width = shape_of(inputs[0])
        if len(named) == 1 and (not width or width[-1] in (None, len(keys) - 1)):
            target = named[0]
    problem, hint = columns_for_one_input(keys, target)
    return Violation("S12", call.text("x"), problem, hint)


def text_dataset_into_numeric_model(call: LiveCall, exc: BaseException) -> Violation | None:
    """A dataset of raw text (tf.string features) given to a model with no layer that turns
    text into numbers (TextVectorization, StringLookup, Hashing)."""
    x = call.values.get("x", UNREAD)
    spec = getattr(x, "element_spec", None)
    features = features_spec(spec)
    if getattr(getattr(features, "dtype", None), "name", "") != "string":
        return None
    try:
        layers = list(call.receiver.layers)
    except Exception:
        return None
    if not layers or any(type(layer).__name__ in TEXT_LAYERS for layer in layers):
        return None
    first = layers[0]
    text = call.text("x")
    samples = source_strings(x)
    if kind_of_strings(samples) == "ids":
        shown = ", ".join(repr(v) for v in samples[:3])
        return Violation(
            "S11",
            text,
            f"`{text}` yields strings that are single ids ({shown}, ...), and the model's "
            f"first layer, '{first.name}' ({type(first).__name__}), takes numbers",
            "look each id up as an integer inside the model: `ids = keras.Input(shape=(), "
            "dtype='string')`, `lookup = keras.layers.StringLookup()`, `lookup.adapt("
            + text
            + ".map(lambda x, y: x))`, then `keras.layers.Embedding(lookup.vocabulary_size(), "
            "8)(lookup(ids))`",
        )
    made = text_layer_in(call.namespaces, call.filename)
    if made is not None:  # the user's own text layer exists: it is not applied to the data
        name, layer = made
        return Violation(
            "S11",
            text,
            f"`{text}` yields raw text (tf.string), and the model has no layer that turns text "
            f"into numbers; `{name}` ({type(layer).__name__}) is made but neither in the model "
            f"nor mapped over `{text}`: its first layer, '{first.name}' "
            f"({type(first).__name__}), takes numbers",
            f"map `{name}` over the data, `{text}.map(lambda x, y: ({name}(x), y))`, or make "
            f"`{name}` the model's first layer (after `keras.Input(shape=(), dtype='string')`)",
        )
    vectorize = (
        "`vectorize = keras.layers.TextVectorization(max_tokens=10000, "
        "output_sequence_length=100)`, `vectorize.adapt(" + text + ".map(lambda x, y: x))`"
    )
    return Violation(
        "S11",
        text,
        f"`{text}` yields raw text (tf.string), and the model has no layer that turns text into "
        f"numbers: its first layer, '{first.name}' ({type(first).__name__}), takes numbers"
        + (" (integer token ids)" if type(first).__name__ == "Embedding" else ""),
        f"adapt a TextVectorization on the texts and map it over the data: {vectorize}, then "
        f"`{text}.map(lambda x, y: (vectorize(x), y))`; or make it the model's first layer "
        "(after `keras.Input(shape=(), dtype='string')`)",
    )
