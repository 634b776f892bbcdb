"""Call contracts of the data and op APIs whose errors come from deep inside TensorFlow.

Each check reads the live arguments of the failing call (a
:class:`~tfnb_debug.explain._api.LiveCall`) against what the API documents and
returns a :class:`~tfnb_debug.explain._violation.Violation` only when an
argument breaks it; the fix is built from the argument itself (its dtype, its
channels, its type) and is never one the call already follows.

- ``Model.fit(class_weight=...)`` takes a dict ``{class index: weight}``.
- ``Model.fit``/``evaluate`` take one target per model output (a list or a dict by output name).
- ``Dataset.padded_batch(padding_values=...)`` takes values of each component's dtype.
- ``tf.image`` colour ops take a channel axis of 3 (``rgb_to_*``, saturation, hue) or 1
  (``grayscale_to_rgb``).
- ``tf.nn.softmax_cross_entropy_with_logits`` takes labels shaped like the logits (one-hot or
  probabilities); ``sparse_softmax_cross_entropy_with_logits`` takes class ids, one axis less.
- ``Layer.set_weights`` needs a built layer (its weights exist once it has an input shape).
- ``tf.math.confusion_matrix`` takes class ids for both labels and predictions.
- ``Lambda`` passes its inputs to the function as one argument, symbolic (no batch size).
- ``tf.nn.*_cross_entropy_with_logits`` takes ``labels`` first, then ``logits``.
- ``Model.fit``/``evaluate``: ``validation_data``'s third element is sample weights (not a
  batch size or a split), ``sample_weight`` is one weight per sample (class weights are
  ``class_weight``), and a generator or ``PyDataset`` gives a batch per item.
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._operands import item_texts
from tfnb_debug.explain._output_axes import dataset_labels
from tfnb_debug.explain._returned_lists import listed_item
from tfnb_debug.explain._sequence_lists import sequence_lists
from tfnb_debug.explain._violation import Violation, fmt, is_a, output_names, shape_of


def _kind(value: Any) -> str:
    shape = shape_of(value)
    if shape is not None:
        return f"a {type(value).__name__} of shape {fmt(shape)}"
    if isinstance(value, list | tuple):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__}"


def class_weight_type(call: LiveCall, exc: BaseException) -> Violation | None:
    """``fit(class_weight=...)`` given an array or list (``compute_class_weight`` returns one)."""
    weights = call.value("class_weight")
    if weights is UNREAD or weights is None or isinstance(weights, dict):
        return None
    if "get" not in str(exc) and "class_weight" not in str(exc):
        return None  # Keras reads the dict with .get: another error is another cause
    if not (isinstance(weights, list | tuple) or shape_of(weights) is not None):
        return None
    text = call.text("class_weight")
    return Violation(
        "S12",
        text,
        f"`class_weight` takes a dict {{class index: weight}}, and `{text}` is {_kind(weights)}",
        f"pass `class_weight=dict(enumerate({text}))` (the weight of class i at position i, as "
        "sklearn's compute_class_weight returns it for classes 0..n-1)",
    )


def padding_values_dtype(call: LiveCall, exc: BaseException) -> Violation | None:
    """``padded_batch(padding_values=v)`` where v's type is not the component's dtype."""
    values = call.value("padding_values")
    dataset = call.receiver
    spec = getattr(dataset, "element_spec", None)
    if values is UNREAD or values is None or spec is None:
        return None
    specs = spec if isinstance(spec, tuple) else (spec,)
    given = values if isinstance(values, tuple) else (values,) * len(specs)
    text = call.text("padding_values")
    for index, (component, value) in enumerate(zip(specs, given, strict=False)):
        dtype = getattr(getattr(component, "dtype", None), "name", "")
        if not dtype:
            continue
        value_dtype = getattr(getattr(value, "dtype", None), "name", "")
        if isinstance(value, bool):
            value_dtype = "bool"
        elif isinstance(value, float):
            value_dtype = "float"
        elif isinstance(value, int):
            value_dtype = "int"
        elif isinstance(value, str | bytes):
            value_dtype = "string"
        fits = (
            value_dtype == dtype
            or (value_dtype == "int" and dtype.startswith(("int", "uint", "float")))
            or (value_dtype == "float" and dtype.startswith(("float", "bfloat")))
            or (value_dtype == "string" and dtype == "string")
        )
        if fits or not value_dtype:
            continue
        which = f"component {index}" if len(specs) > 1 else "the elements"
        if dtype.startswith(("int", "uint")) and value_dtype.startswith("float"):
            number = value if isinstance(value, float) else None
            fix = (
                f"`padding_values={int(number)}`"
                if number is not None and float(number).is_integer()
                else f"an integer value, or `tf.constant(v, tf.{dtype})`"
            )
        else:
            fix = f"a value of dtype {dtype}: `tf.constant(v, tf.{dtype})`"
        return Violation(
            "S11",
            text,
            f"`padding_values` {value!r} is {value_dtype}, but {which} are {dtype}: the padding "
            "must have the dtype of what it pads",
            f"use {fix}",
        )
    return None


_THREE_CHANNELS = (
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "rgb_to_yiq",
    "rgb_to_yuv",
    "adjust_saturation",
    "adjust_hue",
    "random_saturation",
    "random_hue",
)


def image_channels(call: LiveCall, exc: BaseException) -> Violation | None:
    """A ``tf.image`` colour op given images whose channel axis is not the one it converts."""
    op = call.api.rsplit(".", 1)[-1]
    name = "images" if "images" in call.values else "image"
    shape = shape_of(call.value(name))
    if shape is None or len(shape) < 3 or shape[-1] is None:
        return None
    channels = int(shape[-1])
    text = call.text(name)
    if op in _THREE_CHANNELS and channels != 3:
        if channels == 1:
            fix = (
                f"`{text}` is already single-channel: leave the conversion out"
                if op == "rgb_to_grayscale"
                else f"`{text}` is single-channel: convert it first with "
                f"`tf.image.grayscale_to_rgb({text})`, or leave the colour op out"
            )
        else:
            fix = f"give it the 3 RGB channels (`{text}[..., :3]` when the 4th is alpha)"
        return Violation(
            "S07",
            text,
            f"`{call.api}` works on 3 channels (RGB) on the last axis; `{text}` {fmt(shape)} has "
            f"{channels}",
            fix,
        )
    if op == "grayscale_to_rgb" and channels != 1:
        return Violation(
            "S07",
            text,
            f"`{call.api}` takes 1 channel on the last axis; `{text}` {fmt(shape)} has {channels}",
            "the images already have colour channels: leave the conversion out"
            if channels == 3
            else "give it single-channel images (H, W, 1)",
        )
    return None


def softmax_labels(call: LiveCall, exc: BaseException) -> Violation | None:
    """``tf.nn.(sparse_)softmax_cross_entropy_with_logits`` given labels of the other form."""
    op = call.api.rsplit(".", 1)[-1]
    labels, logits = shape_of(call.value("labels")), shape_of(call.value("logits"))
    if labels is None or logits is None or not logits:
        return None
    text = call.text("labels")
    dense = op == "softmax_cross_entropy_with_logits"
    if dense and len(labels) == len(logits) - 1:
        return Violation(
            "M05",
            text,
            f"`{call.api}` takes labels shaped like the logits {fmt(logits)} (one-hot or "
            f"probabilities); `{text}` {fmt(labels)} holds one class id per example",
            f"use `tf.nn.sparse_softmax_cross_entropy_with_logits(labels={text}, logits=...)` "
            f"for class ids, or one-hot them: `tf.one_hot({text}, {logits[-1]})`",
        )
    if op == "sparse_softmax_cross_entropy_with_logits" and len(labels) == len(logits):
        return Violation(
            "M05",
            text,
            f"`{call.api}` takes one class id per example (shape {fmt(logits[:-1])}); `{text}` "
            f"{fmt(labels)} has the logits' shape (one-hot or probabilities)",
            f"use `tf.nn.softmax_cross_entropy_with_logits` with these labels, or class ids: "
            f"`tf.argmax({text}, axis=-1)`",
        )
    return None


def set_weights_unbuilt(call: LiveCall, exc: BaseException) -> Violation | None:
    """``layer.set_weights(ws)`` on a layer that is not built, so it has no weights yet."""
    layer = call.receiver
    weights = call.value("weights")
    if layer is None or getattr(layer, "built", True) or not isinstance(weights, list | tuple):
        return None
    if getattr(layer, "weights", None):
        return None
    shapes = [shape_of(w) for w in weights]
    first = shapes[0] if shapes else None
    features = first[0] if first and len(first) == 2 else None
    build = (
        f"`{call.source.split('.set_weights')[0]}.build((None, {features}))`"
        if features is not None and ".set_weights" in call.source
        else "`layer.build(input_shape)`"
    )
    return Violation(
        "S04",
        call.text("weights"),
        f"{type(layer).__name__} '{getattr(layer, 'name', '?')}' is not built, so it has no "
        f"weights to set yet (given {len(weights)}: " + ", ".join(fmt(s) for s in shapes[:4]) + ")",
        f"build it first: {build} (the kernel's first axis is the input's features), or call "
        "it on an input, then set_weights",
    )


def _target_count(y: Any) -> int | None:
    """How many targets ``y`` holds: 1 for an array or tensor, its length for a list/tuple/dict."""
    if isinstance(y, dict):
        return len(y)
    if isinstance(y, list | tuple):
        if y and all(isinstance(v, int | float) for v in y):
            return 1  # a plain list of label values
        return len(y)
    return 1 if shape_of(y) is not None else None


def fit_targets(call: LiveCall, exc: BaseException) -> Violation | None:
    """``fit``/``evaluate`` given a number of targets other than the model's outputs."""
    if "structure" not in str(exc) and "same nested" not in str(exc):
        return None
    model = call.receiver
    try:
        outputs = list(model.outputs)
    except Exception:
        return None
    y = call.value("y")
    x = call.value("x")
    from_dataset = y is UNREAD or y is None
    if from_dataset:
        y = dataset_labels(x)
    count = _target_count(y) if y is not UNREAD else None
    if count is None or count == len(outputs):
        return None
    names = output_names(model)
    text = f"the labels of `{call.text('x')}`" if from_dataset else f"`{call.text('y')}`"
    what = "one target" if count == 1 else f"{count} targets"
    listed = ", ".join(f"'{n}'" for n in names)
    if len(outputs) > 1:
        fix = (
            f"pass one target per output, in the order of model.outputs: a list of {len(outputs)} "
            f"arrays, or a dict keyed by output name {{{', '.join(repr(n) + ': ...' for n in names)}}}"
        )
    elif (
        not from_dataset
        and isinstance(y, list | tuple)
        and len({shape_of(t) for t in y}) == 1
        and shape_of(y[0]) is not None
        and len(shape_of(y[0]) or ()) == 1
    ):
        # several 1-D targets for one output: one model predicting them all, or one output each
        width = tuple(getattr(outputs[0], "shape", ()) or ())
        parts = f"[{', '.join(item_texts(call.text('y'), len(y)))}]"
        fix = (
            f"to fit the {len(y)} targets with this one output, stack them into one "
            f"({len(y[0])}, {len(y)}) array, `np.stack({parts}, axis=1)`, and give the output "
            f"layer {len(y)} units (it has {width[-1] if width else '?'}); or give the model "
            f"{len(y)} outputs, one per target"
        )
    else:
        fix = "pass the one target array this output is compared with"
    return Violation(
        "S12",
        call.text("x") if from_dataset else call.text("y"),
        f"the model has {len(outputs)} output{'s' if len(outputs) != 1 else ''}"
        + (f" ({listed})" if listed else "")
        + " but "
        f"{text} give{'s' if not from_dataset else ''} {what}",
        fix,
    )


