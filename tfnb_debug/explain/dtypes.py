"""Dtype errors outside a loss (S11): an op mixing dtypes it cannot mix, data no layer accepts.

Clashes between labels and predictions in a loss are S06 (:mod:`.labels`); this
rule leaves them alone, so one cause gets one finding.
"""

from __future__ import annotations

import ast
import re

from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._context import ErrorContext, dtype_name
from tfnb_debug.explain._evidence import Arg, LayerDtypes
from tfnb_debug.explain._operands import enclosing_function, listed_operand, odd_operand
from tfnb_debug.explain._table_columns import (
    INVALID_EXTENSION,
    extension_column,
    missing_text_hint,
)
from tfnb_debug.explain._violation import is_number
from tfnb_debug.explain.labels import label_dtype
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_EAGER = re.compile(
    r"cannot compute (\w+) as input #(\d+)\(zero-based\) was expected to be a (\w+) tensor "
    r"but is a (\w+) tensor"
)
_GRAPH = re.compile(
    r"Input '(\w+)' of '(\w+)' Op has type (\w+) that does not match type (\w+) of argument '(\w+)'"
)
_PYTHON_VALUE = re.compile(
    r"Expected (\w+) passed to parameter '(\w+)' of op '(\w+)', got (.+?) of type '(\w+)' instead"
)
# a Python float meeting an integer tensor in eager arithmetic: `1.0 / (step + 1)`
_PYTHON_FLOAT = re.compile(r"Cannot convert (-?[\d.e+-]+) to EagerTensor of dtype (u?int\d+)")
_SAME_DTYPE = re.compile(r"`x` and `y` must have the same dtype, got tf\.(\w+) != tf\.(\w+)")
_OBJECT = re.compile(
    r"Invalid dtype: (?:object|str\d*|bytes\d*)\b|Failed to convert a NumPy array to a Tensor "
    r"\(Unsupported object type (\w+)\)|could not convert string to float: '([^'\n]*)'"
)


def dtype_mismatch(ctx: ErrorContext) -> Explained | None:
    """S11: an op got operands of two dtypes, or the data holds objects (text) no layer takes."""
    clash = _clash(ctx.text)
    if clash is not None:
        if label_dtype(ctx) is not None:
            return None  # labels against predictions in a loss: S06 says it
        return _op_clash(ctx, *clash)
    obj = _OBJECT.search(ctx.text)
    if obj is not None:
        return _object_data(ctx, obj)
    if "Cast string to" in ctx.text:
        labels = _text_label_arg(ctx)
        if labels is not None:
            return _text_labels(ctx, labels)
    extension = INVALID_EXTENSION.search(ctx.text)
    read = extension_column(ctx, extension) if extension is not None else None
    if read is not None:
        call = ctx.evidence.call
        place = f"`{call.func}(...)` at {ctx.where(call.filename, call.lineno)}" if call else ""
        return (finding("S11", read[0], place=place, evidence=read[1], hint=read[2]), ())
    if _TIMES.search(ctx.text):
        return _time_columns(ctx)
    return None


_TIMES = re.compile(
    r"Cannot cast (?:DatetimeArray|TimedeltaArray|PeriodArray) to dtype|"
    r"Unsupported object type (?:Timestamp|Timedelta|datetime)|Cannot cast datetime64|"
    r"Invalid dtype: (?:datetime64|timedelta64)"
)


