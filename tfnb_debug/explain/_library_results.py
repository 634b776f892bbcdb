"""The user's own line used a value a Keras or TensorFlow API returned as if it were another
kind of value: what that API returns, and how to get what the line wanted.

- ``fit`` returns a ``History``: its per-epoch values are ``history.history["loss"]``.
- ``evaluate`` returns the loss (a float) or ``[loss, *metrics]`` (a list), a dict only with
  ``return_dict=True``; ``predict`` returns NumPy arrays (no ``.numpy()``).
- A ``tf.data.Dataset`` has no index, no ``len`` when its length is unknown, and no
  ``.shape``: ``next(iter(ds))``, ``ds.take(n)``, ``ds.cardinality()``, ``ds.element_spec``.
- A ``tf.Tensor`` is immutable and has no NumPy methods: ``tf.reshape``, ``tf.cast``,
  ``tf.reduce_mean``, ..., or a ``tf.Variable`` and ``assign`` to change values.
- ``model.layers`` is a list: a layer by name is ``model.get_layer(name)``.

Read from the failing line of the user's code (parsed, never run), the live object the error
is about (``AttributeError.obj``, or the subscripted name's value) and the cell's earlier
assignment of that name; kept as plain text (:class:`Misuse`).
"""

from __future__ import annotations

import ast
import linecache
import re
import textwrap
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._assignments import assigned_from
from tfnb_debug.explain._result_keys import (
    Found,
    evaluate_unpacked,
    missing_key,
    short_history,
    weights_unpacked,
)
from tfnb_debug.explain._violation import is_a

# NumPy array methods and attributes a tensor lacks: the TensorFlow call that does the same
_NUMPY_ON_TENSOR = {
    "reshape": "tf.reshape({t}, shape)",
    "astype": "tf.cast({t}, dtype)",
    "mean": "tf.reduce_mean({t})",
    "sum": "tf.reduce_sum({t})",
    "max": "tf.reduce_max({t})",
    "min": "tf.reduce_min({t})",
    "std": "tf.math.reduce_std({t})",
    "argmax": "tf.argmax({t}, axis=-1)",
    "argmin": "tf.argmin({t}, axis=-1)",
    "flatten": "tf.reshape({t}, [-1])",
    "ravel": "tf.reshape({t}, [-1])",
    "squeeze": "tf.squeeze({t})",
    "transpose": "tf.transpose({t})",
    "T": "tf.transpose({t})",
    "clip": "tf.clip_by_value({t}, low, high)",
    "round": "tf.round({t})",
    "copy": "tf.identity({t})",
    "tolist": "{t}.numpy().tolist()",
    "item": "{t}.numpy().item()",
    "size": "tf.size({t})",
    "append": "tf.concat([{t}, more], axis=0)",
}
_NOT_SUBSCRIPTABLE = re.compile(r"'(\w+)' object is not subscriptable")
_ITEM_ASSIGNMENT = re.compile(r"'([\w.]+)' object does not support item assignment")
_STR_INDEX = "list indices must be integers or slices, not str"
_UNKNOWN_LENGTH = re.compile(r"The dataset length is unknown|The dataset is infinite")


@dataclass(frozen=True)
class Misuse:
    """A value a library API returned, used by the user's line as another kind of value."""

    name: str  # the user's expression for the value
    kind: str  # what it is ("the History that fit returned")
    problem: str
    hint: str
    filename: str
    lineno: int
    code: str = "S12"  # G05: a value cut short by a non-finite loss; S04: an unbuilt layer


