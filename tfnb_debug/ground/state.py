"""What the extension added to each shell, kept outside the top-level module.

``%reload_ext`` re-imports only ``tfnb_debug/__init__.py`` and wipes its
globals; this submodule survives, so unload always knows what to remove.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ExtensionState:
    magics: list[tuple[str, str]] = field(default_factory=list)  # (kind, name)
    magic_classes: list[str] = field(default_factory=list)
    callbacks: list[tuple[str, Callable[..., Any]]] = field(default_factory=list)
    closers: list[Callable[[], None]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    loaded: bool = False


_STATES: weakref.WeakKeyDictionary[Any, ExtensionState] = weakref.WeakKeyDictionary()


def state_for(shell: Any) -> ExtensionState:
    state = _STATES.get(shell)
    if state is None:
        state = _STATES[shell] = ExtensionState()
    return state


# -- instrumented train functions kept across cells -------------------------------------
#
# ``%%tfgrad`` and ``%%tfcheck`` build (and TensorFlow traces) an instrumented
# train function per model; keeping it here lets the next cell on the same
# model, optimizer, compile configuration and options reuse it instead of
# tracing again.  It is never left on the model between cells.  Entries are
# owned by :mod:`tfnb_debug.collect.kept`; here only the store, so that it
# survives ``%reload_ext`` and unload can empty it.

#: (model id, kind) -> entry, least recently used first
train_functions: dict[tuple[int, str], Any] = {}


def clear_train_functions() -> None:
    """Forget every kept instrumented train function (on unload)."""
    train_functions.clear()
