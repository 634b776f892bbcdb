"""A user's failed check whose operand was made wrong a few lines above: the check is right,
and the statement that made the value shows the cause.

For each name the failing check reads, the cell's last assignment of that name is parsed and
matched against the makers whose contract explains a failed check:

- ``tf.one_hot(ids, depth)`` with ids outside [0, depth) (markers such as -1): all-zero rows
  (P12);
- ``df[...].dropna()`` for the features but not for the targets: other row counts (S12);
- ``(f - f.mean()) / f.std()`` with a constant column: 0/0 = NaN (N05);
- an element-wise op of a (n,) and a (n, 1) array: an (n, n) result (S08);
- ids checked against ``len(catalog)``: raw catalogue ids, not positions (S09);
- a check inside ``for x, y in ds:`` where ``ds`` was never batched: one example (S12).

Nothing the user wrote is run; names are looked up in the frame's namespaces.
"""

from __future__ import annotations

import ast
import re
from typing import Any, NamedTuple

from tfnb_debug.explain._api import UNREAD, evaluate
from tfnb_debug.explain._assignments import assigned_from
from tfnb_debug.explain._checked_values import _user_filename
from tfnb_debug.explain._nonfinite_source import failing_statement
from tfnb_debug.explain._operands import innermost_node, parsed_file
from tfnb_debug.explain._violation import shape_of


class MadeWrong(NamedTuple):
    code: str
    problem: str
    hint: str
    evidence: str
    lineno: int


def made_wrong(exc: BaseException) -> MadeWrong | None:
    """The statement above a failed check that made its operand wrong, or None."""
    if (
        not isinstance(exc, AssertionError)
        and "did not hold" not in str(exc)
        and ("must have rank" not in str(exc))
    ):
        return None
    failing = failing_statement(exc)
    if failing is None:
        return None
    spaces, before, statement = failing
    names = list(dict.fromkeys(n.id for n in ast.walk(statement) if isinstance(n, ast.Name)))
    made = {n: rhs for n in names if (rhs := assigned_from(n, before))}
    lineno = getattr(statement, "lineno", 0)
    for read in (_one_hot, _dropna, _standardized, _broadcast, _catalog):
        found = read(made, spaces)
        if found is not None:
            return MadeWrong(*found, lineno)
    rank = re.search(r"must have rank (\d+)\.\s+Received rank (\d+)", str(exc))
    loop = _unbatched_loop(statement, _user_filename(exc), spaces) if rank else None
    return MadeWrong(*loop, lineno) if loop is not None else None


Parts = tuple[str, str, str, str] | None


def _value(text: str, spaces: Any) -> Any:
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return UNREAD
    return evaluate(node, spaces)


def _one_hot(made: dict[str, str], spaces: Any) -> Parts:
    for name, rhs in made.items():
        found = re.fullmatch(r"(?:tf|keras\.ops)\.one_hot\((\w+), (\w+)\)", rhs)
        if found is None:
            continue
        ids, depth = _value(found.group(1), spaces), _value(found.group(2), spaces)
        try:
            import numpy as np

            array, depth = np.asarray(ids), int(depth)
        except Exception:
            continue
        outside = array[(array < 0) | (array >= depth)]
        if array.dtype.kind not in "iu" or not outside.size:
            continue
        values = ", ".join(str(v) for v in sorted(set(outside.tolist()))[:4])
        return (
            "P12",
            f"`{name}` = `{rhs}`, and `{found.group(1)}` holds {values} ({outside.size} "
            f"items), outside 0..{depth - 1}: one_hot makes an all-zero row for each",
            f"drop (or mask) the examples marked {values} before encoding, e.g. "
            f"`keep = {found.group(1)} >= 0`, then index the inputs and labels with it",
            f"`{found.group(1)}`: {outside.size} values outside 0..{depth - 1}",
        )
    return None


def _dropna(made: dict[str, str], spaces: Any) -> Parts:
    dropped = [(n, r) for n, r in made.items() if ".dropna(" in r]
    kept = [(n, r) for n, r in made.items() if ".dropna(" not in r and re.match(r"\w+\[", r)]
    for (name, rhs), (other, other_rhs) in ((d, k) for d in dropped for k in kept):
        a, b = _value(name, spaces), _value(other, spaces)
        rows = [len(v) if hasattr(v, "__len__") else None for v in (a, b)]
        if None in rows or rows[0] == rows[1]:
            continue
        return (
            "S12",
            f"`{name}` = `{rhs}` drops the rows with a missing value ({rows[0]} left), and "
            f"`{other}` = `{other_rhs}` keeps all {rows[1]}: the features and targets no "
            "longer pair up",
            "drop the rows from the table once, before taking both: `clean = frame.dropna("
            "subset=[...])`, then the features and the targets from `clean` (or fill the "
            "missing values instead)",
            f"`{name}`: {rows[0]} rows; `{other}`: {rows[1]}",
        )
    return None


