"""The call in the user's code that raised, read as plain values: ``model.fit(x_train, y_train,
validation_data=(x_val, y_val))`` -> the callee and each argument's kind, shape, dtype and range.

The call is found from the failing instruction's source position in the
innermost user frame.  Arguments are looked up by name, or evaluated only when
they are subscripts/attributes of NumPy or pandas data (``y[:10]``,
``df[["a", "b"]]``, ``df.values``), so no other user code runs.
"""

from __future__ import annotations

import ast
import dataclasses
import linecache
import textwrap
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._array_values import array_range, few_values
from tfnb_debug.explain._binary_tables import binary_columns
from tfnb_debug.explain._layer_made import MadeBy, made_by_layer

_SAFE_ATTRS = frozenset({"values", "T"})


@dataclass(frozen=True)
class Arg:
    """One argument of the failing call, as plain values.

    ``kind``: ``array``, ``tensor``, ``dataframe``, ``series``, ``dataset``,
    ``tuple``, ``list``, ``dict``, ``scalar``, ``none``, ``other`` (a value of
    another type) or ``unread`` (an expression that was not evaluated).
    ``text_columns`` names the columns (DataFrame names, else indexes) of an
    object array that hold strings, ``text_example`` one such string.
    """

    text: str
    kind: str
    shape: tuple[int | None, ...] | None = None
    dtype: str = ""
    low: float | None = None
    high: float | None = None
    whole: bool = False  # every finite value a whole number (class ids, also stored as floats)
    items: tuple[Arg, ...] = ()
    keys: tuple[str, ...] = ()
    text_columns: tuple[str, ...] = ()
    text_example: str = ""
    #: a DataFrame's (or Series') date and time columns: (name, dtype), e.g. ('sold', 'datetime64[ns]')
    time_columns: tuple[tuple[str, str], ...] = ()
    #: a DataFrame's columns that hold only 0/1 (or bool): one-hot (get_dummies) columns; for an
    #: object array made from a DataFrame, the frame's bool columns (mixed with numbers)
    binary_columns: tuple[str, ...] = ()
    #: columns of pandas' nullable or extension dtypes Keras cannot convert: (name, dtype)
    extension_columns: tuple[tuple[str, str], ...] = ()
    #: text columns that also hold missing values (None / NaN)
    missing_text_columns: tuple[str, ...] = ()
    #: a 1-D object array of sequences (lists, tuples, arrays): their distinct lengths
    row_lengths: tuple[int, ...] = ()
    #: a NumPy array of strings whose every (sampled) value reads as a number ('5.1')
    numeric_text: bool = False
    #: a 2-D array of 0/1 values: how many rows hold more than one 1 (multi-hot rows)
    multi_hot_rows: int = 0
    #: a 2-D array of 0/1 values: the columns that hold no 1 (an id that never occurs)
    empty_columns: tuple[int, ...] = ()
    #: the DataFrame an object array was made from (``df`` of ``x = df.values``), as written
    frame: str = ""
    #: a one-hot encoded DataFrame's peers in the user's namespace: other tables with columns
    #: of the same prefixes that this one lacks (the training table), as (name, columns)
    peers: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: the distinct values of a whole-numbered array when there are at most 8 (0 and 255)
    values: tuple[float, ...] = ()
    #: the preprocessing layer whose call made the value and the setting behind each axis
    #: it sized (``vec(texts)``, or ``x = vec(texts)`` above: explain/_layer_made.py)
    made_by: MadeBy | None = None

    @property
    def samples(self) -> int | None:
        """The leading dimension of an array-like argument."""
        return self.shape[0] if self.shape else None

    def describe(self) -> str:
        """``x_train (float32, shape (10, 4))``, ``a tuple of 2``, ..."""
        if self.kind in ("tuple", "list"):
            inner = ", ".join(item.describe() for item in self.items[:4])
            return f"a {self.kind} of {len(self.items)} ({inner})"
        if self.kind == "dict":
            return f"a dict with keys {list(self.keys)}"
        if self.shape is not None:
            shape = (
                "("
                + ", ".join("None" if d is None else str(d) for d in self.shape)
                + (",)" if len(self.shape) == 1 else ")")
            )
            what = f"{self.dtype}, shape {shape}" if self.dtype else f"shape {shape}"
            return f"`{self.text}` ({what})"
        return f"`{self.text}`"


