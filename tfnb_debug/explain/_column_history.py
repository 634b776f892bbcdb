"""A DataFrame column behind an error: the column whose values no tensor takes, or the column
that is missing because a line of the cell removed it.

Read from the innermost user frame: its line (parsed), the DataFrames that line's
expressions name (looked up with :func:`._array_frames.frame_behind`, through the cell's
assignments and ``drop(columns=...)``), and the cell's earlier statements.  Nothing the user
wrote is run.

- ``could not convert string to float: 'C0000'``: the text column holding that value;
- ``NPY_DATETIME``: the frame's date/time columns;
- a ``KeyError`` or Keras' "Missing data for input" for a column: the earlier statement that
  removed it (``df.pop('target')``, ``drop(columns=[...])``, ``dropna(axis=1)``, ``del``);
- ``dict(series)``: a Series (one column selected with a string) turned into a dict maps its
  row index to scalars, not a column name to its values.
"""

from __future__ import annotations

import ast
import linecache
import re
from typing import Any, NamedTuple

from tfnb_debug.explain._array_frames import frame_behind
from tfnb_debug.ground.files import innermost_user_traceback

_TEXT = re.compile(r"could not convert string to float: '([^']*)'")
_MISSING_INPUT = re.compile(r'Missing data for input "([^"]+)"')


class ColumnFault(NamedTuple):
    code: str  # S11 (values no tensor takes) or S12 (a column, or the table's structure)
    problem: str
    hint: str
    evidence: str
    filename: str
    lineno: int


def column_fault(exc: BaseException) -> ColumnFault | None:
    """The column behind the error, or None when the failing line names no such table."""
    user = innermost_user_traceback(exc)
    if user is None:
        return None
    frame, lineno = user.tb_frame, user.tb_lineno
    lines = linecache.getlines(frame.f_code.co_filename)
    if not 0 < lineno <= len(lines):
        return None
    line, before = lines[lineno - 1], lines[: lineno - 1]
    spaces = (frame.f_locals, frame.f_globals)
    text = str(exc)
    found: tuple[str, str, str, str] | None = None
    if (value := _TEXT.search(text)) is not None:
        found = _text_column(value.group(1), _frames(line, spaces, frame, lineno))
    elif "NPY_DATETIME" in text or "Timestamp" in text:
        found = _time_columns(_frames(line, spaces, frame, lineno))
    elif "only supported for rank >= 1" in text:
        found = _series_dict(line, spaces)
    elif isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], str):
        if _lacks(exc.args[0], _frames(line, spaces, frame, lineno)):
            found = _removed(exc.args[0], before, "the table has no column")
    elif (missing := _MISSING_INPUT.search(text)) is not None and _lacks(
        missing.group(1), _frames(line, spaces, frame, lineno)
    ):
        found = _removed(missing.group(1), before, "the data dict has no key")
    if found is None:
        return None
    return ColumnFault(*found, frame.f_code.co_filename, lineno)


def _frames(line: str, spaces: tuple[Any, ...], frame: Any, lineno: int) -> list[tuple[str, Any]]:
    """The DataFrames the line's expressions are made from, as (expression, frame)."""
    found: list[tuple[str, Any]] = []
    for node in ast.walk(_parsed(line) or ast.Module(body=[], type_ignores=[])):
        if not isinstance(node, ast.Call | ast.Attribute | ast.Name | ast.Subscript):
            continue
        behind = frame_behind(ast.unparse(node), spaces, frame.f_code.co_filename, lineno)
        if behind is not None and all(behind[1] is not f for _, f in found):
            found.append(behind)
    return found


def _text_column(value: str, frames: list[tuple[str, Any]]) -> tuple[str, str, str, str] | None:
    for name, table in frames:
        columns = [
            str(c)
            for c in table.columns
            if getattr(table[c].dtype, "kind", "O") not in "biufcmM"  # text: object or str
            and (table[c].astype(str) == value).any()
        ]
        if columns:
            shown = ", ".join(f"'{c}'" for c in columns)
            return (
                "S11",
                f"`{name}` still holds the text column {shown} ('{value}' is one of its "
                "values), which cannot become a float",
                f"drop it from the features (`.drop(columns=[{shown}])`: an id carries no "
                "signal) or encode it as numbers (pd.get_dummies, category codes, a "
                "keras.layers.StringLookup)",
                f"columns of `{name}`: {[str(c) for c in table.columns]}",
            )
    return None