def _standardized(made: dict[str, str], spaces: Any) -> Parts:
    for name, rhs in made.items():
        found = re.search(r"\(\s*(\w+) - \1\.mean\(\)\s*\) / \1\.std\(\)", rhs)
        if found is None:
            continue
        table = _value(found.group(1), spaces)
        try:
            spread = table.std()
            constant = [str(c) for c, v in spread.items() if v == 0 or v != v]
        except Exception:
            continue
        if not constant:
            continue
        shown = ", ".join(f"'{c}'" for c in constant)
        return (
            "N05",
            f"`{name}` = `{rhs}`: {shown} is constant in `{found.group(1)}` (std 0), so its "
            "standardized values are 0/0 = NaN",
            f"drop the constant column{'s' if len(constant) > 1 else ''} {shown} (it carries "
            "no information here), or divide by `std.replace(0, 1)`",
            f"std of `{found.group(1)}`: " + ", ".join(f"{c}: 0" for c in constant),
        )
    return None


def _broadcast(made: dict[str, str], spaces: Any) -> Parts:
    for name, rhs in made.items():
        try:
            node = ast.parse(rhs, mode="eval").body
        except SyntaxError:
            continue
        for op in (n for n in ast.walk(node) if isinstance(n, ast.BinOp)):
            a, b = evaluate(op.left, spaces), evaluate(op.right, spaces)
            sa, sb = shape_of(a), shape_of(b)
            if sa is None or sb is None or {len(sa), len(sb)} != {1, 2}:
                continue
            flat, column = (sa, sb) if len(sa) == 1 else (sb, sa)
            if column[1:] != (1,) or column[0] != flat[0] or flat[0] == 1:
                continue
            left, right = ast.unparse(op.left), ast.unparse(op.right)
            col = right if len(sb) == 2 else left
            return (
                "S08",
                f"`{name}` = `{rhs}`: `{left}` {sa} and `{right}` {sb} broadcast to "
                f"({flat[0]}, {flat[0]}), every value against every other, not row by row",
                f"give both the same shape first: `{col}.ravel()` (or `{col}[:, 0]`)",
                f"`{left}` {sa}, `{right}` {sb}",
            )
    return None


def _catalog(made: dict[str, str], spaces: Any) -> Parts:
    for name, rhs in made.items():
        found = re.fullmatch(r"len\((\w+)\)", rhs)
        if found is None:
            continue
        catalog = _value(found.group(1), spaces)
        for ids_name in (n for n in made if n != name):
            ids = _value(ids_name, spaces)
            try:
                import numpy as np

                ids, catalog = np.asarray(ids), np.asarray(catalog)
                inside = bool(np.isin(ids, catalog).all()) and int(ids.max()) >= len(catalog)
            except Exception:
                continue
            if not inside:
                continue
            return (
                "S09",
                f"`{ids_name}` holds raw ids from `{found.group(1)}` (up to {int(ids.max())}), "
                f"and `{name}` = `{rhs}` = {len(catalog)} counts the entries: the ids are not "
                f"positions 0..{len(catalog) - 1}",
                f"map each id to its position first: `np.searchsorted(np.sort("
                f"{found.group(1)}), {ids_name})` (or a keras.layers.IntegerLookup), and keep "
                f"{len(catalog)} rows",
                f"`{ids_name}` max {int(ids.max())}; {len(catalog)} entries in `{found.group(1)}`",
            )
    return None


def _unbatched_loop(statement: ast.stmt, filename: str, spaces: Any) -> Parts:
    """A rank check inside ``for x, y in ds:`` over a dataset none of whose steps batches."""
    tree = parsed_file(filename) if filename else None
    loop = innermost_node(tree, getattr(statement, "lineno", 0), (ast.For,)) if tree else None
    if not isinstance(loop, ast.For):
        return None
    dataset = evaluate(loop.iter, spaces)
    spec = getattr(dataset, "element_spec", None)
    steps: list[str] = []
    current = dataset
    while current is not None and len(steps) < 32:
        steps.append(type(current).__name__)
        current = getattr(current, "_input_dataset", None)
    if spec is None or any("Batch" in step for step in steps):
        return None
    first = spec[0] if isinstance(spec, tuple) else spec
    shape = tuple(getattr(first, "shape", ()) or ())
    source = ast.unparse(loop.iter)
    return (
        "S12",
        f"`{source}` yields single examples {shape}, never batched, so the loop's "
        f"`{ast.unparse(loop.target)}` holds one example without its batch axis",
        f"batch it before the loop: `{source} = {source}.batch(32)`",
        f"element_spec of `{source}`: {shape}; its steps: {', '.join(steps)}",
    )