def misused_result(exc: BaseException, is_user_file: Any) -> Misuse | None:
    """The misuse of a library result on the failing user line, or None."""
    tb = exc.__traceback__
    user = None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            user = tb
        tb = tb.tb_next
    if user is None:
        return None
    frame = user.tb_frame
    lines = linecache.getlines(frame.f_code.co_filename)
    if not 0 < user.tb_lineno <= len(lines):
        return None
    line = lines[user.tb_lineno - 1]
    spaces = (frame.f_locals, frame.f_globals)
    # raised on the user's line itself, or by the value's own __getattr__ (a tensor's)
    last = user
    while last.tb_next is not None:
        last = last.tb_next
    here = user.tb_next is None or last.tb_frame.f_code.co_name == "__getattr__"
    found = _classify(exc, line, spaces, lines[: user.tb_lineno - 1], here) or _results(
        exc, line, spaces, lines, here
    )
    if found is None:
        return None
    name, kind, problem, hint = found[:4]
    code = found[4] if len(found) > 4 else "S12"
    return Misuse(name, kind, problem, hint, frame.f_code.co_filename, user.tb_lineno, code)


def _results(
    exc: BaseException, line: str, spaces: tuple[Any, ...], lines: list[str], here: bool
) -> Found | None:
    """Training results (History, logs, evaluate's values) read in a way they do not allow."""
    if isinstance(exc, KeyError) and here:
        return missing_key(exc, _subscripted(line, spaces), lines)
    if isinstance(exc, IndexError) and here:
        return short_history(_subscripted(line, spaces), spaces)
    if isinstance(exc, TypeError | ValueError) and here and "unpack" in str(exc):
        return evaluate_unpacked(exc, line, spaces) or weights_unpacked(line, spaces)
    if isinstance(exc, TypeError) and "'History'" in str(exc):
        for node in _nodes(line):
            if isinstance(node, ast.Name) and type(_value(node, spaces)).__name__ == "History":
                return _history(node.id, "a function that takes numbers")
    return None


def _classify(
    exc: BaseException, line: str, spaces: tuple[Any, ...], before: list[str], here: bool
) -> tuple[str, str, str, str] | None:
    text = str(exc)
    if isinstance(exc, AttributeError) and here:
        obj, attr = getattr(exc, "obj", None), getattr(exc, "name", None)
        if obj is not None and isinstance(attr, str):
            name = _name_of(line, spaces, obj) or type(obj).__name__
            if isinstance(obj, str):
                return _unpacked_dict_key(obj, attr, name, spaces, before)
            return _attribute(obj, attr, name, before)
    if isinstance(exc, TypeError) and here:
        subscript = _NOT_SUBSCRIPTABLE.search(text)
        assigned = _ITEM_ASSIGNMENT.search(text)
        if subscript or _STR_INDEX in text:
            for name, value, key in _subscripted(line, spaces):
                found = _subscript(value, name, key, before, spaces)
                if found is not None:
                    return found
        if assigned:
            for name, value in _assigned_items(line, spaces):
                found = _item_assignment(value, name)
                if found is not None:
                    return found
    if isinstance(exc, TypeError) and _UNKNOWN_LENGTH.search(text):
        return _dataset_length(line, spaces)
    return None


_UNPACKED_PREDICT = re.compile(r"^\s*([\w\s,]+?)\s*=\s*(\w+)\.predict(?:_on_batch)?\(")


def _unpacked_dict_key(
    key: str, attr: str, name: str, spaces: tuple[Any, ...], before: list[str]
) -> tuple[str, str, str, str] | None:
    """A string that came from unpacking ``predict``'s dict (a model with dict outputs):
    unpacking a dict gives its keys, the output names."""
    for line in reversed(before[-50:]):
        found = _UNPACKED_PREDICT.match(line)
        if found is None or name not in [t.strip() for t in found.group(1).split(",")]:
            continue
        model = next((sp[found.group(2)] for sp in spaces if found.group(2) in sp), None)
        structure = getattr(model, "_outputs_struct", None)
        if not isinstance(structure, dict) or key not in structure:
            return None
        keys = list(structure)
        var = found.group(2)
        return (
            name,
            "an output name",
            f"`{name}` is the string '{key}': `{var}.predict` returns a dict keyed by output "
            f"name ({keys}) for a model built with dict outputs, and unpacking a dict gives its "
            f"keys, so `.{attr}` meets a str",
            f"keep the dict and index it: `preds = {var}.predict(x)`, then "
            + ", ".join(f"`preds['{k}']`" for k in keys[:4]),
        )
    return None