def _time_columns(ctx: ErrorContext) -> Explained | None:
    """S11: a DataFrame with date/time columns given to the model, which takes numbers."""
    call = ctx.evidence.call
    if call is None:
        return None
    table = next((a for a in [*call.args, *(a for _, a in call.kwargs)] if a.time_columns), None)
    if table is None:
        return None
    columns = ", ".join(f"'{name}'" for name, _ in table.time_columns[:4])
    dtypes = ", ".join(sorted({dtype for _, dtype in table.time_columns}))
    first = table.time_columns[0][0]
    what = "column" if len(table.time_columns) == 1 else "columns"
    made = f" (made from the DataFrame `{table.frame}`)" if table.frame else ""
    return (
        finding(
            "S11",
            f"`{table.text}`{made} has the date/time {what} {columns} ({dtypes}); tensors need "
            "numbers",
            place=f"`{call.func}(...)` at {ctx.where(call.filename, call.lineno)}",
            evidence=table.describe(),
            hint=(
                f"turn the {what} into numbers before the model, e.g. days since the first date "
                f"(`(df['{first}'] - df['{first}'].min()).dt.days`) or calendar features "
                f"(`df['{first}'].dt.month`, `.dt.dayofweek`), and drop the original {what}"
            ),
        ),
        (),
    )


def _clash(text: str) -> tuple[str, str, str, str] | None:
    """(op, dtype of the odd operand, dtype expected, which operand) from the message."""
    eager = _EAGER.search(text)
    if eager is not None:
        return (
            eager.group(1),
            dtype_name(eager.group(4)),
            dtype_name(eager.group(3)),
            f"input #{eager.group(2)}",
        )
    graph = _GRAPH.search(text)
    if graph is not None:
        return graph.group(2), graph.group(3), graph.group(4), f"'{graph.group(1)}'"
    value = _PYTHON_VALUE.search(text)
    if value is not None:
        return (
            value.group(3),
            f"Python {value.group(5)} {value.group(4)}",
            value.group(1),
            f"'{value.group(2)}'",
        )
    literal = _PYTHON_FLOAT.search(text)
    if literal is not None and "." in literal.group(1):
        return "the arithmetic", literal.group(2), f"Python float {literal.group(1)}", "a tensor"
    same = _SAME_DTYPE.search(text)
    if same is not None:
        return "truediv", same.group(2), same.group(1), "'y'"
    return None


def _variable_dtype_value(ctx: ErrorContext) -> tuple[str, str] | None:
    """(name, its assignment) of a value the user's layer ``call`` makes with
    ``dtype=self.dtype`` (the variable dtype, float32 under a mixed policy)."""
    import ast

    for frame in reversed(ctx.user_frames()):
        if not frame.function.endswith(".call"):
            continue
        found = enclosing_function(frame.filename, frame.lineno)
        for node in ast.walk(found) if found is not None else ():
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                text = ast.unparse(node.value)
                if re.search(r"dtype=self\.dtype\b", text):
                    return node.targets[0].id, f"{node.targets[0].id} = {text}"
    return None