def target_keys(call: LiveCall, exc: BaseException) -> Violation | None:
    """``fit``/``evaluate`` given a dict of targets keyed by names that are not the model's
    output names (Keras then reads a key where it wanted an array: "got box of type 'str'")."""
    y = call.value("y")
    if not isinstance(y, dict) or not y:
        return None
    names = output_names(call.receiver)
    if not names:
        return None
    keys = [str(k) for k in y]
    extra = [k for k in keys if k not in names]
    absent = [n for n in names if n not in keys]
    if not extra:
        return None
    text = call.text("y")
    pairs = (
        f"; rename {', '.join(repr(k) for k in extra)} to {', '.join(repr(n) for n in absent)}"
        if len(extra) == len(absent) == 1
        else ""
    )
    return Violation(
        "S12",
        text,
        f"`{text}` is keyed by {keys}, but the model's outputs are named {names}: "
        f"{', '.join(repr(k) for k in extra)} names no output",
        f"key the targets by the output names {names}{pairs} (the names given to the output "
        "layers, or the keys of the model's output dict)",
    )


def lambda_function(call: LiveCall, exc: BaseException) -> Violation | None:
    """A ``Lambda`` whose function cannot run on the symbolic input: it takes the layer's list
    of inputs as several parameters (Lambda passes the list as one), or it reads the batch size
    ``x.shape[0]`` (None while Keras infers the output).  Keras then asks for ``output_shape``,
    which would not help: the function itself fails."""
    import inspect
    import re

    layer = call.receiver
    function = getattr(layer, "function", None)
    if type(layer).__name__ != "Lambda" or not callable(function):
        return None
    if "infer the shape" not in str(exc) and "None" not in str(exc):
        return None  # not a failure of running the function on the symbolic input
    try:
        params = [
            p
            for p in inspect.signature(function).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):
        params = []
    inputs = call.value("inputs")
    if inputs is UNREAD and call.values:
        inputs = next(iter(call.values.values()))
    given = len(inputs) if isinstance(inputs, list | tuple) else 1
    names = [p.name for p in params]
    if len(names) > 1 and given > 1:
        first = names[0]
        body = ", ".join(f"{first}[{i}]" for i in range(given))
        return Violation(
            "S12",
            "the Lambda's function",
            f"Lambda calls its function with one argument, the list of {given} inputs, but the "
            f"function takes {len(names)} ({', '.join(names)}): `{names[1]}` gets nothing "
            "(declaring the output shape would not help: the function itself fails)",
            f"take the list as one parameter and unpack it: `lambda {first}: ...` using {body} "
            f"(e.g. `{first}[0] - {first}[1]`), or `lambda t: f(*t)`",
        )
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return None
    static = re.search(r"\b(\w+)\.shape\[0\]", source)
    if static is None:
        return None
    name = static.group(1)
    return Violation(
        "T02",
        f"{name}.shape[0]",
        f"the Lambda's function reads `{name}.shape[0]`, the batch size, which is None on the "
        "symbolic input Keras runs it on to infer the output (declaring the output shape would "
        "not help: the function itself fails)",
        f"use the dynamic size `tf.shape({name})[0]` (or build the tensor from `{name}` itself, "
        f"e.g. `tf.zeros_like({name}[:, :k])`)",
    )


