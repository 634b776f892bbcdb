"""The table a model was fit on, against the table a later call gives it.

A model takes the width of the table it was built for.  When a ``fit``/``predict``/
``evaluate`` call gives it a DataFrame (or an array made from one, ``test.to_numpy()``) of
another width, the user's namespace usually still holds the table of the model's width: the
DataFrame with that many columns that shares the most columns with the given one.  The
columns one has and the other lacks are the cause, by name: a label or id column dropped from
one table only, the bool columns ``select_dtypes(include="number")`` leaves out.  A column
that is also the name of a Series in the namespace (``y_train``) is the target.  Nothing is
called: frames are read from the namespace and the cell's assignments.
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._api import UNREAD, user_call
from tfnb_debug.explain._array_frames import frame_behind, is_frame
from tfnb_debug.ground.files import is_user_file

_DATA = ("fit", "predict", "evaluate", "predict_on_batch", "train_on_batch", "test_on_batch")


def frame_against_peer(exc: BaseException, width: int, given_width: int | None) -> str | None:
    """The hint naming the columns by which the call's table (``given_width`` columns wide)
    differs from the namespace's table of ``width`` columns (the model's), or None when no
    such pair is read."""
    call = user_call(exc, is_user_file)
    if call is None or call.method not in _DATA:
        return None
    text, value = call.text("x"), call.value("x")
    frame = (text, value) if is_frame(value) else None
    if frame is None and value is not UNREAD:
        frame = frame_behind(text, call.namespaces, call.filename, call.lineno)
    if frame is None:
        return None
    name, given = frame
    own = [str(c) for c in given.columns]
    if len(own) != given_width:
        return None
    peer = _peer(given, own, width, call.namespaces, call.filename, call.lineno)
    if peer is None:
        return None
    peer_name, columns = peer
    lacks = [c for c in columns if c not in own]
    extra = [c for c in own if c not in columns]
    targets = _series_names(call.namespaces)
    if lacks and not extra:
        listed = _listed(lacks)
        target = [c for c in lacks if c in targets]
        if target:
            return (
                f"`{name}` lacks {listed}, which `{peer_name}` ({width} columns, the model's "
                f"width) has; {_listed(target)} is also the target `{targets[target[0]]}`: if "
                f"the model was fit on `{peer_name}`, it had its own label among the features. "
                f"Drop it from `{peer_name}` (`.drop(columns=[{_listed(target)}])`) and fit again"
            )
        kinds = {str(peer_frame_dtype(peer_name, c, call.namespaces)) for c in lacks}
        why = (
            " (all bool: select_dtypes(include='number') leaves bool columns out; cast them "
            "with `.astype('float32')` instead)"
            if kinds == {"bool"}
            else ""
        )
        return (
            f"`{name}` lacks {listed}, which `{peer_name}` ({width} columns, the model's width) "
            f"has{why}: give the model the same columns"
        )
    if extra and not lacks:
        return (
            f"`{name}` has {_listed(extra)}, which `{peer_name}` ({width} columns, the model's "
            f"width) has not: drop {'it' if len(extra) == 1 else 'them'} as for "
            f"`{peer_name}`, `{name}.drop(columns=[{_listed(extra)}])`"
        )
    return None


def peer_frame_dtype(name: str, column: str, namespaces: Any) -> Any:
    for space in namespaces:
        if name in space:
            try:
                return space[name][column].dtype
            except Exception:
                return None
    return None


def _peer(
    given: Any,
    own: list[str],
    width: int,
    namespaces: Any,
    filename: str,
    lineno: int,
    limit: int = 400,
) -> tuple[str, list[str]] | None:
    """(name, columns) of the one table in the namespace with ``width`` columns that shares
    the most columns with ``given`` (at least all but two of the smaller one's): a DataFrame,
    or a 2-D array the cell made from one (``X_train = train.drop(columns=[...]).values``)."""
    best: list[tuple[int, str, list[str]]] = []
    seen: set[int] = set()
    for space in namespaces:
        for key, value in list(space.items())[:limit]:
            if key.startswith("_") or value is given or id(value) in seen:
                continue
            seen.add(id(value))
            if not is_frame(value):
                if type(value).__name__ != "ndarray" or value.ndim != 2 or value.shape[1] != width:
                    continue
                behind = frame_behind(key, namespaces, filename, lineno)
                if behind is None or behind[1] is given:
                    continue
                value = behind[1]
            columns = [str(c) for c in value.columns]
            if len(columns) != width or columns == own:
                continue
            shared = len(set(columns) & set(own))
            if shared and shared >= min(len(columns), len(own)) - 2:
                best.append((shared, key, columns))
    best.sort(reverse=True)
    if not best or (len(best) > 1 and best[1][0] == best[0][0] and best[1][2] != best[0][2]):
        return None
    return best[0][1], best[0][2]


def _series_names(namespaces: Any, limit: int = 400) -> dict[str, str]:
    """{Series name: the variable holding it} for the Series in the user's namespace."""
    found: dict[str, str] = {}
    for space in namespaces:
        for key, value in list(space.items())[:limit]:
            if type(value).__name__ == "Series" and not key.startswith("_"):
                found.setdefault(str(getattr(value, "name", "")), key)
    return found


def _listed(columns: list[str]) -> str:
    return ", ".join(repr(c) for c in columns[:6]) + (", ..." if len(columns) > 6 else "")
