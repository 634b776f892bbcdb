"""The inspector's model graph from hand-made call records: no TensorFlow, checks of invariants."""

from __future__ import annotations

import re

import pytest

from tfnb_debug.records.shapes import LayerCall, TensorInfo
from tfnb_debug.render.html import SEVERITY_COLOURS
from tfnb_debug.widgets.graph import (
    EXPAND_LIMIT,
    MAX_NODES,
    NODE_H,
    default_collapsed,
    graph_nodes,
    graph_svg,
    layout,
)


def call(
    index: int,
    path: str,
    cls: str,
    *,
    producers: tuple[int | str, ...] = (),
    shape: tuple[int, ...] = (2, 8),
    depth: int = 1,
    parent: int | None = 0,
    finished: int | None = None,
    status: str = "ok",
    model: bool = False,
) -> LayerCall:
    inputs = tuple(
        TensorInfo(shape=shape, dtype="float32", producer="input")
        if p == "input"
        else TensorInfo(shape=shape, dtype="float32", producer=f"p{p}", producer_index=int(p))
        for p in producers
    )
    outputs = () if status == "failed" else (TensorInfo(shape=shape, dtype="float32"),)
    return LayerCall(
        index=index,
        path=path,
        name=path.rsplit("/", 1)[-1],
        class_name=cls,
        depth=depth,
        parent=parent,
        root=0,
        call=0,
        mode="eager",
        inputs=inputs,
        outputs=outputs,
        trainable_params=0,
        non_trainable_params=0,
        status=status,  # type: ignore[arg-type]
        finished=index if finished is None else finished,
        is_model=model,
        has_children=model,
    )


def chain(n: int) -> list[LayerCall]:
    calls = [
        call(
            0,
            "seq",
            "Sequential",
            producers=("input",),
            depth=0,
            parent=None,
            finished=n + 1,
            model=True,
        )
    ]
    for i in range(1, n + 1):
        calls.append(call(i, f"seq/d{i}", "Dense", producers=("input",) if i == 1 else (i - 1,)))
    return calls


def functional() -> list[LayerCall]:
    """input -> a -> [block: d1 -> d2] and a -> c; add(block, c) -> out."""
    return [
        call(
            0,
            "fn",
            "Functional",
            producers=("input",),
            depth=0,
            parent=None,
            finished=8,
            model=True,
        ),
        call(1, "fn/a", "Dense", producers=("input",), finished=1),
        call(2, "fn/block", "Sequential", producers=(1,), finished=4, model=True),
        call(3, "fn/block/d1", "Dense", producers=(1,), depth=2, parent=2, finished=2),
        call(4, "fn/block/d2", "Dense", producers=(3,), depth=2, parent=2, finished=3),
        call(5, "fn/c", "Dense", producers=(1,), finished=5),
        call(6, "fn/add", "Add", producers=(2, 5), finished=6),
        call(7, "fn/out", "Dense", producers=(6,), shape=(2, 2), finished=7),
    ]


def boxes(svg: str) -> dict[int, tuple[int, int]]:
    return {
        int(row): (int(x), int(y))
        for row, x, y in re.findall(
            r'<g class="tfnb-node" data-row="(-?\d+)"[^>]*translate\((\d+),(\d+)\)', svg
        )
    }


def test_a_sequential_model_is_one_column_in_call_order() -> None:
    calls = chain(6)
    nodes = graph_nodes(calls, [""] * len(calls))
    placed = layout(nodes)
    xs = {x for x, _ in placed.positions.values()}
    assert len(xs) == 1  # one column
    ys = [placed.positions[r][1] for r in (-1, 1, 2, 3, 4, 5, 6)]
    assert ys == sorted(ys) and len(set(ys)) == 7  # input on top, then each layer below
    assert placed.edges == ((-1, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6))
    svg = graph_svg(nodes)
    assert set(boxes(svg)) == {-1, 1, 2, 3, 4, 5, 6}  # the model itself is the frame, no box
    assert "seq/d3" in svg and "Dense · (2, 8)" in svg