def fit_argument_kinds(call: LiveCall, exc: BaseException) -> Violation | None:
    """An argument of ``fit``/``evaluate`` given what another argument takes, which Keras
    reports as "Unrecognized data type" or a batch of rank 0: a batch size (or a split) as
    ``validation_data``'s third element, class weights as ``sample_weight``, a generator or
    ``PyDataset`` that gives one example where Keras takes a batch."""
    text = str(exc)
    found = _validation_third(call) or _class_weights_as_sample_weight(call)
    if found is not None:
        return found
    if "at least rank 1" in text:
        return _one_example_per_batch(call)
    if "None values not supported" in text:
        return _batches_without_labels(call)
    if "Unrecognized data type" in text:
        return sequence_lists(call)
    return None


def _batches_without_labels(call: LiveCall) -> Violation | None:
    """A PyDataset (or Sequence) whose batches hold only the inputs, given to fit/evaluate of
    a model with a loss: the loss gets ``y=None``."""
    x = call.value("x")
    if not is_a(x, "PyDataset", "Sequence"):
        return None
    if call.value("y") not in (None, UNREAD) or getattr(call.receiver, "loss", None) is None:
        return None
    text, cls = call.text("x"), type(x).__name__
    return Violation(
        "S12",
        text,
        f"the batches of `{text}` reach the loss without labels (y is None): "
        f"`{cls}.__getitem__` returns only the inputs, and fit takes (inputs, labels) from "
        "each batch of a PyDataset (it has no y= of its own)",
        f"return both from `{cls}.__getitem__`: `return x_batch, y_batch` (a third element "
        "is a sample weight)",
    )