@dataclass(frozen=True)
class CallInfo:
    """The call in the user's code that raised: ``model.fit(x, y, validation_data=...)``."""

    func: str  # the callee's source: "model.fit", "keras.models.load_model"
    args: tuple[Arg, ...]
    kwargs: tuple[tuple[str, Arg], ...]
    filename: str
    lineno: int
    input_dtypes: tuple[str, ...] = ()  # of the model the call is made on (``model`` of model.fit)

    @property
    def method(self) -> str:
        return self.func.rpartition(".")[2]

    @property
    def receiver(self) -> str:
        return self.func.rpartition(".")[0]

    def nested_args(self) -> Iterator[Arg]:
        """Every argument, in order, each followed depth first by the items inside it."""
        for arg in [*self.args, *(a for _, a in self.kwargs)]:
            stack = [arg]
            while stack:
                item = stack.pop()
                yield item
                stack.extend(item.items)

    def arg(self, index: int, name: str) -> Arg | None:
        """The argument given by keyword ``name`` or at position ``index``."""
        for key, value in self.kwargs:
            if key == name:
                return value
        return self.args[index] if 0 <= index < len(self.args) else None


def failing_call(exc: BaseException, is_user_file: Any) -> CallInfo | None:
    found: CallInfo | None = None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            node = _call_node(frame.f_code, tb.tb_lasti, tb.tb_lineno)
            if node is not None:
                spaces = (frame.f_locals, frame.f_globals)
                where = (frame.f_code.co_filename, tb.tb_lineno)
                found = CallInfo(
                    func=ast.unparse(node.func),
                    args=tuple(_describe(a, spaces, where) for a in node.args),
                    kwargs=tuple(
                        (k.arg, _describe(k.value, spaces, where)) for k in node.keywords if k.arg
                    ),
                    filename=frame.f_code.co_filename,
                    lineno=tb.tb_lineno,
                    input_dtypes=_input_dtypes(node.func, spaces),
                )
        tb = tb.tb_next
    return found


