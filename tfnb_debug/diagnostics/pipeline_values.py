"""Rules P05-P07, P12 and N04 for ``%tfpipeline``: those that read the element's dtypes and
the sampled values.

Each takes the :class:`~tfnb_debug.diagnostics.pipeline_facts.PipelineFacts`
and :class:`~tfnb_debug.diagnostics.pipeline_facts.PipelineThresholds` and
returns findings: float64 components (P05), class ids stored as floats (P06),
image values outside the usual ranges or mixing scales (P07), labels outside
the model's classes (P12), and unnormalized images reaching a model (N04).
Each element component is paired with its sample by path.  No TensorFlow;
:data:`tfnb_debug.diagnostics.pipeline.RULES` runs them with the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tfnb_debug.diagnostics.pipeline_facts import PipelineFacts, PipelineThresholds
from tfnb_debug.ground.reports import Finding, finding

if TYPE_CHECKING:
    from tfnb_debug.collect.pipeline_data import Component, ComponentSample

__all__ = [
    "float64_element",
    "float_labels",
    "label_out_of_range",
    "unnormalized_input",
    "value_range",
]


_USUAL_RANGES = ((0.0, 1.0), (-1.0, 1.0), (0.0, 255.0))


def float64_element(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    return [
        finding(
            "P05",
            f"component {c.path} is float64: twice the memory and a silent cast in the model",
            place=c.path,
            evidence=f"element_spec dtype float64, shape {c.shape}",
            hint="cast in the pipeline (ds.map(lambda x, y: (tf.cast(x, tf.float32), y))) or "
            "convert NumPy arrays with .astype('float32') before from_tensor_slices",
        )
        for c in f.components
        if c.dtype == "float64"
    ]


def float_labels(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    out = []
    for comp, sampled in _pairs(f):
        if comp.role != "label" or not comp.dtype.startswith(("float", "bfloat", "half")):
            continue
        if not _class_ids(comp, f):
            continue  # one-hot rows are rightly float
        if sampled.minimum is not None and sampled.minimum >= 0 and (sampled.maximum or 0) <= 1:
            continue  # 0/1 labels: floats are what a binary cross-entropy takes
        if f.model is not None and f.model.output_units == 1:
            continue  # one output unit: a binary or regression target, not class ids
        if sampled.whole_numbers:
            out.append(
                finding(
                    "P06",
                    f"label {comp.path} is {comp.dtype} but every sampled value is a whole number: "
                    "class ids stored as floats",
                    place=comp.path,
                    evidence=f"{sampled.count} values in [{sampled.minimum:g}, {sampled.maximum:g}], all whole",
                    hint="if these are class ids for a sparse loss, cast them: ds.map(lambda x, y: "
                    "(x, tf.cast(y, tf.int32))); if they are regression targets that happen to be "
                    "whole numbers, nothing is wrong",
                )
            )
    return out


def value_range(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    out = []
    tol = t.range_tolerance
    for comp, s in _pairs(f):
        if comp.role != "image" or s.minimum is None or s.maximum is None:
            continue
        inside = [r for r in _USUAL_RANGES if s.minimum >= r[0] - tol and s.maximum <= r[1] + tol]
        if not inside:
            out.append(
                finding(
                    "P07",
                    f"image component {comp.path} ranges over [{s.minimum:.4g}, {s.maximum:.4g}], "
                    "outside the usual [0,1], [-1,1] and [0,255]",
                    place=comp.path,
                    evidence=f"min {s.minimum:.4g}, max {s.maximum:.4g} over {len(s.batch_ranges)} sampled batch(es)",
                    hint="check the scaling in your map functions (divide by 255 once, not twice; "
                    "clip after adding noise)",
                )
            )
            continue
        low = [i for i, (_, hi) in enumerate(s.batch_ranges) if hi <= 1 + tol]
        high = [i for i, (_, hi) in enumerate(s.batch_ranges) if hi > t.mixed_range_high]
        if low and high:
            out.append(
                finding(
                    "P07",
                    f"image component {comp.path} mixes scales across batches: some stay within "
                    f"[0,1], others reach {max(s.batch_ranges[i][1] for i in high):.4g}",
                    place=comp.path,
                    evidence=f"batches {low[:5]} max <= 1; batches {high[:5]} max > {t.mixed_range_high:g}",
                    hint="scale every source the same way (e.g. one Rescaling(1/255) for all)",
                )
            )
    return out


def label_out_of_range(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    classes = None
    source = ""
    if f.model is not None and f.model.output_units:
        classes = max(2, f.model.output_units)
        source = f"{f.model.name} has {f.model.output_units} output unit(s)"
    elif f.class_count:
        classes = f.class_count
        source = f"{f.class_count} class names given"
    if classes is None:
        return []
    out = []
    for comp, s in _pairs(f):
        if comp.role != "label" or s.labels is None or s.labels.size == 0:
            continue
        if not _class_ids(comp, f):
            continue  # one-hot: the argmax is always in range
        if not (comp.dtype.startswith(("int", "uint")) or s.whole_numbers):
            continue
        values = np.asarray(s.labels, dtype=np.float64)
        bad = values[(values < 0) | (values >= classes)]
        if bad.size:
            out.append(
                finding(
                    "P12",
                    f"label {comp.path} holds values outside [0, {classes}): "
                    f"{sorted({int(v) for v in bad})[:5]}",
                    place=comp.path,
                    evidence=f"{bad.size} of {values.size} sampled labels out of range; {source}",
                    hint=_remap_hint(values, classes),
                )
            )
    return out


def _remap_hint(values: np.ndarray, classes: int) -> str:
    """The remap the sampled label values call for: 1-based ids shift by one, -1/+1 labels
    become 0/1, other ids are numbered in order; more distinct ids than classes also need
    more outputs (or the labels hold a category that is not a class)."""
    seen = np.unique(values)
    if len(seen) > classes:
        return (
            f"the labels hold {len(seen)} distinct ids for {classes} classes: give the model one "
            "output per class, or drop the ids that are not classes"
        )
    if np.array_equal(seen, np.arange(1, len(seen) + 1)):
        return "the ids are 1-based: pass y - 1"
    if np.array_equal(seen, [-1.0, 1.0]):
        return "the labels are -1/+1: pass (y + 1) // 2 (0/1)"
    shown = ", ".join(f"{v:g}->{i}" for i, v in enumerate(seen[:5]))
    return (
        f"number the ids 0..{len(seen) - 1} in order ({shown}"
        f"{', ...' if len(seen) > 5 else ''}): np.searchsorted(np.unique(y), y)"
    )


def unnormalized_input(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    model = f.model
    if model is None:
        return []
    entry = model.entry_range
    if entry is None and model.normalization_in_front:
        return []
    out = []
    for comp, s in _pairs(f):
        # centered data (negative values, e.g. caffe-style mean subtraction) is preprocessed
        centered = s.minimum is not None and s.minimum < 0
        big = s.maximum is not None and s.maximum > t.unnormalized_max
        if comp.role != "image" or not big or centered:
            continue
        if entry is not None:
            # measured: what the first weighted layer receives after the model's own operations
            low, high = entry
            if high <= t.unnormalized_max or low < 0:
                continue
            through = (
                f" after {', '.join(model.entry_before[:4])}"
                + (" ..." if len(model.entry_before) > 4 else "")
                if model.entry_before
                else " straight from the input"
            )
            what = (
                f"image input {comp.path} reaches {s.maximum:.4g} and the first layer with "
                f"weights of {model.name}, {model.entry_layer}, receives values up to "
                f"{high:.4g}: nothing in the model scales them"
            )
            evidence = (
                f"sampled range [{s.minimum:.4g}, {s.maximum:.4g}]; measured at "
                f"{model.entry_layer}{through}: [{low:.4g}, {high:.4g}]; threshold "
                f"{t.unnormalized_max:g}"
            )
        else:
            what = (
                f"image input {comp.path} reaches {s.maximum:.4g} and {model.name} has no "
                f"Rescaling/Normalization layer in front (first layer: {model.first_layer})"
            )
            evidence = (
                f"sampled range [{s.minimum:.4g}, {s.maximum:.4g}]; threshold "
                f"{t.unnormalized_max:g}; the model's layers were read, not run"
            )
        out.append(
            finding(
                "N04",
                what,
                place=comp.path,
                evidence=evidence,
                hint="add keras.layers.Rescaling(1/255) as the model's first layer, or scale "
                "in the pipeline",
            )
        )
    return out


def _pairs(f: PipelineFacts) -> Sequence[tuple[Component, ComponentSample]]:
    by_path = {c.path: c for c in f.sample.components}
    return [(c, by_path[c.path]) for c in f.components if c.path in by_path]


def _class_ids(comp: Component, f: PipelineFacts) -> bool:
    """A label holding one class id per example (not a one-hot row)."""
    rank = _example_rank(comp, f)
    return rank == 0 or (rank == 1 and comp.shape is not None and comp.shape[-1] == 1)


def _example_rank(comp: Component, f: PipelineFacts) -> int | None:
    if comp.shape is None:
        return None
    return len(comp.shape) - (1 if f.batched else 0)