def _validation_third(call: LiveCall) -> Violation | None:
    value = call.value("validation_data")
    if not isinstance(value, tuple | list) or len(value) != 3:
        return None
    third = value[2]
    if isinstance(third, bool) or not isinstance(third, int | float):
        return None
    text = call.text("validation_data")
    if isinstance(third, float) and 0 < third < 1:
        hint = (
            f"to hold out a share of the training data, pass validation_split={third} instead "
            "of validation_data; to keep the validation arrays, pass only the two of them"
        )
    else:
        hint = (
            f"pass the arrays alone, validation_data=(x_val, y_val), and the batch size as "
            f"validation_batch_size={third}"
        )
    return Violation(
        "S12",
        text,
        f"`validation_data`'s third element is {third!r}, but a third element is the "
        "validation sample_weight (one weight per sample), not a number",
        hint,
    )


def _class_weights_as_sample_weight(call: LiveCall) -> Violation | None:
    value = call.value("sample_weight")
    text = call.text("sample_weight")
    fit = call.api.endswith(".fit")
    if isinstance(value, dict) and value and all(isinstance(k, int) for k in value):
        problem = (
            f"`sample_weight` got a dict of {len(value)} weights keyed by class, but it takes "
            "one weight per sample (an array as long as x)"
        )
        if fit:
            hint = f"per-class weights are class_weight: pass class_weight={text}"
        else:
            hint = (
                "evaluate has no class_weight: give one weight per sample made from them, "
                f"sample_weight=np.array([{text}[c] for c in y])"
            )
        return Violation("S12", text, problem, hint)
    x = call.value("x")
    samples = len(x) if hasattr(x, "__len__") and hasattr(x, "shape") else None
    flat = isinstance(value, list | tuple) or len(getattr(value, "shape", ())) == 1
    if flat and samples is not None and len(value) != samples:
        problem = (
            f"`sample_weight` has {len(value)} values for {samples} samples: it takes one "
            "weight per sample"
        )
        classes = _class_count(call)
        per_class = fit and classes == len(value)
        if per_class:
            problem += f"; {len(value)} is the number of classes"
        hint = (
            f"these are one weight per class: pass class_weight=dict(enumerate({text}))"
            if per_class
            else "give one weight per sample"
        )
        return Violation("S12", text, problem, hint + f" ({samples} samples)")
    return None