def _op_clash(ctx: ErrorContext, op: str, have: str, want: str, operand: str) -> Explained:
    layer = _mixed_layer(ctx.evidence.layer_dtypes, have, want)
    user = ctx.user_code_line()
    in_map = any("/data/ops/" in f.filename.replace("\\", "/") for f in ctx.frames)
    place = ""
    source = ""
    if layer is not None:
        place = f"layer '{layer.name}'"
    elif user is not None:
        place = ctx.where(user[0], user[1], "" if user[2] == "None" else user[2])
        source = user[3]
    evidence = f"{op}: {operand} is {have}, the other operand {want}"
    if source:
        evidence += f"; `{source}`"
    if layer is not None:
        evidence += f"; layer '{layer.name}' runs under policy {layer.policy} (computes in {layer.compute_dtype})"
        raw = [f"self.{a} ({d})" for a, d in layer.raw_variables if d != layer.compute_dtype]
        if raw:
            evidence += "; tf.Variable " + ", ".join(raw)
            attr = layer.raw_variables[0][0]
            hint = (
                f"self.{attr} is a plain tf.Variable in {layer.raw_variables[0][1]}, which Keras does not cast "
                f"to {layer.compute_dtype}: create it with self.add_weight(...) (Keras casts weights "
                f"to the compute dtype in call), or use tf.cast(self.{attr}, self.compute_dtype)"
            )
        elif typed := _variable_dtype_value(ctx):
            evidence += f"; `{typed[1]}`"
            hint = (
                f"`{typed[0]}` is made with dtype=self.dtype, the layer's variable dtype (float32 "
                f"under {layer.policy}), while its inputs are {layer.compute_dtype}: make it with "
                "dtype=self.compute_dtype"
            )
        else:
            hint = (
                f"under {layer.policy} the layer computes in {layer.compute_dtype}: cast the other "
                f"operand with tf.cast(t, self.compute_dtype), and create weights with add_weight"
            )
        message = f"{op} in '{layer.name}' mixes {have} and {want} under the {layer.policy} policy"
    else:
        message = f"{op} got operands of different dtypes: {have} and {want}"
        operand_name = odd_operand(source, op, have, want)
        if (
            not operand_name
            and op in ("Pack", "ConcatV2", "AddN")
            and operand.startswith("input #")
        ):
            operand_name = listed_operand(source, int(operand.removeprefix("input #")))
        made = ""
        if set((have, want)) == {"float64", "float32"} and user is not None:
            operand_name, made = _float64_origin(operand_name, source, user[0], user[1])
        hint = _cast_hint(have, want, in_map, operand_name, made)
        ints = next((m.schedule_ints for m in ctx.trained if m.schedule_ints), None)
        if ints is not None and not operand_name and {have, want} >= {"int32", "float32"}:
            kind, key, listed = ints
            message += f": the learning-rate schedule's `{key}` {listed} holds a Python int"
            hint = (
                f"{kind}'s `{key}` mixes floats with ints, and an int there becomes an int32 "
                f"tensor that meets the float32 update: write every value as a float (0 -> 0.0)"
            )
        integer = have if have.startswith(("int", "uint")) else want
        variable = _integer_variable(ctx, source, integer)
        if variable:
            evidence += f"; self.{variable} is a tf.Variable of {integer}"
            hint = (
                f"self.{variable} is a tf.Variable of {integer} (made from an integer), and "
                "TensorFlow does not turn integers into floats in arithmetic: use "
                f"`tf.cast(self.{variable}, tf.float32)` there, or create it as a float "
                f"(`tf.Variable(0.0, trainable=False)`, or `self.add_weight(..., "
                'dtype="float32")`)'
            )
    return (
        finding("S11", message, place=place, evidence=evidence, hint=hint),
        (),
    )


def _integer_variable(ctx: ErrorContext, source: str, dtype: str) -> str:
    """The attribute of the innermost layer that is a raw tf.Variable of the integer ``dtype``
    and appears as ``self.<attr>`` on the failing line, or ""."""
    if not dtype.startswith(("int", "uint")) or not ctx.evidence.layer_dtypes:
        return ""
    layer = ctx.evidence.layer_dtypes[0]
    return next(
        (a for a, d in layer.raw_variables if d == dtype and f"self.{a}" in source),
        "",
    )


def _mixed_layer(layers: tuple[LayerDtypes, ...], have: str, want: str) -> LayerDtypes | None:
    """The innermost layer with a mixed policy when the clash is float16/bfloat16 vs float32."""
    pair = {have, want}
    if not pair & {"float16", "bfloat16"}:
        return None
    for layer in layers:
        if layer.policy.startswith("mixed") and layer.compute_dtype in pair:
            return layer
    return None


