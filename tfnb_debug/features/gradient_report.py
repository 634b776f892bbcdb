"""The gradient report: :class:`GradientReport`, built from a :class:`~tfnb_debug.records.gradients.GradientHistory`.

:func:`build_report` runs the gradient rules (G01-G07) over the history and lays out
what ``%tfgrad``/``%%tfgrad`` show: the per-variable table (:func:`_variable_table`),
the loss of each optimizer group (:class:`LossSeries`), notes and findings. It reads
plain records only, so a run folder's saved history rebuilds the same report
(:mod:`tfnb_debug.features.runs`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfnb_debug.diagnostics.gradients import GradThresholds
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, Report, Section, Table, sort_findings
from tfnb_debug.records.gradients import HIST_EDGES, INF, NAN, NORM, GradientHistory, LayerGradients

__all__ = ["GradientReport", "LossSeries", "build_report", "layer_label"]


@dataclass(frozen=True, eq=False)
class LossSeries:
    """The loss one optimizer/variable group stepped on, over its recorded steps.

    ``label``: the name the code gives it (the variable it was held in at the
    ``gradient`` call, the optimizer's or the model's variable), else ``loss N``.
    """

    label: str
    steps: np.ndarray
    values: np.ndarray


@dataclass(frozen=True, kw_only=True, repr=False)
class GradientReport(Report):
    """What ``%tfgrad``/``%%tfgrad`` show.  ``history`` holds the recorded numbers.

    ``model_name`` names the model the variables belong to (when known), so a
    layer inspector can link this report to the same model; use
    :meth:`for_layer` to fetch one layer's statistics.
    """

    model_name: str | None
    source: str
    history: GradientHistory
    total_steps: int
    every: int = 1
    max_steps: int = 0
    notes: tuple[str, ...] = ()
    layer_flags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: one loss per optimizer/variable group, when more than one group recorded its own
    losses: tuple[LossSeries, ...] = ()
    #: the models the recorded steps train, when known: ``(model_name,)``, or several (a GAN's
    #: generator and discriminator, each with its optimizer) when ``model_name`` is None
    models: tuple[str, ...] = ()

    @property
    def recorded_steps(self) -> int:
        return self.history.n_records

    def layer_names(self) -> tuple[str, ...]:
        """Layer names as shown (model prefix stripped), in forward order."""
        return tuple(layer_label(self.model_name, layer) for layer in self.history.layers())

    def for_layer(self, name: str) -> LayerGradients:
        """One layer's statistics, by its path (``model/block/dense``), shown name or last part."""
        layers = self.history.layers()
        match = [
            layer for layer in layers if name in (layer, layer_label(self.model_name, layer))
        ] or [layer for layer in layers if layer.rsplit("/", 1)[-1] == name]
        if len(match) != 1:
            known = ", ".join(self.layer_names()) or "none"
            what = "no layer" if not match else "more than one layer"
            raise TfnbDebugError(f"the gradient report has {what} called {name!r}; layers: {known}")
        layer = match[0]
        j = layers.index(layer)
        h = self.history
        idx = h.layer_index()[layer]
        return LayerGradients(
            layer=layer_label(self.model_name, layer),
            model_name=self.model_name,
            variables=tuple(h.variables[i].path for i in idx),
            steps=h.steps,
            grad_norm=h.layer_grad_norms()[:, j],
            update_ratio=h.layer_update_ratios()[:, j],
            nonfinite=h.layer_nonfinite()[:, j],
            histogram=h.layer_hist(layer) if h.n_records else np.zeros(len(HIST_EDGES) - 1),
            hist_edges=HIST_EDGES,
            codes=self.layer_flags.get(layer, ()),
        )


def layer_label(model_name: str | None, layer: str) -> str:
    if model_name and layer.startswith(model_name + "/"):
        return layer[len(model_name) + 1 :]
    return layer


