"""``tf.function``s a cell calls that were traced before it: find them, retrace them for the cell.

A ``tf.function`` traced in an earlier cell runs its cached graph, which was
built without tfnb_debug's hooks: ``%%tfcheck`` would check nothing in it and
``%%tfgrad`` would see no optimizer step.  :func:`traced_functions_in` finds
the names in the cell's code that resolve to such functions, and
:func:`retraced` gives each one an empty trace cache for the block (so the
cell's calls trace it again, with the hooks in place) and puts its own cache
back in ``finally``: afterwards the function runs the graphs it had, and the
graphs traced in the block are dropped.

This reaches into ``tf.function``'s private cache
(``Function._function_cache`` and the tracing options that share it).  If this
TensorFlow lays it out differently, :func:`can_retrace` says so and the magics
refuse the cell before anything runs.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tfnb_debug.files import is_user_file

__all__ = ["can_retrace", "functions_to_retrace", "retraced", "traced_functions_in"]

_CONFIGS = ("_variable_creation_config", "_no_variable_creation_config")


def _is_traced_function(value: Any) -> bool:
    count = getattr(value, "experimental_get_tracing_count", None)
    if count is None or not callable(count):
        return False
    try:
        return int(count()) > 0
    except Exception:
        return False


def traced_functions_in(code: str, namespace: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(name, function)`` for each ``tf.function`` traced before that ``code`` can reach.

    Reached means: a name the cell reads, or a global name read by a Python
    function the cell reaches (``train(dataset)`` whose body calls a
    ``@tf.function train_step`` defined in an earlier cell, the shape of
    TensorFlow's DCGAN, pix2pix and CVAE tutorials), followed through the
    functions' own globals, nested functions and the methods of classes they
    name, to a bounded depth.  ``code`` is Python (IPython syntax already
    transformed); code that does not parse gives none (running it will raise
    the user's own ``SyntaxError``).
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    names = [
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    ]
    found: list[tuple[str, Any]] = []
    seen: set[int] = set()
    queue: list[tuple[str, Any, Mapping[str, Any], int]] = [
        (name, namespace.get(name), namespace, 0) for name in dict.fromkeys(names)
    ]
    while queue and len(seen) < _MAX_VISITS:
        name, value, scope, depth = queue.pop(0)
        if value is None or id(value) in seen:
            continue
        seen.add(id(value))
        if _is_traced_function(value):
            if all(value is not f for _, f in found):
                found.append((name, value))
            continue
        if depth >= _MAX_DEPTH:
            continue
        for code_obj, globals_ in _python_code(value):
            for global_name in _global_names(code_obj):
                if global_name in globals_:
                    queue.append((global_name, globals_[global_name], globals_, depth + 1))
    return found


# how far calls are followed from the cell, and how many objects are looked at at most
_MAX_DEPTH = 4
_MAX_VISITS = 500


def _python_code(value: Any) -> list[tuple[Any, Mapping[str, Any]]]:
    """(code object, its globals) of a plain Python function, or of each method of a class
    defined in the user's code (never a library's: their globals are not followed)."""
    import inspect

    if inspect.ismethod(value):
        value = value.__func__
    if inspect.isfunction(value):
        return [(value.__code__, value.__globals__)] if _users(value.__code__) else []
    if inspect.isclass(value):
        return [
            (member.__code__, member.__globals__)
            for member in vars(value).values()
            if inspect.isfunction(member) and _users(member.__code__)
        ]
    return []


def _users(code_obj: Any) -> bool:
    """Code the user wrote (a notebook cell or their own file), not a library's or Python's."""
    return is_user_file(code_obj.co_filename)


def _global_names(code_obj: Any) -> list[str]:
    """The global names a code object and its nested functions (closures, lambdas) read."""
    names: list[str] = []
    stack = [code_obj]
    while stack:
        current = stack.pop()
        names.extend(current.co_names)
        stack.extend(c for c in current.co_consts if hasattr(c, "co_names"))
    return list(dict.fromkeys(names))


def can_retrace(function: Any) -> bool:
    """Whether this TensorFlow's ``tf.function`` has the cache :func:`retraced` swaps."""
    if not hasattr(function, "_function_cache"):
        return False
    return all(
        getattr(function, name, None) is None or hasattr(getattr(function, name), "function_cache")
        for name in _CONFIGS
    )


def functions_to_retrace(code: str, namespace: Mapping[str, Any], magic: str) -> list[Any]:
    """The ``tf.function``s traced before that ``code`` calls by name, to trace again for it.

    Raises ``TfnbDebugError`` (before anything runs) if this TensorFlow cannot retrace one.
    """
    from tfnb_debug.errors import TfnbDebugError

    found = traced_functions_in(code, namespace)
    stuck = [name for name, fn in found if not can_retrace(fn)]
    if stuck:
        raise TfnbDebugError(
            f"{magic} cannot instrument tf.function {', '.join(map(repr, stuck))}: it was traced "
            "before this cell and would run its cached graph unseen; re-run the cell that "
            "defines it, then this one"
        )
    return [fn for _, fn in found]


@contextlib.contextmanager
def retraced(functions: Sequence[Any]) -> Iterator[None]:
    """Each function traces afresh in the block; its own traces are back afterwards."""
    from tensorflow.core.function.polymorphism import function_cache

    from tfnb_debug.collect._patching import patched

    with patched() as patches:
        for function in functions:
            fresh = function_cache.FunctionCache()
            patches.set(function, "_function_cache", fresh)
            for name in _CONFIGS:
                config = getattr(function, name, None)
                if config is not None:
                    patches.set(config, "function_cache", fresh)
        yield
