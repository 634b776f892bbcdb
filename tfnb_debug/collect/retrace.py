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
    """``(name, function)`` for each name ``code`` reads that is a ``tf.function`` traced before.

    ``code`` is Python (IPython syntax already transformed); code that does not
    parse gives none (running it will raise the user's own ``SyntaxError``).
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found: list[tuple[str, Any]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load):
            continue
        value = namespace.get(node.id)
        if _is_traced_function(value) and all(value is not f for _, f in found):
            found.append((node.id, value))
    return found


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