def test_a_functional_model_shows_branches_side_by_side_and_the_merge_below() -> None:
    calls = functional()
    nodes = graph_nodes(calls, [""] * len(calls))
    placed = layout(nodes)
    pos = placed.positions
    # Every edge points down: a layer sits below all of its producers.
    assert all(pos[src][1] < pos[dst][1] for src, dst in placed.edges)
    assert (1, 3) in placed.edges and (1, 5) in placed.edges  # the branch point
    assert (2, 6) in placed.edges and (5, 6) in placed.edges  # the merge
    assert (4, 2) in placed.edges  # the expanded block's box is its output
    assert pos[5][0] != pos[3][0]  # the two branches side by side
    assert pos[6][1] > max(pos[2][1], pos[5][1])
    # No two boxes overlap.
    spots = list(pos.values())
    assert len(set(spots)) == len(spots)


def test_a_collapsed_nested_model_is_one_box_with_the_edges_of_its_layers() -> None:
    calls = functional()
    nodes = graph_nodes(calls, [""] * len(calls))
    placed = layout(nodes, collapsed={2})
    assert set(placed.positions) == {-1, 1, 2, 5, 6, 7}
    assert (1, 2) in placed.edges and (2, 6) in placed.edges
    assert not any(3 in e or 4 in e for e in placed.edges)
    interactive = graph_svg(nodes, collapsed={2}, interactive=True)
    assert 'data-toggle="2"' in interactive and "[+]" in interactive
    assert 'data-toggle="2"' in graph_svg(nodes, interactive=True)
    assert "[-]" in graph_svg(nodes, interactive=True)
    assert "data-toggle" not in graph_svg(nodes, collapsed={2})  # static: no toggles


def test_the_failing_layer_and_layers_named_by_findings_wear_the_report_colours() -> None:
    calls = functional()
    calls[6] = call(6, "fn/add", "Add", producers=(2, 5), finished=6, status="failed")
    marks = ["", "", "", "info", "warning", "", "error", ""]
    svg = graph_svg(graph_nodes(calls, marks))
    for row, severity in ((6, "error"), (4, "warning"), (3, "info")):
        stroke, fill = SEVERITY_COLOURS[severity]
        box = re.search(rf'data-row="{row}" data-severity="{severity}".*?<rect[^>]*>', svg)
        assert box is not None, row
        assert f'fill="{fill}"' in box.group(0) and f'stroke="{stroke}"' in box.group(0)
    assert "Add · failed" in svg
    assert svg.count('data-severity=""') == 5  # input, a, block, c, out


def test_the_svg_is_deterministic_and_escapes_names() -> None:
    calls = chain(3)
    calls[2] = call(2, "seq/<b>&co", "Dense", producers=(1,))
    nodes = graph_nodes(calls, [""] * len(calls))
    assert graph_svg(nodes) == graph_svg(graph_nodes(list(calls), [""] * len(calls)))
    svg = graph_svg(nodes)
    assert "<b>&co" not in svg and "&lt;b&gt;&amp;co" in svg


def test_large_graphs_collapse_nested_models_then_fall_back_to_the_list() -> None:
    small = graph_nodes(functional(), [""] * 8)
    assert default_collapsed(small) == frozenset()
    # A model with more than EXPAND_LIMIT boxes starts with its nested models collapsed.
    calls = chain(EXPAND_LIMIT)
    n = len(calls)
    calls.append(call(n, "seq/block", "Sequential", producers=(n - 1,), model=True, finished=n + 3))
    calls.append(
        call(n + 1, "seq/block/x", "Dense", producers=(n - 1,), depth=2, parent=n, finished=n + 1)
    )
    nodes = graph_nodes(calls, [""] * len(calls))
    assert default_collapsed(nodes) == frozenset({n})
    # Beyond MAX_NODES boxes: no graph, a note that says to use the list.
    big = graph_nodes(chain(MAX_NODES + 5), [""] * (MAX_NODES + 6))
    placed = layout(big)
    assert placed.positions == {} and "use the layer list" in placed.note
    assert graph_svg(big).startswith('<div class="tfnb-graph-note"')
    fits = layout(graph_nodes(chain(MAX_NODES - 1), [""] * MAX_NODES))
    assert fits.height == 8 * 2 + MAX_NODES * (NODE_H + 16) - 16


