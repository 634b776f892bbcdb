"""``tf.function``s a cell calls: find them, give each a trace cache of its own for the cell.

A ``tf.function`` traced in an earlier cell runs its cached graph, which was
built without tfnb_debug's hooks: ``%%tfcheck`` would check nothing in it and
``%%tfgrad`` would see no optimizer step.  One traced first in the cell keeps
the graph traced with the hooks, and the next plain call would run it (with
the hooks' variables gone: "Called a function referencing variables which
have been deleted").  :func:`functions_in` finds the names in the cell's code
that resolve to ``tf.function``s, traced or not, and the ``tf.function``
methods of the objects it reaches (a subclassed model's ``@tf.function
train_step``); :func:`retraced` gives each an empty trace cache for the block
(so the cell's calls trace it again, with the hooks in place) and puts its own
state back in ``finally``: afterwards the function runs the graphs it had, a
function never called before is again never called (its next call is a first
call, which may create variables), and the graphs traced in the block are
dropped.  :func:`model_functions` gives the same for a model and its layers, for the
line magics that train or call the user's model for a moment
(:class:`~tfnb_debug.collect.training_guard.TrainingGuard`).

This reaches into ``tf.function``'s private cache
(``Function._function_cache``, the tracing options that share it, and the
per-instance functions of a decorated method).  If this TensorFlow lays it
out differently, :func:`can_retrace` says so and the magics refuse the cell
before anything runs.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from tfnb_debug.ground.files import is_user_file

__all__ = [
    "can_retrace",
    "cell_functions",
    "functions_in",
    "functions_to_retrace",
    "unseen_note",
    "methods_of",
    "retraced",
    "traced_functions_in",
]

_CONFIGS = ("_variable_creation_config", "_no_variable_creation_config")
# a Function's state its first call sets (None before it): put back as they were
_FIRST_CALL = (*_CONFIGS, "_created_variables")


class Unbound(NamedTuple):
    """A ``tf.function`` method that ``instance`` has not called yet: TensorFlow makes the
    instance's own function on first access, and :func:`retraced` drops the one the block
    made."""

    descriptor: Any
    instance: Any


def _is_function(value: Any) -> bool:
    """A ``tf.function`` (TensorFlow's ``Function``), traced or not."""
    return hasattr(value, "_function_cache") and hasattr(value, "_descriptor_cache")


def _is_traced_function(value: Any) -> bool:
    count = getattr(value, "experimental_get_tracing_count", None)
    if count is None or not callable(count):
        return False
    try:
        return int(count()) > 0
    except Exception:
        return False


def traced_functions_in(code: str, namespace: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(name, function)`` for each ``tf.function`` traced before that ``code`` can reach
    (see :func:`functions_in`)."""
    return [(n, f) for n, f in functions_in(code, namespace) if _is_traced_function(f)]


def functions_in(code: str, namespace: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(name, function)`` for each ``tf.function`` that ``code`` can reach, traced or not;
    a method of an object that has not called it yet is an :class:`Unbound`.

    Reached means: a name the cell reads, or a global name read by a Python
    function the cell reaches (``train(dataset)`` whose body calls a
    ``@tf.function train_step`` defined in an earlier cell, the shape of
    TensorFlow's DCGAN, pix2pix and CVAE tutorials), followed through the
    functions' own globals, nested functions and the methods of classes they
    name, to a bounded depth; and the ``tf.function`` methods of the objects
    reached (``model.fit(ds)`` reaches a subclassed model's ``@tf.function
    train_step``, and the methods of the layers it holds), whose classes'
    methods are followed too.  ``code`` is Python (IPython syntax already
    transformed); code that does not parse gives none (running it will raise
    the user's own ``SyntaxError``).  One the names do not lead to (held in a
    dict, a closure, a module's attribute) is found when it is called, by
    :func:`retraced`.
    """
    return _reach(code, namespace)[0]


def _reach(code: str, namespace: Mapping[str, Any]) -> tuple[list[tuple[str, Any]], list[str]]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return [], []
    names = [
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    ]
    found: list[tuple[str, Any]] = []
    concrete: list[str] = []
    seen: set[int] = set()
    queue: list[tuple[str, Any, Mapping[str, Any], int]] = [
        (name, namespace.get(name), namespace, 0) for name in dict.fromkeys(names)
    ]

    def add(name: str, function: Any) -> None:
        if not any(_same(function, f) for _, f in found):
            found.append((name, function))

    while queue and len(seen) < _MAX_VISITS:
        name, value, scope, depth = queue.pop(0)
        if value is None or id(value) in seen:
            continue
        seen.add(id(value))
        if _is_function(value):
            add(name, value)
            continue
        if _is_concrete(value):
            concrete.append(name)
            continue
        for held_name, held in _held_objects(name, value):
            for method in methods_of(held):
                add(held_name, method)
        if depth >= _MAX_DEPTH:
            continue
        for code_obj, globals_ in _python_code(value):
            for global_name in _global_names(code_obj):
                if global_name in globals_:
                    queue.append((global_name, globals_[global_name], globals_, depth + 1))
    return found, concrete


def _is_concrete(value: Any) -> bool:
    """A concrete function (TensorFlow's ``ConcreteFunction``: one traced graph)."""
    return (
        type(value).__name__ == "ConcreteFunction"
        and hasattr(value, "graph")
        and hasattr(value, "captured_inputs")
    )


def _held_objects(name: str, value: Any) -> list[tuple[str, Any]]:
    """An object whose methods may be ``tf.function``s, with the layers it holds when it is a
    Keras layer or model (``model.encoder``'s methods); nothing for modules, classes,
    functions and values without attributes (arrays, lists, numbers)."""
    import inspect

    if (
        inspect.ismodule(value)
        or inspect.isclass(value)
        or inspect.isroutine(value)
        or not hasattr(value, "__dict__")
    ):
        return []
    held = [(name, value)]
    if callable(getattr(value, "_flatten_layers", None)):  # a Keras layer or model
        from tfnb_debug.collect.keras_access import all_sublayers

        held += [(f"{name}.{layer.name}", layer) for layer in all_sublayers(value)]
    return held[:_MAX_VISITS]


def methods_of(obj: Any) -> list[Any]:
    """The ``tf.function`` methods of ``obj``'s own classes (not Keras' or TensorFlow's) and
    the ``tf.function``s its attributes hold (``self.step = tf.function(self._step)``): the
    instance's function where it has one, else an :class:`Unbound`."""
    out: list[Any] = []
    for cls in type(obj).__mro__:
        if (getattr(cls, "__module__", "") or "").split(".")[0] in _LIBRARIES:
            continue
        for value in vars(cls).values():
            if not _is_function(value):
                continue
            try:
                bound = value._descriptor_cache.get(obj)
            except TypeError:  # an unhashable instance: TensorFlow cannot bind it either
                continue
            out.append(bound if bound is not None else Unbound(value, obj))
    try:
        attributes = list(vars(obj).values())
    except TypeError:
        attributes = []
    out.extend(v for v in attributes if _is_function(v))
    return out


def _all_methods(model: Any) -> list[Any]:
    """:func:`methods_of` the model and every layer it holds."""
    found = methods_of(model)
    for _, layer in _held_objects("model", model)[1:]:
        found.extend(m for m in methods_of(layer) if not any(_same(m, f) for f in found))
    return found


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Unbound) and isinstance(b, Unbound):
        return a.descriptor is b.descriptor and a.instance is b.instance
    return a is b


_LIBRARIES = frozenset({"builtins", "keras", "tensorflow", "tf_keras", "numpy"})


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
    if not inspect.isclass(value):  # an instance: its class's methods
        value = type(value)
    return [
        (member.__code__, member.__globals__)
        for cls in value.__mro__
        if (getattr(cls, "__module__", "") or "").split(".")[0] not in _LIBRARIES
        for member in vars(cls).values()
        if inspect.isfunction(member) and _users(member.__code__)
    ]


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
    if isinstance(function, Unbound):
        return hasattr(function.descriptor, "_descriptor_cache")
    if not hasattr(function, "_function_cache"):
        return False
    return all(
        getattr(function, name, None) is None or hasattr(getattr(function, name), "function_cache")
        for name in _CONFIGS
    )


def functions_to_retrace(code: str, namespace: Mapping[str, Any], magic: str) -> list[Any]:
    """The ``tf.function``s that ``code`` reaches, to trace afresh for it (:func:`retraced`);
    :func:`cell_functions` without the concrete functions."""
    return cell_functions(code, namespace, magic)[0]


def cell_functions(
    code: str, namespace: Mapping[str, Any], magic: str
) -> tuple[list[Any], list[str]]:
    """What a cell magic reads of the cell's functions before it runs, in one walk: the
    ``tf.function``s that ``code`` reaches, to trace afresh for it (:func:`retraced`), and
    the names of the concrete functions it reaches (``step.get_concrete_function(...)``,
    kept in a name and called: graphs traced already, which no hook can enter; say so with
    :func:`unseen_note`).

    Raises ``TfnbDebugError`` (before anything runs) if this TensorFlow cannot retrace one
    that was traced before (one not traced yet is only reached to drop its hooked trace).
    """
    from tfnb_debug.ground.errors import TfnbDebugError

    found, concrete = _reach(code, namespace)
    stuck = [name for name, fn in found if not can_retrace(fn) and _is_traced_function(fn)]
    if stuck:
        raise TfnbDebugError(
            f"{magic} cannot instrument tf.function {', '.join(map(repr, stuck))}: it was traced "
            "before this cell and would run its cached graph unseen; re-run the cell that "
            "defines it, then this one"
        )
    return [fn for _, fn in found if can_retrace(fn)], concrete


def unseen_note(magic: str, names: Sequence[str], unseen: str) -> str:
    """The line a cell magic prints before the cell runs when it calls concrete functions
    (:func:`cell_functions`): what of them it cannot see, and how to let it."""
    quoted = ", ".join(map(repr, names))
    return (
        f"{magic}: {quoted} {'is a concrete function' if len(names) == 1 else 'are concrete functions'}"
        f" (a graph traced before this cell), so {unseen}; the cell runs as it is -- call "
        "the tf.function itself (step(...), not a concrete function of it) to have them"
    )


def model_functions(model: Any) -> list[Any]:
    """The ``tf.function`` methods of a model and its layers that :func:`retraced` can keep."""
    return [fn for fn in _all_methods(model) if can_retrace(fn)]


@contextlib.contextmanager
def retraced(functions: Sequence[Any]) -> Iterator[None]:
    """Each function traces afresh in the block; its own traces and first-call state are back
    afterwards, and an :class:`Unbound` method's function made in the block is dropped.

    So does every other ``tf.function`` called in the block, when it is first called: one
    that :func:`functions_in` cannot see from the cell's names (held in a dict or list, a
    closure, a module's attribute, a callback, a package's trainer) is hooked all the same,
    and the next plain call after the block runs the graphs it had before.  Keras' and
    TensorFlow's own functions are left to the features that remake them.
    """
    from tensorflow.core.function.polymorphism import function_cache

    from tfnb_debug.collect._patching import function_call_hook, patched

    unbound = [f for f in functions if isinstance(f, Unbound)]
    try:
        with patched() as patches:
            seen: dict[int, Any] = {}  # id -> function (held, so an id is never reused)

            def fresh_cache(function: Any) -> None:
                seen[id(function)] = function
                fresh = function_cache.FunctionCache()
                patches.set(function, "_function_cache", fresh)
                for name in _FIRST_CALL:
                    if hasattr(function, name):
                        patches.keep(function, name)
                for name in _CONFIGS:
                    config = getattr(function, name, None)
                    if config is not None:
                        patches.set(config, "function_cache", fresh)

            def on_call(function: Any) -> None:
                if id(function) in seen:
                    return
                seen[id(function)] = function
                try:
                    if _sweepable(function) and can_retrace(function):
                        fresh_cache(function)
                except Exception:  # never break the user's call: it runs as it would have
                    pass

            for function in functions:
                if not isinstance(function, Unbound):
                    fresh_cache(function)
            with function_call_hook(on_call):
                yield
    finally:
        for method in unbound:
            try:
                method.descriptor._descriptor_cache.pop(method.instance, None)
            except TypeError:
                continue


def _sweepable(function: Any) -> bool:
    """Whether a ``tf.function`` wraps a Python function that is not Keras', TensorFlow's or
    tfnb_debug's own (under TensorFlow's decorators, a bound method's ``__func__``, a
    ``functools.partial``'s ``func``): the user's code, or a package of theirs that trains."""
    import inspect

    target = getattr(function, "_python_function", None)
    if target is None:
        return False
    for _ in range(8):
        try:
            target = inspect.unwrap(target)
        except ValueError:
            return False
        inner = getattr(target, "__func__", None) or getattr(target, "func", None)
        if inner is None:
            break
        target = inner
    module = getattr(target, "__module__", None)
    if not isinstance(module, str) or not hasattr(target, "__code__"):
        return False
    return module.split(".")[0] not in _NOT_SWEPT


# Keras' own functions (its compiled train step) are remade by the magics themselves, and
# tfnb_debug keeps its instrumented ones across cells on purpose
_NOT_SWEPT = _LIBRARIES | {"tfnb_debug"}
