"""Contracts on what kind of value an API takes, whatever the API: data, not the method that
makes it; an instance, not its class; tensors of one shape, not a ragged Python list.

- An argument that is a library object's method itself (``set_weights(m.get_weights)``)
  where the API takes what the method returns.
- A method called on a class (``opt = keras.optimizers.Adam``, then
  ``opt.apply_gradients(...)``) where the API is a method of its instances.
- A layer or model called directly on a Python list of numbers or on a ``tf.data``
  dataset: a layer call takes tensors (``predict`` takes datasets).
- A Python list of arrays of different shapes where the API makes one tensor of it.
- A ``tf.RaggedTensor`` given to ``fit``/``evaluate``/``predict`` of a model whose layers take
  one length per row.

Each check reads the live arguments of the failing call
(:class:`~tfnb_debug.explain._api.LiveCall`) and returns a
:class:`~tfnb_debug.explain._violation.Violation` only when the value is of the wrong
kind; :mod:`tfnb_debug.explain._contracts` registers them.
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall, evaluate, public_name
from tfnb_debug.explain._violation import Violation, fmt, shape_of
from tfnb_debug.explain._violation import is_a as _is_a

_LIBRARIES = ("keras", "tensorflow", "tf_keras")
# parameters that take a function (a method given there is what the API wants)
_TAKES_CALLABLE = {
    "fn", "func", "function", "map_func", "predicate", "generator", "loss", "metrics",
    "activation", "schedule", "callbacks", "initializer", "key_func", "reduce_func",
    "preprocessing_function", "custom_objects", "standardize", "split", "f", "true_fn",
    "false_fn", "body", "cond", "call_fn", "python_function",
}  # fmt: skip


def _library(obj: Any) -> bool:
    module = str(getattr(obj, "__module__", "") or getattr(type(obj), "__module__", ""))
    return module.split(".")[0] in _LIBRARIES


def method_not_called(call: LiveCall, exc: BaseException) -> Violation | None:
    """A library object's method given as an argument where the API takes its result."""
    if not re.search(r"\bmethod\b|\bfunction\b|callable", str(exc)):
        return None  # the error is not about the method (Python names its type 'method')
    for name, value in call.values.items():
        if name in _TAKES_CALLABLE or value is UNREAD or not inspect.ismethod(value):
            continue
        owner = value.__self__
        if not _library(owner) or not _no_required_arguments(value):
            continue
        text = call.text(name)
        return Violation(
            "S12",
            text,
            f"`{text}` is the method itself, not what it returns: `{call.api}` got a bound "
            f"method as `{name}`",
            f"call it: `{text}()`",
        )
    return None


def _no_required_arguments(method: Any) -> bool:
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(
        p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        for p in parameters
    )


def receiver_is_class(call: LiveCall, exc: BaseException) -> Violation | None:
    """An instance method called on the class itself (the class was bound, not an instance)."""
    if not isinstance(exc, TypeError) or "required positional argument" not in str(exc):
        return None
    head = call.source.partition("(")[0].strip()
    name, _, method = head.rpartition(".")
    if not name or not method or method.startswith("__"):
        return None
    try:
        receiver = evaluate(ast.parse(name, mode="eval").body, tuple(call.namespaces))
    except SyntaxError:
        return None
    if not inspect.isclass(receiver) or not _library(receiver):
        return None
    attribute = inspect.getattr_static(receiver, method, None)
    if not inspect.isfunction(attribute):
        return None  # a classmethod, staticmethod or attribute is called on the class itself
    public = public_name(receiver)
    return Violation(
        "S12",
        name,
        f"`{name}` is the class {public}, not an instance of it, so `{method}` got no "
        "`self` and its first argument took that place",
        f"create the instance where `{name}` is made: `{name} = {public}()` (with its "
        "arguments), then call its methods",
    )