def _class_count(call: LiveCall) -> int | None:
    """The number of classes of a classifier's fit: its output width (above 1), else the
    largest integer label + 1; None when neither can be read."""
    try:
        width = call.receiver.outputs[0].shape[-1]
    except Exception:
        width = None
    if isinstance(width, int) and width > 1:
        return width
    y = call.value("y")
    try:
        import numpy as np

        labels = np.asarray(y)
        if labels.dtype.kind in "iu" and labels.size:
            return int(labels.max()) + 1
    except Exception:
        return None
    return None


def _one_example_per_batch(call: LiveCall) -> Violation | None:
    import inspect

    x = call.value("x")
    text = call.text("x")
    if inspect.isgenerator(x):
        listed = listed_item(x.gi_code, f"`{text}` yields", "yield")
        if listed is not None:
            return listed
        return Violation(
            "S12",
            text,
            f"`{text}` yields one example at a time, but Keras takes each value a generator "
            "yields as a batch (its labels here have no batch axis: rank 0)",
            "yield batches, e.g. `yield x[i:i + 32], y[i:i + 32]`, or wrap the generator: "
            "tf.data.Dataset.from_generator(..., output_signature=...).batch(32)",
        )
    if any(c.__name__ == "PyDataset" for c in type(x).__mro__):
        getitem = getattr(type(x), "__getitem__", None)
        listed = listed_item(getitem, f"`{text}`'s __getitem__ returns", "return")
        if listed is not None:
            return listed
        return Violation(
            "S12",
            text,
            f"`{text}`'s __getitem__ returns one example, but a PyDataset's __getitem__(i) "
            "returns batch i (its labels here have no batch axis: rank 0)",
            "return a batch from __getitem__ (e.g. x[i * 32:(i + 1) * 32], y[...]) and the "
            "number of batches from __len__",
        )
    return None


def labels_logits_order(call: LiveCall, exc: BaseException) -> Violation | None:
    """``tf.nn.*_cross_entropy_with_logits`` given (logits, labels) in the wrong order."""
    labels, logits = call.values.get("labels", UNREAD), call.values.get("logits", UNREAD)
    ls, gs = shape_of(labels), shape_of(logits)
    if ls is None or gs is None:
        return None
    sparse = "sparse" in call.api
    swapped = len(ls) == len(gs) + 1 if sparse else False
    if not swapped:
        return None
    return Violation(
        "S12",
        call.source,
        f"`{call.api}` got labels of shape {fmt(ls)} and logits of shape {fmt(gs)}: the "
        "labels look like the logits and the other way round",
        "pass them by name: `labels=y_true, logits=y_pred` (the order is labels, then logits)",
    )
