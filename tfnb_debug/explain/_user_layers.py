"""The user's own layer and model classes, read from a failing call as plain facts.

A custom layer fails in ways a built-in one cannot: its weights sized from a
constructor argument instead of the input (made in ``__init__`` or in a
``build`` that ignores ``input_shape``), a ``call`` that ends without
``return``.  :func:`read_user_layers` reads, for each frame of the traceback
whose ``self`` is a Keras layer of a class the user wrote, what the class does
(whether it overrides ``build``, the weights it holds now and their shapes, the
input the frame was given); :func:`read_silent_calls` reads, from the user's
namespaces, the layer classes whose ``call`` returns nothing.  Both keep plain
values only, for the rules of :mod:`tfnb_debug.explain.custom_layers`.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._violation import shape_of

# a None reached a layer or op where a tensor was expected (a plain string: a guard, which the
# coverage table must not count as a rule that explains these messages)
NONE_INPUT = (
    r"Got 'None'|'NoneType' object|NoneType|None values not supported|got None|received None"
)


@dataclass(frozen=True)
class UserLayer:
    """One frame of a user-written Keras layer (or model) class in the traceback."""

    class_name: str
    name: str  # the layer's name ("projection")
    method: str  # the method the frame runs ("call", "build")
    defines_build: bool  # the class (or a user base of it) overrides build()
    weights: tuple[tuple[str, tuple[int | None, ...]], ...]  # (attribute, shape) of its own
    input_shape: tuple[int | None, ...] | None  # the frame's first argument's shape, if read
    build_source: str = ""  # the source of its build(), "" when not overridden or unreadable
    #: the shapes the frame's first argument holds when it is a list of shapes (a build() of a
    #: layer called on several tensors), else ()
    shapes_given: tuple[tuple[int | None, ...], ...] = ()
    #: an RNN cell's ``state_size`` as the class declares it (repr), "" for other layers
    state_size: str = ""


def _shapes_in(value: Any) -> tuple[tuple[int | None, ...], ...]:
    """The shapes in a list/tuple of shapes (``[(None, 8), (None, 8)]``), else ()."""
    if not isinstance(value, list | tuple) or len(value) < 2:
        return ()
    out = []
    for item in value:
        if not isinstance(item, list | tuple) and type(item).__name__ != "TensorShape":
            return ()
        try:
            out.append(tuple(None if d is None else int(d) for d in item))
        except (TypeError, ValueError):
            return ()
    return tuple(out[:8])


def _is_user_class(cls: type, is_user_file: Callable[[str], bool]) -> bool:
    try:
        source = inspect.getsourcefile(cls) or inspect.getfile(cls)
    except (TypeError, OSError):
        return cls.__module__ == "__main__"
    return bool(source) and is_user_file(source)


def _user_override(cls: type, method: str, is_user_file: Callable[[str], bool]) -> Any:
    """The user's own definition of ``method`` in ``cls``'s MRO, or None."""
    for klass in cls.__mro__:
        if method in vars(klass):
            return vars(klass)[method] if _is_user_class(klass, is_user_file) else None
    return None


def _own_weights(layer: Any) -> tuple[tuple[str, tuple[int | None, ...]], ...]:
    out = []
    for attr, value in list(vars(layer).items()):
        if type(value).__name__ in ("Variable", "KerasVariable", "ResourceVariable"):
            shape = shape_of(value)
            if shape is not None:
                out.append((attr, shape))
    return tuple(out[:16])


def read_user_layers(
    exc: BaseException, is_user_file: Callable[[str], bool]
) -> tuple[UserLayer, ...]:
    """The user-written layers whose methods are running in the traceback, innermost first."""
    import keras

    found: list[UserLayer] = []
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        code = frame.f_code
        owner = frame.f_locals.get("self")
        if (
            isinstance(owner, keras.layers.Layer)
            and is_user_file(code.co_filename)
            and _is_user_class(type(owner), is_user_file)
        ):
            first = code.co_varnames[1] if code.co_argcount > 1 else ""
            build = _user_override(type(owner), "build", is_user_file)
            try:
                build_source = textwrap.dedent(inspect.getsource(build)) if build else ""
            except (OSError, TypeError):
                build_source = ""
            found.insert(
                0,
                UserLayer(
                    type(owner).__name__,
                    str(getattr(owner, "name", "")),
                    code.co_name,
                    build is not None,
                    _own_weights(owner),
                    shape_of(frame.f_locals.get(first)) if first else None,
                    build_source,
                    _shapes_in(frame.f_locals.get(first)) if first else (),
                    repr(owner.__dict__["state_size"]) if "state_size" in vars(owner) else "",
                ),
            )
        tb = tb.tb_next
    return tuple(found)


def returns_nothing(method: Any) -> bool:
    """Whether a method's source has no ``return <value>`` (nor ``yield``): it returns None."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    except (OSError, TypeError, SyntaxError):
        return False
    func = tree.body[0] if tree.body else None
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for node in ast.walk(func):
        if node is not func and isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
        ):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            return False
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return False
    return True


def read_silent_calls(
    exc: BaseException, is_user_file: Callable[[str], bool]
) -> tuple[tuple[str, str], ...]:
    """(class, kind) of the user's Keras layer/model classes whose own ``call`` returns nothing
    (calling such a layer gives None) and that the failing code uses: the class is named in a
    failing user cell's source, or an instance is a layer of a model the failing lines name."""
    import linecache

    import keras

    seen: dict[str, str] = {}
    sources: list[str] = []
    used: set[type] = set()
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        filename = frame.f_code.co_filename
        if is_user_file(filename):
            sources.append("".join(linecache.getlines(filename)))
            line = linecache.getline(filename, tb.tb_lineno)
            for word in set(re.findall(r"[A-Za-z_]\w*", line)):
                value = frame.f_locals.get(word, frame.f_globals.get(word))
                if isinstance(value, keras.layers.Layer):
                    used.update(type(v) for v in _layers_of(value))
            for space in (frame.f_locals, frame.f_globals):
                for value in list(space.values())[:2000]:
                    cls = value if isinstance(value, type) else type(value)
                    if not issubclass(cls, keras.layers.Layer) or cls.__name__ in seen:
                        continue
                    call = _user_override(cls, "call", is_user_file)
                    if call is not None and returns_nothing(call):
                        kind = "model" if issubclass(cls, keras.Model) else "layer"
                        seen[cls.__name__] = kind
        tb = tb.tb_next
    text = "\n".join(sources)
    named = {
        name: kind
        for name, kind in seen.items()
        if re.search(rf"\b{re.escape(name)}\s*\(", text) or any(c.__name__ == name for c in used)
    }
    return tuple(named.items())[:8]


def _layers_of(layer: Any) -> list[Any]:
    try:
        return [layer, *layer._flatten_layers(include_self=False, recursive=True)]
    except Exception:
        return [layer]