def _time_columns(frames: list[tuple[str, Any]]) -> tuple[str, str, str, str] | None:
    for name, table in frames:
        times = [str(c) for c in table.columns if table[c].dtype.kind in "mM"]
        if times:
            shown = ", ".join(f"'{c}'" for c in times)
            return (
                "S11",
                f"`{name}` holds the date/time column {shown}, which no tensor dtype takes",
                f"drop it from the features (`{name}.drop(columns=[{shown}])`), or turn it into "
                f"numbers first (`{name}[{shown.split(', ')[0]}].dt.dayofweek`, "
                "`.dt.dayofyear`, or days since a start date)",
                f"dtypes of `{name}`: "
                + ", ".join(f"{c}: {table[c].dtype}" for c in list(table.columns)[:8]),
            )
    return None


def _series_dict(line: str, spaces: tuple[Any, ...]) -> tuple[str, str, str, str] | None:
    from tfnb_debug.explain._api import evaluate

    for node in ast.walk(_parsed(line) or ast.Module(body=[], type_ignores=[])):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "dict"):
            continue
        if not node.args:
            continue
        value = evaluate(node.args[0], spaces)
        if type(value).__name__ != "Series":
            continue
        arg = ast.unparse(node.args[0])
        column = str(getattr(value, "name", ""))
        return (
            "S12",
            f"`{arg}` is a Series (the one column '{column}'), and `dict()` of a Series maps "
            "its row index to single values, not a column name to its column",
            f"select the columns with a list, `dict({_as_list(arg, column)})` (a DataFrame), "
            f"or build the dict by hand: `{{'{column}': {arg}}}`",
            f"`{arg}`: Series '{column}' of {len(value)} rows",
        )
    return None


def _removed(key: str, before: list[str], what: str) -> tuple[str, str, str, str] | None:
    """The last statement above the failing line that removed column ``key`` (or dropped
    columns by their values), as the finding's parts."""
    quoted = rf"""['"]{re.escape(key)}['"]"""
    patterns = (
        (rf"\.pop\(\s*{quoted}", f"`.pop('{key}')` removes the column from the table it is "
         "called on, so the table has no such column afterwards"),
        (rf"\.drop\([^)]*{quoted}", f"this drop removed '{key}'"),
        (rf"\bdel\s+\w+\[\s*{quoted}", f"this del removed '{key}'"),
        (r"\.dropna\([^)]*axis\s*=\s*(?:1|['\"]columns['\"])",
         "dropna(axis=1) drops every column that holds a missing value"),
    )  # fmt: skip
    for at in range(len(before) - 1, -1, -1):
        for pattern, why in patterns:
            if re.search(pattern, before[at]):
                statement = before[at].strip()
                hint = (
                    f"pop the column once (keep what the first `.pop('{key}')` returned), or "
                    "pop it from a copy (`df.copy()`)"
                    if ".pop(" in statement
                    else f"fill the missing values of '{key}' instead of dropping the column "
                    f"(`.fillna(...)`, e.g. the training median)"
                    if ".dropna(" in statement
                    else f"keep '{key}' in the data the model reads, or remove the input "
                    f"'{key}' from the model"
                )
                return (
                    "S12",
                    f"{what} '{key}': line {at + 1}, `{statement}`, removed it ({why})",
                    hint,
                    f"line {at + 1}: `{statement}`",
                )
    return None


def _lacks(key: str, frames: list[tuple[str, Any]]) -> bool:
    """The failing line reads a DataFrame, and none of its frames has the column ``key``."""
    return bool(frames) and all(key not in [str(c) for c in t.columns] for _, t in frames)


def _as_list(arg: str, column: str) -> str:
    found = re.fullmatch(r"(\w+)\[(\w+)\]", arg)
    return f"{found.group(1)}[['{column}']]" if found else f"df[['{column}']]"


def _parsed(line: str) -> ast.AST | None:
    text = line.strip()
    for candidate in (text, text.rstrip(":") + ": pass"):
        try:
            return ast.parse(candidate)
        except SyntaxError:
            continue
    return None