def _cast_hint(have: str, want: str, in_map: bool, operand: str = "", made: str = "") -> str:
    """The conversion for the odd operand; ``made`` is the right-hand side of its assignment
    above the failing line (where its dtype came from), "" when not seen."""
    pair = (have, want)
    ints = [d for d in pair if d.startswith(("int", "uint"))]
    floats = [d for d in pair if "float" in d]
    where = " at the top of the mapped function" if in_map else ""
    if ints and floats:
        target = next((d for d in floats if not d.startswith("Python")), "float32")
        if operand:
            return (
                f"`{operand}` is {ints[0]}, and TensorFlow does not mix integers with floats: cast "
                f"it first{where}, `{operand} = tf.cast({operand}, tf.{target})`"
            )
        return (
            f"an {ints[0]} operand (integer data such as image pixels, or a Python int turned "
            f"into a tensor) cannot be mixed with floats in TensorFlow: cast the integer one "
            f"first{where}, `tf.cast(t, tf.{target})`, or write the number as a float"
        )
    if set(pair) == {"float64", "float32"}:
        return _float64_hint(operand, made)
    if set(pair) & {"float16", "bfloat16"}:
        return (
            "half precision meets float32: under a mixed precision policy cast with "
            "tf.cast(t, layer.compute_dtype), or cast the result back to float32"
        )
    return f"cast one operand to the other's dtype with tf.cast before {'this op' if not where else 'the arithmetic' + where}"


_MAKERS = re.compile(r"^(tf\.constant|tf\.convert_to_tensor|tf\.Variable|(?:np|numpy)\.[\w.]+)\(")
_MODULES = frozenset({"tf", "np", "numpy", "keras", "ops", "self"})


def _numpy_made(made: str) -> str:
    """The maker of a float64 value from its assignment: ``np.random.rand`` (a NumPy
    array), ``tf.constant`` (a tensor made from NumPy), or "" when it does not show one."""
    made = made.strip()
    maker = _MAKERS.match(made)
    if maker is None or "dtype" in made or "astype" in made:
        return ""
    fn = maker.group(1)
    # Python floats become float32 tensors: float64 in a tf.constant comes from NumPy inside
    return fn if fn.startswith(("np.", "numpy.")) or "np." in made else ""


def _float64_origin(operand: str, source: str, filename: str, lineno: int) -> tuple[str, str]:
    """(name, its assignment) of the float64 operand: ``operand`` when the line's arithmetic
    showed it, else the one name of the line that an assignment above made from NumPy."""
    if operand:
        return operand, assigned_before(operand, filename, lineno)
    try:
        tree = ast.parse(source.strip().removeprefix("return ").rstrip(":"))
    except SyntaxError:
        return "", ""
    names = dict.fromkeys(
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in _MODULES
    )
    made = {name: assigned_before(name, filename, lineno) for name in names}
    numpy = [name for name, rhs in made.items() if _numpy_made(rhs)]
    return (numpy[0], made[numpy[0]]) if len(numpy) == 1 else ("", "")


def _float64_hint(operand: str, made: str) -> str:
    """Convert the float64 operand to float32 where its assignment made it, by what made it."""
    if not operand:
        return (
            "one operand is float64 (NumPy's default float dtype) and the other float32: "
            "convert the float64 one with tf.cast(t, tf.float32) where it enters the computation"
        )
    fn = _numpy_made(made)
    if fn.startswith(("np.", "numpy.")):
        return (
            f"`{operand}` is made by `{fn}(...)` in float64 (NumPy's default): make it "
            f"float32 there, `{operand} = ({made}).astype('float32')`"
        )
    if fn:
        return (
            f"`{operand} = {made}` takes float64 from the NumPy array inside: make it float32 "
            f"there, `.astype('float32')` on the array or `{fn}(..., dtype=tf.float32)`"
        )
    return (
        f"`{operand}` is float64 where the rest is float32: convert it where it enters, "
        f"`tf.cast({operand}, tf.float32)`"
    )


