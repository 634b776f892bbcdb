"""The finding for a layer that fixes the batch axis (read by :mod:`._batch_fixers`).

Reported with the op that met a batch of another size (S07, the catalog's op that failed on
incompatible shapes), named by the layer that caused it: a later op that got two shapes
differing only on the batch axis, or a reshape to the fixed batch that got another number of
values.
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._batch_fixers import BatchFixer
from tfnb_debug.explain._context import ErrorContext, fmt_shape, parse_shape
from tfnb_debug.ground.reports import Finding, finding


def batch_fixer_finding(
    ctx: ErrorContext, a_text: str, b_text: str
) -> tuple[Finding, tuple[()]] | None:
    """S07 named by the layer that wrote a batch size into its output, when an op later got two
    shapes that differ only on the batch axis."""
    fixer = ctx.batch_fixer
    a, b = parse_shape(f"[{a_text}]"), parse_shape(f"[{b_text}]")
    if fixer is None or a is None or b is None or len(a) != len(b) or not a:
        return None
    if a[0] == b[0] or a[1:] != b[1:] or fixer.shape[0] not in (a[0], b[0]):
        return None
    return _finding(
        fixer, b[0] if a[0] == fixer.shape[0] else a[0], f"an op later got [{a_text}] vs [{b_text}]"
    )


def reshape_batch_finding(
    ctx: ErrorContext, have: int, want: int
) -> tuple[Finding, tuple[()]] | None:
    """S07 named by the layer that fixes the batch axis, when a reshape to its fixed batch got
    another number of values only because the batch was of another size."""
    fixer = ctx.batch_fixer
    if fixer is None or not isinstance(fixer.shape[0], int) or fixer.shape[0] <= 0:
        return None
    fixed = fixer.shape[0]
    if want % fixed or have % (want // fixed) or have == want:
        return None
    return _finding(
        fixer, have // (want // fixed), f"a reshape got {have} values where it asks for {want}"
    )


def _finding(fixer: BatchFixer, other: Any, seen: str) -> tuple[Finding, tuple[()]]:
    fixed = fixer.shape[0]
    return (
        finding(
            "S07",
            f"{fixer.class_name} '{fixer.name}' fixes the batch axis at {fixed}: its output is "
            f"{fmt_shape(fixer.shape)} while the model's batch size is open (None), so a batch "
            f"of another size ({other} here, e.g. the last one) breaks the step",
            place=f"layer '{fixer.name}'",
            evidence=f"'{fixer.name}' outputs {fmt_shape(fixer.shape)}; {seen}",
            hint=f"let '{fixer.name}' take the batch size from its input instead of the constant "
            f"{fixed}: `-1` in a reshape (or keras.layers.Reshape, which keeps the batch axis), "
            "`keras.ops.shape(x)[0]` / `tf.shape(x)[0]` for noise, zeros or tiles",
        ),
        (),
    )
