"""Rules over what reached the losses of a training cell: S08, and M02/M03 in custom code.

Each rule reads the plain facts of :mod:`tfnb_debug.collect.loss_watch`
(shapes, counts, value ranges: no tensors) and returns findings:

* S08 loss-broadcast: a binary op outside any layer combined ``(..., N)`` with
  ``(..., N, 1)`` into ``(..., N, N)``.
* M02 logits-as-probabilities: a cross-entropy with ``from_logits=False``
  called by the user's code (not by a compiled loss, which the compile-time
  rules read) received values outside [0, 1], or rows that do not sum to 1
  for a categorical loss.
* M03 loss-activation-mismatch: a categorical cross-entropy over a class
  axis of size 1 (the loss is always 0), a softmax over one unit (always 1.0),
  or a binary cross-entropy over several units whose values' rows sum to 1 (a
  softmax made them, wherever the code applied it: a layer, ``tf.nn.softmax``,
  ``keras.ops.softmax``, by hand), the fix read from the 1s per row of its
  targets (several or none: sigmoid; one: a categorical loss).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tfnb_debug.collect.loss_watch import BroadcastFact, CrossEntropyFact, LossWatch
from tfnb_debug.ground.reports import Finding, finding

__all__ = ["LossThresholds", "check_losses"]


@dataclass(frozen=True)
class LossThresholds:
    """``probability_tolerance``: how far outside [0, 1] a probability may stray (rounding);
    ``row_sum_tolerance``: how far a categorical row sum may be from 1;
    ``softmax_row_tolerance``: how close to 1 every row reaching a binary loss must sum
    to be read as a softmax's (float32 rounding is ~1e-6; independent sigmoids are not)."""

    probability_tolerance: float = 1e-6
    row_sum_tolerance: float = 1e-3
    softmax_row_tolerance: float = 1e-4


def check_losses(
    watch: LossWatch,
    thresholds: LossThresholds | None = None,
    *,
    already: Iterable[Finding] = (),
) -> list[Finding]:
    """Findings from one watched cell; codes in ``already`` (the compile-time rules) are not repeated."""
    t = thresholds or LossThresholds()
    known = {f.code for f in already}
    out: list[Finding] = [_broadcast(fact) for fact in watch.broadcasts]
    if "M02" not in known:
        out.extend(f for fact in watch.cross_entropies if (f := _probabilities(fact, t)))
    if "M03" not in known:
        out.extend(f for fact in watch.cross_entropies if (f := _single_class(fact)))
        out.extend(f for fact in watch.cross_entropies if (f := _softmax_under_binary(fact, t)))
        out.extend(_softmax_single_unit(where) for where in watch.softmax_single_unit)
    return out


