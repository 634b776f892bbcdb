"""Contracts of the ``tf.data`` calls that map, pad, combine or nest datasets, read from the
datasets' ``element_spec``.

- ``a.concatenate(b)`` takes a dataset whose elements have the same structure and dtypes
  as ``a``'s ("Incompatible dataset elements"): the component that differs is named, with
  the dataset that has the odd dtype and the cast that makes them one (float64 from NumPy's
  default is cast to float32, the dtype of the other side).
- ``ds.map(f)`` passes a tuple element as that many arguments, a dict or a single tensor
  as one; ``padded_batch(padded_shapes=...)`` takes one shape per component, of its rank.
- ``ds.window(n)`` makes a dataset of datasets, one per window: a ``map`` over it gets a
  dataset for each window, which cannot be indexed, sliced or computed with like a tensor
  ("'_VariantDataset' object is not subscriptable"); ``flat_map(lambda w: w.batch(n))``
  turns each window into one tensor first.
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._operands import item_texts
from tfnb_debug.explain._violation import Violation

__all__ = [
    "dataset_concatenate",
    "dataset_map",
    "padded_batch",
    "map_over_windows",
    "sampled_datasets",
    "windows_hint",
    "windows_of",
]


def _components(spec: Any) -> list[tuple[str, Any]]:
    """(path, spec) of each component of an element spec: ``[0]``, ``['x']``, ``[1][0]``."""
    if isinstance(spec, dict):
        out = []
        for key, value in spec.items():
            out += [(f"[{key!r}]{p}", s) for p, s in _components(value)]
        return out
    if isinstance(spec, tuple | list):
        out = []
        for i, value in enumerate(spec):
            out += [(f"[{i}]{p}", s) for p, s in _components(value)]
        return out
    return [("", spec)]


def _dtype(spec: Any) -> str:
    return str(getattr(getattr(spec, "dtype", None), "name", ""))


def dataset_concatenate(call: LiveCall, exc: BaseException) -> Violation | None:
    """``a.concatenate(b)`` with a component whose dtype (or the structure) differs."""
    first, second = call.receiver, call.value("dataset")
    if second is UNREAD or not hasattr(first, "element_spec"):
        return None
    if not hasattr(second, "element_spec"):
        return None
    return _compare(_receiver_text(call), first, call.text("dataset"), second, "concatenate")


def sampled_datasets(call: LiveCall, exc: BaseException) -> Violation | None:
    """``Dataset.sample_from_datasets`` / ``choose_from_datasets`` given datasets whose
    elements differ in structure or dtype from the first one's."""
    datasets = call.value("datasets")
    if not isinstance(datasets, list | tuple) or len(datasets) < 2:
        return None
    if not all(hasattr(d, "element_spec") for d in datasets):
        return None
    names = item_texts(call.text("datasets"), len(datasets))
    api = call.api.rsplit(".", 1)[-1]
    for name, dataset in zip(names[1:], datasets[1:], strict=True):
        found = _compare(names[0], datasets[0], name, dataset, api)
        if found is not None:
            return found
    return None


def _compare(own: str, first: Any, other: str, second: Any, api: str) -> Violation | None:
    left, right = _components(first.element_spec), _components(second.element_spec)
    if [p for p, _ in left] != [p for p, _ in right]:
        return Violation(
            "S12",
            other,
            f"`{other}`'s elements are structured {_structure(right)}, `{own}`'s "
            f"{_structure(left)}: {api} takes datasets of the same structure",
            "make both yield the same structure (the same tuple or dict of components), "
            "e.g. with a map on one of them",
        )
    for (path, a), (_, b) in zip(left, right, strict=True):
        da, db = _dtype(a), _dtype(b)
        if da == db or not da or not db:
            continue
        keep = _common(da, db)
        odd, odd_dtype = (own, da) if keep == db else (other, db)
        where = f"component {path}" if path else "the elements"
        hint = f"cast {where} of `{odd}` to {keep}"
        if odd_dtype == "float64":
            hint += " (float64 is NumPy's default: `.astype('float32')` on the array it came from)"
        hint += f", e.g. `{odd}.map({_cast_lambda(len(left), path, keep)})`"
        return Violation(
            "S11",
            other,
            f"{where} of `{own}` {'is' if path else 'are'} {da} and of `{other}` {db}: "
            f"{api} takes datasets whose components have the same dtypes",
            hint,
            evidence=f"`{odd}` holds the {odd_dtype} one",
        )
    return None