def _object_data(ctx: ErrorContext, match: re.Match[str]) -> Explained | None:
    text_arg = _text_arg(ctx)
    call = ctx.evidence.call
    if call is not None and "string" in call.input_dtypes:
        return _strings_for_a_string_input(ctx, text_arg, match.group(0))
    if text_arg is None and match.group(2) is not None:
        return None  # a string that is not a float, but no text column in sight: say nothing
    labels = call.arg(1, "y") if call is not None and call.method in _FITS else None
    if text_arg is not None and labels is not None and text_arg.text == labels.text:
        return _text_labels(ctx, text_arg)
    if text_arg is not None and text_arg.time_columns and not text_arg.text_columns:
        return _time_columns(ctx)  # an array made from a table with dates: Timestamp objects
    if text_arg is not None and text_arg.text_columns:
        quote = "'" if text_arg.kind in ("dataframe", "series") or text_arg.frame else ""
        columns = ", ".join(f"{quote}{c}{quote}" for c in text_arg.text_columns[:6])
        what = "column" if len(text_arg.text_columns) == 1 else "columns"
        example = text_arg.text_example
        numeric_like = _numeric_marker(example)
        numbers = is_number(example)
        made = f" (made from the DataFrame `{text_arg.frame}`)" if text_arg.frame else ""
        message = (
            f"`{text_arg.text}`{made} has text in {what} {columns} (e.g. '{example}'); tensors "
            "need numbers"
        )
        if missing_text_hint(text_arg):
            hint = missing_text_hint(text_arg)
            where = "" if text_arg.kind == "array" else f" in {what} {columns}"
            message = (
                f"`{text_arg.text}` mixes text (e.g. '{example}') with missing values{where}: "
                "neither a string nor a number tensor can hold it"
            )
        elif numbers:
            hint = (
                f"the {what} {columns} holds numbers stored as text ('{example}'): convert with "
                f"pd.to_numeric(df[col]) or astype('float32')"
            )
        elif _DATE_TEXT.match(example):
            hint = (
                f"the {what} {columns} holds dates as text ('{example}', e.g. read_csv without "
                "parse_dates): drop it from the features (the rows' order already carries the "
                "time), or turn it into numbers first, e.g. pd.to_datetime(df[col]).dt.hour / "
                ".dt.dayofweek, then astype('float32')"
            )
        elif numeric_like:
            hint = (
                f"'{example}' marks a missing value in a numeric {what}: convert with "
                f"pd.to_numeric(df[col], errors='coerce'), fill or drop the NaN, then astype('float32')"
            )
        else:
            hint = (
                f"encode the text {what} {columns} as numbers (one-hot with pd.get_dummies, category "
                "codes, or a keras.layers.StringLookup), or drop it, then astype('float32')"
            )
        evidence = f"{text_arg.describe()} holds strings in {what} {columns}"
    elif text_arg is not None and text_arg.numeric_text:
        message = (
            f"`{text_arg.text}` holds numbers as strings (NumPy dtype {text_arg.dtype}, e.g. "
            f"'{text_arg.text_example}'); the model takes float numbers"
        )
        hint = f"convert the strings to numbers: `{text_arg.text}.astype('float32')`"
        evidence = text_arg.describe()
    elif text_arg is not None and text_arg.dtype.startswith(("str", "bytes")):
        message = f"`{text_arg.text}` is an array of strings (NumPy dtype {text_arg.dtype}); the model takes numbers"
        ids = call is not None and any(d.startswith("int") for d in call.input_dtypes)
        vocab = [n for n, _ in ctx.evidence.vocabularies]
        hint = (
            "encode the text as numbers before the model (one-hot, category codes), or give the "
            "model a string Input with a keras.layers.StringLookup / TextVectorization and pass "
            f"tf.constant({text_arg.text})"
        )
        if ids and call is not None:  # a model of token ids: the texts need the same ids
            message += f" (its Input takes {call.input_dtypes[0]} token ids)"
            hint = "turn the texts into ids with the layer that made the training ids" + (
                f", `model.predict({vocab[0]}({text_arg.text}))`" if len(vocab) == 1 else ""
            )
        evidence = text_arg.describe()
    elif text_arg is not None and len(text_arg.row_lengths) > 1:
        lengths = ", ".join(str(n) for n in text_arg.row_lengths[:4])
        more = ", ..." if len(text_arg.row_lengths) > 4 else ""
        message = (
            f"`{text_arg.text}` is an object array of sequences of different lengths ({lengths}"
            f"{more}): a tensor needs one length per axis"
        )
        hint = (
            f"pad (or cut) the sequences to one length, "
            f"`keras.utils.pad_sequences(list({text_arg.text}), maxlen=..., padding='post', "
            "dtype='float32')`, with keras.layers.Masking (or Embedding(mask_zero=True)) to "
            "ignore the padding"
        )
        evidence = f"{text_arg.describe()}, sequences of lengths {lengths}{more}"
    elif text_arg is not None and text_arg.row_lengths:
        message = (
            f"`{text_arg.text}` is an object array whose items are sequences of one length "
            f"({text_arg.row_lengths[0]}): NumPy kept them as objects, not as a 2-D array"
        )
        hint = f"stack them into one numeric array: `np.stack(list({text_arg.text})).astype('float32')`"
        evidence = text_arg.describe()
    elif text_arg is not None and text_arg.frame and text_arg.binary_columns:
        bools = ", ".join(f"'{c}'" for c in text_arg.binary_columns[:4]) + (
            ", ..." if len(text_arg.binary_columns) > 4 else ""
        )
        message = (
            f"`{text_arg.text}` has dtype object: `{text_arg.frame}` mixes bool columns "
            f"({bools}) with numeric ones, and the array of a table of mixed dtypes holds Python "
            "objects"
        )
        hint = (
            f"give the table one numeric dtype before taking the array: "
            f"`{text_arg.frame}.astype('float32')` (pd.get_dummies makes bool columns unless "
            f"given dtype='float32'), or convert the array: `{text_arg.text}.astype('float32')`"
        )
        evidence = f"{text_arg.describe()}; bool columns of `{text_arg.frame}`: {bools}"
    elif text_arg is not None:
        message = f"`{text_arg.text}` has dtype object: its values are Python objects, not numbers"
        hint = f"convert it to a numeric array: {text_arg.text}.astype('float32')"
        evidence = text_arg.describe()
    elif re.search(r"Invalid dtype: (str|bytes)\d*", ctx.text):
        # a NumPy array of strings (dtype <U / S); the argument was not read
        message = "the data holds strings, which Keras does not feed to a model of numbers"
        hint = (
            "two causes fit, and the data was not read: a table with a text column (encode it as "
            "numbers with pd.get_dummies, category codes or a keras.layers.StringLookup, or drop "
            "it), or raw text for a text model (vectorize it with the same "
            "keras.layers.TextVectorization, or put that layer in the model behind "
            "keras.Input(shape=(), dtype='string') and pass tf.constant(texts))"
        )
        evidence = ctx.key_sentence()
    elif match.group(1) in ("list", "tuple", "numpy.ndarray", "ndarray"):
        # an object array holding sequences: np.array made one of rows of different lengths
        message = (
            f"the data is an object array whose items are {match.group(1).split('.')[-1]}s "
            "(what np.array makes of sequences of different lengths): a tensor needs one "
            "length per axis"
        )
        hint = (
            "pad (or cut) the sequences to one length with keras.utils.pad_sequences(..., "
            "maxlen=..., padding='post', dtype='float32'), or build a tf.ragged.constant; when "
            "all have one length, np.stack them"
        )
        evidence = ctx.key_sentence()
    else:
        message = (
            "the data has dtype object (Python objects, e.g. text or mixed types), not numbers"
        )
        hint = (
            "the data was not read, and two causes fit: text or mixed values in a column "
            "(df.dtypes shows which: encode it with pd.get_dummies or a keras.layers."
            "StringLookup, or drop it), or sequences of different lengths (pad them with "
            "keras.utils.pad_sequences); print a few rows of x to see which"
        )
        evidence = ctx.key_sentence()
    place = f"`{call.func}(...)` at {ctx.where(call.filename, call.lineno)}" if call else ""
    if text_arg is not None and len(text_arg.row_lengths) > 1:
        # sequences of different lengths: the catalog's ragged data (pad them), not a dtype
        return (finding("S13", message, place=place, evidence=evidence, hint=hint), ())
    return (finding("S11", message, place=place, evidence=evidence, hint=hint), ())


