"""Element spec, sampled batches and augmentation before/after for ``%tfpipeline``.

Everything returned is plain values and NumPy arrays, never live tensors.
Peeking always goes through ``ds.take(n)`` on the Dataset (never ``next()`` on
an iterator of the user's), and the iterator is dropped at once (TRAPS 26).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.text import first_line

__all__ = [
    "Augmentation",
    "Component",
    "ComponentSample",
    "Sample",
    "augmentation_pairs",
    "describe_spec",
    "flatten_paths",
    "take_sample",
]

_LABEL_NAMES = {"label", "labels", "y", "target", "targets", "class", "classes", "class_id"}
_IMAGE_NAMES = ("image", "img", "pixels", "picture", "photo")
MAX_IMAGES = 16


@dataclass(frozen=True)
class Component:
    """One leaf of the element spec; ``shape`` is per element (with the batch axis if batched)."""

    path: str
    kind: str  # tensor, ragged, sparse, other
    shape: tuple[int | None, ...] | None
    dtype: str
    role: str  # image, label, feature, text

    @property
    def example_shape(self) -> tuple[int | None, ...] | None:
        return self.shape


@dataclass(frozen=True, eq=False)
class ComponentSample:
    """What the sampled batches held for one component."""

    path: str
    role: str
    dtype: str
    count: int
    minimum: float | None
    maximum: float | None
    mean: float | None
    nonfinite: int
    whole_numbers: bool | None
    batch_ranges: tuple[tuple[float, float], ...]
    labels: np.ndarray | None  # one class id per sampled example (labels only)
    images: np.ndarray | None  # up to MAX_IMAGES examples (images only)
    texts: tuple[str, ...]
    preview: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Sample:
    elements: int
    examples: int
    bounded: bool
    components: tuple[ComponentSample, ...]

    def component(self, path: str) -> ComponentSample:
        for comp in self.components:
            if comp.path == path:
                return comp
        raise KeyError(path)


@dataclass(frozen=True, eq=False)
class Augmentation:
    """The same examples before and after a random ``map`` stage."""

    stage_index: int
    stage: str
    path: str
    before: np.ndarray
    after: np.ndarray


def flatten_paths(structure: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Leaves of a nested element with readable paths, in ``tf.nest.flatten`` order."""
    if isinstance(structure, Mapping):
        for key in sorted(structure):
            yield from flatten_paths(structure[key], f"{prefix}[{key!r}]")
    elif isinstance(structure, tuple) and hasattr(structure, "_fields"):
        for name in structure._fields:
            yield from flatten_paths(getattr(structure, name), f"{prefix}.{name}")
    elif isinstance(structure, list | tuple):
        for i, value in enumerate(structure):
            yield from flatten_paths(value, f"{prefix}[{i}]")
    else:
        yield prefix or "element", structure


def describe_spec(spec: Any, *, batched: bool) -> tuple[Component, ...]:
    leaves = list(flatten_paths(spec))
    top_tuple = isinstance(spec, tuple) and not hasattr(spec, "_fields") and 2 <= len(spec) <= 3
    out = []
    for path, leaf in leaves:
        kind, shape, dtype = _leaf_info(leaf)
        example = shape[1:] if (batched and shape) else shape
        role = _guess_role(path, example, dtype, is_label_slot=top_tuple and path.startswith("[1]"))
        out.append(Component(path, kind, shape, dtype, role))
    return tuple(out)


def _leaf_info(leaf: Any) -> tuple[str, tuple[int | None, ...] | None, str]:
    dtype = getattr(getattr(leaf, "dtype", None), "name", str(getattr(leaf, "dtype", "?")))
    try:
        shape = tuple(leaf.shape.as_list()) if leaf.shape.rank is not None else None
    except Exception:
        shape = None
    if isinstance(leaf, tf.RaggedTensorSpec):
        return "ragged", shape, dtype
    if isinstance(leaf, tf.SparseTensorSpec):
        return "sparse", shape, dtype
    if isinstance(leaf, tf.TensorSpec):
        return "tensor", shape, dtype
    return "other", shape, dtype


def _guess_role(
    path: str, shape: tuple[int | None, ...] | None, dtype: str, *, is_label_slot: bool
) -> str:
    if dtype == "string":
        return "text"
    name = path.rsplit("[", 1)[-1].rsplit(".", 1)[-1].strip("[]'\"").lower()
    numeric = dtype.startswith(("float", "int", "uint", "bfloat", "half"))
    if not numeric or shape is None:
        return "feature"
    rank = len(shape)
    named_image = any(word in name for word in _IMAGE_NAMES)
    if rank == 3 and shape[-1] in (1, 3, 4) and all(d is None or d >= 4 for d in shape[:2]):
        return "image"
    if rank in (2, 3) and named_image:
        return "image"
    if (
        rank == 2
        and shape[0] == shape[1]
        and shape[0] is not None
        and shape[0] >= 8
        and not is_label_slot
    ):
        return "image"
    if (name in _LABEL_NAMES or is_label_slot) and rank <= 1:
        return "label"
    return "feature"