def _common(a: str, b: str) -> str:
    """The dtype both sides take: float32 for float64 against float32, the float for an
    integer against a float (pixels), else the first side's."""
    if {a, b} == {"float64", "float32"}:
        return "float32"
    floats = [d for d in (a, b) if d.startswith(("float", "bfloat"))]
    if len(floats) == 1:
        return floats[0]
    return a


def _receiver_text(call: LiveCall) -> str:
    source = call.source
    cut = source.rfind(".concatenate(")
    return source[:cut] if cut > 0 else "the dataset"


def _structure(components: list[tuple[str, Any]]) -> str:
    paths = [p for p, _ in components]
    return f"as {', '.join(paths)}" if paths != [""] else "as one tensor"


def _cast_lambda(count: int, path: str, dtype: str) -> str:
    """A ``map`` function that casts one component: ``lambda x, y: (tf.cast(x, ...), y)``,
    ``lambda d: {**d, 'age': tf.cast(d['age'], ...)}``."""
    import re

    if count == 1 and not path:
        return f"lambda x: tf.cast(x, tf.{dtype})"
    index = re.fullmatch(r"\[(\d+)\]", path)
    if index is not None and count <= 3:
        names = ["x", "y", "w"][:count]
        at = int(index.group(1))
        parts = [f"tf.cast({n}, tf.{dtype})" if i == at else n for i, n in enumerate(names)]
        return f"lambda {', '.join(names)}: ({', '.join(parts)})"
    key = re.fullmatch(r"\[('[^']*')\]", path)
    if key is not None:
        return f"lambda d: {{**d, {key.group(1)}: tf.cast(d[{key.group(1)}], tf.{dtype})}}"
    return f"a function that returns the element with tf.cast(element{path}, tf.{dtype})"


def map_over_windows(call: LiveCall, exc: BaseException) -> Violation | None:
    """``ds.window(n).map(f)`` where ``f`` treats each window (a dataset) as a tensor."""
    dataset = call.receiver if windows_of(call.receiver) else _mapped_dataset(exc)
    if dataset is None:
        return None
    text = str(exc)
    if "Dataset" not in text and "Variant" not in text:  # a window used as a tensor
        return None
    size = _window_size(dataset)
    batched = type(dataset).__name__.strip("_").startswith(("Batch", "ParallelBatch"))
    if batched:
        inner = getattr(dataset, "_input_dataset", None)
        size = _window_size(inner) if inner is not None else size
        window = f"w.batch({size})" if size else "w.batch(window_size)"
        own = call.source.rsplit(".map(", 1)[0] if ".map(" in call.source else "the dataset"
        return Violation(
            "S12",
            own,
            f"`{own}` batches the windows of Dataset.window, whose elements are datasets (one "
            "per window): a batch of them is still datasets, not a tensor the mapped function "
            "can index",
            f"turn each window into a tensor right after window(), before batch(): "
            f"`.window(...).flat_map(lambda w: {window}).batch(...)`, then map",
        )
    batch = f"w.batch({size})" if size else "w.batch(window_size)"
    own = call.source.rsplit(".map(", 1)[0] if ".map(" in call.source else "the dataset"
    spec = dataset.element_spec
    if isinstance(spec, tuple) and len(spec) > 1:
        hint = "turn each window into tensors first, then map: " + windows_hint(dataset, len(spec))
    else:
        hint = (
            f"turn each window into a tensor first: `{own}.flat_map(lambda w: {batch})`, then "
            "map over the tensors"
        )
    return Violation(
        "S12",
        own,
        f"`{own}` comes from Dataset.window, so each element is a dataset (one per window), "
        "not a tensor: the mapped function cannot index or compute with it",
        hint,
    )


