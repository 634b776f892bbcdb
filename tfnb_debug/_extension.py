"""``%load_ext tfnb_debug`` and ``%unload_ext tfnb_debug``: transactional and symmetric."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from tfnb_debug.ground.startup import (
    import_tensorflow_quietly,
    missing_tensorflow_message,
    tensorflow_installed,
)
from tfnb_debug.ground.state import ExtensionState, clear_train_functions, state_for

_NAME = __name__.partition(".")[0]


def load(shell: Any) -> None:
    """Register the magics, turn on GPU memory growth and print one status line.

    Loading twice is harmless: whatever an earlier load added is removed first,
    so each magic and callback exists once.  When loading registers nothing
    (TensorFlow missing, another Keras backend), loading again tries again.
    TensorFlow's informational start-up lines are left out when this is the
    first import of TensorFlow (see :mod:`tfnb_debug.ground.startup`).
    """
    from tfnb_debug.features import env

    state = state_for(shell)
    if state.loaded:
        unload(shell)
    backend, legacy = env.keras_backend()
    if backend == "tensorflow" and not legacy and not tensorflow_installed():
        print(missing_tensorflow_message())
        _forget_after_cell(shell)
        return
    problem = env.backend_problem(backend, legacy)
    if problem is not None:
        print(problem.to_text())
        _forget_after_cell(shell)
        return
    import_tensorflow_quietly()
    growth = env.enable_memory_growth()
    try:
        _register_magics(shell, state)
        from tfnb_debug.magics.auto import register_auto

        register_auto(shell, state)  # post_run_cell diagnosis, recorded in state.callbacks
    except BaseException:
        unload(shell)
        raise
    state.loaded = True
    print(env.status_line(backend, growth))
    for item in growth.findings:
        print(item.to_text())


def _forget_after_cell(shell: Any) -> None:
    """Take the extension off IPython's list of loaded extensions once the cell has run.

    IPython lists an extension as loaded as soon as ``load_ipython_extension``
    returns, so a second ``%load_ext`` would answer "already loaded" although
    nothing was registered.  Taken off the list, it runs the checks again.
    """
    manager = getattr(shell, "extension_manager", None)
    events = getattr(shell, "events", None)
    if manager is None or events is None:
        return

    def forget() -> None:
        manager.loaded.discard(_NAME)
        with contextlib.suppress(ValueError):
            events.unregister("post_execute", forget)

    events.register("post_execute", forget)


def unload(shell: Any) -> None:
    """Remove every magic, event callback and open widget this extension added, and
    forget the instrumented train functions kept for reuse."""
    state = state_for(shell)
    clear_train_functions()
    stats = sys.modules.get("tfnb_debug.collect.tensor_stats")
    if stats is not None:  # its threads, if a large array was read
        stats.stop_stats_threads()
    manager = shell.magics_manager
    for kind, name in state.magics:
        manager.magics[kind].pop(name, None)
    for cls_name in state.magic_classes:
        manager.registry.pop(cls_name, None)
    for event, callback in state.callbacks:
        with contextlib.suppress(ValueError):
            shell.events.unregister(event, callback)
    closers, state.closers = state.closers, []
    for close in closers:
        close()
    state.magics.clear()
    state.magic_classes.clear()
    state.callbacks.clear()
    state.loaded = False


def _register_magics(shell: Any, state: ExtensionState) -> None:
    from tfnb_debug.magics import magic_classes

    manager = shell.magics_manager
    for cls in magic_classes():
        instance = cls(shell)
        manager.register(instance)
        state.magic_classes.append(cls.__name__)
        for kind, names in instance.magics.items():
            state.magics.extend((kind, name) for name in names)