def take_sample(
    ds: tf.data.Dataset,
    components: tuple[Component, ...],
    *,
    elements: int,
    batched: bool,
    progress: Callable[[int, int], None] | None = None,
    first: Sequence[Any] = (),
) -> Sample:
    """Summarise each component over the first ``elements`` elements of ``ds``.

    ``first`` are elements already read from a fresh iterator of ``ds`` (the
    timing run keeps them); only when they are too few is ``ds.take`` read.
    """
    if len(first) >= elements:
        chosen = list(first[:elements])
    else:
        chosen = []
        for element in _iterate(ds.take(elements), "sampling the dataset"):
            chosen.append(element)
            if progress is not None:
                progress(len(chosen), elements)
    if not chosen:
        raise TfnbDebugError(
            "the dataset is empty: it produced no element (check take/skip/filter/shard and "
            "the source files)"
        )
    rows: dict[str, list[Any]] = {c.path: [] for c in components}
    for element in chosen:
        for path, value in flatten_paths(element):
            if path in rows:
                rows[path].append(value)
    n = len(chosen)
    summaries = tuple(_summarise(c, rows[c.path], batched=batched) for c in components)
    examples = n
    if batched:
        counts = [_batch_len(v) for v in rows[components[0].path]] if components else []
        examples = int(sum(c for c in counts if c is not None))
    return Sample(n, examples, n == elements, summaries)


def _iterate(ds: tf.data.Dataset, doing: str) -> Iterator[Any]:
    iterator = iter(ds)
    try:
        while True:
            try:
                element = next(iterator)
            except StopIteration:
                return
            yield element
    except tf.errors.AlreadyExistsError as err:
        found = re.search(r"\('([^']+\.lockfile)'\)", str(err))
        lockfile = found.group(1) if found else "the cache's .lockfile"
        raise TfnbDebugError(
            f"{doing} failed: {lockfile} exists, so another iterator over this cache(filename) "
            "dataset is still running: finish or delete that iterator (or delete a stale "
            "lockfile) and run again"
        ) from None
    except tf.errors.OpError as err:
        raise TfnbDebugError(
            f"{doing} failed inside the pipeline: {type(err).__name__}: {first_line(err)}"
        ) from None
    finally:
        del iterator


def _to_numpy(value: Any) -> tuple[np.ndarray, Any]:
    """(flat numeric/bytes values, per-element view) of a tensor, ragged or sparse value."""
    if isinstance(value, tf.RaggedTensor):
        return value.flat_values.numpy(), value
    if isinstance(value, tf.SparseTensor):
        return value.values.numpy(), value
    if hasattr(value, "numpy"):
        array = value.numpy()
        return np.asarray(array), array
    array = np.asarray(value)
    return array, array


def _batch_len(value: Any) -> int | None:
    try:
        if isinstance(value, tf.SparseTensor):
            return int(value.dense_shape[0])
        if isinstance(value, tf.RaggedTensor):
            return int(value.nrows())
        shape = value.shape
        return int(shape[0]) if len(shape) else None
    except Exception:
        return None


def _summarise(comp: Component, values: list[Any], *, batched: bool) -> ComponentSample:
    flats = []
    views = []
    for value in values:
        flat, view = _to_numpy(value)
        flats.append(flat)
        views.append(view)
    texts: tuple[str, ...] = ()
    preview: tuple[str, ...] = ()
    if comp.dtype == "string":
        strings = [s for f in flats for s in np.asarray(f).reshape(-1)]
        texts = tuple(_decode(s) for s in strings[:8])
        return _non_numeric(comp, len(strings), texts)
    numeric = [
        np.asarray(f, dtype=np.float64).reshape(-1)
        for f in flats
        if np.asarray(f).dtype.kind in "biuf"
    ]
    if not numeric:
        return _non_numeric(comp, 0, ())
    allv = np.concatenate(numeric) if numeric else np.zeros(0)
    finite = allv[np.isfinite(allv)]
    ranges = tuple(
        (float(np.min(v[np.isfinite(v)])), float(np.max(v[np.isfinite(v)])))
        for v in numeric
        if np.isfinite(v).any()
    )
    whole = bool(finite.size and np.all(finite == np.round(finite))) if finite.size else None
    labels = None
    images = None
    examples = _examples(comp, views, batched=batched)
    if comp.role == "label" and examples is not None:
        labels = _label_ids(examples)
    if comp.role == "image" and examples is not None:
        images = examples[:MAX_IMAGES]
    if comp.role == "feature":
        preview = _preview(comp, views, batched=batched)
    return ComponentSample(
        path=comp.path,
        role=comp.role,
        dtype=comp.dtype,
        count=int(allv.size),
        minimum=float(finite.min()) if finite.size else None,
        maximum=float(finite.max()) if finite.size else None,
        mean=float(finite.mean()) if finite.size else None,
        nonfinite=int(allv.size - finite.size),
        whole_numbers=whole,
        batch_ranges=ranges,
        labels=labels,
        images=images,
        texts=texts,
        preview=preview,
    )