def windows_of(dataset: Any) -> bool:
    """Whether a dataset's elements are datasets (``Dataset.window`` made it)."""
    spec = getattr(dataset, "element_spec", None)
    return spec is not None and any(type(s).__name__ == "DatasetSpec" for _, s in _components(spec))


def fit_on_windows(call: LiveCall, exc: BaseException) -> Violation | None:
    """S12: fit/evaluate/predict given a dataset whose elements hold datasets (windows that
    were never turned into tensors: ``window()`` without ``flat_map``)."""
    data = call.value("x")
    if not windows_of(data):
        return None
    text = call.text("x")
    spec = data.element_spec
    parts = len(spec) if isinstance(spec, tuple) else 1
    windows = [i for i, (_, s) in enumerate(_components(spec)) if type(s).__name__ == "DatasetSpec"]
    hint = (
        windows_hint(data, parts)
        if len(windows) == parts
        else "make the windowed dataset yield tensors before it is zipped with the others: "
        "`windows = windows.flat_map(lambda w: w.batch(window_size))` (window_size: the "
        "size given to window())"
    )
    return Violation(
        "S12",
        text,
        f"`{text}` holds datasets, not tensors: {len(windows)} of the {parts} part(s) of "
        "each element is a window that Dataset.window made (a dataset per window), which a "
        "model cannot take",
        hint,
    )


def _map_receiver(exc: BaseException) -> Any:
    """The dataset ``Dataset.map`` ran on, from its own frame (a receiver written as a call)."""
    tb = exc.__traceback__
    while tb is not None:
        own = tb.tb_frame.f_locals.get("self") if tb.tb_frame.f_code.co_name == "map" else None
        if own is not None and hasattr(own, "element_spec"):
            return own
        tb = tb.tb_next
    return None


def library_function_over_pairs(exc: BaseException) -> tuple[str, str, str] | None:
    """(problem, hint, evidence) when ``Dataset.map`` was given a library function (such as
    an application's ``preprocess_input``) over (x, y) elements: the labels land in its second,
    optional parameter."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        own, func = frame.f_locals.get("self"), frame.f_locals.get("map_func")
        if frame.f_code.co_name == "map" and hasattr(own, "element_spec") and func is not None:
            spec = getattr(own, "element_spec", None)
            parts = len(spec) if isinstance(spec, tuple) else 1
            second = _second_part_into_option(func, parts)
            if second is None:
                return None
            name = f"{getattr(func, '__module__', '')}.{getattr(func, '__name__', '')}".strip(".")
            short = name.replace("keras.src.", "keras.")
            return (
                f"`map` passes the {parts} parts of each (image, label) element as {parts} "
                f"arguments, so `{short}` gets the labels as its `{second}` argument: it takes "
                "the images alone",
                f"apply it to the images only: `.map(lambda x, y: ({getattr(func, '__name__', 'f')}"
                "(x), y))`",
                "element parts of shapes "
                + ", ".join(str(tuple(getattr(p, "shape", ()))) for p in spec or ()),
            )
        tb = tb.tb_next
    return None


def _mapped_dataset(exc: BaseException) -> Any:
    """The dataset of windows ``Dataset.map`` ran on, from its own frame (the receiver was
    written as a call, ``ds.window(4).map(f)``, which is not evaluated again)."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "map":
            candidate = frame.f_locals.get("self")
            if windows_of(candidate):
                return candidate
        tb = tb.tb_next
    return None


def _window_size(dataset: Any) -> int | None:
    for name in ("_size", "size"):
        value = getattr(dataset, name, None)
        try:
            return int(value) if value is not None else None
        except (TypeError, ValueError):
            continue
    return None


