"""Two contracts that a function mapped over a ``tf.data`` pipeline (and any layer call) breaks.

- **A layer or model called with a second positional argument.**  ``Layer.__call__`` hands
  its positional arguments to ``call(inputs, training=None, mask=None)`` in order, so
  ``augment(x, y)`` puts the label ``y`` where ``training`` goes; Keras then passes
  ``training`` itself and Python refuses "got multiple values for argument 'training'".  The
  evidence is the call's arguments bound to ``call``'s parameters.
- **A per-example function mapped after ``batch()``.**  A ``map`` after ``batch()`` gets whole
  batches: every component has the batch axis first.  A function written for one example
  (``tf.image.random_crop(image, size=(24, 24, 3))``, a reshape to one example's shape) then
  fails on shapes.  The evidence is the mapped dataset's pipeline (a batching stage) and its
  element shapes against the shape error.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._evidence import DatasetStage, dataset_stages
from tfnb_debug.explain._violation import Violation, fmt, shape_of

_MULTIPLE = re.compile(r"(\w+)\.call\(\) got multiple values for argument '(\w+)'")
_TAKES = re.compile(r"\.__call__\(\) takes (\d+) positional arguments? but (\d+) were given")
_BATCHING = ("batch", "padded_batch", "ragged_batch")
_SHAPE_WORDS = re.compile(r"shape|rank|dimension|Dimensions must", re.I)


def positional_into_training(call: LiveCall, exc: BaseException) -> Violation | None:
    """A layer (or model) called with more positional arguments than its one input: the
    second lands in ``call``'s next parameter (``training``, ``mask``), or, for a layer whose
    ``__call__`` takes only the input (the preprocessing layers), is refused."""
    if not isinstance(exc, TypeError):
        return None
    multiple, takes = _MULTIPLE.search(str(exc)), _TAKES.search(str(exc))
    if multiple is not None:
        owner, param = multiple.group(1), multiple.group(2)
    elif takes is not None:
        owner, param = "", ""
    else:
        return None
    if call.method == "__call__" and takes is not None and call.receiver is not None:
        extra = int(takes.group(1)) - 1  # the first positional argument past `self, inputs`
        param = list(call.texts)[extra] if extra < len(call.texts) else ""
        owner = type(call.receiver).__name__
    layer = call.receiver if call.method == "__call__" else None
    if call.method == "__call__" and param in call.texts:
        names = list(call.texts)
        text, callee = call.texts[param], call.source.split("(", 1)[0]
        source = call.source
    else:
        # the layer was called inside a traced function (a Dataset.map, a tf.function):
        # its positional arguments, read from the frames; their text from the user's
        # source of that call
        layer_call = _layer_call(exc, owner)
        if layer_call is None:
            return None
        names, given, layer = layer_call
        owner = type(layer).__name__
        index = names.index(param) if param in names else int(takes.group(1)) - 1 if takes else -1
        if not 0 < index < given:
            return None
        written = _written_call(call, given)
        mapped = call.value("map_func") if call.api.endswith("Dataset.map") else None
        if written is None and mapped is layer and call.text("map_func").isidentifier():
            # the layer itself is mapped: map calls it with the element's parts, (x, y)
            written = (call.text("map_func"), ["x", "y", "sample_weight"][:given])
        if written is None:
            return None
        callee, args = written
        text = args[index]
        source = f"{callee}({', '.join(args)})"
    # augmentation runs only with training=True; other layers keep their default
    flag = ", training=True" if _augments(layer) else ""
    kept = (
        f"`lambda x, {text}: ({callee}(x{flag}), {text})` in the map"
        if _in_dataset_map(exc)
        else f"`{callee}(x{flag})`"
    )
    return Violation(
        "S12",
        text,
        f"`{source}` passes `{text}` as the positional argument after the input, and "
        + (
            f"{owner}.call takes `{param}` there ({', '.join(names[:4])}); Keras passes "
            f"`{param}` itself, so it got two values"
            if multiple is not None
            else f"a {owner} takes only its input positionally (call({', '.join(names[:3])}))"
        ),
        f"a layer or model takes its input as one argument: call it on the input alone and "
        f"keep `{text}` (a label, when the data is (x, y) pairs) apart: {kept}; several "
        "inputs go in one list, `model([a, b])`",
    )


def _augments(layer: object) -> bool:
    """A random augmentation layer, or a model made only of them."""
    inner = getattr(layer, "layers", None) if hasattr(layer, "layers") else [layer]
    return bool(inner) and all(type(x).__name__.startswith("Random") for x in inner or [])


def _layer_call(exc: BaseException, owner: str) -> tuple[list[str], int, object] | None:
    """(the parameters of ``call`` of the innermost layer called in the traceback (of class
    ``owner`` when given), how many positional arguments it was called with, the layer)."""
    import inspect

    found = None
    tb = exc.__traceback__
    while tb is not None:
        # Layer.__call__(self, *args) when Keras kept its frame; AutoGraph's converted_call(f,
        # args) when the layer was called in a traced function (Keras filters its frames out)
        local = tb.tb_frame.f_locals
        args = local.get("args")
        for key in ("self", "f"):
            layer = local.get(key)
            named = type(layer).__name__ == owner if owner else hasattr(layer, "built")
            if named and hasattr(layer, "call") and isinstance(args, tuple):
                found = (layer, len(args))
        tb = tb.tb_next
    if found is None:
        return None
    layer_found: Any = found[0]
    try:
        names = list(inspect.signature(layer_found.call).parameters)
    except (TypeError, ValueError):
        return None
    return names, found[1], found[0]


def _written_call(call: LiveCall, given: int) -> tuple[str, list[str]] | None:
    """(callee, argument texts) of the one call with ``given`` positional arguments in the
    function the failing call was given (``lambda x, y: augment(x, y)``)."""
    import ast

    for text in call.texts.values():
        try:
            tree = ast.parse(text.strip())
        except SyntaxError:
            continue
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and len(n.args) == given and not n.keywords
        ]
        if len(calls) == 1:
            return ast.unparse(calls[0].func), [ast.unparse(a) for a in calls[0].args]
    return None


def map_after_batch(call: LiveCall, exc: BaseException) -> Violation | None:
    """``Dataset.map`` of a function that failed on shapes, over a dataset that is already
    batched: the function gets batches, with the batch axis first."""
    if not call.api.endswith("Dataset.map") or not _SHAPE_WORDS.search(str(exc)):
        return None
    spec = getattr(call.receiver, "element_spec", None)
    parts = spec if isinstance(spec, tuple) else (spec,)
    shapes = [shape_of(p) for p in parts]
    function = call.text("map_func")
    labels = _callee_on_labels(function, shapes)
    if labels is not None:
        return labels
    stages = dataset_stages(call.receiver)
    if not _batched_before_map(stages):
        return None
    shown = ", ".join(fmt(s) for s in shapes if s is not None)
    first = next((s for s in shapes if s), None)
    if first is None:
        return None
    batch = next((s.batch_size for s in reversed(stages) if s.kind in _BATCHING), None)
    size = f"({batch})" if batch else "(...)"
    return Violation(
        "S07",
        function,
        f"`{function}` is mapped after `.batch{size}`, so it gets whole batches, {shown}, not "
        f"single examples of {fmt(first[1:])}: an op written for one example (an image op's "
        "size, a reshape) fails on the extra batch axis",
        f"map it before batching, `.map({function}).batch{size}`, so it sees one example; or "
        "write it for a batch (the batch axis first; Keras augmentation layers such as "
        "RandomCrop work on batches)",
    )


def _callee_on_labels(
    function: str, shapes: list[tuple[int | None, ...] | None]
) -> Violation | None:
    """S01: a lambda over (images, labels) that applies the same callee to both parts: the
    labels (a part two or more axes short of the images) are not images."""
    import ast

    try:
        node = ast.parse(function.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Lambda) or len(node.args.args) != len(shapes):
        return None
    params = {a.arg: shape for a, shape in zip(node.args.args, shapes, strict=True)}
    applied: dict[str, set[str]] = {}
    written: dict[tuple[str, str], str] = {}  # (callee, argument) -> the call as written
    for inner in ast.walk(node.body):
        if isinstance(inner, ast.Call) and inner.args and isinstance(inner.args[0], ast.Name):
            applied.setdefault(ast.unparse(inner.func), set()).add(inner.args[0].id)
            written[(ast.unparse(inner.func), inner.args[0].id)] = ast.unparse(inner)
    for callee, names in applied.items():
        ranks = {n: len(params[n] or ()) for n in names if n in params and params[n] is not None}
        # images have height, width and channels (and maybe a batch axis) past a label's axes
        images = [n for n, r in ranks.items() if r >= 3 and r >= min(ranks.values()) + 2]
        labels = [n for n, r in ranks.items() if images and r <= ranks[images[0]] - 2]
        if images and labels:
            label, image = labels[0], images[0]
            return Violation(
                "S01",
                function,
                f"`{callee}` is applied to `{label}` {fmt(params[label] or ())} as well as to "
                f"the images `{image}` {fmt(params[image] or ())}: the labels are not images, "
                "and an image layer cannot take them",
                f"apply it to the images only and pass the labels through: `lambda {image}, "
                f"{label}: ({written[(callee, image)]}, {label})`",
            )
    return None


def _batched_before_map(stages: tuple[DatasetStage, ...]) -> bool:
    """A batching stage with only element-preserving stages (prefetch, cache, repeat,
    shuffle) after it."""
    for stage in reversed(stages):
        if stage.kind in _BATCHING:
            return True
        if stage.kind not in ("prefetch", "cache", "repeat", "shuffle", "options"):
            return False
    return False


def _in_dataset_map(exc: BaseException) -> bool:
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename.replace("\\", "/")
        if "/data/ops/" in name and tb.tb_frame.f_code.co_name in ("map", "_map_v2"):
            return True
        tb = tb.tb_next
    return False


_BINARY_METRICS = (
    "AUC",
    "Precision",
    "Recall",
    "BinaryAccuracy",
    "TruePositives",
    "TrueNegatives",
    "FalsePositives",
    "FalseNegatives",
    "PrecisionAtRecall",
    "RecallAtPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
)


def binary_metric_two_columns(call: LiveCall, exc: BaseException) -> Violation | None:
    """A binary metric (AUC, Precision, ...) updated with a two-column softmax: it takes one
    probability of the positive class per example."""
    metric = call.receiver
    if type(metric).__name__ not in _BINARY_METRICS:
        return None
    y_true, y_pred = shape_of(call.values.get("y_true")), shape_of(call.values.get("y_pred"))
    if y_true is None or y_pred is None or len(y_pred) != 2 or y_pred[-1] != 2:
        return None
    if len(y_true) not in (1, 2) or (len(y_true) == 2 and y_true[-1] != 1):
        return None
    text = call.text("y_pred")
    return Violation(
        "S07",
        text,
        f"`{type(metric).__name__}` takes one probability (of the positive class) per example, "
        f"and `{text}` {fmt(y_pred)} has two columns (one per class) against "
        f"labels {fmt(y_true)}",
        f"give it the positive class's column: `{text}[:, 1]` (or make the model end in "
        "Dense(1, activation='sigmoid'))",
    )


_ASSERTED_TYPE = re.compile(r"must be of type tf\.(\w+); got tf\.(\w+)")


def map_element_dtype(call: LiveCall, exc: BaseException) -> Violation | None:
    """S11: a dtype check in the mapped function (``tf.debugging.assert_type``) refused a
    component of the dataset's elements: the array the dataset was made from has that dtype
    (NumPy's default float64), so the cast belongs where the dataset is made."""
    import ast

    import numpy as np

    from tfnb_debug.explain._assignments import assigned_before

    match = _ASSERTED_TYPE.search(str(exc))
    made = call.source.partition(".map(")[0].strip()
    if made.isidentifier() and call.filename:  # ds.map(check): where ds was made
        made = assigned_before(made, call.filename, call.lineno)
    if match is None or "from_tensor_slices" not in made:
        return None
    wanted, got = match.group(1), match.group(2)
    try:
        tree = ast.parse(made.strip())
    except SyntaxError:
        return None
    names = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
    space = call.namespaces
    found = [
        name
        for name in dict.fromkeys(names)
        for value in [next((s[name] for s in space if name in s), None)]
        if isinstance(value, np.ndarray) and value.dtype.name == got
    ]
    if len(found) != 1:
        return None
    name = found[0]
    return Violation(
        "S11",
        name,
        f"the mapped function checks for {wanted}, and `{name}`, which the dataset is made "
        f"from, is {got}" + (" (NumPy's default float type)" if got == "float64" else ""),
        f"cast it where the dataset is made: `{name}.astype('{wanted}')` in "
        "from_tensor_slices (or tf.cast in the mapped function)",
        evidence=f'`{name}`: {got}; TensorFlow: "must be of type tf.{wanted}; got tf.{got}"',
    )