def list_into_layer(call: LiveCall, exc: BaseException) -> Violation | None:
    """A layer or model called directly on a Python list of numbers or on a dataset."""
    if "Only input tensors may be passed" not in str(exc):
        return None
    layer = call.callee
    if call.method != "__call__" or not _is_a(layer, "Layer"):
        return None
    inputs = next(iter(call.values.values()), UNREAD)
    text = call.text(next(iter(call.values), "inputs"))
    kind = "model" if _is_a(layer, "Model") else "layer"
    callee = call.source.partition("(")[0].strip() or kind
    if _is_a(inputs, "DatasetV2") or "Dataset" in type(inputs).__name__:
        return Violation(
            "S12",
            text,
            f"the {kind} is called directly on the dataset `{text}`: a direct call takes a "
            "tensor (one batch), not a dataset",
            f"run it over the dataset with `{callee}.predict({text})`, or call it per batch: "
            f"`for x_batch in {text}: {callee}(x_batch)` (a dataset of (x, y) pairs: "
            "`for x_batch, _ in ...`)",
        )
    if isinstance(inputs, list | tuple) and inputs and _numbers(inputs):
        return Violation(
            "S12",
            text,
            f"the {kind} is called on a Python {type(inputs).__name__} of numbers; a call takes "
            "tensors (a list is read as several inputs)",
            f"convert it first: `np.array({text}, dtype='float32')` (or `tf.constant(...)`)",
        )
    return None


def _numbers(items: Any, depth: int = 0) -> bool:
    if depth > 3:
        return False
    if isinstance(items, list | tuple):
        return bool(items) and all(_numbers(i, depth + 1) for i in items[:16])
    return isinstance(items, int | float) and not isinstance(items, bool)


def ragged_list(call: LiveCall, exc: BaseException) -> Violation | None:
    """A Python list of sequences or arrays of different shapes where the API makes one
    tensor of it: token-id lists of different lengths (pad them), images of different sizes
    (resize them)."""
    if not re.search(r"non-rectangular Python sequence|inhomogeneous shape", str(exc)):
        return None
    values = dict(call.values)
    for name, value in call.values.items():
        written = call.text(name).strip()
        if isinstance(value, tuple) and len(value) <= 4 and written[:1] == "(":
            # from_tensor_slices((sentences, labels)): each part, by its own name
            parts = [t.strip() for t in written[1:-1].split(",")]
            for part, item in zip(parts, value, strict=False):
                if isinstance(item, list) and part.isidentifier():
                    values[part] = item
    for name, value in values.items():
        if not isinstance(value, list | tuple) or len(value) < 2:
            continue
        every = [_item_shape(v) for v in value[:20000]]
        shapes = every[:256]
        if any(s is None for s in shapes) or len(set(shapes)) < 2:
            continue
        first = shapes[0]
        other = next(s for s in shapes if s != first)
        at = shapes.index(other)
        text = call.text(name)
        if _several_tensors(shapes):
            return _tensors_in_a_list(call, text, value, shapes)
        if all(s is not None and len(s) == 1 for s in shapes):
            cut = _cut_by_the_end([int(s[0] or 0) if s and len(s) == 1 else -1 for s in every])
            if cut:
                full, short = cut
                return Violation(
                    "S13",
                    text,
                    f"the last {short} items of `{text}` are shorter than the {full} before "
                    f"them ({full - 1} down to {full - short}): windows sliced past the end of "
                    "the series",
                    f"let the loop that slices them stop where a whole window still fits: "
                    f"`range(len(series) - {full} + 1)` for windows of {full}",
                )
            lengths = sorted({int(s[0] or 0) for s in shapes if s is not None})
            a, b = (first or (0,))[0], (other or (0,))[0]
            return Violation(
                "S13",
                text,
                f"`{text}` holds sequences of different lengths ({lengths[0]} to {lengths[-1]}: "
                f"{a} at 0, {b} at {at}), and `{call.api}` makes one rectangular "
                "tensor of them",
                f"pad them to one length first: `keras.utils.pad_sequences({text}, "
                f'padding="post")` (maxlen= to cut long ones; an Embedding with mask_zero=True '
                "then ignores the padding), or keep them ragged with `tf.ragged.constant`",
            )
        return Violation(
            "S13",
            text,
            f"`{text}` is a list of arrays of different shapes ({fmt(first)} at 0, {fmt(other)} "
            f"at {at}), and `{call.api}` makes one tensor of it, which needs one shape",
            "bring them to one shape first (resize or pad each, e.g. "
            "`[tf.image.resize(a, size) for a in items]` for images), or handle them one at a "
            "time (a ragged tensor, `tf.ragged.constant`, where the API takes one)",
        )
    return None