def windows_hint(dataset: Any, parts: int) -> str:
    """How to make each window of ``dataset`` (with ``parts`` components) a tensor."""
    size = _window_size(dataset) or "window_size"
    if parts == 1:
        return f"each element is a dataset (Dataset.window): `.flat_map(lambda w: w.batch({size}))`"
    names = ["x", "y", "w", "v"][:parts] if parts <= 4 else [f"c{i}" for i in range(parts)]
    zipped = ", ".join(f"{n}.batch({size})" for n in names)
    return (
        f"each component is a dataset (Dataset.window): "
        f"`.flat_map(lambda {', '.join(names)}: tf.data.Dataset.zip(({zipped})))`"
    )


def _positional_count(func: Any) -> tuple[int, int, bool] | None:
    import inspect

    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    return len(required), len(positional), varargs


def _second_part_into_option(func: Any, parts: int) -> str | None:
    """The name of the optional parameter of a library function (``preprocess_input(x,
    data_format=None)``) that the second part of a (x, y) element lands in."""
    import inspect

    if parts != 2 or not getattr(func, "__module__", "").startswith(("keras", "tensorflow")):
        return None
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) < 2 or positional[1].default is inspect.Parameter.empty:
        return None
    return positional[1].name


def dataset_map(call: LiveCall, exc: BaseException) -> Violation | None:
    func = call.value("map_func")
    dataset = call.receiver if call.receiver is not None else _map_receiver(exc)
    if func is UNREAD or dataset is None or not isinstance(exc, TypeError):
        return None
    spec = getattr(dataset, "element_spec", None)
    count = _positional_count(func)
    if spec is None or count is None:
        return None
    required, positional, varargs = count
    parts = len(spec) if isinstance(spec, tuple) else 1
    second = _second_part_into_option(func, parts)
    if second is not None:
        name = getattr(func, "__name__", "the function")
        return Violation(
            "S12",
            call.text("map_func"),
            f"`map` passes the {parts} parts of each element as {parts} arguments, so "
            f"`{name}` gets the labels as its `{second}` argument: it takes the images alone",
            f"apply it to the images only: `.map(lambda x, y: ({call.text('map_func')}(x), y))`",
        )
    if varargs or required <= parts <= positional:
        return None
    name = getattr(func, "__name__", "the function")
    shown = (
        f"a tuple of {parts}"
        if isinstance(spec, tuple)
        else "one element" + (" (a dict)" if isinstance(spec, dict) else "")
    )
    if parts > 1:
        fix = f"take {parts} arguments, `def {name}(x, y): ...` (map unpacks a tuple element into arguments)"
    else:
        fix = f"take one argument, `def {name}(element): ...` (a dict or single element is passed whole)"
    if windows_of(dataset):  # the second cause: each component is a dataset, not a tensor
        fix += "; and " + windows_hint(dataset, parts)
    return Violation(
        "S12",
        call.text("map_func"),
        f"`map` passes each element as {shown}, but `{name}` takes {required} positional "
        "argument(s)" + (f" (up to {positional})" if positional != required else ""),
        fix,
    )


def padded_batch(call: LiveCall, exc: BaseException) -> Violation | None:
    padded = call.value("padded_shapes")
    dataset = call.receiver
    if padded is UNREAD or padded is None or dataset is None:
        return None
    spec = dataset.element_spec
    text = call.text("padded_shapes")
    if isinstance(spec, tuple) and not isinstance(padded, tuple | dict):
        return Violation(
            "S12",
            text,
            f"the elements are tuples of {len(spec)} components but `padded_shapes` is one shape",
            "give one padded shape per component, e.g. `padded_shapes=([None], [])` for "
            "(sequence, label)",
        )
    pairs = list(zip(spec, padded, strict=False)) if isinstance(spec, tuple) else [(spec, padded)]
    for component, shape in pairs:
        rank = getattr(getattr(component, "shape", None), "rank", None)
        given = len(shape) if isinstance(shape, list | tuple) else None
        if rank is not None and given is not None and rank != given:
            return Violation(
                "S12",
                text,
                f"a component of rank {rank} (shape {list(component.shape)}) got a padded shape "
                f"of rank {given} ({list(shape)})",
                f"give it a padded shape with {rank} entries (None pads to the longest in the batch)",
            )
    return None