def _call_node(code: Any, lasti: int, lineno: int) -> ast.Call | None:
    """The call expression the frame was executing (from the instruction's source position)."""
    lines = linecache.getlines(code.co_filename)
    try:
        start, end, col, end_col = list(code.co_positions())[lasti // 2]
    except Exception:
        start = None
    if start and end and col is not None and end_col is not None and end <= len(lines):
        chunk = lines[start - 1 : end]
        if len(chunk) == 1:
            text = chunk[0][col:end_col]
        else:
            text = chunk[0][col:] + "".join(chunk[1:-1]) + chunk[-1][:end_col]
        try:
            tree = ast.parse("(" + text + "\n)", mode="eval")
        except SyntaxError:
            tree = None
        if tree is not None and isinstance(tree.body, ast.Call):
            return tree.body
    # no positions: the statement that starts at the line, its outermost call
    for stop in range(lineno, min(lineno + 10, len(lines)) + 1):
        try:
            module = ast.parse(textwrap.dedent("".join(lines[lineno - 1 : stop])))
        except SyntaxError:
            continue
        for node in ast.walk(module):
            if isinstance(node, ast.Call):
                return node
        return None
    return None


_UNREAD = object()


def _input_dtypes(func: ast.expr, spaces: tuple[Mapping[str, Any], ...]) -> tuple[str, ...]:
    """The Input dtypes of the Keras model a call is made on (``model.fit``, ``model(x)``)."""
    target = func.value if isinstance(func, ast.Attribute) else func
    if not isinstance(target, ast.Name):
        return ()
    model = next((names[target.id] for names in spaces if target.id in names), None)
    try:
        inputs = list(model.inputs) if model is not None else []
    except Exception:
        return ()
    return tuple(
        str(getattr(getattr(t, "dtype", ""), "name", getattr(t, "dtype", ""))) for t in inputs
    )


def _evaluate(node: ast.expr, spaces: tuple[Mapping[str, Any], ...]) -> Any:
    """The value of a name, a constant, or a subscript/attribute of NumPy or pandas data."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        number = _evaluate(node.operand, spaces)  # x[:-6]: a negative bound is a UnaryOp
        if isinstance(number, int | float) and not isinstance(number, bool):
            return -number if isinstance(node.op, ast.USub) else number
        return _UNREAD
    if isinstance(node, ast.Name):
        for names in spaces:
            if node.id in names:
                return names[node.id]
        return _UNREAD
    if isinstance(node, ast.Attribute) and node.attr in _SAFE_ATTRS:
        base = _evaluate(node.value, spaces)
        return getattr(base, node.attr) if _is_data(base) else _UNREAD
    if isinstance(node, ast.Subscript):
        base = _evaluate(node.value, spaces)
        index = _index(node.slice, spaces)
        if _is_data(base) and index is not _UNREAD:
            try:
                return base[index]
            except Exception:
                return _UNREAD
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        return _arithmetic(node, spaces)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "to_numpy"
        and not node.args
        and not node.keywords
    ):
        # series.to_numpy(): pandas code only, no user code runs
        base = _evaluate(node.func.value, spaces)
        if type(base).__name__ in ("Series", "DataFrame") and type(base).__module__.startswith(
            "pandas"
        ):
            return base.to_numpy()
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and len(node.args) == 1
        and not node.keywords
    ):
        # dict(df): a DataFrame's columns by name (pandas code only, no user code runs)
        frame = _evaluate(node.args[0], spaces)
        if type(frame).__name__ == "DataFrame" and type(frame).__module__.startswith("pandas"):
            return dict(frame)
    return _UNREAD


_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _arithmetic(node: ast.BinOp, spaces: tuple[Mapping[str, Any], ...]) -> Any:
    """``y * class_w`` of two NumPy arrays (or an array and a number): pure, so computed, for
    arrays of up to a million values."""
    import numpy as np

    left, right = _evaluate(node.left, spaces), _evaluate(node.right, spaces)
    operands = [left, right]
    arrays = [v for v in operands if isinstance(v, np.ndarray)]
    if not arrays or any(
        not isinstance(v, np.ndarray)
        and not (isinstance(v, int | float) and not isinstance(v, bool))
        for v in operands
    ):
        return _UNREAD
    if any(a.size > 1_000_000 or a.dtype.kind not in "biuf" for a in arrays):
        return _UNREAD
    try:
        with np.errstate(all="ignore"):
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            return left / right
    except Exception:
        return _UNREAD


def _index(node: ast.expr, spaces: tuple[Mapping[str, Any], ...]) -> Any:
    if isinstance(node, ast.Slice):
        parts = [
            None if p is None else _evaluate(p, spaces) for p in (node.lower, node.upper, node.step)
        ]
        if any(p is _UNREAD or not (p is None or isinstance(p, int)) for p in parts):
            return _UNREAD
        return slice(*parts)
    if isinstance(node, ast.Tuple | ast.List):
        items = [_index(e, spaces) for e in node.elts]
        if any(i is _UNREAD for i in items):
            return _UNREAD
        return tuple(items) if isinstance(node, ast.Tuple) else list(items)
    value = _evaluate(node, spaces)
    if isinstance(value, int | str) or value is Ellipsis:
        return value
    return _UNREAD


def _is_data(value: Any) -> bool:
    module = type(value).__module__.split(".")[0]
    return module in ("numpy", "pandas")


def _describe(
    node: ast.expr, spaces: tuple[Mapping[str, Any], ...], where: tuple[str, int] = ("", 0)
) -> Arg:
    text = ast.unparse(node)
    if isinstance(node, ast.Tuple | ast.List):
        kind = "tuple" if isinstance(node, ast.Tuple) else "list"
        return Arg(text, kind, items=tuple(_describe(e, spaces, where) for e in node.elts))
    if isinstance(node, ast.Dict):
        keys = tuple(
            str(k.value) if isinstance(k, ast.Constant) else ast.unparse(k)
            for k in node.keys
            if k is not None
        )
        items = tuple(_describe(v, spaces, where) for v in node.values)
        return Arg(text, "dict", keys=keys, items=items)
    value = _evaluate(node, spaces)
    made = made_by_layer(node, spaces, where) if isinstance(node, ast.Call | ast.Name) else None
    if value is _UNREAD:
        return Arg(text, "unread", made_by=made)
    arg = describe_value(text, value)
    if made is not None:
        arg = dataclasses.replace(arg, made_by=made)
    if arg.kind == "array" and arg.dtype == "object" and arg.shape and len(arg.shape) == 2:
        return _with_frame_columns(arg, spaces, where)
    if arg.kind == "dataframe" and arg.binary_columns:
        return dataclasses.replace(arg, peers=_peer_frames(text, value, spaces))
    return arg


def _peer_frames(
    text: str, frame: Any, spaces: tuple[Mapping[str, Any], ...], limit: int = 400
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The other DataFrames in the user's namespace that share a one-hot column prefix with
    ``frame`` but not all its columns (a training table encoded on its own), as (name,
    columns)."""
    own = [str(c) for c in frame.columns]
    prefixes = {c.rpartition("_")[0] for c in own if "_" in c}
    found: dict[str, tuple[str, ...]] = {}
    for space in spaces:
        for key, value in list(space.items())[:limit]:
            if key.startswith("_") or key == text or key in found or value is frame:
                continue
            if type(value).__name__ != "DataFrame" or not hasattr(value, "columns"):
                continue
            columns = tuple(str(c) for c in value.columns)
            if list(columns) == own or len(columns) > 1000:
                continue
            if any(c.rpartition("_")[0] in prefixes for c in columns if "_" in c and c not in own):
                found[key] = columns
    return tuple(found.items())[:4]


def _with_frame_columns(
    arg: Arg, spaces: tuple[Mapping[str, Any], ...], where: tuple[str, int]
) -> Arg:
    """An object array made from a DataFrame (``x = df.values``), with the frame's names for
    its text columns and the frame's date/time columns (which became ``Timestamp`` objects)."""
    from tfnb_debug.explain._array_frames import column_names, frame_behind

    behind = frame_behind(arg.text, spaces, *where)
    if behind is None or not arg.shape:
        return arg
    frame_text, frame = behind
    names = column_names(frame, int(arg.shape[-1] or 0))
    if names is None:
        return arg
    texts = tuple(names[int(c)] for c in arg.text_columns if c.isdigit() and int(c) < len(names))
    times = tuple(
        (str(c), str(frame[c].dtype)) for c in frame.columns if frame[c].dtype.kind in "mM"
    )
    bools = () if texts else tuple(str(c) for c in frame.columns if frame[c].dtype.kind == "b")
    return dataclasses.replace(
        arg,
        text_columns=texts or arg.text_columns,
        time_columns=times,
        frame=frame_text,
        binary_columns=bools,
    )


def describe_value(text: str, value: Any, depth: int = 0) -> Arg:
    """An :class:`Arg` for a live value (an array, a tensor, a DataFrame, a dataset, a tuple...)."""
    if value is None:
        return Arg(text, "none")
    if isinstance(value, tuple | list) and depth < 2:
        kind = "tuple" if isinstance(value, tuple) else "list"
        items = tuple(describe_value(f"{text}[{i}]", v, depth + 1) for i, v in enumerate(value[:8]))
        return Arg(text, kind, items=items)
    if isinstance(value, dict) and depth < 2:
        keys = tuple(str(k) for k in value)
        items = tuple(describe_value(f"{text}[{k!r}]", v, depth + 1) for k, v in value.items())
        return Arg(text, "dict", keys=keys, items=items[:8])
    name = type(value).__name__
    if "Dataset" in name and hasattr(type(value), "element_spec"):
        return Arg(text, "dataset")
    if isinstance(value, int | float | bool | str | bytes):
        return Arg(text, "scalar", dtype=type(value).__name__)
    module = type(value).__module__.split(".")[0]
    if module == "pandas" and name in ("DataFrame", "Series"):
        return _pandas(text, value, name)
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is None or dtype is None:
        return Arg(text, "other", dtype=name)
    try:
        dims = tuple(None if d is None else int(d) for d in shape)
    except Exception:
        return Arg(text, "other", dtype=name)
    dtype_name = str(getattr(dtype, "name", dtype))
    kind = "array" if module == "numpy" else "tensor"
    if module == "numpy" and dtype_name == "object":
        columns, example = _text_columns(value)
        missing = ("0",) if columns and value.ndim == 1 and _has_missing(value) else ()
        return Arg(
            text,
            kind,
            dims,
            dtype_name,
            text_columns=columns,
            text_example=example,
            missing_text_columns=missing,
            row_lengths=_row_lengths(value) if not columns else (),
        )
    if module == "numpy" and getattr(dtype, "kind", "") in ("U", "S"):
        sample = [v.decode() if isinstance(v, bytes) else str(v) for v in value.ravel()[:1000]]
        return Arg(
            text,
            kind,
            dims,
            dtype_name,
            text_example=_example(sample) if sample else "",
            numeric_text=bool(sample) and all(_reads_as_number(v) for v in sample),
        )
    low, high, whole = array_range(value, dims)
    if (low, high, whole, len(dims)) != (0, 1, True, 2):
        values = few_values(value) if whole and high is not None and high > 1 else ()
        return Arg(text, kind, dims, dtype_name, low, high, whole, values=values)
    multi, empty = binary_columns(value)
    return Arg(
        text, kind, dims, dtype_name, low, high, whole, multi_hot_rows=multi, empty_columns=empty
    )


def _reads_as_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _text_columns(array: Any, rows: int = 1000) -> tuple[tuple[str, ...], str]:
    """Which columns of an object array hold strings (indexes), and one such string."""
    if array.ndim == 1:
        column = [v for v in array[:rows] if isinstance(v, str | bytes)]
        return (("0",), _example(column)) if column else ((), "")
    if array.ndim != 2:
        return (), ""
    names: list[str] = []
    example = ""
    for j in range(array.shape[1]):
        strings = [v for v in array[:rows, j] if isinstance(v, str | bytes)]
        if strings:
            names.append(str(j))
            example = example or _example(strings)
    return tuple(names), example


def _row_lengths(array: Any, rows: int = 1000) -> tuple[int, ...]:
    """The distinct lengths of a 1-D object array's items when every item is a sequence
    (what ``np.array(list_of_sequences)`` makes of sequences of different lengths), else ()."""
    if array.ndim != 1 or not len(array):
        return ()
    lengths: set[int] = set()
    for item in array[:rows]:
        if not isinstance(item, list | tuple) and type(item).__name__ != "ndarray":
            return ()
        lengths.add(len(item))
    return tuple(sorted(lengths))


def _has_missing(array: Any, rows: int = 10000) -> bool:
    """A 1-D object array holding None or NaN among its values."""
    return any(v is None or (isinstance(v, float) and v != v) for v in array[:rows])


def _example(strings: list[Any]) -> str:
    """A string of the column that is not a number (a '?' among numbers), else the first."""
    for value in strings:
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        try:
            float(text)
        except ValueError:
            return text
    first = strings[0]
    return first.decode("utf-8", "replace") if isinstance(first, bytes) else str(first)


def _pandas(text: str, value: Any, name: str) -> Arg:
    frame = value.to_frame() if name == "Series" else value
    columns: list[str] = []
    example = ""
    dtypes = {str(t) for t in frame.dtypes}
    for column in frame.columns:
        series = frame[column]
        if series.dtype.kind in "biufcmMb":
            continue
        strings = [v for v in series.iloc[:1000] if isinstance(v, str | bytes)]
        if strings:
            columns.append(str(column))
            example = example or _example(strings)
    times = tuple(
        (str(c), str(frame[c].dtype)) for c in frame.columns if frame[c].dtype.kind in "mM"
    )
    binary = tuple(str(c) for c in list(frame.columns)[:256] if _binary(frame[c]))
    extension = tuple(
        (str(c), str(frame[c].dtype))
        for c in list(frame.columns)[:256]
        if type(frame[c].dtype).__module__.startswith("pandas")
    )
    missing = tuple(c for c in columns if bool(frame[c].iloc[:10000].isna().any()))
    dtype = dtypes.pop() if len(dtypes) == 1 else "mixed"
    dims = tuple(int(d) for d in value.shape)
    low, high, whole = (
        array_range(value.to_numpy(), dims)
        if name == "Series" and value.dtype.kind in "biuf"
        else (None, None, False)
    )
    return Arg(
        text,
        name.lower(),
        dims,
        dtype,
        low,
        high,
        whole,
        keys=tuple(str(c) for c in frame.columns),
        text_columns=tuple(columns),
        text_example=example,
        time_columns=times,
        binary_columns=binary,
        extension_columns=extension,
        missing_text_columns=missing,
        # a column of lists (token ids per row): the lengths its items have
        row_lengths=_row_lengths(value.to_numpy())
        if name == "Series" and value.dtype == object and not columns
        else (),
    )


def _binary(series: Any) -> bool:
    """Every value of the column is 0 or 1 (bool included): a one-hot column."""
    if series.dtype.kind == "b":
        return True
    if series.dtype.kind not in "iuf" or len(series) == 0:
        return False
    try:
        return bool(series.iloc[:1000].isin((0, 1)).all())
    except Exception:
        return False
