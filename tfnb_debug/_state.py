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