def _attribute(
    obj: Any, attr: str, name: str, before: list[str]
) -> tuple[str, str, str, str] | None:
    cls = type(obj).__name__
    if cls == "History":
        return _history(name, f"`.{attr}`")
    if _is_tensor(obj) and attr in _NUMPY_ON_TENSOR:
        return (
            name,
            "a tf.Tensor",
            f"`{name}` is a tf.Tensor, which has no NumPy method `.{attr}`",
            f"use the TensorFlow op: `{_NUMPY_ON_TENSOR[attr].format(t=name)}`, or "
            f"take a NumPy copy first: `{name}.numpy().{attr}{'' if attr == 'T' else '(...)'}`",
        )
    if _is_dataset(obj) and attr in ("shape", "numpy", "dtype"):
        fix = {
            "shape": f"`{name}.element_spec` (the shape and dtype of one element)",
            "dtype": f"`{name}.element_spec` (the shape and dtype of one element)",
            "numpy": f"`{name}.as_numpy_iterator()` (or `next(iter({name}))` for one element)",
        }[attr]
        return (
            name,
            "a tf.data.Dataset",
            f"`{name}` is a tf.data.Dataset, which has no `.{attr}`",
            f"use {fix}",
        )
    import numpy as np

    if isinstance(obj, np.ndarray) and attr == "numpy":
        origin = assigned_from(name, before)
        came = f" (`{name}` comes from `{origin}`, which returns NumPy)" if origin else ""
        return (
            name,
            "a NumPy array",
            f"`{name}` is already a NumPy array{came}; `.numpy()` is a tensor's method",
            f"drop the `.numpy()`: use `{name}` as it is",
        )
    return None


def _subscript(
    value: Any, name: str, key: str, before: list[str], spaces: tuple[Any, ...]
) -> tuple[str, str, str, str] | None:
    cls = type(value).__name__
    if cls == "History":
        return _history(name, "an index")
    if _is_dataset(value):
        return (
            name,
            "a tf.data.Dataset",
            f"`{name}` is a tf.data.Dataset, which cannot be indexed",
            f"take elements by iterating: `next(iter({name}))` for the first, "
            f"`{name}.skip(n).take(1)` for the n-th, `{name}.take(k)` for the first k",
        )
    if isinstance(value, list) and value and all(_is_layer(v) for v in value[:8]):
        return (
            name,
            "the list of layers",
            f"`{name}` is a list of layers, indexed by position, not by name",
            f"take a layer by name with `{name.rpartition('.')[0] or 'model'}.get_layer({key})`",
        )
    origin = assigned_from(name, before)
    outputs = re.match(r"(\w+)\.predict\(", origin)
    if outputs is not None and isinstance(value, list) and key[:1] in "'\"":
        names = [str(n) for n in _output_names(outputs.group(1), spaces)]
        at = names.index(key.strip("'\"")) if key.strip("'\"") in names else -1
        return (
            name,
            "what predict returned",
            f"`{name}` is the list `{origin}` returned, one array per output in the order "
            f"the model was built with ({names}): a list is indexed by position, not by name",
            (f"take `{name}[{at}]` for {key}" if at >= 0 else f"index `{name}` by position")
            + "; or build the model with a dict of outputs ({name: tensor}) to get a dict",
        )
    if ".evaluate(" in origin and isinstance(value, float | list):
        what = "the loss, a float" if isinstance(value, float) else "a list [loss, *metrics]"
        return (
            name,
            "what evaluate returned",
            f"`{name}` is what `{origin}` returned: {what}, not a dict",
            "pass `return_dict=True` to evaluate to get a dict keyed by metric name "
            "(`...evaluate(x, y, return_dict=True)['accuracy']`), or index the list by "
            "position (model.metrics_names)",
        )
    return None


