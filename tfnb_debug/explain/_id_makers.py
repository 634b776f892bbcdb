"""Where an array of ids given to the failing call was made in the cell, and how many ids
that maker makes: ``ids = tf.strings.to_hash_bucket_fast(words, 256)`` (0..255), or
``ids = lookup(words)`` with a lookup, hashing or discretization layer of the namespace (its
vocabulary size or bins).  Read from the cell's assignment of the name and the namespace; the
maker is not called."""

from __future__ import annotations

import ast
import linecache
from typing import Any

from tfnb_debug.explain._api import UNREAD, evaluate
from tfnb_debug.explain._assignments import assigned_from
from tfnb_debug.explain._evidence import _id_count

_HASH_OPS = ("to_hash_bucket_fast", "to_hash_bucket_strong", "to_hash_bucket")


def cell_id_maker(exc: BaseException, name: str, is_user_file: Any) -> tuple[str, str, int] | None:
    """(the maker as written, its kind, the number of ids it makes) for the array named
    ``name``, from its assignment above the innermost user frame's line; None when not read."""
    tb, user = exc.__traceback__, None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            user = tb
        tb = tb.tb_next
    if user is None or not name.isidentifier():
        return None
    frame = user.tb_frame
    before = linecache.getlines(frame.f_code.co_filename)[: max(user.tb_lineno - 1, 0)]
    try:
        made = ast.parse(assigned_from(name, before) or "None", mode="eval").body
    except SyntaxError:
        return None
    while isinstance(made, ast.Call) and getattr(made.func, "attr", "") in ("numpy", "astype"):
        made = made.func.value  # type: ignore[attr-defined]
    if not isinstance(made, ast.Call):
        return None
    spaces = (frame.f_locals, frame.f_globals)
    text = ast.unparse(made)
    op = getattr(made.func, "attr", getattr(made.func, "id", ""))
    if op in _HASH_OPS:
        keyword = next((k.value for k in made.keywords if k.arg == "num_buckets"), None)
        buckets = keyword or (made.args[1] if len(made.args) > 1 else None)
        count = evaluate(buckets, spaces) if buckets is not None else UNREAD
        return (text, f"tf.strings.{op}", int(count)) if isinstance(count, int) else None
    maker = evaluate(made.func, spaces)
    count = _id_count(maker) if maker is not UNREAD else None
    layer = ast.unparse(made.func)  # the layer as the user names it: `vectorize`
    return (layer, type(maker).__name__, count) if count is not None else None
