"""Links between reports of the same model: the selected layer's gradients from ``%tfgrad``.

A gradient report names its model (``model_name``) and each recorded variable
by its Keras path (``model/layer/kernel``), the same paths the live layer's
weights have, so the link is exact: no guessing from layer names.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tfnb_debug.widgets.records import GradientInfo

__all__ = ["SETTINGS_KEY", "find_gradient_report", "gradient_info", "remember_gradient_report"]

#: where ``%tfgrad`` leaves its latest report per model in the extension's settings
SETTINGS_KEY = "gradient_reports"


def _is_gradient_report(value: Any) -> bool:
    return (
        type(value).__name__ == "GradientReport"
        and hasattr(value, "model_name")
        and hasattr(value, "history")
    )


def remember_gradient_report(shell: Any, report: Any) -> None:
    """Keep ``report`` as the latest gradient report of its model in this session."""
    from tfnb_debug.ground.state import state_for

    names = _models_of(report)
    if shell is None or not names:
        return
    reports = state_for(shell).settings.setdefault(SETTINGS_KEY, {})
    for name in names:  # a report of two models (a GAN's) is each one's latest
        reports[name] = report


def _models_of(report: Any) -> tuple[str, ...]:
    name = getattr(report, "model_name", None)
    return tuple(getattr(report, "models", ())) or ((str(name),) if name else ())


def find_gradient_report(
    model_name: str, namespace: Mapping[str, Any] | None = None, shell: Any = None
) -> Any:
    """The latest gradient report of ``model_name`` in the session, or None.

    Looks where ``%tfgrad`` remembers its reports (the extension's settings),
    then at the notebook's outputs (``Out``, latest first), then at the
    notebook's variables (``r = %tfgrad -o ...``, ``-v NAME``).
    """
    if shell is not None:
        from tfnb_debug.ground.state import state_for

        remembered = state_for(shell).settings.get(SETTINGS_KEY, {}).get(model_name)
        if remembered is not None:
            return remembered
    if namespace is None:
        return None
    out = namespace.get("Out")
    if isinstance(out, Mapping):
        for key in sorted((k for k in out if isinstance(k, int)), reverse=True):
            value = out[key]
            if _is_gradient_report(value) and model_name in _models_of(value):
                return value
    for value in list(namespace.values()):
        if _is_gradient_report(value) and model_name in _models_of(value):
            return value
    return None


def gradient_info(report: Any, weights: Sequence[Any]) -> tuple[GradientInfo | None, str]:
    """This layer's gradients from ``report``, matched by the weights' variable paths."""
    paths = {str(getattr(v, "path", "") or "").split(":")[0] for v in weights}
    paths.discard("")
    models = " and ".join(f"'{name}'" for name in _models_of(report)) or "the trained variables"
    label = f"%tfgrad report of {models}, {report.recorded_steps} recorded step(s)"
    if not paths:
        return None, "this layer has no weights, so no gradients"
    history = report.history
    layers = {meta.layer for meta in history.variables if meta.path in paths}
    if not layers:
        return None, f"the {label} recorded no gradient for this layer's weights (not trainable?)"
    layer = next(iter(layers))
    lg = report.for_layer(layer)
    norms = tuple(float(n) for n in np.asarray(lg.grad_norm, dtype=float))
    ratios = np.asarray(lg.update_ratio, dtype=float)
    finite_norms = [n for n in norms if math.isfinite(n)]
    rows: list[tuple[str, Any]] = [
        ("variables", ", ".join(p.rsplit("/", 1)[-1] for p in lg.variables)),
        ("recorded steps", len(norms)),
        ("gradient norm, last step", norms[-1] if norms else None),
        ("gradient norm, median", float(np.median(finite_norms)) if finite_norms else None),
        ("gradient norm, min .. max", _span(finite_norms)),
        ("NaN/Inf entries, all steps", int(np.nansum(np.asarray(lg.nonfinite, dtype=float)))),
    ]
    finite_ratios = ratios[np.isfinite(ratios)]
    rows.append(
        (
            "update / weight norm, last step",
            float(finite_ratios[-1]) if finite_ratios.size else "not recorded (dry probe)",
        )
    )
    no_gradient = [p for p in getattr(history, "no_gradient", ()) if p in paths]
    if no_gradient:
        rows.append(("no gradient (G04)", ", ".join(no_gradient)))
    if lg.codes:
        rows.append(("findings", ", ".join(lg.codes)))
    info = GradientInfo(
        source=label,
        variables=tuple(lg.variables),
        rows=tuple(rows),
        steps=tuple(int(s) for s in np.asarray(lg.steps)),
        norms=norms,
        hist_counts=tuple(float(c) for c in np.asarray(lg.histogram, dtype=float)),
        hist_edges=tuple(float(e) for e in lg.hist_edges),
        codes=tuple(lg.codes),
    )
    return info, ""


def _span(values: Sequence[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.3g} .. {max(values):.3g}"
