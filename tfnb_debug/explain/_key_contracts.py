"""A ``KeyError`` raised inside a library call: the key asked for, and the argument without it.

APIs that read data by name (``FeatureSpace.adapt`` and its call, ``Model.fit`` with a dict
of inputs, a ``Dataset.map`` over dict elements) raise a bare ``KeyError: 'target'`` from deep
inside.  The call's own arguments show which of them is keyed (a dict, a DataFrame, a
dataset of dict elements), which keys it has, and which configuration asks for the missing
one (the receiver's ``features``, the model's input names).  A ``pop`` of that key in the
cell above says where it went.
"""

from __future__ import annotations

import linecache
import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation, features_spec


def missing_key(call: LiveCall, exc: BaseException) -> Violation | None:
    """S12: the key of a ``KeyError`` is missing from a keyed argument of the call."""
    if not isinstance(exc, KeyError) or len(exc.args) != 1 or not isinstance(exc.args[0], str):
        return None
    key = exc.args[0]
    for name, value in call.values.items():
        keys = _keys(value)
        if keys is None or key in keys:
            continue
        text = call.text(name)
        asked = _asked_by(call.receiver, key)
        popped = _popped(call.filename, key)
        shown = ", ".join(f"'{k}'" for k in keys[:8])
        return Violation(
            "S12",
            text,
            f"`{text}` has no '{key}' (its keys: {shown})"
            + (f", and {asked} asks for '{key}'" if asked else f", and `{call.api}` reads '{key}'"),
            (f"'{key}' was taken out of the table above (`{popped}`): " if popped else "")
            + f"drop '{key}' from what asks for it"
            + (f" ({asked})" if asked else "")
            + f", or give `{text}` a '{key}' entry",
        )
    return None


def _keys(value: Any) -> list[str] | None:
    """The keys of a dict, a DataFrame's columns, or the keys of a dataset's dict features."""
    if value is UNREAD or value is None:
        return None
    if isinstance(value, dict):
        return [str(k) for k in value]
    if type(value).__name__ == "DataFrame" and type(value).__module__.startswith("pandas"):
        return [str(c) for c in value.columns]
    spec = features_spec(getattr(value, "element_spec", None))
    if isinstance(spec, dict):
        return [str(k) for k in spec]
    return None


def _asked_by(receiver: Any, key: str) -> str:
    """Which configuration of the receiver names ``key``: a FeatureSpace's ``features``, a
    model's input names."""
    features = getattr(receiver, "features", None)
    if isinstance(features, dict) and key in features:
        return f"{type(receiver).__name__}'s features= (`{', '.join(map(str, features))}`)"
    names = getattr(receiver, "input_names", None) or []
    if key in [str(n) for n in names]:
        return f"the model's input '{key}'"
    return ""


def _popped(filename: str, key: str) -> str:
    """``df.pop("target")`` in the cell, as written, when the key was popped there."""
    pattern = re.compile(rf"[\w.]+\.pop\(\s*['\"]{re.escape(key)}['\"]\s*\)")
    for line in linecache.getlines(filename):
        match = pattern.search(line)
        if match is not None:
            return match.group(0)
    return ""
