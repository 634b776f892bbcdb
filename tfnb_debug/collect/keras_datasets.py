"""Recognize the pipelines Keras' dataset utilities build, and the order of what they shuffle.

What the utilities do (Keras 3, ``keras/src/utils/``, ``format="tf"``):

* ``image_dataset_from_directory`` / ``text_dataset_from_directory``
  (``audio_dataset_from_directory`` alike): ``index_directory`` lists the files
  and, with ``shuffle=True``, permutes the WHOLE list once with NumPy
  (``RandomState(seed).shuffle``); then
  ``from_tensor_slices(paths)`` [``zip`` with the labels] ``-> shuffle(batch_size * 8)
  -> map(load, AUTOTUNE) -> batch -> prefetch(AUTOTUNE)``.
* ``timeseries_dataset_from_array``: the window starts ``np.arange(...)`` are,
  with ``shuffle=True``, permuted once with NumPy; the windows come from
  ``zip(range(n), from_tensors(starts).repeat()) -> map`` (gathering from
  ``from_tensors(data).repeat()``), then ``prefetch(AUTOTUNE) -> shuffle(batch_size * 8) -> batch``.

So the small ``shuffle`` inside runs over an order that is already a random
permutation of everything; it only varies that order locally from epoch to epoch.

:func:`stored_order` reads that order from the constant the source holds (file
paths, window starts); :func:`mark_utilities` labels the stages a utility
built and gives every ``shuffle`` the order of its input (``input_order``):
``"permuted"`` when every ordered source upstream is already permuted,
``"ordered"`` when one is sorted or grouped, ``None`` when nothing tells.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import Field, replace
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np


class _Stage(Protocol):
    """What this module reads of :class:`tfnb_debug.collect.pipeline.Stage` (a dataclass);
    named structurally so the two modules do not import each other."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def kind(self) -> str: ...
    @property
    def params(self) -> tuple[tuple[str, Any], ...]: ...
    @property
    def branches(self) -> tuple[tuple[Any, ...], ...]: ...

    def param(self, name: str, default: Any = None) -> Any: ...


Stage = TypeVar("Stage", bound=_Stage)

__all__ = ["file_reader", "mark_utilities", "stored_order"]

_MAX_ORDERED = 1_000_000  # read at most this many paths or window starts
_IMAGE_DECODERS = {
    "DecodeImage",
    "DecodePng",
    "DecodeJpeg",
    "DecodeBmp",
    "DecodeGif",
    "DecodeAndCropJpeg",
    "DecodeWebP",
}


def stored_order(values: np.ndarray, *, kind: str) -> str | None:
    """``"permuted"``, ``"ordered"`` or None for a 1-D array of file paths or window starts.

    Paths count as permuted when the list is not sorted and no folder's files
    form one block (a class folder's files are spread over the list); window
    starts when they are not in increasing order.
    """
    if values.ndim != 1 or values.size < 2 or values.size > _MAX_ORDERED:
        return None
    if kind == "starts":
        if values.dtype.kind not in "iu":
            return None
        return "ordered" if bool(np.all(np.diff(values) >= 0)) else "permuted"
    if values.dtype.kind not in "SOU":
        return None
    paths = [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values]
    if not all("/" in p or "\\" in p for p in paths):
        return None  # not paths (texts, names): their order says nothing here
    if paths == sorted(paths):
        return "ordered"
    folders = [p.replace("\\", "/").rsplit("/", 1)[0] if "/" in p else "" for p in paths]
    blocks = 1 + sum(1 for a, b in zip(folders, folders[1:], strict=False) if a != b)
    if len(set(folders)) > 1 and blocks == len(set(folders)):
        return "ordered"  # each folder's files in one block: grouped by class
    return "permuted"


def file_reader(ops: Iterable[str]) -> str | None:
    """What a map function reads: ``"image"``/``"audio"``/``"text"`` files, or None (no ReadFile)."""
    ops = set(ops)
    if "ReadFile" not in ops:
        return None
    if ops & _IMAGE_DECODERS:
        return "image"
    if "DecodeWav" in ops:
        return "audio"
    return "text"


def mark_utilities(stages: Sequence[Stage]) -> list[Stage]:
    """The stages with ``utility`` set where a Keras utility built them, and each shuffle's input order."""
    out = list(stages)
    reads_files = any(s.param("reads") for s in _flatten(out))
    for i, stage in enumerate(out):
        if stage.kind in {"shuffle", "shuffle_and_repeat"}:
            orders = [o for o in _orders(out[:i], reads_files=reads_files) if o is not None]
            order = (
                "ordered"
                if "ordered" in orders
                else "permuted"
                if orders and all(o == "permuted" for o in orders)
                else None
            )
            out[i] = replace(stage, params=(*stage.params, ("input_order", order)))
    span = _directory_span(out) or _timeseries_span(out)
    if span is not None:
        end, name = span
        out[: end + 1] = [replace(s, utility=name) for s in out[: end + 1]]
    return out


def _orders(stages: Sequence[Stage], *, reads_files: bool) -> Iterable[str | None]:
    """The stored orders upstream: file paths only when the pipeline reads files, window
    starts only next to the ``range`` that indexes them."""
    every = list(_flatten(stages))
    indexed = any(s.kind == "range" for s in every)
    for stage in every:
        if (stage.kind == "tensor_slice" and reads_files) or (stage.kind == "tensor" and indexed):
            yield stage.param("order")


def _directory_span(stages: Sequence[Stage]) -> tuple[int, str] | None:
    """``from_tensor_slices(paths) [zip] [shuffle] map(read files) [batch] prefetch``."""
    if not stages or stages[0].kind != "tensor_slice" or stages[0].param("order") is None:
        return None
    i = 1
    if i < len(stages) and stages[i].kind == "zip":
        i += 1
    if i < len(stages) and stages[i].kind == "shuffle":
        i += 1
    if i >= len(stages) or stages[i].kind != "map" or stages[i].param("reads") is None:
        return None
    reads = stages[i].param("reads")
    i += 1
    if i < len(stages) and stages[i].kind == "batch":
        i += 1
    if i >= len(stages) or stages[i].kind != "prefetch":
        return None
    return i, f"keras.utils.{reads}_dataset_from_directory"


def _timeseries_span(stages: Sequence[Stage]) -> tuple[int, str] | None:
    """``zip(range, from_tensors(starts).repeat()) -> map`` ... ``prefetch [shuffle] [batch]``."""
    prefetch = next((i for i, s in enumerate(stages) if s.kind == "prefetch"), None)
    if prefetch is None or prefetch == 0:
        return None
    head = stages[:prefetch]
    if any(s.kind not in {"tensor", "repeat", "zip", "map"} for s in head):
        return None
    if not _has_window_starts(head):
        return None
    end = prefetch
    if end + 1 < len(stages) and stages[end + 1].kind == "shuffle":
        end += 1
    if end + 1 < len(stages) and stages[end + 1].kind == "batch":
        end += 1
    return end, "keras.utils.timeseries_dataset_from_array"


def _has_window_starts(stages: Sequence[Stage]) -> bool:
    every = list(_flatten(stages))
    return any(s.kind == "range" for s in every) and any(
        s.kind == "tensor" and s.param("order") for s in every
    )


def _flatten(stages: Sequence[Stage]) -> Iterable[Stage]:
    for stage in stages:
        yield stage
        for branch in stage.branches:
            yield from _flatten(branch)
