"""The click-through layer inspector: the model graph and the ``%tfshape`` table you click, and a details pane.

:class:`LayerInspector` glues a shape report (plain rows) to the live model:
selecting a row collects that layer's details on demand (config, weights with
histograms, the parameter arithmetic, the output of that call, gradients from a
``%tfgrad`` report of the same model, the findings that name it) and swaps the
details pane's HTML (print() in a widget callback would vanish in JupyterLab).

The front end is one anywidget (:mod:`tfnb_debug.widgets.view`, an ES module
and synced traits): the graph (:mod:`tfnb_debug.widgets.graph`), the list and
the details pane, with the keyboard handled inside the widget.  Displaying it
gives ONE output bundle: the widget view, a static HTML with the same graph
(without interaction) above the report's table, and the text table, so
JupyterLab, Notebook 7 and VS Code show the widget while nbconvert, GitHub and
terminals show the graph and the table.  Every inspector registers its ``close``
with the extension (``%unload_ext`` closes them all) and an inspector shown
again from the same notebook cell closes the one shown there before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from html import escape
from typing import Any

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, Report
from tfnb_debug.ground.text import first_line
from tfnb_debug.records.shapes import LayerCall
from tfnb_debug.widgets import session
from tfnb_debug.widgets.details import capture_call_output, layer_config, weight_infos
from tfnb_debug.widgets.graph import GraphNode, default_collapsed, graph_nodes, graph_svg
from tfnb_debug.widgets.records import ActivationInfo, GradientInfo, LayerDetails
from tfnb_debug.widgets.rows import arithmetic as layer_arithmetic
from tfnb_debug.widgets.rows import (
    findings_by_row,
    own_weights,
    row_items,
    row_labels,
)

__all__ = ["WIDGET_VIEW", "InspectorOptions", "LayerInspector"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1, "": 0}
_HINT = (
    "click a layer in the graph or the list; keyboard: click inside, then up/down, "
    "/ to filter by name (Enter: first match), Enter on a nested model: collapse/expand. "
    "Red: the failing layer; amber/blue: layers a finding names"
)


@dataclass(frozen=True)
class InspectorOptions:
    """Settings of the inspector (pass ``options=InspectorOptions(...)``).

    ``bins``: histogram bins; ``max_feature_maps``: feature maps drawn for
    image-like outputs; ``training``: the ``training`` flag of the forward pass
    that captures an activation; ``cache_size``: how many layers' details stay
    cached; ``list_rows``: rows the layer list shows before it scrolls;
    ``figures``: draw histograms and feature maps (off: numbers only);
    ``view``: the tab shown first, ``"graph"`` or ``"list"`` (the list when
    the graph is too large to draw).
    """

    bins: int = 30
    max_feature_maps: int = 16
    training: bool = False
    cache_size: int = 16
    list_rows: int = 22
    figures: bool = True
    view: str = "graph"

    def __post_init__(self) -> None:
        if self.view not in ("graph", "list"):
            raise TfnbDebugError(
                f"InspectorOptions: view must be 'graph' or 'list', not {self.view!r}"
            )
        if self.bins < 1 or self.max_feature_maps < 0 or self.cache_size < 1 or self.list_rows < 1:
            raise TfnbDebugError(
                "InspectorOptions: bins, cache_size and list_rows must be >= 1 and "
                "max_feature_maps >= 0"
            )


class LayerInspector:
    """An interactive view of one shape report.

    ``model`` and ``inputs`` are what the report traced; with them, selecting a
    row captures that layer's output (one forward pass, only that call's output
    is reduced and kept).  ``gradients`` is a gradient report of the same model
    (``%tfgrad``), whose per-variable statistics the details pane shows.
    """

    def __init__(
        self,
        report: Report,
        *,
        model: Any = None,
        inputs: Any = None,
        gradients: Any = None,
        models: Sequence[Any] = (),
        options: InspectorOptions | None = None,
        cell_id: str | None = None,
    ) -> None:
        calls = getattr(report, "calls", None)
        if calls is None:
            raise TfnbDebugError(
                f"the inspector needs a shape report (from tfnb_debug.trace_shapes), "
                f"got {type(report).__name__}"
            )
        self.report = report
        self.calls: tuple[LayerCall, ...] = tuple(calls)
        self.options = options or InspectorOptions()
        self._model = model
        self._inputs = inputs
        # Root models by name: the rows' paths start with them.
        self._models: dict[str, Any] = {str(m.name): m for m in models}
        if model is not None:
            self._models[str(model.name)] = model
        self._gradients = gradients
        self._cache: OrderedDict[int, LayerDetails] = OrderedDict()
        self._panes: dict[int, str] = {}  # rendered HTML of the cached details
        self._layers: dict[str, Any] = {}
        self._closed = False
        self._unregister: Callable[[], None] | None = None
        self._findings = findings_by_row(self.calls, self.report.all_findings())
        self._marks = self._row_marks()
        self._build_widgets()
        self._track(cell_id)
        if self.calls:
            self._select_index(self._initial_row())
        else:  # e.g. S04, an unbuilt model: say why the table is empty
            from tfnb_debug.render.html import findings_html

            self._view.details = (
                '<div class="tfnb-details">No layer calls were recorded.'
                f"{findings_html(report.findings)}</div>"
            )

    # ------------------------------------------------------------ public API
    @property
    def widget(self) -> Any:
        """The anywidget (:class:`~tfnb_debug.widgets.view.InspectorView`) the notebook shows."""
        return self._view

    @property
    def selected(self) -> int | None:
        """The row index of the selected layer, or None when the table is empty."""
        value = self._view.selected
        return None if value is None else int(value)

    @property
    def graph_nodes(self) -> tuple[GraphNode, ...]:
        """The graph's records (plain values), one per layer call plus each model's input."""
        return self._graph_nodes

    @property
    def collapsed(self) -> tuple[int, ...]:
        """The rows of the nested models collapsed in the graph."""
        return tuple(self._view.collapsed)

    def collapse(self, key: int | str, collapsed: bool = True) -> None:
        """Collapse (or expand, ``collapsed=False``) a nested model's box in the graph."""
        index = self._row_for(key)
        if not self.calls[index].has_children:
            raise TfnbDebugError(f"{self.calls[index].path!r} is not a nested model")
        rows = set(self._view.collapsed)
        rows = rows | {index} if collapsed else rows - {index}
        self._view.collapsed = sorted(rows)

    def static_html(self) -> str:
        """What exports show: the graph (no interaction) above the report's HTML table."""
        return self._static_graph() + self.report.to_html()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def details_html(self) -> str:
        """What the details pane shows right now."""
        return str(self._view.details)

    def select(self, key: int | str) -> LayerDetails:
        """Select a row by index or layer path (as a click would) and return its details."""
        index = self._row_for(key)
        self._select_index(index)
        return self.details(index)

    def move(self, step: int) -> LayerDetails:
        """Move the selection ``step`` rows down (negative: up), as the arrow keys do."""
        current = self.selected or 0
        return self.select(max(0, min(len(self.calls) - 1, current + step)))

    def details(self, key: int | str) -> LayerDetails:
        """The details of a row (cached), without changing the selection."""
        self._check_open()
        index = self._row_for(key)
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            if cached.gradients is None and self._gradients is None:
                cached = self._late_gradients(cached)
            return cached
        details = self._collect(self.calls[index])
        self._cache[index] = details
        while len(self._cache) > self.options.cache_size:
            evicted, _ = self._cache.popitem(last=False)
            self._panes.pop(evicted, None)
        return details

    def refresh(self) -> None:
        """Forget the collected details (e.g. after training) and show the selected row anew."""
        self._check_open()
        self._cache.clear()
        self._panes.clear()
        if self.selected is not None:
            self._show(self.selected)

    def close(self) -> None:
        """Close the widgets and drop the model, inputs and cached details."""
        if self._closed:
            return
        self._closed = True
        self._view.close()
        self._model = self._inputs = self._gradients = None
        self._models.clear()
        self._cache.clear()
        self._panes.clear()
        self._layers.clear()
        session.forget(self)
        if self._unregister is not None:
            self._unregister()
            self._unregister = None

    def _repr_mimebundle_(
        self, include: Sequence[str] | None = None, exclude: Sequence[str] | None = None
    ) -> dict[str, Any]:
        bundle: dict[str, Any] = {
            "text/plain": self.report.to_text(),
            "text/html": self.static_html(),
        }
        if not self._closed:
            view: Any = self._view._repr_mimebundle_() or {}
            if isinstance(view, tuple):  # anywidget gives (data, metadata)
                view = view[0] or {}
            if WIDGET_VIEW in view:
                bundle[WIDGET_VIEW] = view[WIDGET_VIEW]
        return bundle

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"row {self.selected} selected"
        return f"<LayerInspector {self.report.title!r}: {len(self.calls)} rows, {state}>"

    # ------------------------------------------------------------ widgets
    def _build_widgets(self) -> None:
        from tfnb_debug.widgets.view import InspectorView

        labels, header = row_labels(self.calls, self._marks)
        rows = [
            {"row": i, "label": label, "name": call.path, "mark": mark}
            for i, (label, call, mark) in enumerate(
                zip(labels, self.calls, self._marks, strict=True)
            )
        ]
        self._graph_nodes = graph_nodes(self.calls, self._marks)
        collapsed = sorted(default_collapsed(self._graph_nodes))
        graph = self._graph(collapsed)
        view = self.options.view if graph.startswith("<svg") else "list"
        self._view = InspectorView(
            rows=rows,
            header=header,
            collapsed=collapsed,
            graph=graph,
            view=view,
            hint=_HINT,
            list_rows=self.options.list_rows,
        )
        self._view.add_class("tfnb-inspector")
        self._view.observe(self._on_select, names="selected")
        self._view.observe(self._on_collapse, names="collapsed")

    def _graph(self, collapsed: Sequence[int]) -> str:
        return graph_svg(
            self._graph_nodes,
            collapsed=collapsed,
            interactive=True,
            title=f"model graph of {self.report.title}",
        )

    def _static_graph(self) -> str:
        svg = graph_svg(
            self._graph_nodes,
            collapsed=self._view.collapsed if not self._closed else (),
            title=f"model graph of {self.report.title}",
        )
        if not svg.startswith("<svg"):
            return ""
        return (
            '<details class="tfnb-static-graph" open style="margin:4px 0 8px 0;">'
            '<summary style="cursor:pointer;color:#374151;">Model graph</summary>'
            f'<div style="max-height:640px;overflow:auto;">{svg}</div></details>'
        )

    def _on_select(self, change: dict[str, Any]) -> None:
        if change.get("new") is None or self._closed:
            return
        index = int(change["new"])
        if not 0 <= index < len(self.calls):
            return  # a stale click from the browser
        self._show(index)

    def _on_collapse(self, change: dict[str, Any]) -> None:
        if self._closed:
            return
        self._view.graph = self._graph(list(change["new"]))

    def _select_index(self, index: int) -> None:
        self._check_open()
        if self._view.selected == index:
            self._show(index)
        else:
            self._view.selected = index  # the observer shows it

    def _show(self, index: int) -> None:
        from tfnb_debug.widgets.render import details_html

        try:
            details = self.details(index)
            html = self._panes.get(index)
            if html is None:
                html = details_html(details, figures=self.options.figures)
                self._panes[index] = html
        except Exception as err:  # the pane says what went wrong; the widget stays usable
            call = self.calls[index]
            html = (
                f'<div class="tfnb-details" data-layer="{escape(call.path)}">'
                f"<b>{escape(call.path)}</b>: could not collect its details: "
                f"{escape(type(err).__name__)}: {escape(first_line(err))}"
                "</div>"
            )
        self._view.details = html

    # ------------------------------------------------------------ collecting
    def _collect(self, call: LayerCall) -> LayerDetails:
        layer = self._layer(call.path)
        findings = tuple(self._findings_for(call))
        row = row_items(call)
        if layer is None:
            reason = (
                "the layer object is not available (no model given for this row): use "
                "`%tfshape --inspect MODEL INPUT` or tfnb_debug.inspect(model, inputs)"
            )
            return LayerDetails(
                row_index=call.index,
                path=call.path,
                class_name=call.class_name,
                row=row,
                config=(),
                weights=(),
                arithmetic=None,
                activation=None,
                activation_note=reason,
                gradients=None,
                gradient_note="",
                findings=findings,
            )
        own = own_weights(layer)
        weights = weight_infos(own, bins=self.options.bins)
        arithmetic = layer_arithmetic(layer)
        activation, note = self._activation(call, layer)
        gradients, gradient_note = self._gradient_info(call.path, own)
        weights_note = ""
        if len(own) < len(layer.weights):
            weights_note = (
                f"{len(layer.weights) - len(own)} weight(s) belong to its sublayers: "
                "select their rows"
            )
        return LayerDetails(
            row_index=call.index,
            path=call.path,
            class_name=call.class_name,
            row=row,
            config=layer_config(layer),
            weights=weights,
            arithmetic=arithmetic,
            activation=activation,
            activation_note=note,
            gradients=gradients,
            gradient_note=gradient_note,
            findings=findings,
            weights_note=weights_note,
        )

    def _root(self, path: str) -> Any:
        return self._models.get(path.split("/", 1)[0])

    def _layer(self, path: str) -> Any:
        root = self._root(path)
        if root is None:
            return None
        if path not in self._layers:
            from tfnb_debug.features.shapes import layer_for_path

            try:
                self._layers[path] = layer_for_path(root, path)
            except (KeyError, LookupError, TfnbDebugError):
                self._layers[path] = None
        return self._layers[path]

    def _activation(self, call: LayerCall, layer: Any) -> tuple[ActivationInfo | None, str]:
        if call.status != "ok":
            return None, f"this call {call.status}: it produced no output ({call.error_type})"
        if self._inputs is None or self._model is None or self._root(call.path) is not self._model:
            return None, (
                "the inputs of this trace were not kept (a %%tfshape cell): to see outputs, use "
                "`%tfshape --inspect MODEL INPUT` or tfnb_debug.inspect(model, x)"
            )
        try:
            info = capture_call_output(
                self._model,
                layer,
                self._inputs,
                call_index=call.call,
                bins=self.options.bins,
                max_maps=self.options.max_feature_maps,
                training=self.options.training,
            )
        except TfnbDebugError as err:
            return None, str(err)
        return info, ""

    def _late_gradients(self, details: LayerDetails) -> LayerDetails:
        """A %tfgrad report of this model that appeared after the details were collected."""
        layer = self._layer(details.path)
        if layer is None:
            return details
        info, note = self._gradient_info(details.path, own_weights(layer))
        if info is None:
            return details
        updated = replace(details, gradients=info, gradient_note=note)
        self._cache[details.row_index] = updated
        self._panes.pop(details.row_index, None)
        return updated

    def _gradient_info(self, path: str, own: Sequence[Any]) -> tuple[GradientInfo | None, str]:
        from tfnb_debug.widgets.linking import find_gradient_report, gradient_info

        report = self._gradients
        name = path.split("/", 1)[0]
        if report is None and name:
            shell = session.shell()
            namespace = getattr(shell, "user_ns", None)
            report = find_gradient_report(name, namespace, shell)
        if report is None:
            return None, (
                f"no %tfgrad report of '{name}' in this session: run `%tfgrad {name} X Y` "
                "(one batch, no step) or `%%tfgrad` around training, then select the layer again"
            )
        return gradient_info(report, own)

    def _findings_for(self, call: LayerCall) -> list[Finding]:
        return self._findings.get(call.index, [])

    # ------------------------------------------------------------ helpers
    def _row_for(self, key: int | str) -> int:
        if isinstance(key, bool) or not isinstance(key, (int, str)):
            raise TfnbDebugError(f"select a row by index or layer path, not {key!r}")
        if isinstance(key, int):
            if not 0 <= key < len(self.calls):
                raise TfnbDebugError(
                    f"row {key} does not exist: the table has rows 0..{len(self.calls) - 1}"
                )
            return key
        for call in self.calls:
            if key in (call.path, call.name):
                return call.index
        raise TfnbDebugError(
            f"no layer {key!r} in this table: pick a path from the table, e.g. "
            f"{self.calls[0].path!r}"
            if self.calls
            else f"no layer {key!r}: the table is empty"
        )

    def _initial_row(self) -> int:
        for i, mark in enumerate(self._marks):
            if mark == "error":
                return i
        for i, call in enumerate(self.calls):
            if not call.has_children and call.depth > 0:
                return i
        return 0

    def _row_marks(self) -> list[str]:
        """Per row: "error" for the failing layer, else the worst severity of its findings."""
        marks = []
        for call in self.calls:
            if call.status == "failed":
                marks.append("error")
                continue
            worst = max(
                (f.severity for f in self._findings_for(call)),
                key=lambda s: _SEVERITY_RANK.get(s, 0),
                default="",
            )
            marks.append(worst)
        return marks

    def _check_open(self) -> None:
        if self._closed:
            raise TfnbDebugError("this inspector is closed: run the cell again to get a new one")

    def _track(self, cell_id: str | None) -> None:
        self._unregister = session.track(self, cell_id)
