"""A check in the user's own code failed: what the compared values show (S10, S08).

``tf.debugging`` asserts and ``tf.ensure_shape`` carry the user's message, and TensorFlow adds
the values it compared.  The values are the evidence; the cause is upstream of the check:

- ``tf.ensure_shape(t, [32])`` on a tensor of shape ``[20]`` ("Shape of tensor EagerPyFunc
  [20] is not compatible with expected shape [32]"): the shape a function (a
  ``py_function``, a parse) really returns against the one declared (S10);
- ``tf.debugging.assert_equal(tf.shape(a), tf.shape(b))`` that prints ``[16]`` and
  ``[16 1]``: two shapes that differ by a trailing axis of 1, which in a loss (``y_true`` and
  ``y_pred``) broadcast to ``(16, 16)`` once the check is gone (S08);
- ``assert_non_negative``/``assert_less`` on labels: class ids outside ``[0, n)`` (P12); in
  traced code (``train_step(xb, yb)`` over a dataset), the labels array of the user's frames
  that holds the negatives TensorFlow printed (:mod:`._negative_ids`).
"""

from __future__ import annotations

import linecache
import re

from tfnb_debug.explain._context import ErrorContext, fmt_shape
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_ENSURE = re.compile(
    r"Shape of tensor (\w+) \[([-\d,\s]*)\] is not compatible with expected shape \[([-\d,\s]*)\]"
)
_EQUAL = re.compile(
    r"Condition x == y did not hold\.\s*First \d+ elements of x:\s*\[([-\d\s]*)\]\s*"
    r"First \d+ elements of y:\s*\[([-\d\s]*)\]"
)


_NON_NEGATIVE = re.compile(
    r"Condition x >= 0 did not hold element-wise:\s*x \(shape=\(([\d, ]*)\) dtype=(\w+)\) = "
    r"\s*\[([^\]]*)\]"
)
_LESS = re.compile(
    r"Condition x < y did not hold\.\s*First \d+ elements of x:\s*\[([-\d\s]*)\]\s*"
    r"First \d+ elements of y:\s*\[\s*(\d+)\s*\]"
)
_LABELS = re.compile(
    r"^(y|ys|y_\w+|\w+_y|labels?|\w*_labels?|targets?|\w*_targets?|classes|class_ids)$"
)


def label_range_check(ctx: ErrorContext) -> Explained | None:
    """P12: the user's own range check on labels failed (``assert_non_negative(labels)``,
    ``assert_less(labels, num_classes)``): ids outside [0, n) that a sparse loss cannot take."""
    from tfnb_debug.explain.checks import checked_upstream

    if checked_upstream(ctx) is not None:
        return None  # the checked values' origin explains it (one cause, one finding)
    user = ctx.user_code_line()
    defined = ctx.defined_at()
    if defined is not None:  # a check in traced code: the line that defined the failing op
        lines = linecache.getlines(defined[0])
        if 0 < defined[1] <= len(lines):
            user = (*defined, lines[defined[1] - 1].strip())
    if user is None:
        return None
    called = re.search(r"assert_(non_negative|less)\(\s*([\w.]+)", user[3])
    if called is None:
        return None
    name = called.group(2)
    place = ctx.where(user[0], user[1], user[2])
    negative = _NON_NEGATIVE.search(ctx.text) if called.group(1) == "non_negative" else None
    traced = called.group(1) == "non_negative" and "Condition x >= 0 did not hold" in ctx.text
    held = [d for d in ctx.negative_ids if d.name != name and _LABELS.match(d.name)]
    data = held[0] if traced and negative is None and len(held) == 1 else None
    if data is not None:
        # a batch of a traced step (`yb`): the labels array it comes from holds the negatives
        ids = ", ".join(str(v) for v in data.values)
        return (
            finding(
                "P12",
                f"the labels `{data.name}` hold {data.count} negative class id"
                f"{'s' if data.count > 1 else ''} ({ids}), which reach the check as `{name}`",
                place=place,
                evidence=f"assert_non_negative on `{name}` failed; `{data.name}` holds "
                f"{ids} at rows {list(data.rows)} of {data.size}",
                hint=f"class ids run from 0 to n - 1, and {ids} often marks an unlabeled "
                f"example: drop those examples before the dataset is made (`keep = {data.name} "
                f">= 0`, then index the inputs and `{data.name}` with `keep`), or mask them out "
                "of the loss",
            ),
            (),
        )
    if not _LABELS.match(name.rsplit(".", 1)[-1]):
        return None
    if negative is None and traced:
        # inside a traced loss or step: the batch's values are not printed; fit's y is read
        call = ctx.evidence.call
        y = call.arg(1, "y") if call is not None and call.method == "fit" else None
        low = y.low if y is not None else None
        if low is not None and low >= 0:
            return None
        given = (
            f"; fit's y `{y.text}` holds values down to {low:g}" if y and low is not None else ""
        )
        return (
            finding(
                "P12",
                f"the labels `{name}` hold negative class ids"
                + given.replace("; ", " (", 1)
                + (")" if given else ""),
                place=place,
                evidence=f"assert_non_negative on `{name}` failed{given}",
                hint="class ids run from 0 to n - 1, and a negative id often marks an unlabeled "
                "example: drop those examples before fit (`keep = labels >= 0`, then index x "
                "and the labels with `keep`), or give them a class of their own",
            ),
            (),
        )
    if negative is not None:
        shown = [v.strip(" '") for v in negative.group(3).split(",")]
        bad = [v for v in shown if v.startswith("-")]
        return (
            finding(
                "P12",
                f"the labels `{name}` hold negative class ids"
                + (f" ({', '.join(sorted(set(bad)))} among the first values)" if bad else ""),
                place=place,
                evidence=f"assert_non_negative on `{name}` (shape ({negative.group(1)}), "
                f"{negative.group(2)}): {negative.group(3).strip()}",
                hint=f"class ids run from 0 to n - 1, and a negative id often marks an unlabeled "
                f"example: drop those examples (`keep = {name} >= 0`, then index the inputs and "
                f"`{name}` with `keep`), or give them a class of their own",
            ),
            (),
        )
    less = _LESS.search(ctx.text) if called.group(1) == "less" else None
    if less is None:
        return None
    limit = int(less.group(2))
    values = [int(v) for v in less.group(1).split()]
    over = sorted({v for v in values if v >= limit})
    return (
        finding(
            "P12",
            f"the labels `{name}` reach {max(over) if over else limit} or more, and the check "
            f"allows ids below {limit}",
            place=place,
            evidence=f"assert_less on `{name}` against {limit}: first values {values}",
            hint=f"if the ids start at 1 (1..{limit}), shift them, `{name} - 1`; if there are "
            f"more than {limit} classes, the model needs that many outputs (and the check that "
            "number)",
        ),
        (),
    )


