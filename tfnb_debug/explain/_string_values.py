"""What the strings a dataset starts from look like: text (words with spaces) or ids.

A model given raw strings needs a layer that turns them into numbers, and which one depends
on what they are: sentences are tokenized (``TextVectorization``), while single tokens such
as user ids, product codes or category names are looked up one each (``StringLookup``).
The values are read from the pipeline's source tensors (``from_tensor_slices``), never by
iterating the dataset (a second pass would move a reshuffling dataset's order on);
:func:`source_tensors` serves the other readers of those tensors too.
"""

from __future__ import annotations

from typing import Any


def source_tensors(ds: Any) -> list[Any]:
    """The tensors a dataset pipeline starts from (``from_tensor_slices``' components), found
    by walking its inputs back, never by iterating it; [] when its source holds none."""
    current, depth = ds, 0
    while current is not None and depth < 30:
        tensors = getattr(current, "_tensors", None)
        if tensors is not None:
            return list(tensors)
        try:
            inputs = current._inputs()
        except Exception:
            return []
        current = inputs[0] if inputs else None
        depth += 1
    return []


def source_strings(ds: Any, limit: int = 200) -> list[str]:
    """Up to ``limit`` string values of the first string component at the pipeline's source;
    [] when the source holds no string tensor that can be read without iterating, or when a
    ``map`` on the way may change them (``text_dataset_from_directory`` starts from file paths
    and maps them to the files' texts)."""
    if _mapped(ds):
        return []
    for tensor in source_tensors(ds):
        if getattr(getattr(tensor, "dtype", None), "name", "") == "string":
            try:
                values = tensor.numpy().reshape(-1)[:limit]
            except Exception:
                return []
            return [
                v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values
            ]
    return []


def kind_of_strings(values: list[str]) -> str:
    """ "text" (most hold a space), "ids" (single short tokens), or "" (unknown / mixed)."""
    if not values:
        return ""
    spaced = sum(1 for v in values if " " in v.strip())
    if spaced >= len(values) / 2:
        return "text"
    if spaced == 0 and all(len(v) <= 32 for v in values):
        return "ids"
    return ""


def _mapped(ds: Any) -> bool:
    """A ``map``/``flat_map``/``interleave`` lies between the dataset and its source."""
    current, depth = ds, 0
    while current is not None and depth < 30:
        kind = type(current).__name__
        if "Map" in kind or "Interleave" in kind:
            return True
        try:
            inputs = current._inputs()
        except Exception:
            return False
        current = inputs[0] if inputs else None
        depth += 1
    return False


TEXT_LAYERS = ("TextVectorization", "StringLookup", "Hashing", "HashedCrossing")


def text_layer_in(namespaces: Any, filename: str = "") -> tuple[str, Any] | None:
    """The user's own text layer (TextVectorization, StringLookup, ...), by its name in the
    namespaces of the failing call: the one the failing cell (``filename``) names, else the
    only one."""
    import linecache
    import re

    source = "".join(linecache.getlines(filename)) if filename else ""
    found = [
        (name, value)
        for names in namespaces[:2]
        for name, value in list(names.items())
        if not name.startswith("_") and type(value).__name__ in TEXT_LAYERS
    ]
    named = [f for f in found if re.search(rf"\b{re.escape(f[0])}\b", source)]
    chosen = named or found
    return chosen[0] if len({id(v) for _, v in chosen}) == 1 else None
