"""Helpers of the inspector: the list's fixed-width labels, a row as (column, value) pairs,
a layer's own weights, which findings name a row.  Plain functions; no widgets here."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tfnb_debug.records.shapes import LayerCall
from tfnb_debug.render.values import format_value
from tfnb_debug.widgets.params import ParamArithmetic, param_arithmetic

__all__ = [
    "arithmetic",
    "findings_by_row",
    "names_place",
    "own_weights",
    "row_items",
    "row_labels",
    "unique_names",
]


def _sublayers(layer: Any) -> list[Any]:
    flatten = getattr(layer, "_flatten_layers", None)
    if flatten is not None:
        try:
            return list(flatten(include_self=False, recursive=True))
        except TypeError:
            pass
    return list(getattr(layer, "layers", None) or [])


def own_weights(layer: Any) -> list[Any]:
    """The layer's weights that none of its sublayers holds (all of them for a plain layer)."""
    inner = {id(v) for sub in _sublayers(layer) for v in sub.weights}
    seen: set[int] = set()
    own = []
    for v in layer.weights:
        if id(v) not in inner and id(v) not in seen:
            seen.add(id(v))
            own.append(v)
    return own


def arithmetic(layer: Any) -> ParamArithmetic | None:
    try:
        return param_arithmetic(layer)
    except Exception:  # a custom layer whose weights cannot be read: no arithmetic
        return None


def names_place(place: str, key: str) -> bool:
    if not key or not place or key not in place:  # the cheap test first: 1,000 rows x findings
        return False
    return re.search(rf"(?<![\w/#]){re.escape(key)}(?![\w/#])", place) is not None


_TOKEN = re.compile(r"[\w/#]+")


def findings_by_row(calls: Sequence[LayerCall], findings: Sequence[Any]) -> dict[int, list[Any]]:
    """The findings that name each row (by its path, or by its name when that is unique).

    A finding with a layer :class:`~tfnb_debug.ground.reports.Target` (what the shape
    rules set) goes to the rows of exactly that path.  A finding without one
    (written for people only: the diagnosis of a failing cell names a layer in
    its text) is matched as :func:`names_place` says, in one pass over the findings: a key made
    of word characters, ``/`` and ``#`` only matches a whole token of the
    place, so the tokens are looked up in a dict (1,000 rows x 1,000 findings
    would otherwise be a million regex searches); other keys are searched.
    """
    names = unique_names(calls)
    by_key: dict[str, list[int]] = {}
    odd: list[tuple[str, int]] = []
    for call in calls:
        keys = [call.path]
        if names.get(call.name) == 1 and call.name != call.path:
            keys.append(call.name)
        for key in keys:
            if _TOKEN.fullmatch(key):
                by_key.setdefault(key, []).append(call.index)
            elif key:
                odd.append((key, call.index))
    by_path: dict[str, list[int]] = {}
    for call in calls:
        by_path.setdefault(call.path, []).append(call.index)
    out: dict[int, list[Any]] = {}
    for f in findings:
        target = getattr(f, "target", None)
        if target is not None and target.kind == "layer" and target.path in by_path:
            for row in by_path[target.path]:
                out.setdefault(row, []).append(f)
            continue
        place = f.place or ""
        rows = {row for token in _TOKEN.findall(place) for row in by_key.get(token, ())}
        rows.update(by_key.get(place, ()))
        rows.update(row for key, row in odd if place == key or names_place(place, key))
        for row in sorted(rows):
            out.setdefault(row, []).append(f)
    return out


def unique_names(calls: Sequence[LayerCall]) -> dict[str, int]:
    paths_by_name: dict[str, set[str]] = {}
    for call in calls:
        paths_by_name.setdefault(call.name, set()).add(call.path)
    return {name: len(paths) for name, paths in paths_by_name.items()}


def _shapes(infos: Sequence[Any]) -> str:
    shapes = [format_value(t.shape) if t.shape is not None else "?" for t in infos]
    return shapes[0] if len(shapes) == 1 else "[" + ", ".join(shapes) + "]"


def row_labels(calls: Sequence[LayerCall], marks: Sequence[str]) -> tuple[list[str], str]:
    """Fixed-width labels for the list (non-breaking spaces keep the columns aligned)."""
    glyph = {"error": "!!", "warning": " !", "info": " i", "": "  "}
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


def row_items(call: LayerCall) -> tuple[tuple[str, Any], ...]:
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