def _shape(shape: tuple[int | None, ...]) -> str:
    dims = ["B" if d is None else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _broadcast(fact: BroadcastFact) -> Finding:
    a, b = fact.shapes
    label, column = (a, b) if len(a) < len(b) else (b, a)
    op = {"Sub": "a subtraction", "SquaredDifference": "a squared difference"}.get(
        fact.op, f"the op {fact.op}"
    )
    inside = f" inside {fact.loss}" if fact.loss else ""
    return finding(
        "S08",
        f"{op}{inside} combines shapes {_shape(label)} and {_shape(column)} into "
        f"{_shape(fact.result)}: every prediction is compared with every target, so the loss "
        "is silently wrong",
        place=fact.where,
        evidence=f"{fact.op}{_shape(a)}, {_shape(b)} -> {_shape(fact.result)}; "
        + (f"{fact.count} call(s)" if fact.count else "seen while tracing a tf.function"),
        hint=f"give both the same shape: reshape the {_shape(label)} tensor to "
        f"{_shape(column)} (`tf.reshape(y, (-1, 1))`) or squeeze the other "
        "(`tf.squeeze(y_pred, -1)`); or use a Keras loss such as "
        "`keras.losses.MeanSquaredError()`, which aligns the ranks first",
    )


def _who(fact: CrossEntropyFact) -> str:
    return fact.loss or f"keras {fact.function}"


def _probabilities(fact: CrossEntropyFact, t: LossThresholds) -> Finding | None:
    if fact.from_logits or fact.compiled or fact.low is None or fact.high is None:
        return None
    tol = t.probability_tolerance
    if fact.low < -tol or fact.high > 1 + tol:
        return finding(
            "M02",
            f"{_who(fact)} has from_logits=False but received values from {fact.low:.4g} to "
            f"{fact.high:.4g}, outside [0, 1]: these are logits, which the loss clips to "
            "(0, 1), so it learns from clipped values",
            place=fact.where,
            evidence=f"min {fact.low:.4g}, max {fact.high:.4g}",
            hint="pass from_logits=True to the loss (keep the output linear), or apply "
            + ("sigmoid" if fact.function == "binary_crossentropy" else "softmax")
            + " before the loss",
        )
    err = fact.row_sum_error
    if (
        fact.function == "categorical_crossentropy"
        and err is not None
        and err > t.row_sum_tolerance
    ):
        return finding(
            "M02",
            f"{_who(fact)} has from_logits=False and received values in [0, 1] whose rows do "
            f"not sum to 1 (off by up to {err:.3g}): not a probability distribution (sigmoid "
            "outputs?); the loss renormalizes them silently",
            place=fact.where,
            evidence=f"largest |row sum - 1| = {err:.3g}",
            hint="use softmax on the output for one class per example, or a binary "
            "cross-entropy for independent labels",
        )
    return None


def _single_class(fact: CrossEntropyFact) -> Finding | None:
    if fact.compiled or fact.classes != 1 or fact.function == "binary_crossentropy":
        return None
    return finding(
        "M03",
        f"{_who(fact)} runs over a class axis of size 1: the softmax of one value is always "
        "1.0, so the loss is always 0 and nothing is learned",
        place=fact.where,
        evidence=f"{fact.function}, last axis of size 1",
        hint="for two classes use one unit with binary_crossentropy (sigmoid, or "
        "from_logits=True); for N classes give the output N units",
    )


def _softmax_under_binary(fact: CrossEntropyFact, t: LossThresholds) -> Finding | None:
    """A binary cross-entropy in the user's code over several units whose every row summed
    to 1: the values came from a softmax (the one the watch saw run, when it did)."""
    from tfnb_debug.diagnostics.model import TargetRows, softmax_under_binary

    err = fact.row_sum_error
    if (
        fact.function != "binary_crossentropy"
        or fact.compiled
        or fact.from_logits
        or fact.classes is None
        or fact.classes < 2
        or err is None
        or err > t.softmax_row_tolerance
    ):
        return None
    made = fact.producer or ""
    if made.startswith("layer "):
        producer, sigmoid = f"the softmax of {made}", f"give {made} activation='sigmoid'"
        logits = "make it linear and pass from_logits=True to the loss"
    else:
        at = f" at {made.split(': ', 1)[0]}" if made else ""
        producer = f"the softmax{at}" if made else "a softmax"
        sigmoid = f"apply sigmoid instead of the softmax{at} (tf.nn.sigmoid, keras.ops.sigmoid)"
        logits = "pass the logits and from_logits=True to the loss"
    targets = TargetRows(*fact.targets) if fact.targets is not None else None
    return softmax_under_binary(
        fact.where,
        fact.classes,
        _who(fact),
        targets,
        producer=producer,
        sigmoid=sigmoid,
        logits=logits,
        evidence=f"every row of the {fact.classes} values reaching it sums to 1 (within "
        f"{err:.1g})" + (f"; softmax at {fact.producer}" if fact.producer else ""),
    )


def _softmax_single_unit(where: str) -> Finding:
    return finding(
        "M03",
        "a softmax over an axis of size 1 always outputs 1.0: whatever the input, the "
        "prediction cannot change",
        place=where,
        evidence="softmax input has a last axis of size 1",
        hint="use sigmoid for one unit (binary), or give the layer one unit per class",
    )
