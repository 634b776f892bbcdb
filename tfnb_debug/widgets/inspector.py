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

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from html import escape
from typing import Any

from tfnb_debug.errors import TfnbDebugError
from tfnb_debug.render.values import format_value
from tfnb_debug.reports import Finding, Report
from tfnb_debug.shape_records import LayerCall
from tfnb_debug.widgets.details import (
    ActivationInfo,
    GradientInfo,
    LayerDetails,
    capture_call_output,
    layer_config,
    weight_infos,
)
from tfnb_debug.widgets.params import ParamArithmetic, param_arithmetic

__all__ = ["InspectorOptions", "LayerInspector", "close_all", "inspect", "open_inspectors"]

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


# Inspectors alive in this process, oldest first; keyed by id.
_OPEN: OrderedDict[int, LayerInspector] = OrderedDict()
# The inspector last shown from each notebook cell (cell id -> inspector id).
_BY_CELL: dict[str, int] = {}
_MAX_WITHOUT_CELL = 8


def open_inspectors() -> list[LayerInspector]:
    """The inspectors that are not closed yet, oldest first."""
    return list(_OPEN.values())


def close_all() -> None:
    """Close every open inspector (their widgets leave ipywidgets' registry)."""
    for inspector in list(_OPEN.values()):
        inspector.close()


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
        self._gradients = gradients
        self._cache: OrderedDict[int, LayerDetails] = OrderedDict()
        self._layers: dict[str, Any] = {}
        self._closed = False
        self._unregister: Callable[[], None] | None = None
        self._names = _unique_names(self.calls)
        self._marks = self._row_marks()
        self._build_widgets()
        self._track(cell_id)
        if self.calls:
            self._select_index(self._initial_row())

    # ------------------------------------------------------------ public API
    @property
    def widget(self) -> Any:
        """The ipywidgets container (header, layer list, details pane)."""
        return self._box

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
            return cached
        details = self._collect(self.calls[index])
        self._cache[index] = details
        while len(self._cache) > self.options.cache_size:
            self._cache.popitem(last=False)
        return details

    def close(self) -> None:
        """Close the widgets and drop the model, inputs and cached details."""
        if self._closed:
            return
        self._closed = True
        for child in (self._pane, self._list, self._header, self._style, self._left, self._box):
            child.close()
        self._model = self._inputs = self._gradients = None
        self._cache.clear()
        self._layers.clear()
        _OPEN.pop(id(self), None)
        for cell, ident in list(_BY_CELL.items()):
            if ident == id(self):
                del _BY_CELL[cell]
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

        labels, header = _row_labels(self.calls, self._marks)
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
        hint = (
            "click a layer, or use the arrow keys in the list; "
            "!! marks the failing layer, ! a layer named by a finding"
        )
        self._left = w.VBox(
            [self._style, self._header, self._list, w.HTML(f'<div class="tfnb-hint">{hint}</div>')],
            layout=w.Layout(flex="0 0 auto"),
        )
        self._pane = w.HTML(
            value="", layout=w.Layout(flex="1 1 auto", min_width="360px", margin="0 0 0 12px")
        )
        self._pane.add_class("tfnb-inspector-details")
        self._box = w.HBox(
            [self._left, self._pane],
            layout=w.Layout(align_items="flex-start", width="100%"),
        )
        self._box.add_class("tfnb-inspector")
        self._list.observe(self._on_select, names="value")

    def _on_select(self, change: dict[str, Any]) -> None:
        if change.get("new") is None or self._closed:
            return
        self._show(int(change["new"]))

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
            html = details_html(details, figures=self.options.figures)
        except Exception as err:  # the pane says what went wrong; the widget stays usable
            call = self.calls[index]
            html = (
                f'<div class="tfnb-details" data-layer="{escape(call.path)}">'
                f"<b>{escape(call.path)}</b>: could not collect its details: "
                f"{escape(type(err).__name__)}: {escape(str(err).splitlines()[0] if str(err) else '')}"
                "</div>"
            )
        self._pane.value = html

    # ------------------------------------------------------------ collecting
    def _collect(self, call: LayerCall) -> LayerDetails:
        layer = self._layer(call.path)
        findings = tuple(self._findings_for(call))
        row = _row_items(call)
        if layer is None:
            reason = (
                "the layer object is not available (the report was traced from a cell): "
                "use `%tfshape MODEL INPUT --inspect` or tfnb_debug.inspect(model, inputs)"
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
        own = _own_weights(layer)
        weights = weight_infos(_Weights(own), bins=self.options.bins)
        arithmetic = _arithmetic(layer)
        activation, note = self._activation(call, layer)
        gradients, gradient_note = self._gradient_info(own)
        if len(own) < len(layer.weights):
            note_weights = len(layer.weights) - len(own)
            note = (note + " " if note else "") + (
                f"({note_weights} more weight(s) belong to its sublayers: select their rows.)"
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
        )

    def _layer(self, path: str) -> Any:
        if self._model is None:
            return None
        if path not in self._layers:
            from tfnb_debug.shapes import layer_for_path

            try:
                self._layers[path] = layer_for_path(self._model, path)
            except (KeyError, LookupError, TfnbDebugError):
                self._layers[path] = None
        return self._layers[path]

    def _activation(self, call: LayerCall, layer: Any) -> tuple[ActivationInfo | None, str]:
        if call.status != "ok":
            return None, f"this call {call.status}: it produced no output ({call.error_type})"
        if self._inputs is None:
            return None, (
                "no inputs to run the model with: pass them, e.g. tfnb_debug.inspect(model, x)"
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

    def _gradient_info(self, own: Sequence[Any]) -> tuple[GradientInfo | None, str]:
        from tfnb_debug.widgets.linking import find_gradient_report, gradient_info

        report = self._gradients
        name = str(getattr(self._model, "name", ""))
        if report is None and name:
            shell = _shell()
            namespace = getattr(shell, "user_ns", None)
            report = find_gradient_report(name, namespace, shell)
        if report is None:
            return None, (
                f"no %tfgrad report of '{name}' in this session: run `%tfgrad {name} X Y` "
                "(one batch, no step) or `%%tfgrad` around training, then click again"
            )
        return gradient_info(report, own)

    def _findings_for(self, call: LayerCall) -> list[Finding]:
        keys = [call.path]
        if self._names.get(call.name) == 1 and call.name != call.path:
            keys.append(call.name)
        out = []
        for f in self.report.findings:
            if f.place == call.path or any(_names_place(f.place, key) for key in keys):
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
        if cell_id is not None:
            previous = _OPEN.get(_BY_CELL.get(cell_id, -1))
            if previous is not None:
                previous.close()
            _BY_CELL[cell_id] = id(self)
        _OPEN[id(self)] = self
        without_cell = [
            i for i in _OPEN.values() if i is not self and id(i) not in _BY_CELL.values()
        ]
        while len(without_cell) >= _MAX_WITHOUT_CELL:
            without_cell.pop(0).close()
        self._unregister = _register_closer(self.close)


def inspect(
    model: Any,
    inputs: Any = None,
    *,
    input_shape: str | Sequence[Any] | None = None,
    training: bool = False,
    gradients: Any = None,
    options: InspectorOptions | None = None,
    thresholds: Any = None,
    name: str | None = None,
) -> LayerInspector:
    """Trace ``model`` like :func:`tfnb_debug.trace_shapes` and return a click-through inspector.

    ``inputs`` (array, tensor, list or dict of them) or ``input_shape`` as for
    ``trace_shapes``; without either, the same synthetic batch (batch 2,
    seeded) is built from the model's input spec.  ``gradients`` is a
    ``%tfgrad`` report of the same model, whose per-layer gradients the details
    pane shows.  Display the result in a notebook (last line of a cell, or
    ``display(...)``): widget frontends show the inspector, every other
    frontend the static table.  ``inspector.select("model/conv")`` selects a
    layer from code and returns its :class:`LayerDetails`.

    Example::

        insp = tfnb_debug.inspect(model, x_batch)
        insp            # shows the inspector
    """
    from tfnb_debug.shapes import trace_shapes

    if options is not None and not isinstance(options, InspectorOptions):
        raise TfnbDebugError(
            f"options must be tfnb_debug.widgets.inspector.InspectorOptions, got {type(options).__name__}"
        )
    inputs, note = _resolve_inputs(model, inputs, input_shape)
    report = trace_shapes(model, inputs, training=training, thresholds=thresholds, name=name)
    if note and inputs is not None:
        report = replace(report, input_note=note)
    options = replace(options or InspectorOptions(), training=training)
    return LayerInspector(
        report,
        model=model,
        inputs=inputs,
        gradients=gradients,
        options=options,
        cell_id=current_cell_id(),
    )


def _resolve_inputs(
    model: Any, inputs: Any, input_shape: str | Sequence[Any] | None
) -> tuple[Any, str]:
    """The batch ``trace_shapes`` would build, kept so that activations can be captured later."""
    from tfnb_debug.collect.shape_inputs import (
        batch_from_shapes,
        check_model,
        input_spec_of,
        parse_input_shape,
        synthetic_batch,
    )

    check_model(model)
    if inputs is not None and input_shape is not None:
        raise TfnbDebugError("give either inputs or input_shape, not both")
    if inputs is not None:
        return inputs, ""
    spec = input_spec_of(model)
    if input_shape is not None:
        batch = batch_from_shapes(parse_input_shape(input_shape), spec)
        return batch, "input: synthetic batch of the given shape (random normal floats)"
    if spec is not None:
        return synthetic_batch(spec), (
            "input: synthetic batch built from the model's input spec (batch 2, random normal floats)"
        )
    return None, ""  # trace_shapes reports S04 (unbuilt model)


class _Weights:
    """A stand-in with a ``weights`` attribute, to summarize a chosen list of variables."""

    def __init__(self, weights: Sequence[Any]) -> None:
        self.weights = list(weights)


def _sublayers(layer: Any) -> list[Any]:
    flatten = getattr(layer, "_flatten_layers", None)
    if flatten is not None:
        try:
            return list(flatten(include_self=False, recursive=True))
        except TypeError:
            pass
    return list(getattr(layer, "layers", None) or [])


def _own_weights(layer: Any) -> list[Any]:
    """The layer's weights that none of its sublayers holds (all of them for a plain layer)."""
    inner = {id(v) for sub in _sublayers(layer) for v in sub.weights}
    seen: set[int] = set()
    own = []
    for v in layer.weights:
        if id(v) not in inner and id(v) not in seen:
            seen.add(id(v))
            own.append(v)
    return own


def _arithmetic(layer: Any) -> ParamArithmetic | None:
    try:
        return param_arithmetic(layer)
    except Exception:  # a custom layer whose weights cannot be read: no arithmetic
        return None


def _names_place(place: str, key: str) -> bool:
    if not key or not place:
        return False
    return re.search(rf"(?<![\w/#]){re.escape(key)}(?![\w/#])", place) is not None


def _unique_names(calls: Sequence[LayerCall]) -> dict[str, int]:
    paths_by_name: dict[str, set[str]] = {}
    for call in calls:
        paths_by_name.setdefault(call.name, set()).add(call.path)
    return {name: len(paths) for name, paths in paths_by_name.items()}


def _shapes(infos: Sequence[Any]) -> str:
    shapes = [format_value(t.shape) if t.shape is not None else "?" for t in infos]
    return shapes[0] if len(shapes) == 1 else "[" + ", ".join(shapes) + "]"


def _row_labels(calls: Sequence[LayerCall], marks: Sequence[str]) -> tuple[list[str], str]:
    """Fixed-width labels for the list (non-breaking spaces keep the columns aligned)."""
    glyph = {"error": "!!", "warning": " !", "": "  "}
    cells = []
    for call in calls:
        name = "  " * call.depth + (call.path.rsplit("/", 1)[-1] if call.depth else call.path)
        if call.call:
            name += f" (call {call.call + 1})"
        params = call.params
        cells.append(
            (
                str(call.index),
                name,
                call.class_name,
                _shapes(call.outputs) if call.outputs else call.status,
                "" if params is None else f"{params:,}",
            )
        )
    titles = ("#", "layer", "class", "output shape", "params")
    widths = [max([len(t)] + [len(c[i]) for c in cells]) for i, t in enumerate(titles)]
    widths = [min(w, 48) for w in widths]

    def line(values: Sequence[str], lead: str) -> str:
        parts = [
            v[:w].rjust(w) if i in (0, 4) else v[:w].ljust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return (lead + " " + "  ".join(parts)).rstrip().replace(" ", "\u00a0")

    labels = [line(c, glyph[m]) for c, m in zip(cells, marks, strict=True)]
    return labels, line(titles, "  ")


def _row_items(call: LayerCall) -> tuple[tuple[str, Any], ...]:
    items: list[tuple[str, Any]] = [
        ("path", call.path),
        ("class", call.class_name),
        ("mode", call.mode),
        ("status", call.status),
        ("input shape(s)", _shapes(call.inputs) if call.inputs else "-"),
        ("output shape(s)", _shapes(call.outputs) if call.outputs else "-"),
        ("output dtype(s)", ", ".join(t.dtype for t in call.outputs) or "-"),
        ("parameters", call.params),
    ]
    if call.error:
        items.append(("error", call.error))
    return tuple(items)


def _shell() -> Any:
    """The running IPython shell, or None (plain Python)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _register_closer(close: Callable[[], None]) -> Callable[[], None] | None:
    """Put ``close`` in the extension's closers (``%unload_ext`` runs them); return an undo."""
    shell = _shell()
    if shell is None:
        return None
    from tfnb_debug._state import state_for

    state = state_for(shell)
    state.closers.append(close)

    def unregister() -> None:
        if close in state.closers:
            state.closers.remove(close)

    return unregister


def current_cell_id() -> str | None:
    """The id of the notebook cell being run (JupyterLab and Notebook 7 send it), if any."""
    shell = _shell()
    header = getattr(shell, "parent_header", None) if shell is not None else None
    if not isinstance(header, dict):
        return None
    cell = (header.get("metadata") or {}).get("cellId")
    return str(cell) if cell else None


_STYLE = """<style>
.tfnb-inspector-list select { font-family: SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; }
.tfnb-inspector-header { font-family: SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; font-weight: 600; white-space: pre; color: #374151; padding-left: 4px; }
.tfnb-hint { color: #6b7280; font-size: 11px; }
.tfnb-inspector-details { overflow-x: auto; }
</style>"""