@pytest.mark.parametrize("n", [1, 2, 5])
def test_every_layer_has_one_box_and_every_recorded_input_one_edge(n: int) -> None:
    calls = chain(n)
    placed = layout(graph_nodes(calls, [""] * len(calls)))
    assert len(placed.positions) == n + 1
    assert len(placed.edges) == n


def test_findings_by_row_agrees_with_the_place_rule_row_by_row() -> None:
    from tfnb_debug.ground.reports import Finding
    from tfnb_debug.widgets.rows import findings_by_row, names_place, unique_names

    calls = functional() + [call(8, "fn/odd.name-1", "Dense", producers=(7,))]
    places = [
        "fn/add",
        "layer 'c' and fn/block/d1",
        "fn/block",
        "d1",
        "dense a",
        "fn/odd.name-1 (call 1)",
        "odd.name-1",
        "fn/c#2",
        "",
    ]
    findings = [
        Finding(code="S01", slug="x", severity="error", message="m", place=p) for p in places
    ]
    index = findings_by_row(calls, findings)
    names = unique_names(calls)
    for c in calls:
        keys = [c.path] + ([c.name] if names.get(c.name) == 1 and c.name != c.path else [])
        brute = [
            f for f in findings if f.place == c.path or any(names_place(f.place, k) for k in keys)
        ]
        assert index.get(c.index, []) == brute, c.path
    assert [f.place for f in index[3]] == ["layer 'c' and fn/block/d1", "d1"]


def test_a_skip_connection_down_one_column_goes_around_the_boxes_it_passes() -> None:
    # a -> b -> c -> add(a, c): the edge a -> add would run behind b and c.
    calls = chain(3)
    calls.append(call(4, "seq/add", "Add", producers=(1, 3)))
    placed = layout(graph_nodes(calls, [""] * len(calls)))
    assert {x for x, _ in placed.positions.values()} == {8}  # still one column
    svg = graph_svg(graph_nodes(calls, [""] * len(calls)))
    detours = re.findall(r'<path d="M(\d+),(\d+) H(\d+) V(\d+) H(\d+)"/>', svg)
    assert len(detours) == 1  # only a -> add; the edges between neighbours stay straight
    right, start, lane, end, _ = (int(v) for v in detours[0])
    a_y, add_y = placed.positions[1][1], placed.positions[4][1]
    assert right == 8 + 220 and lane > right and lane < placed.width
    assert start == a_y + NODE_H // 2 and end == add_y + NODE_H // 2


def test_two_traced_models_get_one_input_box_each() -> None:
    first = chain(2)
    second = [
        call(3, "other", "Sequential", producers=("input",), depth=0, parent=None, model=True),
        call(4, "other/d", "Dense", producers=("input",), parent=3),
    ]
    second = [LayerCall(**{**c.__dict__, "root": 3}) if c.index >= 3 else c for c in second]
    nodes = graph_nodes(first + second, [""] * 5)
    inputs = [n for n in nodes if n.row < 0]
    assert [n.label for n in inputs] == ["input of seq", "input of other"]
    by_row = {n.row: n for n in nodes}
    assert by_row[1].inputs == (-1,) and by_row[4].inputs == (-2,)
    placed = layout(nodes)
    assert (-2, 4) in placed.edges and (-1, 1) in placed.edges
