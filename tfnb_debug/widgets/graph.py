"""The inspector's model graph: plain node records from the shape trace, and a small SVG of them.

Pure functions, no TensorFlow, no widgets.  :func:`graph_nodes` turns the
recorded calls (each input knows the row that produced it) into
:class:`GraphNode` records; :func:`layout` places the visible ones in ranks
(a layer sits one rank below the lowest of its producers, so a Sequential model
is a column and a Functional model shows its branches side by side and its
merges below them); :func:`graph_svg` draws them.  The same SVG, without the
collapse toggles, goes into the static HTML of an export.

What is drawn (the rule the docs state):

* the layers of each traced model (the model itself is not a box; an
  ``input`` box per traced model stands for the data given to it);
* a nested model is one box when collapsed; expanded, its layers are drawn
  and its box stays below them as the block's output (``[-]`` collapses it);
* nested models start expanded when the fully expanded graph has at most
  :data:`EXPAND_LIMIT` boxes, collapsed otherwise;
* beyond :data:`MAX_NODES` boxes (after collapsing) no graph is drawn: the
  layer list is the view, and the graph pane says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from tfnb_debug.records.shapes import LayerCall
from tfnb_debug.render.html import SEVERITY_COLOURS
from tfnb_debug.render.values import format_value

__all__ = [
    "EXPAND_LIMIT",
    "MAX_NODES",
    "GraphLayout",
    "GraphNode",
    "default_collapsed",
    "graph_nodes",
    "graph_svg",
    "layout",
]

#: nested models start expanded up to this many boxes in the fully expanded graph
EXPAND_LIMIT = 150
#: more boxes than this (after collapsing): no graph, the list is the view
MAX_NODES = 400

NODE_W = 220
NODE_H = 34
GAP_X = 22
GAP_Y = 16
MARGIN = 8
_LABEL_CHARS = 32
_INPUT = "input"

_PLAIN = ("#4b5563", "#f9fafb")


@dataclass(frozen=True)
class GraphNode:
    """One layer call as the graph sees it (plain values only).

    ``row`` is the call's row index, or ``-1 - k`` for the input of the k-th
    traced model.  ``inputs`` are the rows that produced its inputs (``-1 - k``
    for the model's input); ``group`` is the row of the nested model it sits
    in (``None`` at the top of a traced model); ``order`` the order in which
    the call returned (producers always return before their consumers).
    """

    row: int
    label: str
    class_name: str
    shape: str
    severity: str  # "error", "warning", "info" or ""
    inputs: tuple[int, ...]
    group: int | None
    order: int
    collapsible: bool = False
    path: str = ""


@dataclass(frozen=True)
class GraphLayout:
    """Where the visible boxes go: ``positions[row] = (x, y)`` of the box's top left corner."""

    positions: dict[int, tuple[int, int]]
    edges: tuple[tuple[int, int], ...]
    width: int
    height: int
    note: str = ""  # why no graph is drawn (too many boxes), else ""


def _shape_text(call: LayerCall) -> str:
    if call.status != "ok" and not call.outputs:
        return call.status
    shapes = [format_value(t.shape) if t.shape is not None else "?" for t in call.outputs]
    if not shapes:
        return "-"
    return shapes[0] if len(shapes) == 1 else f"{shapes[0]} +{len(shapes) - 1}"


def graph_nodes(calls: Sequence[LayerCall], severities: Sequence[str]) -> tuple[GraphNode, ...]:
    """Graph records of a shape trace: one per call below the traced models, plus their inputs.

    ``severities[i]`` marks row ``i`` (``"error"`` for the failing layer,
    else the worst severity of the findings that name it, else ``""``).
    """
    by_index = {c.index: c for c in calls}
    roots = [c for c in calls if c.depth == 0]
    root_slot = {c.index: k for k, c in enumerate(roots)}
    nodes: list[GraphNode] = []
    for k, model in enumerate(roots):
        nodes.append(
            GraphNode(
                row=-1 - k,
                label=_INPUT if len(roots) == 1 else f"input of {model.name}",
                class_name="",
                shape=_shapes_of(model),
                severity="",
                inputs=(),
                group=None,
                order=-len(roots) + k,
                path=model.path,
            )
        )
    for call in calls:
        if call.depth == 0 and call.has_children:
            continue  # a traced model is the frame, not a box
        root = call.root if call.root in root_slot else call.index
        slot = root_slot.get(root, 0)
        inputs: list[int] = []
        for t in call.inputs:
            if t.producer == _INPUT:
                row = -1 - slot
            elif t.producer_index is not None and t.producer_index in by_index:
                row = t.producer_index
                if by_index[row].depth == 0 and by_index[row].has_children:
                    continue
            else:
                continue
            if row not in inputs:
                inputs.append(row)
        parent = call.parent
        group = None if parent is None or by_index[parent].depth == 0 else parent
        label = call.path.split("/", 1)[1] if "/" in call.path else call.path
        if call.call:
            label += f" (call {call.call + 1})"
        nodes.append(
            GraphNode(
                row=call.index,
                label=label,
                class_name=call.class_name,
                shape=_shape_text(call),
                severity=severities[call.index] if call.index < len(severities) else "",
                inputs=tuple(inputs),
                group=group,
                order=call.finished,
                collapsible=call.has_children,
                path=call.path,
            )
        )
    return tuple(nodes)


def _shapes_of(root: LayerCall) -> str:
    shapes = [format_value(t.shape) if t.shape is not None else "?" for t in root.inputs]
    return ", ".join(shapes[:2]) + (" ..." if len(shapes) > 2 else "")


def _groups(nodes: Sequence[GraphNode]) -> dict[int, tuple[int, ...]]:
    """Every group's chain of enclosing groups, innermost first."""
    parent = {n.row: n.group for n in nodes}
    chains: dict[int, tuple[int, ...]] = {}
    for n in nodes:
        chain = []
        g = n.group
        while g is not None:
            chain.append(g)
            g = parent.get(g)
        chains[n.row] = tuple(chain)
    return chains


def default_collapsed(nodes: Sequence[GraphNode]) -> frozenset[int]:
    """No nested model collapsed if the whole graph fits :data:`EXPAND_LIMIT`, else all."""
    collapsible = frozenset(n.row for n in nodes if n.collapsible)
    return frozenset() if len(nodes) <= EXPAND_LIMIT else collapsible


def visible_rows(nodes: Sequence[GraphNode], collapsed: Iterable[int]) -> list[int]:
    """The rows drawn as boxes: not inside any collapsed nested model."""
    shut = set(collapsed)
    chains = _groups(nodes)
    return [n.row for n in nodes if not shut.intersection(chains[n.row])]


def layout(nodes: Sequence[GraphNode], collapsed: Iterable[int] = ()) -> GraphLayout:
    """Place the visible boxes in ranks; edges between visible boxes.

    A producer hidden in a collapsed nested model is represented by that
    model's box; an expanded nested model's box takes the edges from its
    layers that no other layer of it consumes (its outputs).
    """
    shut = set(collapsed)
    chains = _groups(nodes)
    visible = visible_rows(nodes, shut)
    if len(visible) > MAX_NODES:
        return GraphLayout(
            {},
            (),
            0,
            0,
            note=(
                f"{len(visible)} boxes: more than the graph draws ({MAX_NODES}); use the layer list"
            ),
        )
    shown = set(visible)
    by_row = {n.row: n for n in nodes}

    def representative(row: int) -> int | None:
        if row in shown:
            return row
        for g in reversed(chains.get(row, ())):  # outermost collapsed group first
            if g in shut and g in shown:
                return g
        return None

    members: dict[int, list[int]] = {}
    for n in nodes:
        if n.group is not None:
            members.setdefault(n.group, []).append(n.row)

    edges: list[tuple[int, int]] = []
    sources: dict[int, list[int]] = {row: [] for row in visible}
    for row in visible:
        node = by_row[row]
        if node.collapsible and row not in shut and members.get(row):
            inner = members[row]
            consumed = {i for m in inner for i in by_row[m].inputs}
            outputs = [m for m in inner if m not in consumed]
            wanted = [representative(m) for m in outputs]
        else:
            wanted = [representative(i) for i in node.inputs]
        for src in wanted:
            if src is None or src == row or src in sources[row]:
                continue
            # an edge from inside a block to the block's own box only when it is expanded
            sources[row].append(src)
            edges.append((src, row))

    order = sorted(visible, key=lambda r: by_row[r].order)
    rank: dict[int, int] = {}
    previous = -1
    for row in order:
        known = [rank[s] for s in sources[row] if s in rank]
        if known:
            rank[row] = max(known) + 1
        elif by_row[row].row < 0:
            rank[row] = 0
        else:  # no recorded producer (e.g. an op between layers): below the previous box
            rank[row] = previous + 1
        previous = rank[row]

    slot: dict[int, int] = {}
    taken: dict[int, set[int]] = {}
    for row in sorted(visible, key=lambda r: (rank[r], by_row[r].order)):
        srcs = [slot[s] for s in sources[row] if s in slot]
        want = min(srcs) if srcs else 0
        used = taken.setdefault(rank[row], set())
        while want in used:
            want += 1
        used.add(want)
        slot[row] = want

    positions = {
        row: (MARGIN + slot[row] * (NODE_W + GAP_X), MARGIN + rank[row] * (NODE_H + GAP_Y))
        for row in visible
    }
    width = MARGIN * 2 + (max(slot.values(), default=0) + 1) * (NODE_W + GAP_X)  # + skip lanes
    height = MARGIN * 2 + (max(rank.values(), default=0) + 1) * (NODE_H + GAP_Y) - GAP_Y
    return GraphLayout(positions, tuple(edges), width, height)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def graph_svg(
    nodes: Sequence[GraphNode],
    *,
    collapsed: Iterable[int] = (),
    interactive: bool = False,
    title: str = "model graph",
) -> str:
    """The graph as one self-contained ``<svg>`` (or a note when it is too large to draw).

    Each box is ``<g class="tfnb-node" data-row="ROW">``; with ``interactive``
    an expanded or collapsed nested model also gets a ``[+]``/``[-]`` toggle
    (``data-toggle="ROW"``).  Deterministic: the same nodes give the same text.
    """
    shut = frozenset(collapsed)
    placed = layout(nodes, shut)
    if placed.note:
        return f'<div class="tfnb-graph-note" style="color:#4b5563;">{escape(placed.note)}</div>'
    by_row = {n.row: n for n in nodes}
    parts = [
        f'<svg class="tfnb-graph" xmlns="http://www.w3.org/2000/svg" width="{placed.width}" '
        f'height="{placed.height}" viewBox="0 0 {placed.width} {placed.height}" role="img" '
        f'font-family="-apple-system,Segoe UI,Helvetica,Arial,sans-serif">'
        f"<title>{escape(title)}</title>",
        '<g class="tfnb-edges" fill="none" stroke="#9ca3af" stroke-width="1.2">',
    ]
    columns: dict[int, list[int]] = {}
    for x, y in placed.positions.values():
        columns.setdefault(x, []).append(y)
    lanes = 0
    for src, dst in placed.edges:
        x1, y1 = placed.positions[src]
        x2, y2 = placed.positions[dst]
        if x1 == x2 and any(y1 < y < y2 for y in columns[x1]):
            # A skip connection down its own column: around the boxes it passes, in the
            # gap on their right, into the side of the target.
            lane = x1 + NODE_W + 5 + 5 * (lanes % 3)
            lanes += 1
            sy, ty, right = y1 + NODE_H // 2, y2 + NODE_H // 2, x1 + NODE_W
            parts.append(
                f'<path d="M{right},{sy} H{lane} V{ty} H{right + 3}"/>'
                f'<path d="M{right + 5},{ty - 3} L{right},{ty} L{right + 5},{ty + 3}"/>'
            )
            continue
        ax, ay = x1 + NODE_W // 2, y1 + NODE_H
        bx, by = x2 + NODE_W // 2, y2
        bend = max(8, (by - ay) // 2) if ax == bx else max(8, min(GAP_Y, (by - ay) // 2))
        parts.append(
            f'<path d="M{ax},{ay} C{ax},{ay + bend} {bx},{by - bend} {bx},{by - 3}"/>'
            f'<path d="M{bx - 3},{by - 5} L{bx},{by} L{bx + 3},{by - 5}"/>'
        )
    parts.append("</g>")
    for row, (x, y) in placed.positions.items():
        n = by_row[row]
        stroke, fill = SEVERITY_COLOURS.get(n.severity, _PLAIN)
        width = "2" if n.severity else "1"
        head = n.label if not n.collapsible else f"{n.label}"
        sub = f"{n.class_name} · {n.shape}" if n.class_name else n.shape
        tooltip = f"{n.path or n.label} ({n.class_name or 'input'}) -> {n.shape}"
        if n.severity:
            tooltip += f" [{n.severity}]"
        parts.append(
            f'<g class="tfnb-node" data-row="{row}" data-severity="{n.severity}" '
            f'transform="translate({x},{y})"><title>{escape(tooltip)}</title>'
            f'<rect class="tfnb-box" width="{NODE_W}" height="{NODE_H}" rx="4" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"'
            + (' stroke-dasharray="4 2"' if n.row < 0 else "")
            + "/>"
            f'<text x="6" y="14" font-size="11" font-weight="600" fill="#111827">'
            f"{escape(_clip(head, _LABEL_CHARS - (3 if n.collapsible else 0)))}</text>"
            f'<text x="6" y="28" font-size="10" fill="#374151">{escape(_clip(sub, 40))}</text>'
        )
        if n.collapsible and interactive:
            glyph = "[+]" if row in shut else "[-]"
            parts.append(
                f'<text class="tfnb-toggle" data-toggle="{row}" x="{NODE_W - 22}" y="14" '
                f'font-size="11" fill="#2563eb" style="cursor:pointer">{glyph}</text>'
            )
        elif n.collapsible and row in shut:
            parts.append(f'<text x="{NODE_W - 22}" y="14" font-size="11" fill="#6b7280">[+]</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