_FITS = ("fit", "evaluate", "train_on_batch", "test_on_batch")


def _text_label_arg(ctx: ErrorContext) -> Arg | None:
    """The labels given to fit/evaluate when they hold text."""
    call = ctx.evidence.call
    labels = call.arg(1, "y") if call is not None and call.method in _FITS else None
    if labels is None or not (labels.text_columns or labels.dtype.startswith(("str", "<U"))):
        return None
    return labels


def _text_labels(ctx: ErrorContext, labels: Arg) -> Explained:
    """The labels given to fit are class names (text): a loss takes numbers."""
    call = ctx.evidence.call
    assert call is not None
    example = f" (e.g. '{labels.text_example}')" if labels.text_example else ""
    # where the labels were made, when the cell assigns them before the call
    origin = assigned_before(labels.text, call.filename, call.lineno)
    if origin:
        example += f", from `{labels.text} = {origin}`"
    return (
        finding(
            "S11",
            f"the labels `{labels.text}` are text{example}; a loss takes numbers",
            place=f"`{call.func}(...)` at {ctx.where(call.filename, call.lineno)}",
            evidence=labels.describe(),
            hint=(
                "map each class name to an integer id first: `ids, classes = pd.factorize("
                f"{labels.text})` (or a keras.layers.StringLookup(num_oov_indices=0) adapted on "
                "the labels), fit on the ids, and keep `classes` to name the predictions"
            ),
        ),
        (),
    )


