"""The inspector's front end: one anywidget (an ES module and synced traitlets).

The browser side is ``inspector.js`` beside this file: the layer list, the
model graph (the SVG that :mod:`tfnb_debug.widgets.graph` draws) and the
details pane, with the keyboard handled inside the widget.  Python and the
browser share these traits:

* ``rows``: one dict per layer call (``row``, ``label``, ``name``, ``mark``);
* ``header``: the list's column titles;
* ``graph``: the graph's SVG (or a note when the model is too large to draw);
* ``collapsed``: the rows of the collapsed nested models (the browser toggles them);
* ``selected``: the selected row (both ways: a click sets it, ``select()`` too);
* ``details``: the details pane's HTML;
* ``view``: ``"graph"`` or ``"list"``, the tab shown.

Imported on the first inspector, so ``import tfnb_debug`` does not load anywidget.
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

__all__ = ["InspectorView"]

_HERE = Path(__file__).parent


class InspectorView(anywidget.AnyWidget):
    """The widget that the inspector displays (state only; :class:`LayerInspector` drives it)."""

    _esm = (_HERE / "inspector.js").read_text(encoding="utf-8")
    _css = (_HERE / "inspector.css").read_text(encoding="utf-8")

    rows = traitlets.List(traitlets.Dict()).tag(sync=True)
    header = traitlets.Unicode("").tag(sync=True)
    graph = traitlets.Unicode("").tag(sync=True)
    collapsed = traitlets.List(traitlets.Int()).tag(sync=True)
    selected = traitlets.Int(None, allow_none=True).tag(sync=True)
    details = traitlets.Unicode("").tag(sync=True)
    view = traitlets.Unicode("graph").tag(sync=True)
    hint = traitlets.Unicode("").tag(sync=True)
    list_rows = traitlets.Int(22).tag(sync=True)
