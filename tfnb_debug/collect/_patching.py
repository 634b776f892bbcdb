"""The one guard: every attribute tfnb_debug replaces, and every model state it must give back.

Two promises are kept here and nowhere else:

* **Nothing stays patched.**  :func:`patched` (or a :class:`Patches` held
  across a recording's start and stop) replaces attributes of classes,
  modules or single instances and puts the exact original objects back in
  reverse order, in ``finally``: after success, the user's exception and
  ``KeyboardInterrupt``.  An attribute that an instance did not have is
  deleted again, so ``vars(layer)`` is as before.
* **Nothing changes in the model.**  :func:`preserved` copies the values of a
  model's variables (weights, BatchNormalization statistics, seed states),
  its metrics' and its optimizers' variables and the global random states, and
  assigns them back on exit, bit-identical.

On top of the guard, the shared layer-call hook: layer calls (and tf.function
traces) routed to a collector for the duration of a trace.

Usage::

    from tfnb_debug.collect._patching import layer_call_hook

    def hook(layer, call, args, kwargs):
        # runs around every Keras layer call made in this context
        return call(*args, **kwargs)

    with layer_call_hook(hook):
        model(x)

How it works, and what it promises:

* ``keras.layers.Layer.__call__`` and ``Layer._maybe_build`` are replaced at
  class level when the first hook is entered and the original function objects
  are put back when the last one exits, in ``finally`` (also on exceptions and
  ``KeyboardInterrupt``).  Instances are never touched.
* The active hook lives in a :class:`contextvars.ContextVar`, so only calls made
  by the thread (or asyncio task) that entered the context reach it; other
  threads run the original code.  Nesting is allowed: the innermost hook wins
  and the outer one is active again after the inner block.  The exception:
  ``MirroredStrategy`` runs each replica's step (``strategy.run``, ``fit``) in
  threads of its own, one at a time; while a hook is installed those threads
  run in a copy of the context of the thread that started them, so the layer
  calls of every replica reach the hook as they would without a strategy.
* Calls that Keras makes while *building* a layer (``Layer._maybe_build``, which
  runs ``call`` on symbolic tensors to create the weights of subclassed layers,
  or builds a Sequential layer by layer) would show up as duplicate calls.  A
  hook with a ``build_pass(layer)`` method (returning a context manager) sees
  them inside that context and decides (e.g. keep them only if the build
  raised); a hook without one never sees them.
* :func:`trace_hook` does the same for ``tf.function`` traces (each new concrete
  function), so a feature can count retracing.
* :func:`function_call_hook` tells a hook of each ``tf.function`` call made in
  its context, before the function runs (so it can give the function a trace
  cache of its own for the block: :mod:`tfnb_debug.collect.retrace`).
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import types
import weakref
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "LayerCallHook",
    "Patches",
    "patched",
    "preserved",
    "TraceCounts",
    "TraceHook",
    "active_layer_hook",
    "is_patched",
    "layer_call_hook",
    "original_layer_call",
    "trace_hook",
    "function_call_hook",
]

#: ``hook(layer, call, args, kwargs)``: must call ``call(*args, **kwargs)`` and return its result
LayerCallHook = Callable[[Any, Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]
#: ``hook(name, function, signature)``: told of every new tf.function trace; ``function`` is
#: the traced Python function itself (count it with :class:`TraceCounts`, never by ``id()``)
TraceHook = Callable[[str, Any, str], None]

_LAYER_HOOK: contextvars.ContextVar[LayerCallHook | None] = contextvars.ContextVar(
    "tfnb_debug_layer_hook", default=None
)
_TRACE_HOOK: contextvars.ContextVar[TraceHook | None] = contextvars.ContextVar(
    "tfnb_debug_trace_hook", default=None
)
#: ``hook(function)``: told of a ``tf.function`` (TensorFlow's ``Function``) about to be called
FunctionCallHook = Callable[[Any], None]
_CALL_HOOK: contextvars.ContextVar[FunctionCallHook | None] = contextvars.ContextVar(
    "tfnb_debug_function_call_hook", default=None
)

_LOCK = threading.RLock()
_MISSING = object()


def _own_value(owner: Any, name: str) -> Any:
    """What ``owner`` itself holds under ``name`` (not what it inherits), or ``_MISSING``."""
    try:
        return vars(owner).get(name, _MISSING)
    except TypeError:  # no __dict__ (slots): whatever attribute lookup gives
        return getattr(owner, name, _MISSING)


def _put(owner: Any, name: str, value: Any) -> None:
    if isinstance(owner, type | types.ModuleType) or not hasattr(owner, "__dict__"):
        setattr(owner, name, value)
    else:
        object.__setattr__(owner, name, value)  # an instance: past Keras' attribute tracking


def _drop(owner: Any, name: str) -> None:
    if isinstance(owner, type | types.ModuleType):
        delattr(owner, name)
    else:
        object.__delattr__(owner, name)


class Patches:
    """Attribute replacements that :meth:`restore` undoes, newest first.

    ``owner`` may be a class (every instance sees the replacement), a module,
    or one instance (only it does; on a Keras layer the attribute is set past
    Keras' tracking).  Use :func:`patched` for a block; hold a ``Patches`` when
    a recording starts and stops in different methods.
    """

    def __init__(self) -> None:
        self._saved: list[tuple[Any, str, Any]] = []

    def set(self, owner: Any, name: str, value: Any) -> Any:
        """Replace ``owner.name`` with ``value``; returns what was there (inherited or own)."""
        current = getattr(owner, name, None)
        self._saved.append((owner, name, _own_value(owner, name)))
        try:
            _put(owner, name, value)
        except BaseException:
            self._saved.pop()
            raise
        return current

    def keep(self, owner: Any, name: str) -> None:
        """Change nothing now, but put ``owner.name`` back (or delete it again) on :meth:`restore`.

        For attributes that code run in the block sets (``fit`` sets
        ``model.history``), not tfnb_debug itself.
        """
        self._saved.append((owner, name, _own_value(owner, name)))

    def original(self, owner: Any, name: str) -> Any:
        """The object ``owner`` held under ``name`` before the first replacement here."""
        for saved_owner, saved_name, value in self._saved:
            if saved_owner is owner and saved_name == name:
                return value
        raise KeyError(name)

    def __len__(self) -> int:
        return len(self._saved)

    def restore(self) -> None:
        """Put every original back (also when one of them fails, which is then raised)."""
        saved, self._saved = self._saved, []
        failure: BaseException | None = None
        for owner, name, value in reversed(saved):
            try:
                if value is _MISSING:
                    if _own_value(owner, name) is not _MISSING:  # (kept ones may never be set)
                        _drop(owner, name)
                else:
                    _put(owner, name, value)
            except BaseException as err:  # keep restoring the rest first
                failure = failure or err
        if failure is not None:
            raise failure


@contextlib.contextmanager
def patched(*changes: tuple[Any, str, Any]) -> Iterator[Patches]:
    """``with patched((owner, name, value), ...) as patches:`` replaced for the block only.

    More replacements can be added inside the block with ``patches.set``; all
    of them are undone in ``finally``.
    """
    patches = Patches()
    try:
        for owner, name, value in changes:
            patches.set(owner, name, value)
        yield patches
    finally:
        patches.restore()


class Preserved:
    """The state :func:`preserved` put aside; ``changed()`` tells what differs now."""

    def __init__(self, snapshot: Any, rng: tuple[Any, Any] | None, had_seed: bool) -> None:
        self.snapshot = snapshot
        self._rng = rng
        self._had_seed = had_seed

    def changed(self) -> list[str]:
        return list(self.snapshot.changed())

    def restore(self) -> None:
        import random

        import numpy as np

        from tfnb_debug.collect.snapshot import drop_global_seed_generator

        self.snapshot.restore()
        if not self._had_seed:
            drop_global_seed_generator()
        if self._rng is not None:
            np.random.set_state(self._rng[0])
            random.setstate(self._rng[1])


def preserve(
    model: Any, *, optimizer: bool = True, metrics: bool = True, rng: bool = True
) -> Preserved:
    """Put aside ``model``'s state now; ``restore()`` gives it back (see :func:`preserved`)."""
    import random

    import numpy as np

    from tfnb_debug.collect.snapshot import VariableSnapshot, global_seed_generator

    variables: list[Any] = list(model.variables)
    if metrics:
        variables.extend(getattr(model, "metrics_variables", None) or [])
    if optimizer:
        from tfnb_debug.collect.keras_access import model_optimizers

        for _, opt in model_optimizers(model):
            variables.extend(opt.variables)
    generator = global_seed_generator() if rng else None
    if generator is not None:
        variables.append(generator.state)
    unique: dict[int, Any] = {}
    for variable in variables:
        unique.setdefault(id(variable), variable)
    states = (np.random.get_state(), random.getstate()) if rng else None
    had_seed = generator is not None or not rng
    return Preserved(VariableSnapshot.take(unique.values()), states, had_seed)


@contextlib.contextmanager
def preserved(
    model: Any, *, optimizer: bool = True, metrics: bool = True, rng: bool = True
) -> Iterator[Preserved]:
    """``with preserved(model):`` every variable of ``model`` is bit-identical afterwards.

    Covers the model's variables (weights, BatchNormalization moving
    statistics, layers' seed states), with ``metrics`` its metrics' variables,
    with ``optimizer`` the variables of ``model.optimizer`` and of optimizers
    held as attributes (a GAN's), and with ``rng`` Keras' global seed
    generator (dropped again if the block created it) and NumPy's and Python's
    global random states.  Variables created inside the block are not rolled
    back: a block that could build an unbuilt optimizer uses
    :class:`~tfnb_debug.collect.training_guard.TrainingGuard`, which swaps it.
    """
    saved = preserve(model, optimizer=optimizer, metrics=metrics, rng=rng)
    try:
        yield saved
    finally:
        saved.restore()


class _Installed:
    """Reference-counted class-level patches (one per patch target)."""

    def __init__(self) -> None:
        self.layer_users = 0
        self.trace_users = 0
        self.call_users = 0
        self.original_call: Any = None
        self.original_maybe_build: Any = None
        self.layer_patches = Patches()
        self.trace_patches = Patches()
        self.call_patches = Patches()
        self.replica_patches = Patches()


_STATE = _Installed()


def _layer_class() -> Any:
    from tfnb_debug.collect.keras_access import Layer

    return Layer


def original_layer_call() -> Callable[..., Any]:
    """The unpatched ``Layer.__call__`` (whether or not a hook is active)."""
    with _LOCK:
        if _STATE.original_call is not None:
            return _STATE.original_call
        return _layer_class().__dict__["__call__"]


def is_patched() -> bool:
    """Whether any class-level patch of tfnb_debug is in place right now."""
    with _LOCK:
        return bool(_STATE.layer_users or _STATE.trace_users or _STATE.call_users)


def active_layer_hook() -> LayerCallHook | None:
    """The hook that layer calls in this context go through, if any."""
    return _LAYER_HOOK.get()


def _make_patched_call(original: Any) -> Any:
    import tensorflow as tf

    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N807
        __tracebackhide__ = True
        hook = _LAYER_HOOK.get()
        if hook is None:
            return original(self, *args, **kwargs)
        bound = original.__get__(self, type(self))
        return hook(self, bound, args, kwargs)

    patched = tf.autograph.experimental.do_not_convert(__call__)
    patched.__tfnb_debug_patch__ = True
    patched.__wrapped__ = original
    return patched


def _make_patched_maybe_build(original: Any) -> Any:
    def _maybe_build(self: Any, call_spec: Any) -> Any:
        __tracebackhide__ = True
        hook = _LAYER_HOOK.get()
        if hook is None or self.built:
            return original(self, call_spec)
        build_pass = getattr(hook, "build_pass", None)
        if build_pass is not None:
            with build_pass(self):
                return original(self, call_spec)
        token = _LAYER_HOOK.set(None)  # Keras' build pass is not a call of the user's model
        try:
            return original(self, call_spec)
        finally:
            _LAYER_HOOK.reset(token)

    _maybe_build.__tfnb_debug_patch__ = True  # type: ignore[attr-defined]
    _maybe_build.__wrapped__ = original  # type: ignore[attr-defined]
    return _maybe_build


def _install_layer_patch() -> None:
    layer = _layer_class()
    with _LOCK:
        if _STATE.layer_users == 0:
            _STATE.original_call = layer.__dict__["__call__"]
            _STATE.original_maybe_build = layer.__dict__["_maybe_build"]
            patches = _STATE.layer_patches
            try:
                patches.set(layer, "__call__", _make_patched_call(_STATE.original_call))
                patches.set(
                    layer, "_maybe_build", _make_patched_maybe_build(_STATE.original_maybe_build)
                )
                _patch_replica_threads(_STATE.replica_patches)
            except BaseException:
                patches.restore()
                _STATE.replica_patches.restore()
                _STATE.original_call = _STATE.original_maybe_build = None
                raise
        _STATE.layer_users += 1


def _remove_layer_patch() -> None:
    with _LOCK:
        _STATE.layer_users -= 1
        if _STATE.layer_users == 0:
            _STATE.original_call = _STATE.original_maybe_build = None
            _STATE.replica_patches.restore()
            _STATE.layer_patches.restore()


def _patch_replica_threads(patches: Patches) -> None:
    """``MirroredStrategy``'s replica threads run in a copy of their creator's context (where
    the hooks are), taken when the thread is made.  Nothing when TensorFlow moved the class."""
    try:
        from tfnb_debug.collect.keras_access import private

        thread_class = private("MirroredReplicaThread")
    except (ImportError, AttributeError):
        return
    original_init = thread_class.__dict__["__init__"]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        run, context = self.run, contextvars.copy_context()
        self.run = lambda: context.run(run)  # Thread.start calls self.run()

    __init__.__wrapped__ = original_init  # type: ignore[attr-defined]
    patches.set(thread_class, "__init__", __init__)


@contextlib.contextmanager
def layer_call_hook(hook: LayerCallHook) -> Iterator[None]:
    """Route every Keras layer call made in this context through ``hook`` until the block ends."""
    _install_layer_patch()
    try:
        token = _LAYER_HOOK.set(hook)
        try:
            yield
        finally:
            _LAYER_HOOK.reset(token)
    finally:
        _remove_layer_patch()


@contextlib.contextmanager
def suspended() -> Iterator[None]:
    """Run a block with no hook active (e.g. a collector's own calls of a layer)."""
    token = _LAYER_HOOK.set(None)
    trace_token = _TRACE_HOOK.set(None)
    try:
        yield
    finally:
        _TRACE_HOOK.reset(trace_token)
        _LAYER_HOOK.reset(token)


def _tracing_module() -> Any:
    from tfnb_debug.collect.keras_access import tracing_compilation

    return tracing_compilation


def _make_patched_create(original: Any) -> Any:
    def _create_concrete_function(
        function_type: Any, type_context: Any, func_graph: Any, tracing_options: Any
    ) -> Any:
        __tracebackhide__ = True
        hook = _TRACE_HOOK.get()
        if hook is not None:
            try:
                name = str(getattr(tracing_options, "name", "function"))
                fn = getattr(tracing_options, "python_function", None)
                fn = getattr(fn, "__wrapped__", fn)  # the user's function under TF's wrappers
                hook(name, fn, str(function_type))
            except Exception:  # a broken hook must never break the user's function
                pass
        return original(function_type, type_context, func_graph, tracing_options)

    _create_concrete_function.__tfnb_debug_patch__ = True  # type: ignore[attr-defined]
    _create_concrete_function.__wrapped__ = original  # type: ignore[attr-defined]
    return _create_concrete_function


@contextlib.contextmanager
def trace_hook(hook: TraceHook) -> Iterator[None]:
    """Tell ``hook`` of every new ``tf.function`` trace made in this context until the block ends.

    If this TensorFlow lays out its tracing differently, the block runs
    unpatched and the hook is never told (features say "not available").
    """
    with _shared_patch(
        "trace_users",
        _STATE.trace_patches,
        _tracing_module(),
        "_create_concrete_function",
        _make_patched_create,
        _TRACE_HOOK,
        hook,
    ):
        yield


@contextlib.contextmanager
def _shared_patch(
    users: str,
    patches: Patches,
    owner: Any,
    name: str,
    make: Callable[[Any], Any],
    var: contextvars.ContextVar[Any],
    hook: Any,
) -> Iterator[None]:
    """``owner.name`` replaced by ``make(original)`` while any block of this kind is open
    (counted in ``_STATE.<users>``; ``patches`` puts it back when the last one ends), and
    ``hook`` in ``var`` for this context.  When ``owner`` is None or does not define ``name``
    (an upgrade moved it), the block runs unpatched and the hook is never told."""
    installed = False
    with _LOCK:
        if owner is not None and name in vars(owner):
            if getattr(_STATE, users) == 0:
                patches.set(owner, name, make(vars(owner)[name]))
            setattr(_STATE, users, getattr(_STATE, users) + 1)
            installed = True
    try:
        token = var.set(hook)
        try:
            yield
        finally:
            var.reset(token)
    finally:
        if installed:
            with _LOCK:
                setattr(_STATE, users, getattr(_STATE, users) - 1)
                if getattr(_STATE, users) == 0:
                    patches.restore()


def trace_patch_available() -> bool:
    """Whether :func:`trace_hook` can see tf.function traces in this TensorFlow."""
    return hasattr(_tracing_module(), "_create_concrete_function")


class TraceCounts:
    """Traces per ``tf.function``, counted by the traced function itself, never by ``id()``.

    Keras creates a fresh ``tf.function`` per call in places (grouped
    convolutions on CPU): once one is freed, Python gives the next one the same
    ``id()``, so counting by address would add up unrelated traces into a false
    T01.  Each function is held by a weak reference (a strong one if it allows
    none); a new function at a reused address starts a new count.  A freed
    function traced only once can never exceed a limit, so its entry is dropped.
    """

    def __init__(self) -> None:
        self._live: dict[int, tuple[Callable[[], Any], int]] = {}
        self._entries: dict[int, list[str]] = {}  # serial -> [name, signature, ...]
        self._serial = 0

    def add(self, name: str, function: Any, signature: str) -> None:
        key = id(function)
        found = self._live.get(key)
        if found is not None and found[0]() is function:
            self._entries[found[1]].append(signature)
            return
        if found is not None and len(self._entries.get(found[1], ())) <= 2:
            self._entries.pop(found[1], None)  # a freed function traced once
        try:
            ref: Callable[[], Any] = weakref.ref(function)
        except TypeError:
            ref = _Strong(function)
        self._serial += 1
        self._live[key] = (ref, self._serial)
        self._entries[self._serial] = [name, signature]

    def entries(self) -> list[tuple[str, tuple[str, ...]]]:
        """``(name, signatures)`` per traced function, in first-trace order."""
        return [(entry[0], tuple(entry[1:])) for entry in self._entries.values()]


class _Strong:
    """A strong reference with the call interface of ``weakref.ref``."""

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def __call__(self) -> Any:
        return self._obj


def _make_patched_function_call(original: Any) -> Any:
    import tensorflow as tf

    def __call__(self: Any, *args: Any, **kwds: Any) -> Any:  # noqa: N807
        __tracebackhide__ = True
        hook = _CALL_HOOK.get()
        if hook is not None:
            hook(self)
        return original(self, *args, **kwds)

    patched = tf.autograph.experimental.do_not_convert(__call__)
    patched.__tfnb_debug_patch__ = True
    patched.__wrapped__ = original
    return patched


@contextlib.contextmanager
def function_call_hook(hook: FunctionCallHook) -> Iterator[None]:
    """Tell ``hook`` of every ``tf.function`` call made in this context, before the call runs.

    ``hook`` must not raise (what it raises reaches the user's call).  The class-level
    ``__call__`` of TensorFlow's ``Function`` is replaced while any such block is open; if
    this TensorFlow has no such class, the block runs unpatched and the hook is never told.
    """
    from tfnb_debug.collect.keras_access import private

    try:
        function_class = private("PolymorphicFunction")
    except (ImportError, AttributeError):
        function_class = None
    with _shared_patch(
        "call_users",
        _STATE.call_patches,
        function_class,
        "__call__",
        _make_patched_function_call,
        _CALL_HOOK,
        hook,
    ):
        yield