def _strings_for_a_string_input(ctx: ErrorContext, arg: Arg | None, error: str) -> Explained:
    """The model takes strings, but Keras' array adapter does not take NumPy string arrays."""
    call = ctx.evidence.call
    assert call is not None
    name = arg.text if arg is not None else "x"
    shown = arg.describe() if arg is not None else "the data"
    return (
        finding(
            "S11",
            f"the model takes strings (a string Input), but {shown} is a NumPy "
            f"{arg.dtype if arg is not None and arg.dtype else 'string/object'} array, which "
            "Keras does not convert",
            place=f"`{call.func}(...)` at {ctx.where(call.filename, call.lineno)}",
            evidence=f"model input dtypes {list(call.input_dtypes)}; {error}",
            hint=(
                f"pass the text as a tensor: tf.constant({name}) (or a tf.data dataset); do not "
                "encode it, the model's own lookup layer does"
            ),
        ),
        (),
    )


_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?$")


def _numeric_marker(example: str) -> bool:
    return example.strip() in ("?", "", "-", "NA", "N/A", "na", "n/a", "nan", "NaN", "null", "None")


def _text_arg(ctx: ErrorContext) -> Arg | None:
    """The argument of the failing call with object dtype (text columns first)."""
    call = ctx.evidence.call
    if call is None:
        return None
    found: list[Arg] = []
    for arg in [*call.args, *(a for _, a in call.kwargs)]:
        # the argument, its items, and theirs: (dict(df), labels) holds the columns two down
        for item in (arg, *arg.items, *(inner for outer in arg.items for inner in outer.items)):
            # pandas' string arrays (``.values`` of a str column) read as another array kind
            strings = item.kind == "tensor" and item.dtype in ("str", "string")
            if item.kind not in ("array", "dataframe", "series") and not strings:
                continue
            if (
                item.dtype == "object"
                or strings
                or item.text_columns
                or item.dtype.startswith(("str", "bytes"))
            ):
                found.append(item)
    found.sort(key=lambda a: not a.text_columns)
    return found[0] if found else None
