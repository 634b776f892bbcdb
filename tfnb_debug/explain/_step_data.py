"""What a user's ``train_step``/``test_step`` receives as ``data``, read from the ``fit`` call.

Keras documents that a model's step gets one element of what ``fit`` was given: ``(x, y)``
(or ``(x, y, sample_weight)``) when ``y`` was passed or the dataset yields tuples, ``x``
alone when only ``x`` was passed (``fit(images)``, a dataset of single tensors), and a dict
as it is when the dataset yields dicts.  A step that unpacks ``x, y = data`` meets the
first form only.  This module reads the live ``fit`` call (its ``x``, whether ``y`` was
given, a dataset's ``element_spec``) so that a rule can say which form the step got.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._api import UNREAD, evaluate
from tfnb_debug.explain._call import _call_node
from tfnb_debug.ground.files import is_user_file

_METHODS = ("fit", "evaluate", "train_on_batch", "test_on_batch")


@dataclass(frozen=True)
class StepData:
    """The element a user's overridden step receives from the failing ``fit``/``evaluate``."""

    method: str  # fit, evaluate, ...
    model_class: str  # the user's Model subclass that overrides the step
    steps: tuple[str, ...]  # the steps it overrides: train_step, test_step
    x: str  # fit's x as written
    y_given: bool
    element: str  # "tensor" (x alone), "tuple", "dict", "" when unknown
    keys: tuple[str, ...] = ()  # a dict element's keys
    dtypes: tuple[str, ...] = ()  # the element's dtypes (x alone: one)


def read_step_data(exc: BaseException) -> StepData | None:
    """The outermost user ``fit``/``evaluate`` call in the traceback, when its model overrides
    a step: the element that step receives."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            node = _call_node(frame.f_code, tb.tb_lasti, tb.tb_lineno)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _METHODS
            ):
                spaces = (frame.f_locals, frame.f_globals)
                bound = _bound(tb.tb_next)
                if "x" not in bound and "data" in (step := _step_argument(tb.tb_next)):
                    bound = {"x": step["data"], "y": None}  # Keras hid fit's frame
                return _read(node, evaluate(node.func.value, spaces), spaces, bound)
        tb = tb.tb_next
    return None


def _bound(tb: Any) -> dict[str, Any]:
    """The arguments the library's ``fit``/``evaluate`` frame bound (x even when written as an
    expression the reader does not evaluate)."""
    while tb is not None:
        if tb.tb_frame.f_code.co_name in _METHODS:
            return dict(tb.tb_frame.f_locals)
        tb = tb.tb_next
    return {}


def _step_argument(tb: Any) -> dict[str, Any]:
    """``{"data": value}``: what the user's own step received (its first argument after
    ``self``), a tensor, a tuple or a dict, when its frame is in the traceback."""
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name in ("train_step", "test_step") and is_user_file(code.co_filename):
            names = code.co_varnames[: code.co_argcount]
            if len(names) >= 2 and names[1] in tb.tb_frame.f_locals:
                value = tb.tb_frame.f_locals[names[1]]
                if not isinstance(value, tuple | list):  # a tuple: x and y (y may be absent)
                    return {"data": value}
        tb = tb.tb_next
    return {}


def _read(
    node: ast.Call, model: Any, spaces: tuple[Any, ...], bound: dict[str, Any]
) -> StepData | None:
    steps = tuple(
        step
        for step in ("train_step", "test_step")
        if _user_defined(getattr(type(model), step, None))
    )
    if model is UNREAD or not steps:
        return None
    x_node = _argument(node, 0, "x")
    y_node = _argument(node, 1, "y")
    if "x" in bound:
        x, y_given = bound["x"], bound.get("y") is not None
    else:
        x = evaluate(x_node, spaces) if x_node is not None else UNREAD
        y_given = y_node is not None and not (
            isinstance(y_node, ast.Constant) and y_node.value is None
        )
    element, keys, dtypes = _element(x, y_given)
    text = ast.unparse(x_node) if x_node is not None else "x"
    method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
    return StepData(method, type(model).__name__, steps, text, y_given, element, keys, dtypes)


def _argument(node: ast.Call, index: int, name: str) -> ast.expr | None:
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value
    args = [a for a in node.args if not isinstance(a, ast.Starred)]
    return args[index] if index < len(args) else None


def _user_defined(function: Any) -> bool:
    module = getattr(function, "__module__", "") or ""
    return bool(function) and module.split(".")[0] not in ("keras", "tensorflow", "tf_keras")


def _element(x: Any, y_given: bool) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    if y_given:
        return "tuple", (), ()
    spec = getattr(x, "element_spec", None)
    if spec is not None:
        if isinstance(spec, dict):
            return "dict", tuple(str(k) for k in spec), tuple(_dtype(s) for s in spec.values())
        if isinstance(spec, tuple | list):
            return "tuple", (), tuple(_dtype(s) for s in spec)
        return "tensor", (), (_dtype(spec),)
    if isinstance(x, dict):
        return "dict", tuple(str(k) for k in x), tuple(_dtype(v) for v in x.values())
    if isinstance(x, tuple | list):
        return "", (), ()
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return "tensor", (), (_dtype(x),)
    return "", (), ()


def _dtype(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    return str(getattr(dtype, "name", dtype or ""))
