"""The user's own check after a fit failed because the fit went non-finite (N05, G05).

Reads :class:`._diverged_fit.DivergedFit` (the model's history, its weights, the data the
cell gave ``fit``): NaN or Inf in that data is N05 (the loss became NaN from the data, and
no learning rate helps); finite data with a loss that became NaN or Inf is G05, with the
optimizer's learning rate.
"""

from __future__ import annotations

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def diverged_fit(ctx: ErrorContext) -> Explained | None:
    """N05 or G05 for a check that failed after a fit in the cell went non-finite."""
    fit = ctx.diverged
    if fit is None:
        return None
    when = (
        f"its loss was NaN/Inf from epoch {fit.epoch} of {fit.epochs}"
        if fit.epoch is not None
        else "its weights hold NaN/Inf"
    )
    user = ctx.user_code_line()
    place = ctx.where(user[0], user[1], user[2]) if user else f"`{fit.model}.fit`"
    if fit.nonfinite_values:
        named = fit.column_names or tuple(str(c) for c in fit.columns)
        quote = "'" if fit.column_names else ""
        columns = (
            f" (column{'s' if len(named) > 1 else ''} "
            f"{', '.join(f'{quote}{c}{quote}' for c in named)})"
            if named
            else ""
        )
        drop = (
            f"`{fit.data}.dropna()` (with the same rows of y), or fill "
            f"{', '.join(repr(c) for c in fit.column_names)} (a column mean)"
            if fit.column_names
            else f"in the arrays `{fit.data}` is built from (its from_tensor_slices source), "
            "before the dataset is made: drop the rows with NaN/Inf (the same rows of the "
            "labels) or fill them (`np.nan_to_num`, a mean per column)"
            if not fit.data_read
            else f"`{fit.data}[np.isfinite({fit.data}).all(axis=1)]` with the same rows of y, "
            f"or `np.nan_to_num({fit.data})` / a mean per column"
        )
        return (
            finding(
                "N05",
                f"the check failed because `{fit.model}.fit` went non-finite: {when}, and the "
                f"data it was given, `{fit.data}`, holds {fit.nonfinite_values} NaN/Inf "
                f"value{'s' if fit.nonfinite_values > 1 else ''}{columns}",
                place=place,
                evidence=f"`{fit.model}.history.history['loss']`; `{fit.data}` holds "
                f"{fit.nonfinite_values} non-finite value(s)",
                hint=f"fill or drop the missing values before fit (and before any adapt()): {drop}",
            ),
            (),
        )
    if fit.label_nonfinite:
        rows = f" (rows {list(fit.label_rows)})" if fit.label_rows else ""
        column = _label_column(ctx, fit.labels)
        drop = (
            f"`{column[0]}.dropna(subset=['{column[1]}'])`"
            if column
            else "`df.dropna(subset=[<label column>])`"
        )
        return (
            finding(
                "N05",
                f"the check failed because `{fit.model}.fit` went non-finite: {when}, and its "
                f"labels `{fit.labels}` hold {fit.label_nonfinite} NaN/Inf "
                f"value{'s' if fit.label_nonfinite > 1 else ''}{rows}: the loss of those "
                "examples is NaN",
                place=place,
                evidence=f"`{fit.model}.history.history['loss']`; np.isfinite({fit.labels}) is "
                f"False {fit.label_nonfinite} time(s)",
                hint=f"drop the examples whose label is missing (the same rows of x and "
                f"`{fit.labels}`, e.g. {drop} before splitting), "
                "or fill them if a value is known",
            ),
            (),
        )
    rate = (
        f"{fit.optimizer}(learning_rate={fit.learning_rate:g})"
        if fit.learning_rate is not None
        else fit.optimizer or "the optimizer"
    )
    data = f"finite data `{fit.data}`" if fit.data_read else f"data `{fit.data}` (not read)"
    high = (
        fit.learning_rate is not None
        and fit.default_rate is not None
        and fit.learning_rate >= 10 * fit.default_rate
    )
    if fit.loss_ops and not high:
        ops = ", ".join(fit.loss_ops)
        exp = "exp" in fit.loss_ops
        return (
            finding(
                "G05",
                f"the check failed because `{fit.model}.fit` went non-finite: {when}, with "
                f"{data}, and the loss `{fit.loss_function}` is written by hand with {ops}",
                place=place,
                evidence=f"`{fit.model}.history.history['loss']`; `{fit.loss_function}` computes "
                f"{ops}; {rate}"
                + (f"; inputs reach {fit.input_max:g}" if fit.input_max is not None else ""),
                hint=(
                    "exp overflows float32 above about 88 (and log of the 0 it leaves is -Inf): "
                    "compute from logits with the built-in loss, "
                    "`keras.losses.CategoricalCrossentropy(from_logits=True)`, or subtract the "
                    "max (tf.nn.softmax / tf.reduce_logsumexp)"
                    if exp
                    else "keep each op inside its domain: clip the log's and the sqrt's input "
                    "to a small epsilon and divide by `tf.maximum(d, 1e-7)`, or use the "
                    "built-in loss"
                ),
            ),
            (),
        )
    scale = (
        f"; inputs reach {fit.input_max:g}, unscaled"
        if fit.input_max is not None and fit.input_max > 100
        else ""
    )
    return (
        finding(
            "G05",
            f"the check failed because `{fit.model}.fit` diverged: {when}, with {data} and {rate}",
            place=place,
            evidence=f"`{fit.model}.history.history['loss']`; weights "
            + ("non-finite" if fit.weights_nonfinite else "finite")
            + scale,
            hint=(
                f"lower the learning rate (e.g. {fit.learning_rate / 100:g}) or clip the "
                "gradients (clipnorm=1.0), and scale the inputs and targets"
                if high and fit.learning_rate is not None
                else "scale the inputs (a Normalization layer adapted on x) and the targets, "
                "and clip the gradients (clipnorm=1.0)"
                if scale
                else "the step size is its class default, so look at what reached the loss "
                "first: NaN/Inf in x or y (`np.isfinite(a).all()` on each array), a log, sqrt "
                "or division at 0 in the loss, targets far from the output's range"
                if not fit.data_read or fit.learning_rate == fit.default_rate
                else "lower the step size (learning_rate) or clip the gradients (clipnorm=1.0), "
                "and scale the inputs and targets"
            ),
        ),
        (),
    )


def _label_column(ctx: ErrorContext, labels: str) -> tuple[str, str] | None:
    """(the frame, the column) the labels were taken from, ``y = df["demand"]...``."""
    import re

    from tfnb_debug.explain._assignments import assigned_before

    line = ctx.user_code_line()
    if line is None or not labels.isidentifier():
        return None
    made = assigned_before(labels, line[0], line[1])
    match = re.match(r"\s*(\w+)\[\s*['\"]([^'\"]+)['\"]\s*\]", made)
    return (match.group(1), match.group(2)) if match else None
