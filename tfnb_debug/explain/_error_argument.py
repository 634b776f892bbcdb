"""The argument a library-internal exception is about, when no contract names it.

A Python exception raised deep inside Keras or TensorFlow (an ``AttributeError``, a
``TypeError`` that an object is not callable, iterable or subscriptable, a ``KeyError``)
usually concerns one value the user passed.  This check finds that value among the failing
call's arguments (or one level inside a list, tuple or dict argument): by identity for an
``AttributeError`` (Python sets ``obj`` on it), by type name for a ``TypeError``, by the
missing key for a ``KeyError``; and names it with what the API did with it and what kind of
value does that.  It runs after every specific contract (it is registered last).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation, fmt, shape_of

_NOT = re.compile(r"'(\w+)' object is not (callable|iterable|subscriptable)")
_NO_LEN = re.compile(r"object of type '(\w+)' has no len\(\)")
# attributes of array-like values: a list or scalar given where an array or tensor is taken
_ARRAY_ATTRIBUTES = {"shape", "dtype", "ndim", "numpy", "rank", "get_shape", "astype", "reshape"}
_DOES = {
    "callable": ("calls", "a function (or a callable object)"),
    "iterable": ("iterates over", "a list or tuple"),
    "subscriptable": ("indexes", "a list, tuple, dict or array"),
    "len": ("takes the length of", "a list, tuple or array"),
}


def argument_of_error(call: LiveCall, exc: BaseException) -> Violation | None:
    """The argument the library's exception is about, what the API did with it, and the kind
    of value that takes that."""
    if _raised_in_user_code(exc):
        return None
    if isinstance(exc, AttributeError):
        return _attribute(call, exc)
    if isinstance(exc, TypeError):
        text = str(exc)
        found = _NOT.search(text)
        if found is not None:
            return _typed(call, found.group(1), found.group(2))
        length = _NO_LEN.search(text)
        if length is not None:
            return _typed(call, length.group(1), "len")
    if isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], str):
        return _key(call, exc.args[0])
    return None


def _raised_in_user_code(exc: BaseException) -> bool:
    from tfnb_debug.ground.files import is_user_file

    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and is_user_file(tb.tb_frame.f_code.co_filename)


def _arguments(call: LiveCall) -> Iterator[tuple[str, str, Any]]:
    """(parameter, source text, value) of each argument and of each item one level inside a
    list, tuple or dict argument."""
    for name, value in call.values.items():
        if value is UNREAD:
            continue
        text = call.text(name)
        yield name, text, value
        if isinstance(value, list | tuple):
            for i, item in enumerate(value[:16]):
                yield name, f"{text}[{i}]", item
        elif isinstance(value, dict):
            for key, item in list(value.items())[:16]:
                yield name, f"{text}[{key!r}]", item


def _kind(value: Any) -> str:
    if value is None:
        return "None"
    if inspect.isclass(value):
        return f"the class {value.__name__}"
    shape = shape_of(value)
    name = type(value).__name__
    return f"a {name}" + (f" {fmt(shape)}" if shape is not None else "")


def _attribute(call: LiveCall, exc: AttributeError) -> Violation | None:
    obj, attr = getattr(exc, "obj", None), getattr(exc, "name", None)
    if obj is None or not isinstance(attr, str):
        return None
    found = next(((p, t) for p, t, v in _arguments(call) if v is obj), None)
    if found is None or isinstance(obj, int | float | bool) and attr not in _ARRAY_ATTRIBUTES:
        return None
    param, text = found
    where = "" if text == call.text(param) else f" (in `{param}`)"
    problem = (
        f"`{text}`{where} is {_kind(obj)}, and `{call.api}` reads `.{attr}` from it, which "
        f"{'it' if obj is not None else 'None'} does not have"
    )
    if inspect.isclass(obj):
        hint = f"pass an instance, not the class: `{text}(...)`"
    elif isinstance(obj, list | tuple) and attr in _ARRAY_ATTRIBUTES:
        hint = f"pass an array or tensor: `np.asarray({text})` (or `tf.constant({text})`)"
    elif isinstance(obj, int | float) and attr in _ARRAY_ATTRIBUTES:
        hint = f"pass an array or tensor, not a Python number: `np.array([{text}])`"
    elif isinstance(obj, str):
        hint = (
            f"`{param}` takes an object here, not its name: build it (e.g. the class of that "
            "name, instantiated) and pass the instance"
        )
    else:
        hint = f"give `{param}` a value that has `.{attr}` (see `help({call.api})`)"
    return Violation("S12", text, problem, hint)


def _typed(call: LiveCall, type_name: str, what: str) -> Violation | None:
    found = next(((p, t, v) for p, t, v in _arguments(call) if type(v).__name__ == type_name), None)
    if found is None:
        return None
    param, text, value = found
    does, takes = _DOES[what]
    where = "" if text == call.text(param) else f" (in `{param}`)"
    problem = f"`{text}`{where} is {_kind(value)}, and `{call.api}` {does} it"
    if value is None:
        hint = (
            f"`{text}` is None: the code that made it returned nothing (a function without "
            f"`return`, an in-place method's result); give `{param}` {takes}"
        )
    else:
        hint = f"give `{param}` {takes}, not {_kind(value)}"
    return Violation("S12", text, problem, hint)


def _key(call: LiveCall, key: str) -> Violation | None:
    for param, text, value in _arguments(call):
        if isinstance(value, dict) and value and key not in value:
            keys = [str(k) for k in list(value)[:8]]
            return Violation(
                "S12",
                text,
                f"`{call.api}` looked up '{key}' in `{text}`, whose keys are {keys}",
                f"key `{param}` by the names the API uses ('{key}' among them)",
            )
    return None
