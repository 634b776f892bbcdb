"""Which inspectors are open, so that none outlives its cell or the extension.

Every open widget stays in ipywidgets' registry (and keeps its model and
inputs alive) until it is closed.  So: an inspector shown again from the same
notebook cell closes the one shown there before; ``%unload_ext tfnb_debug``
closes them all (each registers its ``close`` in the extension's closers);
without a cell id (terminal, scripts, frontends that send none) at most
:data:`MAX_WITHOUT_CELL` stay open, the oldest closed first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["MAX_WITHOUT_CELL", "close_all", "current_cell_id", "forget", "open_inspectors", "track"]

MAX_WITHOUT_CELL = 8


class Closable(Protocol):
    def close(self) -> None: ...


# Inspectors alive in this process, oldest first; keyed by id.
_OPEN: OrderedDict[int, Any] = OrderedDict()
# The inspector last shown from each notebook cell (cell id -> inspector id).
_BY_CELL: dict[str, int] = {}


def open_inspectors() -> list[Any]:
    """The inspectors that are not closed yet, oldest first."""
    return list(_OPEN.values())


def close_all() -> None:
    """Close every open inspector (their widgets leave ipywidgets' registry)."""
    for inspector in list(_OPEN.values()):
        inspector.close()


def track(inspector: Closable, cell_id: str | None) -> Callable[[], None] | None:
    """Register a new inspector; close the one its cell showed before.  Returns an undo for
    the extension's closers (call it from ``close``)."""
    if cell_id is not None:
        previous = _OPEN.get(_BY_CELL.get(cell_id, -1))
        if previous is not None:
            previous.close()
        _BY_CELL[cell_id] = id(inspector)
    _OPEN[id(inspector)] = inspector
    in_cells = set(_BY_CELL.values())
    without_cell = [i for i in _OPEN.values() if i is not inspector and id(i) not in in_cells]
    while len(without_cell) >= MAX_WITHOUT_CELL:
        without_cell.pop(0).close()
    return _register_closer(inspector.close)


def forget(inspector: Any) -> None:
    """Called by a closing inspector."""
    _OPEN.pop(id(inspector), None)
    for cell, ident in list(_BY_CELL.items()):
        if ident == id(inspector):
            del _BY_CELL[cell]


def shell() -> Any:
    """The running IPython shell, or None (plain Python)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _register_closer(close: Callable[[], None]) -> Callable[[], None] | None:
    """Put ``close`` in the extension's closers (``%unload_ext`` runs them); return an undo."""
    ip = shell()
    if ip is None:
        return None
    from tfnb_debug.ground.state import state_for

    state = state_for(ip)
    state.closers.append(close)

    def unregister() -> None:
        if close in state.closers:
            state.closers.remove(close)

    return unregister


def current_cell_id() -> str | None:
    """The id of the notebook cell being run (JupyterLab and Notebook 7 send it), if any."""
    ip = shell()
    header = getattr(ip, "parent_header", None) if ip is not None else None
    if not isinstance(header, dict):
        return None
    cell = (header.get("metadata") or {}).get("cellId")
    return str(cell) if cell else None