def build_report(
    history: GradientHistory,
    *,
    source: str,
    model_name: str | None,
    extra_findings: Iterable[Finding] = (),
    thresholds: GradThresholds | None = None,
    every: int = 1,
    max_steps: int = 0,
    notes: Iterable[str] = (),
    failed: bool = False,
    losses: Sequence[LossSeries] = (),
    models: Sequence[str] = (),
) -> GradientReport:
    """Turn a history into a report: rules, the per-variable table, the plot sections.

    ``failed``: the recorded code raised; the report says it is partial.  ``losses``:
    each group's own loss, when several optimizers stepped on losses of their own
    (shown each with its label instead of the one ``loss`` line).  ``models``: the models
    the groups train, one each, named in the title when there is no single ``model_name``.
    """
    losses = tuple(losses) if len(losses) > 1 else ()
    from tfnb_debug.diagnostics.gradients import check_gradients, check_losses
    from tfnb_debug.render.gradients import gradient_sections

    def label(layer: str) -> str:
        return layer_label(model_name, layer)

    result = check_gradients(history, thresholds, label=label)
    found = list(result.findings)
    if losses:  # G05 and G07 for each group's own loss, named, not for the one loss line
        found = [f for f in found if f.code not in ("G05", "G07")]
        found += check_losses([(s.label, s.steps, s.values) for s in losses], thresholds)
    findings = sort_findings([*found, *extra_findings])
    table = _variable_table(history, result.flags, label)
    layers = history.layers()
    sections: tuple[Section, ...] = ()
    if history.n_records:
        first = (
            np.stack([history.layer_hist(layer, 0) for layer in layers])
            if history.n_records > 1
            else None
        )
        sections = gradient_sections(
            layers=[label(layer) for layer in layers],
            steps=history.steps,
            layer_norms=history.layer_grad_norms(),
            hist_last=np.stack([history.layer_hist(layer) for layer in layers]),
            hist_first=first,
            edges=HIST_EDGES,
            loss=history.loss,
            loss_known=history.loss_known,
            losses=[(s.label, s.steps, s.values) for s in losses],
        )
    who = f"model '{model_name}'" if model_name else "the trained variables"
    if not model_name and len(models) > 1:  # several models, one optimizer each (a GAN)
        who = "models " + ", ".join(f"'{name}'" for name in models[:-1]) + f" and '{models[-1]}'"
    partial = (
        [f"partial report: the cell failed after {history.n_records} recorded step(s)"]
        if failed
        else []
    )
    if source == "probe":
        title = f"Gradient probe of {who}: one batch, no optimizer step"
        summary = [
            f"{len(history.variables)} trainable variable(s) in {len(layers)} layer(s); "
            "all weights and optimizer state restored bit for bit"
        ]
    else:
        title = f"Gradients of {who}: {history.n_records} recorded step(s)"
        summary = [
            *partial,
            f"{history.total_steps} optimizer step(s) taken ({source}), {history.n_records} "
            f"recorded (every {every}, at most {max_steps}); {len(history.variables)} "
            f"variable(s) in {len(layers)} layer(s)",
        ]
        if history.n_records >= max_steps and history.total_steps > history.n_records * every:
            summary.append(
                f"recording stopped after {max_steps} records: raise --max-steps or use --every"
            )
    for name, known in [(s.label, s.values) for s in losses] or [
        ("loss", history.loss[history.loss_known])
    ]:
        if known.size == 1:
            summary.append(f"{name}: {known[0]:.6g}")
        elif known.size:
            summary.append(f"{name}: first {known[0]:.6g}, last {known[-1]:.6g}")
    summary.extend(notes)
    return GradientReport(
        title=title,
        summary=tuple(summary),
        findings=findings,
        tables=(table,),
        sections=sections,
        model_name=model_name,
        source=source,
        history=history,
        total_steps=history.total_steps,
        models=tuple(models) if not model_name else (model_name,),
        every=every,
        max_steps=max_steps,
        notes=tuple(notes),
        layer_flags=result.flags,
        losses=losses,
    )


_SEVERE = {"G03": "error", "G05": "error"}


def _variable_table(
    history: GradientHistory, flags: dict[str, tuple[str, ...]], label: Any
) -> Table:
    rows = []
    marks = []
    norms = history.stats[:, :, NORM] if history.n_records else np.zeros((0, 0))
    no_grad = set(history.no_gradient)
    with np.errstate(all="ignore"):
        ratio = history.stats[:, :, 7] / history.stats[:, :, 6]
    for i, meta in enumerate(history.variables):
        codes = flags.get(meta.layer, ())
        if meta.path in no_grad:
            codes = tuple(dict.fromkeys([*codes, "G04"]))
            last = low = high = None
            ratio_last = None
            nonfinite = 0
        else:
            col = norms[:, i] if history.n_records else np.zeros(0)
            finite = col[np.isfinite(col)]
            last = float(col[-1]) if col.size else None
            low = float(finite.min()) if finite.size else None
            high = float(finite.max()) if finite.size else None
            r = ratio[:, i] if history.n_records else np.zeros(0)
            r = r[np.isfinite(r)]
            ratio_last = float(r[-1]) if r.size else None
            nonfinite = int(
                np.nansum(history.stats[:, i, NAN]) + np.nansum(history.stats[:, i, INF])
            )
        rows.append(
            (
                label(meta.layer),
                meta.name,
                meta.shape,
                last,
                low,
                high,
                ratio_last,
                nonfinite,
                " ".join(codes),
            )
        )
        severities = {_SEVERE.get(c, "warning") for c in codes}
        marks.append("error" if "error" in severities else ("warning" if codes else ""))
    return Table(
        "gradients",
        (
            "layer",
            "variable",
            "shape",
            "grad norm (last)",
            "grad norm (min)",
            "grad norm (max)",
            "update/weight (last)",
            "nan+inf",
            "flags",
        ),
        tuple(rows),
        tuple(marks),
    )


# -- recording a training cell ------------------------------------------------