def _output_names(model: str, spaces: tuple[Any, ...]) -> list[Any]:
    found = next((sp[model] for sp in spaces if model in sp), None)
    return list(getattr(found, "output_names", None) or [])


def _history(name: str, how: str) -> tuple[str, str, str, str]:
    return (
        name,
        "the History that fit returned",
        f"`{name}` is the History object that fit returned, which is read by {how} only "
        "through its `.history` dict",
        f"read the per-epoch values from `{name}.history`, e.g. `{name}.history['loss']` "
        f"(`pd.DataFrame({name}.history)` for a table)",
    )


def _item_assignment(value: Any, name: str) -> tuple[str, str, str, str] | None:
    cls = type(value).__name__
    if "Variable" in cls:
        return (
            name,
            "a tf.Variable",
            f"`{name}` is a tf.Variable, whose items cannot be set with `=`",
            f"assign through the slice: `{name}[i].assign(value)` (or `{name}.assign(new_tensor)`)",
        )
    if _is_tensor(value):
        return (
            name,
            "a tf.Tensor",
            f"`{name}` is a tf.Tensor, and tensors are immutable: their items cannot be set",
            f"build a new tensor (`tf.tensor_scatter_nd_update({name}, indices, updates)`, "
            f"`tf.where(mask, new, {name})`), keep it in a tf.Variable and `.assign`, or edit "
            f"a NumPy copy (`{name}.numpy()`)",
        )
    return None


def _dataset_length(line: str, spaces: tuple[Any, ...]) -> tuple[str, str, str, str] | None:
    for node in _nodes(line):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and node.args
        ):
            name = ast.unparse(node.args[0])
            value = _value(node.args[0], spaces)
            if _is_dataset(value):
                return (
                    name,
                    "a tf.data.Dataset",
                    f"`{name}` has no known length: a filter, repeat or a generator makes "
                    "the number of elements unknown until the dataset is iterated",
                    f"count with `{name}.cardinality()` (-2 when unknown, -1 when "
                    f"infinite), or `{name}.reduce(0, lambda n, _: n + 1)` for a finite "
                    "dataset; pass steps_per_epoch to fit where it needs a length",
                )
    return None


# reading the line ------------------------------------------------------------------------


def _nodes(line: str) -> list[ast.AST]:
    text = textwrap.dedent(line).strip()
    for candidate in (text, text.rstrip(":") + ": pass" if text.endswith(":") else None):
        if candidate is None:
            continue
        try:
            return list(ast.walk(ast.parse(candidate)))
        except SyntaxError:
            continue
    return []


def _value(node: ast.expr, spaces: tuple[Any, ...]) -> Any:
    from tfnb_debug.explain._api import UNREAD, evaluate

    value = evaluate(node, spaces)
    return None if value is UNREAD else value


def _subscripted(line: str, spaces: tuple[Any, ...]) -> list[tuple[str, Any, str]]:
    return [
        (ast.unparse(n.value), _value(n.value, spaces), ast.unparse(n.slice))
        for n in _nodes(line)
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)
    ]


def _assigned_items(line: str, spaces: tuple[Any, ...]) -> list[tuple[str, Any]]:
    return [
        (ast.unparse(n.value), _value(n.value, spaces))
        for n in _nodes(line)
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
    ]


def _name_of(line: str, spaces: tuple[Any, ...], obj: Any) -> str:
    """The expression of the line whose value is ``obj`` (``history`` of ``history.loss``)."""
    for node in _nodes(line):
        if isinstance(node, ast.Attribute) and _value(node.value, spaces) is obj:
            return ast.unparse(node.value)
    return ""


def _is_tensor(value: Any) -> bool:
    return type(value).__name__ in ("EagerTensor", "Tensor", "SymbolicTensor")


def _is_dataset(value: Any) -> bool:
    return is_a(value, "DatasetV2")


def _is_layer(value: Any) -> bool:
    return is_a(value, "Layer")