def _non_numeric(comp: Component, count: int, texts: tuple[str, ...]) -> ComponentSample:
    return ComponentSample(
        path=comp.path,
        role=comp.role,
        dtype=comp.dtype,
        count=count,
        minimum=None,
        maximum=None,
        mean=None,
        nonfinite=0,
        whole_numbers=None,
        batch_ranges=(),
        labels=None,
        images=None,
        texts=texts,
        preview=(),
    )


def _examples(comp: Component, views: list[Any], *, batched: bool) -> np.ndarray | None:
    if comp.kind != "tensor":
        return None
    try:
        if batched:
            return np.concatenate([np.asarray(v) for v in views], axis=0)
        return np.stack([np.asarray(v) for v in views], axis=0)
    except ValueError:
        return None


def _label_ids(examples: np.ndarray) -> np.ndarray | None:
    """One id per example: the value for scalar labels, the argmax for one-hot rows.

    A row that is not one-hot (nor a distribution over classes) holds several targets,
    e.g. the next token at each of 100 positions, or several labels of one example: it
    has no single class, so None (its argmax would be a position, not a class).
    """
    if examples.ndim == 1:
        return examples
    if examples.ndim == 2 and examples.shape[1] == 1:
        return examples[:, 0]
    if examples.ndim == 2 and examples.shape[1] > 1 and _one_hot_rows(examples):
        return np.argmax(examples, axis=1)
    return None


def _one_hot_rows(rows: np.ndarray) -> bool:
    """Every row a one-hot vector or a distribution over classes (values in [0, 1], sum 1)."""
    if rows.dtype.kind not in "biuf" or rows.size == 0:
        return False
    values = rows.astype(np.float64)
    if not np.all(np.isfinite(values)) or values.min() < 0 or values.max() > 1:
        return False
    return bool(np.allclose(values.sum(axis=1), 1.0, atol=1e-3))


def _preview(comp: Component, views: list[Any], *, batched: bool) -> tuple[str, ...]:
    out: list[str] = []
    for view in views:
        if isinstance(view, tf.RaggedTensor):
            items = view.to_list() if batched else [view.to_list()]
        elif isinstance(view, tf.SparseTensor):
            items = [
                f"sparse {view.dense_shape.numpy().tolist()}, {int(tf.size(view.values))} values"
            ]
        else:
            array = np.asarray(view)
            items = list(array) if (batched and array.ndim) else [array]
        for item in items:
            out.append(_short(item))
            if len(out) >= 8:
                return tuple(out)
    return tuple(out)


def _short(item: Any) -> str:
    if isinstance(item, np.ndarray):
        text = np.array2string(item, threshold=6, precision=3, separator=", ")
    else:
        text = str(item)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:59] + "…"


def _decode(value: Any) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return text if len(text) <= 120 else text[:119] + "…"


def augmentation_pairs(
    stage_ds: Any, stage_index: int, stage_label: str, *, examples: int, batched_input: bool
) -> tuple[Augmentation, ...]:
    """Run a random ``map`` stage's function on examples of its own input: before vs after.

    The stage's traced function is called eagerly on elements taken from the
    stage's input dataset, so the pairs are the same examples (an upstream
    ``shuffle`` cannot reorder them between two reads).  Only dense image
    components present on both sides are shown; anything else gives ``()``.
    """
    inputs = stage_ds._inputs()
    if not inputs:
        return ()
    source = inputs[0]
    function = stage_ds._map_func.function
    before_comps = describe_spec(source.element_spec, batched=batched_input)
    after_comps = describe_spec(stage_ds.element_spec, batched=batched_input)
    wanted = {c.path for c in after_comps if c.role == "image" and c.kind == "tensor"}
    wanted &= {c.path for c in before_comps if c.role == "image" and c.kind == "tensor"}
    if not wanted:
        return ()
    before: dict[str, list[np.ndarray]] = {p: [] for p in wanted}
    after: dict[str, list[np.ndarray]] = {p: [] for p in wanted}
    for element in _iterate(source.take(examples), "reading a map stage's input"):
        flat = tf.nest.flatten(element, expand_composites=True)
        out = function(*flat)
        packed = tf.nest.pack_sequence_as(
            stage_ds.element_spec,
            tf.nest.flatten(out, expand_composites=True),
            expand_composites=True,
        )
        for path, value in flatten_paths(element):
            if path in wanted:
                before[path].append(np.asarray(value))
        for path, value in flatten_paths(packed):
            if path in wanted:
                after[path].append(np.asarray(value))
    pairs = []
    for path in sorted(wanted):
        if not before[path]:
            continue
        combine = np.concatenate if batched_input else np.stack
        b = combine(before[path], axis=0)[:examples]
        a = combine(after[path], axis=0)[:examples]
        if b.shape != a.shape:
            continue
        pairs.append(Augmentation(stage_index, stage_label, path, b, a))
    return tuple(pairs)