def _cut_by_the_end(lengths: list[int]) -> tuple[int, int] | None:
    """(window length, how many are short) when the lengths are one length, then one less
    each, to the end: slices ``x[i:i + size]`` for ``i`` running past ``len(x) - size``."""
    full = lengths[0]
    start = next((i for i, n in enumerate(lengths) if n != full), None)
    if start is None or start < 1:
        return None
    tail = lengths[start:]
    if any(n != full - 1 - k for k, n in enumerate(tail)):
        return None
    return full, len(tail)


def _several_tensors(shapes: list[tuple[int | None, ...] | None]) -> bool:
    """A short list whose items are different tensors, not examples of one kind: their ranks
    differ (features and labels), or they share the first axis (one count of examples) and
    differ after it (two inputs of different widths)."""
    if len(shapes) > 4 or any(s is None for s in shapes):
        return False
    ranks = {len(s or ()) for s in shapes}
    if len(ranks) > 1:
        return True
    firsts = {(s or (None,))[0] for s in shapes}
    return min(ranks) >= 2 and len(firsts) == 1 and None not in firsts and firsts != {1}


def _tensors_in_a_list(
    call: LiveCall, text: str, value: Any, shapes: list[tuple[int | None, ...] | None]
) -> Violation:
    """S12: ``[x, y]`` where the API reads a list as one tensor to build; a tuple keeps them apart."""
    listed = ", ".join(fmt(s) for s in shapes)
    literal = re.fullmatch(r"\[(.*)\]", text.strip(), re.S)
    as_tuple = f"({literal.group(1)})" if literal else f"tuple({text})"
    return Violation(
        "S12",
        text,
        f"`{text}` is a {type(value).__name__} of {len(shapes)} different tensors (shapes "
        f"{listed}), and `{call.api}` reads a {type(value).__name__} as the values of one "
        "tensor, which needs one shape",
        (
            f"pass them as a tuple, `{as_tuple}`: a tuple is a structure of separate tensors "
            "(features and labels, or several inputs), each sliced on its own first axis"
            if re.search(r"Dataset|\.(fit|evaluate|predict|train_on_batch)$", call.api)
            else f"keep them apart: convert each one on its own (`{call.api}(...)` per item); "
            "one tensor holds values of one shape"
        ),
    )


def _item_shape(value: Any, depth: int = 0) -> tuple[int | None, ...] | None:
    """The shape of an array, or of a (nested) Python list of numbers; None when it has none."""
    shape = shape_of(value)
    if shape is not None or not isinstance(value, list | tuple) or depth > 3:
        return shape
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return (len(value),)
    inner = {_item_shape(v, depth + 1) for v in value[:256]}
    if len(inner) != 1 or None in inner:
        return None
    return (len(value), *next(iter(inner)))  # type: ignore[misc]


def ragged_data(call: LiveCall, exc: BaseException) -> Violation | None:
    """A tf.RaggedTensor given to fit/evaluate/predict of a model whose Input is dense: rows of
    different lengths where the layers take one length."""
    if "ragged" not in str(exc).lower():
        return None
    x = call.value("x")
    if type(x).__name__ != "RaggedTensor":
        return None
    text = call.text("x")
    try:
        lengths = [int(n) for n in x.row_lengths().numpy()[:10000]]
    except Exception:
        lengths = []
    try:
        width = call.receiver.inputs[0].shape[-1]
    except Exception:
        width = None
    spread = f" (rows of {min(lengths)} to {max(lengths)} values)" if lengths else ""
    size = width if isinstance(width, int) else (max(lengths) if lengths else "length")
    return Violation(
        "S13",
        text,
        f"`{text}` is a tf.RaggedTensor{spread}, and the model's layers take a dense tensor of "
        "one length per row",
        f"pad it to one length: `{text}.to_tensor(shape=(None, {size}))` (or make it dense where "
        "it is made, e.g. TextVectorization(output_sequence_length=...) without ragged=True)",
    )
