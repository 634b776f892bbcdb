"""The layer inspector's logic in Python: selection, details pane, output bundle, closing, links."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import ipywidgets
import keras
import nbformat
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import tfnb_debug
from tests._support import run_magic
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.widgets.inspector import WIDGET_VIEW, InspectorOptions, LayerInspector
from tfnb_debug.widgets.session import open_inspectors

L = keras.layers


def small_cnn(name: str = "cnn") -> keras.Model:
    keras.utils.set_random_seed(7)
    return keras.Sequential(
        [
            keras.Input((12, 12, 1)),
            L.Conv2D(8, 3, activation="relu", name="conv_a"),
            L.MaxPooling2D(name="pool"),
            L.Conv2D(4, 3, name="conv_b"),
            L.BatchNormalization(name="bn"),
            L.Flatten(name="flat"),
            L.Dense(3, name="head"),
        ],
        name=name,
    )


def images(n: int = 4) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(n, 12, 12, 1)).astype("float32")


def widget_alive(widget: Any) -> bool:
    return widget.model_id in ipywidgets.widgets.widget._instances if widget.comm else False


@pytest.fixture
def inspectors() -> Iterator[list[LayerInspector]]:
    """Inspectors a test made; all closed afterwards so no widget outlives the test."""
    made: list[LayerInspector] = []
    yield made
    for inspector in made:
        inspector.close()


def test_selecting_a_conv_layer_shows_its_name_weights_and_output(
    inspectors: list[LayerInspector],
) -> None:
    model, x = small_cnn(), images()
    insp = tfnb_debug.inspect(model, x)
    inspectors.append(insp)
    details = insp.select("cnn/conv_b")
    assert insp.selected == details.row_index
    assert details.path == "cnn/conv_b" and details.class_name == "Conv2D"
    assert [w.shape for w in details.weights] == [(3, 3, 8, 4), (4,)]
    kernel = model.get_layer("conv_b").kernel.numpy()
    stats = details.weights[0].stats
    assert stats is not None
    assert stats.mean == pytest.approx(kernel.mean(), abs=1e-6)
    assert stats.std == pytest.approx(kernel.std(), rel=1e-4)
    assert details.arithmetic is not None
    assert details.arithmetic.expression == "(3*3*8 + 1) * 4 = 292"
    # The output captured on demand agrees with what the shape trace measured for that row.
    row = insp.calls[details.row_index]
    traced = row.outputs[0].stats
    assert details.activation is not None and details.activation.stats is not None
    assert traced is not None and traced.mean is not None
    assert details.activation.shape == row.outputs[0].shape == (4, 3, 3, 4)
    assert details.activation.stats.mean == pytest.approx(traced.mean, abs=1e-5)
    assert details.activation.feature_maps is not None
    assert details.activation.feature_maps.shape == (3, 3, 4)

    pane = insp.details_html
    assert 'data-layer="cnn/conv_b"' in pane
    assert "(3, 3, 8, 4)" in pane and "(3*3*8 + 1) * 4 = 292" in pane
    assert "feature maps 0-3 of 4, example 0" in pane
    # histograms of the 2 weights and of the output as inline SVG, the feature maps one PNG
    assert 'aria-label="histogram of cnn/conv_b/kernel"' in pane
    assert 'aria-label="histogram of cnn/conv_b/bias"' in pane
    assert 'aria-label="histogram of the output"' in pane
    assert pane.count("<svg") == 3 and pane.count("data:image/png;base64,") == 1
    text = details.to_text()
    assert "cnn/conv_b (Conv2D)" in text and "(3, 3, 8, 4)" in text


def test_a_click_and_the_keys_set_selected_and_change_the_pane(
    inspectors: list[LayerInspector],
) -> None:
    insp = tfnb_debug.inspect(small_cnn(), images())
    inspectors.append(insp)
    rows = {c.path: c.index for c in insp.calls}
    # What a click on a graph box or a list row does: the browser sets the synced `selected`.
    insp.widget.selected = rows["cnn/head"]
    assert insp.selected == rows["cnn/head"]
    assert 'data-layer="cnn/head"' in insp.details_html
    assert "(36 + 1) * 3 = 111" in insp.details_html
    assert insp.move(-1).path == "cnn/flat"
    assert 'data-layer="cnn/flat"' in insp.details_html
    assert "This layer has no weights" in insp.details_html
    assert insp.move(+1).path == "cnn/head"
    # select() from code is seen by the browser through the same trait.
    insp.select("cnn/conv_b")
    assert insp.widget.selected == rows["cnn/conv_b"]
    assert 'data-layer="cnn/conv_b"' in insp.details_html
    insp.widget.selected = 99  # a stale row from the browser changes nothing
    assert 'data-layer="cnn/conv_b"' in insp.details_html
    insp.widget.selected = rows["cnn/bn"]
    assert insp.calls[insp.selected or 0].path == "cnn/bn"
    assert insp.move(+5).path == insp.calls[-1].path  # clamps at the last row
    with pytest.raises(TfnbDebugError, match="no layer 'nope'"):
        insp.select("nope")
    with pytest.raises(TfnbDebugError, match="row 99 does not exist"):
        insp.select(99)


def test_the_list_labels_and_the_first_selection(inspectors: list[LayerInspector]) -> None:
    insp = tfnb_debug.inspect(small_cnn(), images())
    inspectors.append(insp)
    labels = [row["label"].replace("\u00a0", " ") for row in insp.widget.rows]
    assert len(labels) == len(insp.calls)
    assert [row["row"] for row in insp.widget.rows] == [c.index for c in insp.calls]
    conv = next(lbl for lbl in labels if "conv_b" in lbl)
    assert re.search(r"conv_b\s+Conv2D\s+\(4, 3, 3, 4\)\s+292$", conv)
    # Starts on the first real layer, not on the model row.
    assert insp.calls[insp.selected or 0].path == "cnn/conv_a"


def test_one_bundle_with_widget_view_static_table_and_text(
    inspectors: list[LayerInspector],
) -> None:
    insp = tfnb_debug.inspect(small_cnn(), images())
    inspectors.append(insp)
    bundle = insp._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", WIDGET_VIEW}
    assert bundle[WIDGET_VIEW]["model_id"] == insp.widget.model_id
    assert "<table" in bundle["text/html"] and "cnn/conv_b" in bundle["text/html"]
    assert "cnn/conv_b" in bundle["text/plain"]
    assert bundle["text/html"].endswith(insp.report.to_html())
    # The static graph: one box per layer (no model box), no interactive toggles.
    html = bundle["text/html"]
    assert html.count('<svg class="tfnb-graph"') == 1
    assert html.count('class="tfnb-node"') == len(insp.calls) - 1 + 1  # layers + input
    assert "data-toggle" not in html
    insp.close()
    assert set(insp._repr_mimebundle_()) == {"text/plain", "text/html"}


def test_nbconvert_export_without_widget_state_shows_the_table(
    inspectors: list[LayerInspector],
) -> None:
    from nbconvert import HTMLExporter

    insp = tfnb_debug.inspect(small_cnn(), images())
    inspectors.append(insp)
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("tfnb_debug.inspect(model, x)")
    cell.outputs = [nbformat.v4.new_output("display_data", data=insp._repr_mimebundle_())]
    nb.cells = [cell]
    html, _ = HTMLExporter().from_notebook_node(nb)
    assert "cnn/conv_b" in html and "Shape trace of" in html
    assert '<svg class="tfnb-graph"' in html and 'data-row="3"' in html  # the static graph
    assert insp.widget.model_id not in html  # the widget view was not chosen


def test_rerun_in_the_same_cell_closes_the_previous_inspector(
    inspectors: list[LayerInspector],
) -> None:
    model, x = small_cnn(), images()
    report = tfnb_debug.trace_shapes(model, x)
    first = LayerInspector(report, model=model, inputs=x, cell_id="cell-1")
    other = LayerInspector(report, model=model, inputs=x, cell_id="cell-2")
    inspectors.extend([first, other])
    widgets_of_first = [first.widget]
    assert all(widget_alive(w) for w in widgets_of_first)
    second = LayerInspector(report, model=model, inputs=x, cell_id="cell-1")
    inspectors.append(second)
    assert first.closed and not second.closed and not other.closed
    assert not any(widget_alive(w) for w in widgets_of_first)
    assert first not in open_inspectors() and second in open_inspectors()
    with pytest.raises(TfnbDebugError, match="closed"):
        first.select(0)


def test_unloading_the_extension_closes_every_inspector(shell: InteractiveShell) -> None:
    shell.user_ns.update(model=small_cnn(), x=images())
    with capture_output():
        result = shell.run_cell("import tfnb_debug\ninsp = tfnb_debug.inspect(model, x)")
    assert result.success
    insp = shell.user_ns["insp"]
    assert not insp.closed and widget_alive(insp.widget)
    with capture_output():
        shell.run_line_magic("unload_ext", "tfnb_debug")
    try:
        assert insp.closed and not widget_alive(insp.widget)
        assert insp not in open_inspectors()
    finally:
        with capture_output():
            shell.run_line_magic("load_ext", "tfnb_debug")


def test_findings_that_name_a_layer_are_shown_for_it_only(
    inspectors: list[LayerInspector],
) -> None:
    keras.utils.set_random_seed(1)
    model = keras.Sequential(
        [
            keras.Input((16,)),
            L.Dense(32, activation="relu", name="alive"),
            L.Dense(
                32,
                activation="relu",
                bias_initializer=keras.initializers.Constant(-50.0),
                name="dead",
            ),
            L.Dense(2, name="out"),
        ],
        name="mlp",
    )
    x = np.random.default_rng(0).normal(size=(8, 16)).astype("float32")
    insp = tfnb_debug.inspect(model, x)
    inspectors.append(insp)
    assert "N02" in insp.report.codes()
    dead = insp.details("mlp/dead")
    alive = insp.details("mlp/alive")
    assert [f.code for f in dead.findings] == ["N02"]
    assert alive.findings == ()
    insp.select("mlp/dead")
    assert 'data-code="N02"' in insp.details_html
    marks = dict(zip([c.path for c in insp.calls], insp._marks, strict=True))
    assert marks["mlp/dead"] == "warning" and marks["mlp/alive"] == ""


def test_a_failed_trace_starts_on_the_failing_layer(inspectors: list[LayerInspector]) -> None:
    class WrongWidth(keras.Model):
        def __init__(self) -> None:
            super().__init__(name="wrong")
            self.first = L.Dense(4, name="first")
            self.second = L.Dense(5, name="second")
            self.join = L.Add(name="join")

        def call(self, x: Any) -> Any:
            return self.join([self.first(x), self.second(x)])

    wrong = WrongWidth()
    x = np.ones((2, 8), "float32")
    insp = tfnb_debug.inspect(wrong, x)
    inspectors.append(insp)
    assert insp.report.codes()[0] == "S01"
    failing = insp.calls[insp.selected or 0]
    assert failing.status == "failed" and failing.path == "wrong/join"
    # The graph marks it in the report's red, and both branches feed it.
    assert f'data-row="{failing.index}" data-severity="error"' in insp.widget.graph
    join = next(n for n in insp.graph_nodes if n.row == failing.index)
    assert {insp.calls[i].path for i in join.inputs} == {"wrong/first", "wrong/second"}
    details = insp.details(failing.index)
    assert details.activation is None and "failed" in details.activation_note
    assert "S01" in [f.code for f in details.findings]
    first = insp.details("wrong/first")
    assert first.activation is not None and first.activation.shape == (2, 4)
    assert insp._marks[failing.index] == "error"


def test_gradients_of_the_same_model_are_linked(
    shell: InteractiveShell, inspectors: list[LayerInspector]
) -> None:
    model, x = small_cnn(), images()
    model.compile("adam", "sparse_categorical_crossentropy")
    y = np.array([0, 1, 2, 0])
    shell.user_ns.update(model=model, x=x, y=y)
    insp = tfnb_debug.inspect(model, x)
    inspectors.append(insp)
    before = insp.details("cnn/conv_b")
    assert before.gradients is None and "%tfgrad" in before.gradient_note
    with capture_output():
        result = shell.run_cell("import tfnb_debug\ng = tfnb_debug.probe_gradients(model, x, y)")
    assert result.success
    details = insp.details("cnn/conv_b")
    assert details.gradients is not None
    assert details.gradients.variables == ("cnn/conv_b/kernel", "cnn/conv_b/bias")
    rows = dict(details.gradients.rows)
    report = shell.user_ns["g"]
    assert rows["gradient norm, last step"] == pytest.approx(
        float(report.for_layer("conv_b").grad_norm[-1])
    )
    assert "update / weight norm, last step" in rows
    insp.select("cnn/conv_b")
    assert "gradient norm, last step" in insp.details_html
    assert 'aria-label="histogram of log10|g|"' in insp.details_html  # inline SVG
    assert insp.details("cnn/pool").gradients is None  # no weights, no gradients
    # A gradient report of another model is not linked.
    other = small_cnn("other")
    other.compile("adam", "sparse_categorical_crossentropy")
    insp_other = tfnb_debug.inspect(other, x)
    inspectors.append(insp_other)
    assert insp_other.details("other/conv_b").gradients is None


def test_a_layer_of_a_report_without_a_model_still_shows_its_row(
    inspectors: list[LayerInspector],
) -> None:
    model, x = small_cnn(), images()
    report = tfnb_debug.trace_shapes(model, x)
    insp = LayerInspector(report, options=InspectorOptions(figures=False))
    inspectors.append(insp)
    details = insp.details("cnn/conv_b")
    assert details.weights == () and details.activation is None
    assert "not available" in details.activation_note
    assert dict(details.row)["output shape(s)"] == "(4, 3, 3, 4)"


def test_bad_arguments_are_one_line_errors() -> None:
    with pytest.raises(TfnbDebugError, match="needs a shape report"):
        LayerInspector(tfnb_debug.Report(title="x"))
    with pytest.raises(TfnbDebugError, match="bins"):
        InspectorOptions(bins=0)
    with pytest.raises(TfnbDebugError):
        tfnb_debug.inspect("not a model")


def test_tfshape_inspect_shows_one_bundle_and_gives_the_inspector(shell: InteractiveShell) -> None:
    shell.user_ns.update(model=small_cnn(), x=images())
    shown = run_magic(shell, "%tfshape --inspect model x")
    try:
        assert shown.result is None
        bundles = [o for o in shown.outputs if WIDGET_VIEW in o]
        assert len(bundles) == 1
        assert "cnn/conv_b" in bundles[0]["text/html"] and "cnn/conv_b" in bundles[0]["text/plain"]
        got = run_magic(shell, "%tfshape -q -o --inspect -v insp model x")
        insp = got.result
        assert isinstance(insp, LayerInspector) and shell.user_ns["insp"] is insp
        assert got.outputs == []
        assert insp.select("cnn/conv_b").activation is not None
    finally:
        with capture_output():
            shell.run_line_magic("unload_ext", "tfnb_debug")
            shell.run_line_magic("load_ext", "tfnb_debug")


def test_tfshape_inspect_on_a_failing_model_shows_it_then_raises(shell: InteractiveShell) -> None:
    class Mismatch(keras.Model):
        def __init__(self) -> None:
            super().__init__(name="mismatch")
            self.a = L.Dense(4, name="a")
            self.b = L.Dense(5, name="b")
            self.join = L.Add(name="join")

        def call(self, x: Any) -> Any:
            return self.join([self.a(x), self.b(x)])

    shell.user_ns.update(bad=Mismatch(), x=np.ones((2, 3), "float32"))
    with capture_output() as captured, pytest.raises(ValueError):
        shell.run_line_magic("tfshape", "--inspect bad x")
    bundles = [o.data for o in captured.outputs if WIDGET_VIEW in o.data]
    assert len(bundles) == 1 and "S01" in bundles[0]["text/plain"]
    with capture_output():
        shell.run_line_magic("unload_ext", "tfnb_debug")
        shell.run_line_magic("load_ext", "tfnb_debug")


def test_tfshape_cell_inspect_finds_the_model_by_name(shell: InteractiveShell) -> None:
    shell.user_ns.update(model=small_cnn(), x=images())
    shown = run_magic(shell, "%%tfshape -q -o --inspect", cell="y = model(x)")
    insp = shown.result
    try:
        assert isinstance(insp, LayerInspector)
        details = insp.details("cnn/conv_b")
        assert [w.shape for w in details.weights] == [(3, 3, 8, 4), (4,)]
        assert details.activation is None and "%%tfshape cell" in details.activation_note
    finally:
        insp.close()


def test_a_tfgrad_report_shown_in_the_session_is_linked(shell: InteractiveShell) -> None:
    model, x = small_cnn("linked"), images()
    model.compile("adam", "sparse_categorical_crossentropy")
    shell.user_ns.update(model=model, x=x, y=np.array([0, 1, 2, 0]))
    insp = run_magic(shell, "%tfshape -q -o --inspect model x").result
    try:
        assert insp.details("linked/head").gradients is None
        shown = run_magic(shell, "%tfgrad model x y")  # displayed only: no -o, no -v
        assert shown.result is None and len(shown.outputs) == 1  # shown, not stored
        head = insp.details("linked/head")
        assert head.gradients is not None
        assert head.gradients.variables == ("linked/head/kernel", "linked/head/bias")
    finally:
        insp.close()


def test_an_unbuilt_model_gives_an_empty_inspector_that_says_why(
    inspectors: list[LayerInspector],
) -> None:
    class Unbuilt(keras.Model):
        def __init__(self) -> None:
            super().__init__(name="unbuilt")
            self.dense = L.Dense(3)

        def call(self, x: Any) -> Any:
            return self.dense(x)

    insp = tfnb_debug.inspect(Unbuilt())
    inspectors.append(insp)
    assert insp.calls == () and insp.selected is None
    assert insp.report.codes() == ["S04"]
    assert 'data-code="S04"' in insp.details_html
    assert WIDGET_VIEW in insp._repr_mimebundle_()


def test_a_nested_model_row_sums_its_layers_and_points_to_them(
    inspectors: list[LayerInspector],
) -> None:
    inner = keras.Sequential(
        [keras.Input((4,)), L.Dense(3, name="d1"), L.Dense(2, name="d2")], name="inner"
    )
    outer = keras.Sequential([keras.Input((4,)), inner, L.Dense(1, name="top")], name="outer")
    insp = tfnb_debug.inspect(outer, np.ones((2, 4), "float32"))
    inspectors.append(insp)
    nested = insp.details("outer/inner")
    assert nested.weights == () and "4 weight(s) belong to its sublayers" in nested.weights_note
    assert nested.arithmetic is not None and nested.arithmetic.expression == "15 + 8 = 23"
    assert nested.activation is not None and nested.activation.shape == (2, 2)
    inner_dense = insp.details("outer/inner/d2")
    assert [w.shape for w in inner_dense.weights] == [(3, 2), (2,)]
    assert inner_dense.arithmetic is not None
    assert inner_dense.arithmetic.expression == "(3 + 1) * 2 = 8"


def test_training_true_leaves_every_variable_bit_identical(
    inspectors: list[LayerInspector],
) -> None:
    keras.utils.set_random_seed(3)
    model = keras.Sequential(
        [
            keras.Input((6, 6, 2)),
            L.Conv2D(4, 3, name="conv"),
            L.BatchNormalization(name="bn"),
            L.Dropout(0.5, name="drop"),
            L.Flatten(name="flat"),
            L.Dense(3, name="head"),
        ],
        name="bnd",
    )
    x = np.random.default_rng(1).normal(3.0, 2.0, size=(4, 6, 6, 2)).astype("float32")
    before = {v.path: np.array(v.numpy(), copy=True) for v in model.variables}
    assert any("moving_mean" in p for p in before) and any("seed" in p for p in before)
    insp = tfnb_debug.inspect(model, x, training=True)
    inspectors.append(insp)
    for path in ("bnd/bn", "bnd/drop", "bnd/head", "bnd/conv"):
        details = insp.select(path)
        assert details.activation is not None, details.activation_note
    insp.refresh()  # the selected row is captured again
    after = {v.path: v.numpy() for v in model.variables}
    assert after.keys() == before.keys()
    changed = [p for p in before if before[p].tobytes() != after[p].tobytes()]
    assert changed == []
    # The same capture without the guard does move BatchNormalization's statistics,
    # so the check above can fail.
    model(x, training=True)
    assert (
        model.get_layer("bn").moving_mean.numpy().tobytes()
        != before["bnd/bn/moving_mean"].tobytes()
    )


def test_the_graph_marks_the_failing_layer_and_a_click_on_a_box_selects_it(
    inspectors: list[LayerInspector],
) -> None:
    i = keras.Input((8,), name="x")
    a = L.Dense(4, name="left")(i)
    b = L.Dense(4, name="right")(i)
    out = L.Dense(2, name="out")(L.Concatenate(name="cat")([a, b]))
    model = keras.Model(i, out, name="fork")
    insp = tfnb_debug.inspect(model, np.ones((2, 8), "float32"))
    inspectors.append(insp)
    svg = insp.widget.graph
    rows = {c.path: c.index for c in insp.calls}
    assert insp.widget.view == "graph"
    for path in ("fork/left", "fork/right", "fork/cat", "fork/out"):
        assert f'data-row="{rows[path]}"' in svg
    nodes = {n.path: n for n in insp.graph_nodes}
    assert set(nodes["fork/cat"].inputs) == {rows["fork/left"], rows["fork/right"]}
    insp.widget.selected = rows["fork/cat"]  # what a click on the box sends
    assert 'data-layer="fork/cat"' in insp.details_html


def test_a_nested_model_collapses_in_the_graph_from_the_browser_or_from_code(
    inspectors: list[LayerInspector],
) -> None:
    inner = keras.Sequential(
        [keras.Input((4,)), L.Dense(3, name="d1"), L.Dense(2, name="d2")], name="inner"
    )
    outer = keras.Sequential([keras.Input((4,)), inner, L.Dense(1, name="top")], name="outer")
    insp = tfnb_debug.inspect(outer, np.ones((2, 4), "float32"))
    inspectors.append(insp)
    rows = {c.path: c.index for c in insp.calls}
    assert insp.collapsed == ()  # a small graph starts expanded
    assert f'data-row="{rows["outer/inner/d1"]}"' in insp.widget.graph
    assert f'data-toggle="{rows["outer/inner"]}"' in insp.widget.graph
    insp.widget.collapsed = [rows["outer/inner"]]  # what the [-] toggle sends
    assert f'data-row="{rows["outer/inner/d1"]}"' not in insp.widget.graph
    assert f'data-row="{rows["outer/inner"]}"' in insp.widget.graph
    assert 'data-row="' + str(rows["outer/inner/d1"]) + '"' not in insp.static_html()
    insp.collapse("outer/inner", False)
    assert insp.collapsed == () and f'data-row="{rows["outer/inner/d2"]}"' in insp.widget.graph
    with pytest.raises(TfnbDebugError, match="not a nested model"):
        insp.collapse("outer/top")
    with pytest.raises(TfnbDebugError, match="view must be"):
        InspectorOptions(view="tree")