def failed_check(ctx: ErrorContext) -> Explained | None:
    """S10 for ``tf.ensure_shape`` against what the tensor holds; S08 for an equality check of
    two shapes that differ by a trailing axis of 1."""
    text = ctx.text
    ensure = _ENSURE.search(text)
    if ensure is not None:
        return _ensured(ctx, ensure)
    equal = _EQUAL.search(text)
    user = ctx.user_code_line()
    line = ctx.where(user[0], user[1], user[2]) if user else "the check"
    source = user[3] if user else ""
    if equal is None or "shape(" not in source:
        return None
    a = tuple(int(v) for v in equal.group(1).split())
    b = tuple(int(v) for v in equal.group(2).split())
    names = re.findall(r"shape\(\s*([\w.\[\]]+)\s*\)", source)
    if len(names) != 2 or not a or not b:
        return None
    if b == (*a, 1) or a == (*b, 1):
        short, long_ = (names[0], names[1]) if len(a) < len(b) else (names[1], names[0])
        full = a if len(a) > len(b) else b
        return (
            finding(
                "S08",
                f"`{short}` and `{long_}` differ by a trailing axis of 1 "
                f"({fmt_shape(a)} and {fmt_shape(b)}): in a loss, `{names[0]} - {names[1]}` "
                f"would broadcast to ({full[0]}, {full[0]}), every value against every other",
                place=line,
                evidence=f"the check compared {fmt_shape(a)} with {fmt_shape(b)}",
                hint=f"give `{short}` the trailing axis, `tf.reshape({short}, (-1, 1))` (or "
                f"`y.reshape(-1, 1)` for the labels' array), or squeeze `{long_}` with "
                f"`tf.squeeze({long_}, -1)`",
            ),
            (),
        )
    return None


def _ensured(ctx: ErrorContext, match: re.Match[str]) -> Explained:
    made, have, want = match.group(1), match.group(2), match.group(3)
    have_shape = tuple(int(v) for v in have.replace(",", " ").split())
    want_shape = tuple(int(v) for v in want.replace(",", " ").split())
    producer = "the py_function" if made.startswith("EagerPyFunc") else f"`{made}`"
    return (
        finding(
            "S10",
            f"tf.ensure_shape declared {fmt_shape(want_shape)}, but {producer} returns "
            f"{fmt_shape(have_shape)}",
            place=ctx.node() or "tf.ensure_shape",
            evidence=f"tensor {made} has shape [{have}], expected [{want}]",
            hint=f"declare the shape the function really returns, "
            f"`tf.ensure_shape(t, {list(have_shape)})`, or make it return "
            f"{fmt_shape(want_shape)} (pad or cut to that length inside the function)",
        ),
        (),
    )
