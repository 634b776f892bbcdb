"""The click-through layer inspector: the ``%tfshape`` table as a list you click, and a details pane.

:class:`LayerInspector` glues a shape report (plain rows) to the live model:
selecting a row collects that layer's details on demand (config, weights with
histograms, the parameter arithmetic, the output of that call, gradients from a
``%tfgrad`` report of the same model, the findings that name it) and swaps the
details pane's HTML (print() in a widget callback would vanish in JupyterLab).

Displaying it gives ONE output bundle: the widget view, the report's static
HTML table and its text table, so JupyterLab shows the widget while nbconvert,
GitHub and terminals show the table.  Every inspector registers its ``close``
with the extension (``%unload_ext`` closes them all) and an inspector shown
again from the same notebook cell closes the one shown there before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from html import escape
from typing import Any

from tfnb_debug.errors import TfnbDebugError
from tfnb_debug.reports import Finding, Report
from tfnb_debug.shape_records import LayerCall
from tfnb_debug.text import first_line
from tfnb_debug.widgets import session
from tfnb_debug.widgets.details import (
    ActivationInfo,
    GradientInfo,
    LayerDetails,
    capture_call_output,
    layer_config,
    weight_infos,
)
from tfnb_debug.widgets.rows import arithmetic as layer_arithmetic
from tfnb_debug.widgets.rows import (
    names_place,
    own_weights,
    row_items,
    row_labels,
    unique_names,
    widget_tree,
)

__all__ = ["WIDGET_VIEW", "InspectorOptions", "LayerInspector"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@dataclass(frozen=True)
class InspectorOptions:
    """Settings of the inspector (pass ``options=InspectorOptions(...)``).

    ``bins``: histogram bins; ``max_feature_maps``: feature maps drawn for
    image-like outputs; ``training``: the ``training`` flag of the forward pass
    that captures an activation; ``cache_size``: how many layers' details stay
    cached; ``list_rows``: rows the layer list shows before it scrolls;
    ``figures``: draw histograms and feature maps (off: numbers only).
    """

    bins: int = 30
    max_feature_maps: int = 16
    training: bool = False
    cache_size: int = 16
    list_rows: int = 22
    figures: bool = True

    def __post_init__(self) -> None:
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
        self._names = unique_names(self.calls)
        self._marks = self._row_marks()
        self._build_widgets()
        self._track(cell_id)
        if self.calls:
            self._select_index(self._initial_row())
        else:  # e.g. S04, an unbuilt model: say why the table is empty
            from tfnb_debug.render.html import findings_html

            self._pane.value = (
                '<div class="tfnb-details">No layer calls were recorded.'
                f"{findings_html(report.findings)}</div>"
            )

    # ------------------------------------------------------------ public API
    @property
    def widget(self) -> Any:
        """The ipywidgets container (header, layer list, details pane)."""
        return self._box

    @property
    def layer_list(self) -> Any:
        """The ``Select`` widget listing the rows (a click sets its value)."""
        return self._list

    @property
    def key_slider(self) -> Any:
        """The vertical slider beside the list that takes the up/down keys (top = row 0)."""
        return self._keys

    @property
    def selected(self) -> int | None:
        """The row index of the selected layer, or None when the table is empty."""
        value = self._list.value
        return None if value is None else int(value)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def details_html(self) -> str:
        """What the details pane shows right now."""
        return str(self._pane.value)

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
        for widget in widget_tree(self._box):
            widget.close()
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
            "text/html": self.report.to_html(),
        }
        if not self._closed:
            view = self._box._repr_mimebundle_() or {}
            if WIDGET_VIEW in view:
                bundle[WIDGET_VIEW] = view[WIDGET_VIEW]
        return bundle

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"row {self.selected} selected"
        return f"<LayerInspector {self.report.title!r}: {len(self.calls)} rows, {state}>"

    # ------------------------------------------------------------ widgets
    def _build_widgets(self) -> None:
        import ipywidgets as w

        labels, header = row_labels(self.calls, self._marks)
        options = [(label, i) for i, label in enumerate(labels)]
        rows = max(2, min(self.options.list_rows, len(options)))
        self._style = w.HTML(value=_STYLE)
        self._header = w.HTML(value=f'<div class="tfnb-inspector-header">{escape(header)}</div>')
        self._list = w.Select(
            options=options,
            value=None,
            rows=rows,
            layout=w.Layout(width="auto", min_width="420px"),
        )
        self._list.add_class("tfnb-inspector-list")
        # The keyboard handle.  JupyterLab takes the arrow keys of a focused <select>
        # for its own cell navigation (command mode), but leaves alone keys a widget
        # has handled: a slider's handle does, so up/down on it move the selection.
        # Top of the slider = first row, like the list beside it.
        last = max(len(options) - 1, 0)
        self._keys = w.IntSlider(
            min=0,
            max=max(last, 1),
            value=last,
            orientation="vertical",
            readout=False,
            continuous_update=True,
            description="",
            layout=w.Layout(height=f"{rows * 17 + 8}px", width="28px"),
        )
        self._keys.add_class("tfnb-inspector-keys")
        self._keys.tooltip = (
            "click here, then use the up/down arrow keys to move through the layers"
        )
        hint = (
            "click a layer; for the keyboard, click the slider beside the list and use up/down. "
            "!! marks the failing layer, ! a layer named by a finding"
        )
        self._left = w.VBox(
            [
                self._style,
                self._header,
                w.HBox([self._list, self._keys], layout=w.Layout(align_items="flex-start")),
                w.HTML(
                    f'<div class="tfnb-hint">{hint}</div>',
                    layout=w.Layout(max_width="520px"),
                ),
            ],
            layout=w.Layout(flex="0 0 auto"),
        )
        self._pane = w.HTML(
            value="", layout=w.Layout(flex="1 1 520px", min_width="460px", margin="0 0 0 12px")
        )
        self._pane.add_class("tfnb-inspector-details")
        self._box = w.HBox(
            [self._left, self._pane],
            layout=w.Layout(align_items="flex-start", width="100%", flex_flow="row wrap"),
        )
        self._box.add_class("tfnb-inspector")
        self._list.observe(self._on_select, names="value")
        self._keys.observe(self._on_key, names="value")

    def _on_select(self, change: dict[str, Any]) -> None:
        if change.get("new") is None or self._closed:
            return
        index = int(change["new"])
        position = len(self.calls) - 1 - index
        if self._keys.value != position:
            self._keys.value = position
        self._show(index)

    def _on_key(self, change: dict[str, Any]) -> None:
        if self._closed or not self.calls:
            return
        index = max(0, min(len(self.calls) - 1, len(self.calls) - 1 - int(change["new"])))
        if self._list.value != index:
            self._list.value = index

    def _select_index(self, index: int) -> None:
        self._check_open()
        if self._list.value == index:
            self._show(index)
        else:
            self._list.value = index  # the observer shows it

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
        self._pane.value = html

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
            from tfnb_debug.shapes import layer_for_path

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
        keys = [call.path]
        if self._names.get(call.name) == 1 and call.name != call.path:
            keys.append(call.name)
        out = []
        for f in self.report.all_findings():
            if f.place == call.path or any(names_place(f.place, key) for key in keys):
                out.append(f)
        return out

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
        marks = []
        for call in self.calls:
            if call.status == "failed":
                marks.append("error")
            elif self._findings_for(call):
                marks.append("warning")
            else:
                marks.append("")
        return marks

    def _check_open(self) -> None:
        if self._closed:
            raise TfnbDebugError("this inspector is closed: run the cell again to get a new one")

    def _track(self, cell_id: str | None) -> None:
        self._unregister = session.track(self, cell_id)


_STYLE = """<style>
.tfnb-inspector-list select { font-family: SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; }
.tfnb-inspector-header { font-family: SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; font-weight: 600; white-space: pre; color: #374151; padding-left: 4px; }
.tfnb-hint { color: #6b7280; font-size: 11px; white-space: normal; line-height: 1.3; }
.tfnb-inspector-details { overflow-x: auto; }
</style>"""
