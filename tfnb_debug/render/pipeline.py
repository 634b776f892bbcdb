"""How ``%tfpipeline``'s report is laid out: summary, tables, sections and figures.

Pure functions of a :class:`~tfnb_debug.records.pipeline.PipelineRun`, NumPy
arrays and plain values (no TensorFlow).  What the report shows is drawn
without a plotting library, in a few milliseconds: image grids are HTML grids
of small PNG data URIs (one per example, written with ``zlib``) under their
labels, the label chart is inline SVG.  ``render/pipeline_figures.py`` draws
the same pictures as :class:`matplotlib.figure.Figure` objects for an explicit
export; nothing builds them when a report is shown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

import numpy as np

from tfnb_debug.ground.reports import Section, Table
from tfnb_debug.ground.values import format_float
from tfnb_debug.records.pipeline import Picture, PipelineRun
from tfnb_debug.render.html import table_html
from tfnb_debug.render.pixelmap import pixel_img, rgb_data_uri
from tfnb_debug.render.svg import bar_chart_svg

if TYPE_CHECKING:
    from tfnb_debug.collect.pipeline_data import Augmentation, Sample
    from tfnb_debug.collect.pipeline_speed import Throughput

__all__ = [
    "displayable",
    "before_after_html",
    "image_grid_html",
    "image_uri",
    "label_chart_svg",
    "label_name",
    "mosaic",
    "picture_section",
    "report_pictures",
    "report_sections",
    "report_summary",
    "report_tables",
]


# ---------------------------------------------------------------------------- layout


def report_summary(run: PipelineRun) -> tuple[str, ...]:
    """The chain, cardinality and sample size, and the throughput when it was measured."""
    summary = [
        f"chain: {run.chain}"
        + ("" if run.structure_source == "graph" else f" (read via {run.structure_source})"),
        f"cardinality: {run.cardinality}; {'batched' if run.batched else 'unbatched'}; "
        f"sampled {run.sample.elements} element(s), {run.sample.examples} example(s)",
    ]
    full = run.full
    if full is not None and full.examples_per_s is not None:
        summary.append(
            f"throughput: {format_float(full.examples_per_s)} examples/s, first batch after "
            f"{format_float(full.first_s)} s"
        )
    return tuple(summary)


def report_tables(run: PipelineRun) -> tuple[Table, ...]:
    """Transformations, element spec, values, throughput and sample values."""
    tables = [
        _transformations(run),
        Table(
            "element spec",
            ("path", "kind", "shape", "dtype", "role"),
            tuple(
                (c.path, c.kind, "unknown" if c.shape is None else c.shape, c.dtype, c.role)
                for c in run.components
            ),
        ),
        Table(
            "values",
            ("path", "role", "dtype", "min", "max", "mean", "non-finite", "whole numbers"),
            tuple(
                (
                    s.path,
                    s.role,
                    s.dtype,
                    s.minimum,
                    s.maximum,
                    s.mean,
                    s.nonfinite,
                    s.whole_numbers,
                )
                for s in run.sample.components
            ),
        ),
    ]
    speed_rows = _speed_rows(run)
    if speed_rows:
        tables.append(Table("throughput", ("measure", "value"), tuple(speed_rows)))
    previews = [(s.path, v) for s in run.sample.components for v in (s.preview or s.texts)]
    if previews:
        tables.append(Table("sample values", ("path", "value"), tuple(previews)))
    return tuple(tables)


def _transformations(run: PipelineRun) -> Table:
    """One row per stage: its rate up to there; stages a finding names are marked."""
    rates = dict(run.stage_rates)
    flagged = {f.target.index for f in run.findings if f.target and f.target.kind == "stage"}
    slowest = _slowest(run.stage_rates)
    stage_rows = []
    marks = []
    for stage in run.stages:
        i = stage.index
        rate = rates.get(i)
        stage_rows.append(
            (
                i,
                stage.label,
                stage.cardinality,
                rate.examples_per_s if rate else None,
                rate.first_s if rate else None,
                rate.error if rate and rate.error else ("slowest" if i == slowest else ""),
            )
        )
        marks.append("warning" if i in flagged else "")
    return Table(
        "transformations",
        ("#", "stage", "cardinality", "examples/s up to here", "first element s", "note"),
        tuple(stage_rows),
        tuple(marks),
    )


def _speed_rows(run: PipelineRun) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    full, step = run.full, run.step
    if full is not None:
        rows += [
            ("first-batch latency (s)", full.first_s),
            ("examples/s (after the first batch)", full.examples_per_s),
            ("batches/s" if run.batched else "elements/s", full.elements_per_s),
            ("elements timed", full.elements),
            ("stopped by", full.stopped_by if not full.error else f"error: {full.error}"),
        ]
    if step is not None:
        rows.append(("model train steps/s", step.steps_per_s if not step.error else step.error))
    return rows


def report_sections(run: PipelineRun) -> tuple[Section, ...]:
    """The chain and the notes (the pictures go between them when the report is shown)."""
    sections = [Section("chain", f"<pre>{escape(run.chain)}</pre>", run.chain)]
    if run.notes:
        sections.append(
            Section("notes", "<br/>".join(escape(n) for n in run.notes), "\n".join(run.notes))
        )
    return tuple(sections)


def report_pictures(run: PipelineRun) -> tuple[Picture, ...]:
    """The data of the image grids, the label chart and the augmentation views (not drawn yet)."""
    return (*_image_pictures(run.sample, run.class_names), *_augment_pictures(run.augments))


def _slowest(stage_rates: Sequence[tuple[int, Throughput]]) -> int | None:
    """The stage that slows the chain most: of those that at least halve the rate of the
    prefix before them, the one adding the most time per example.

    Each rate is that of the chain up to the stage, so a stage's own cost is
    ``1/rate - 1/(rate of the prefix before)``.  The first stage is never named:
    its rate also holds the cost of reading the dataset at all, which no stage owns.
    None when no stage halves the rate (stages of about equal cost: none is slowest).
    """
    known = [(i, t.examples_per_s) for i, t in stage_rates if t.examples_per_s]
    costs = [
        (1 / rate - 1 / before, i)
        for (_, before), (i, rate) in zip(known, known[1:], strict=False)
        if rate <= 0.5 * before
    ]
    return max(costs)[1] if costs else None


def _image_pictures(sample: Sample, class_names: Sequence[str] | None) -> list[Picture]:
    pictures = []
    labels = next(
        (s.labels for s in sample.components if s.role == "label" and s.labels is not None), None
    )
    for comp in sample.components:
        if comp.role == "image" and comp.images is not None and len(comp.images):
            shown = labels[: len(comp.images)] if labels is not None else None
            text_labels = (
                ", ".join(label_name(v, class_names) for v in shown)
                if shown is not None
                else "no labels"
            )
            pictures.append(
                Picture(
                    f"images {comp.path}",
                    "grid",
                    f"{len(comp.images)} image(s) shown; labels: {text_labels}",
                    images=comp.images,
                    labels=shown,
                )
            )
    if labels is not None and labels.size:
        values, counts = np.unique(labels, return_counts=True)
        rows = [(label_name(v, class_names), int(c)) for v, c in zip(values, counts, strict=True)]
        pictures.append(
            Picture(
                "label distribution",
                "labels",
                ", ".join(f"{n}: {c}" for n, c in rows),
                labels=labels,
            )
        )
    return pictures


def _augment_pictures(augments: Sequence[Augmentation]) -> list[Picture]:
    out = []
    for aug in augments:
        changed = int(
            np.sum(np.any((aug.before != aug.after).reshape(len(aug.before), -1), axis=1))
        )
        out.append(
            Picture(
                f"augmentation at stage {aug.stage_index}: {aug.path}",
                "augment",
                f"stage {aug.stage_index} {aug.stage}: {changed} of {len(aug.before)} examples changed",
                images=aug.before,
                after=aug.after,
            )
        )
    return out


# ---------------------------------------------------------------------------- images


def label_name(value: Any, class_names: Sequence[str] | None) -> str:
    """A label as shown under an image: its class name when one is given for it."""
    try:
        index = int(value)
    except (TypeError, ValueError):
        return str(value)
    if class_names and 0 <= index < len(class_names) and float(value) == index:
        return str(class_names[index])
    return str(index) if float(value) == index else f"{float(value):.3g}"


def displayable(image: np.ndarray) -> tuple[np.ndarray, str | None]:
    """Scale one image for imshow: [0,1] as is, [0,255] / 255, [-1,1] shifted, else min-max.

    Returns the array (H, W) or (H, W, 3/4) and the colour map (gray for one channel).
    """
    img = np.asarray(image, dtype=np.float64)
    if img.ndim == 3 and img.shape[-1] == 1:
        img = img[..., 0]
    if img.ndim == 3 and img.shape[-1] not in (3, 4):
        img = img[..., 0]
    finite = img[np.isfinite(img)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if lo >= 0 and hi <= 1:
        out = img
    elif lo >= -1 and hi <= 1:
        out = (img + 1) / 2
    elif lo >= 0 and hi <= 255 and hi > 1:
        out = img / 255.0 if hi > 16 else img / max(hi, 1e-12)
    else:
        out = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
    out = np.clip(np.nan_to_num(out), 0, 1)
    return out, ("gray" if out.ndim == 2 else None)


def mosaic(
    images: Sequence[np.ndarray], columns: int, *, pad: int = 1, header: int = 0
) -> np.ndarray:
    """Tile images (scaled by :func:`displayable`) into one RGB array, row-major, with a gap.

    ``header`` leaves that many white rows above each image (room for its label).
    """
    shown = [_rgb(displayable(img)[0]) for img in images]
    height = max(img.shape[0] for img in shown)
    width = max(img.shape[1] for img in shown)
    cols = max(1, min(columns, len(shown)))
    rows = max(1, math.ceil(len(shown) / cols))
    cell = height + pad + header
    canvas = np.ones((rows * cell - pad, cols * (width + pad) - pad, 3))
    for i, img in enumerate(shown):
        r, c = divmod(i, cols)
        y, x = r * cell + header, c * (width + pad)
        canvas[y : y + img.shape[0], x : x + img.shape[1]] = img
    return canvas


def _rgb(img: np.ndarray) -> np.ndarray:
    if img.ndim == 2:
        return np.repeat(img[..., None], 3, axis=-1)
    return img[..., :3]


# ---------------------------------------------------------------------------- shown in HTML

#: an image is shown about this many CSS pixels wide or high (small ones enlarged by a whole factor)
CELL_PX = 72
#: larger images are reduced (block means) to at most this many pixels a side before encoding
MAX_SIDE = 96
_GRID_FONT = "font:10px/12px var(--jp-ui-font-family, sans-serif)"


def image_uri(image: np.ndarray) -> tuple[str, int, int]:
    """One image (scaled by :func:`displayable`) as a PNG data URI and its CSS width, height.

    A large image is reduced by a whole factor (the mean of each block) to at
    most :data:`MAX_SIDE` pixels a side, so a batch of photos costs a few KiB;
    a small one is sent as is and enlarged by the browser, unsmoothed.
    """
    shown = _rgb(displayable(image)[0])
    h, w = shown.shape[:2]
    factor = math.ceil(max(h, w, 1) / MAX_SIDE)
    if factor > 1 and h >= factor and w >= factor:
        hh, ww = h // factor * factor, w // factor * factor
        shown = shown[:hh, :ww].reshape(hh // factor, factor, ww // factor, factor, 3)
        shown = shown.mean(axis=(1, 3))
    elif factor > 1:
        shown = shown[::factor, ::factor]
    rgb = np.ascontiguousarray((shown * 255).round().astype(np.uint8))
    scale = max(1, CELL_PX // max(rgb.shape[:2]))
    return rgb_data_uri(rgb), rgb.shape[1] * scale, rgb.shape[0] * scale


def _cell(image: np.ndarray, caption: str | None, alt: str) -> str:
    uri, width, height = image_uri(image)
    head = ""
    if caption is not None:
        head = (
            f'<div title="{escape(caption)}" style="max-width:{max(width, 24)}px;overflow:hidden;'
            f'text-overflow:ellipsis;white-space:nowrap">{escape(caption)}</div>'
        )
    return (
        '<div style="text-align:center">'
        + head
        + pixel_img(uri, width, height, alt=alt, style="display:block;margin:auto")
        + "</div>"
    )


def image_grid_html(
    images: Sequence[np.ndarray] | np.ndarray,
    labels: Sequence[Any] | None,
    *,
    class_names: Sequence[str] | None = None,
    columns: int = 8,
    title: str = "images",
) -> str:
    """The images in a grid, row-major, each with its label (class name) above it."""
    cols = max(1, min(columns, len(images)))
    cells = []
    for i, image in enumerate(images):
        caption = None
        if labels is not None:
            caption = label_name(labels[i], class_names) if i < len(labels) else ""
        alt = f"example {i}" + (f", label {caption}" if caption else "")
        cells.append(_cell(image, caption, alt))
    return (
        f'<div class="tfnb-image-grid" role="group" aria-label="{escape(title)}" '
        f'style="display:inline-grid;grid-template-columns:repeat({cols}, max-content);'
        f'gap:4px 6px;{_GRID_FONT}">' + "".join(cells) + "</div>"
    )


def before_after_html(before: np.ndarray, after: np.ndarray, *, title: str = "") -> str:
    """Two rows: the examples entering a stage (top) and what it made of them (bottom)."""
    n = len(before)
    header = '<div style="align-self:center;text-align:right;padding-right:4px">{}</div>'
    cells = [header.format("before")]
    cells += [_cell(image, None, f"example {i} before") for i, image in enumerate(before)]
    cells.append(header.format("after"))
    cells += [_cell(image, None, f"example {i} after") for i, image in enumerate(after)]
    return (
        f'<div class="tfnb-before-after" role="group" aria-label="{escape(title)}" '
        f'style="display:inline-grid;grid-template-columns:repeat({n + 1}, max-content);'
        f'gap:4px 6px;{_GRID_FONT}">' + "".join(cells) + "</div>"
    )


def label_chart_svg(labels: np.ndarray, *, class_names: Sequence[str] | None = None) -> str:
    """How many examples of the sample carry each label, as inline SVG bars."""
    values, counts = np.unique(np.asarray(labels), return_counts=True)
    return bar_chart_svg(
        [label_name(v, class_names) for v in values],
        [int(c) for c in counts],
        title=f"labels in the sample ({int(counts.sum())} examples)",
        y_label="examples",
        label="examples per label in the sample",
    )


def picture_section(picture: Picture, class_names: Sequence[str] | None) -> Section:
    """Draw one of a pipeline report's pictures as a report section (HTML, SVG, data URIs)."""
    if picture.kind == "grid" and picture.images is not None:
        labels = list(picture.labels) if picture.labels is not None else None
        html = image_grid_html(picture.images, labels, class_names=class_names, title=picture.title)
    elif picture.kind == "labels" and picture.labels is not None:
        values, counts = np.unique(np.asarray(picture.labels), return_counts=True)
        rows = [(label_name(v, class_names), int(c)) for v, c in zip(values, counts, strict=True)]
        html = label_chart_svg(picture.labels, class_names=class_names) + table_html(
            ("label", "count"), rows
        )
    elif picture.kind == "augment" and picture.images is not None and picture.after is not None:
        html = before_after_html(picture.images, picture.after, title=picture.title)
    else:
        html = ""
    return Section(picture.title, html, picture.text)
