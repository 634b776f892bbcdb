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
        columns = (
            f" (column{'s' if len(fit.columns) > 1 else ''} "
            f"{', '.join(str(c) for c in fit.columns)})"
            if fit.columns
            else ""
        )
        return (
            finding(
                "N05",
                f"the check failed because `{fit.model}.fit` went non-finite: {when}, and the "
                f"data it was given, `{fit.data}`, holds {fit.nonfinite_values} NaN/Inf "
                f"value{'s' if fit.nonfinite_values > 1 else ''}{columns}",
                place=place,
                evidence=f"`{fit.model}.history.history['loss']`; "
                f"np.isfinite({fit.data}) is False {fit.nonfinite_values} time(s)",
                hint=f"fill or drop the missing values before fit: `np.nan_to_num({fit.data})`, "
                "an imputer (mean per column), or drop the rows with NaN "
                f"(`{fit.data}[np.isfinite({fit.data}).all(axis=1)]` with the same rows of y)",
            ),
            (),
        )
    rate = (
        f"{fit.optimizer}(learning_rate={fit.learning_rate:g})"
        if fit.learning_rate is not None
        else fit.optimizer or "the optimizer"
    )
    return (
        finding(
            "G05",
            f"the check failed because `{fit.model}.fit` diverged: {when}, with "
            + (f"finite data `{fit.data}`" if fit.data_read else f"data `{fit.data}` (not read)")
            + f" and {rate}",
            place=place,
            evidence=f"`{fit.model}.history.history['loss']`; weights "
            + ("non-finite" if fit.weights_nonfinite else "finite"),
            hint=f"lower the learning rate (e.g. {fit.learning_rate / 100:g}) or clip the "
            "gradients (clipnorm=1.0), and scale the inputs and targets"
            if fit.learning_rate is not None
            else "lower the learning rate or clip the gradients (clipnorm=1.0), and scale the "
            "inputs and targets",
        ),
        (),
    )
