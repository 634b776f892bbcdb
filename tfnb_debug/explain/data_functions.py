"""Python code inside a ``tf.data`` pipeline returning what its declaration does not say.

- ``tf.numpy_function`` / ``tf.py_function`` declare the dtypes their Python function
  returns (``Tout``); the function returns another (NumPy computes in float64 by default):
  "0-th value returned by pyfunc_0 is double, but expects float" (S11).
- ``Dataset.from_generator`` declares each element's structure in ``output_signature``;
  the generator yields another structure (an ``(x, y)`` pair where one ``TensorSpec`` was
  declared): "`generator` yielded an element that could not be converted to the expected
  type" (S12).

Both raise only when the pipeline is iterated (``fit``, a ``for`` loop), far from the line
that declared it: the findings name the declaration and the values from the message.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext, dtype_name
from tfnb_debug.explain._operands import cell_text
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_PYFUNC = re.compile(
    r"(\d+)-th value returned by (?:pyfunc|EagerPyFunc)_?\d* is (\w+), but expects (\w+)"
)
_PY_CONVERT = re.compile(r"Tensor conversion requested dtype (\w+) for Tensor with dtype (\w+)")
_YIELDED = re.compile(
    r"`generator` yielded an element that could not be converted to the expected type\. The "
    r"expected type was (\w+), but the yielded element was (.+?)\.\n",
    re.S,
)


def python_function_dtype(ctx: ErrorContext) -> Explained | None:
    """S11: a ``tf.numpy_function``/``tf.py_function`` whose Python function returns another
    dtype than its ``Tout``."""
    found = _PYFUNC.search(ctx.text)
    converted = _PY_CONVERT.search(ctx.text) if "script_ops" in ctx.text else None
    if found is not None:
        index, got, want = found.group(1), dtype_name(found.group(2)), dtype_name(found.group(3))
    elif converted is not None:  # tf.py_function converts the returned tensor to Tout
        index, got, want = "0", dtype_name(converted.group(2)), dtype_name(converted.group(1))
    else:
        return None
    wrapped = re.search(r"(?:numpy|py)_function\(\s*(?:func=)?(\w+)", cell_text(ctx.user_frames()))
    stage = next(
        (
            (ds.name, st)
            for ds in ctx.datasets
            for st in ds.stages
            if st.python in ("tf.numpy_function", "tf.py_function")
        ),
        None,
    )
    where = f" in the `map` ({stage[1].function}) of `{stage[0]}`" if stage and stage[0] else ""
    why = " (NumPy computes in float64 unless told)" if got == "float64" else ""
    return (
        finding(
            "S11",
            f"the Python function {f'`{wrapped.group(1)}` ' if wrapped else ''}wrapped by "
            f"{stage[1].python if stage else 'tf.numpy_function'} returns {got} as value "
            f"{index}, and its Tout declares {want}{why}",
            place=f"{stage[1].python}{where}" if stage else "tf.numpy_function",
            evidence=f"returned {got}, Tout {want}",
            hint=f"make the function return {want}, as its Tout declares: "
            + (
                f"`return result.astype(np.{want})` at its end"
                if stage is None or stage[1].python == "tf.numpy_function"
                # tf.py_function's function may return an eager tensor or a NumPy value:
                # np.asarray converts either
                else f"`return np.asarray(result, np.{want})` at its end"
            )
            + (f", or declare Tout=tf.{got}" if converted is not None else ""),
        ),
        (),
    )


def generator_structure(ctx: ErrorContext) -> Explained | None:
    """S12: a generator yields a tuple where ``output_signature`` declares one TensorSpec."""
    found = _YIELDED.search(ctx.text + "\n")
    if found is None:
        return None
    expected, element = found.group(1), found.group(2).strip()
    if not element.startswith("("):
        return None  # a dtype the values cannot take: another cause
    parts = _top_level_items(element)
    stage = next(
        (
            (ds.name, st.function)
            for ds in ctx.datasets
            for st in ds.stages
            if st.kind == "from_generator"
        ),
        None,
    )
    name = f"`{stage[1]}`" if stage and stage[1] else "the generator"
    specs = ", ".join("tf.TensorSpec(shape=..., dtype=...)" for _ in range(len(parts)))
    return (
        finding(
            "S12",
            f"{name} yields a tuple of {len(parts)} per element, but `output_signature` "
            f"declares one TensorSpec ({expected})",
            place="Dataset.from_generator"
            + (f" (dataset `{stage[0]}`)" if stage and stage[0] else ""),
            evidence=f"yielded {element[:120]}",
            hint=f"declare one spec per part of the element, in the same nesting: "
            f"`output_signature=({specs})` (e.g. the features' shape and dtype, then the "
            "label's)",
        ),
        (),
    )


def _top_level_items(text: str) -> list[str]:
    """The items of a tuple's repr, split at its top-level commas."""
    inner, depth, items, current = text[1:-1], 0, [], ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        items.append(current)
    return items
