"""Memory over a cell's run (``%%tfmem``): :func:`track_memory`, :class:`MemoryReport`,
:func:`estimate_model_memory`, and :func:`memory_section` for the other magics' ``--mem``.

Example::

    with tfnb_debug.track_memory(interval_ms=20) as mem:
        model.fit(x, y, epochs=2, verbose=0)
    mem.report            # plot, table, findings R01/R02/R03/M06
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from tfnb_debug.collect.memory_estimate import ModelMemoryEstimate
from tfnb_debug.diagnostics.memory import (
    MemoryThresholds,
)
from tfnb_debug.features.memory_report import (
    MemoryReport,
    MemorySeries,
    ModelMemoryReport,
    build_memory_report,
    default_device_memory,
    estimate_line,
    estimate_table,
    memory_budget,
    memory_section,
)
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Report, sort_findings
from tfnb_debug.ground.values import format_bytes

__all__ = [
    "DEFAULT_INTERVAL_MS",
    "MemoryReport",
    "MemorySeries",
    "MemoryThresholds",
    "MemoryTracker",
    "ModelMemoryEstimate",
    "ModelMemoryReport",
    "estimate_model_memory",
    "memory_section",
    "track_memory",
    "with_memory",
]

DEFAULT_INTERVAL_MS = 50.0
MiB = 1024**2
R = TypeVar("R", bound=Report)


class MemoryTracker:
    """The context manager behind :func:`track_memory`; ``.report`` is set on exit.

    On exit, also when the block raised or was interrupted, the sampler thread
    is stopped and joined and every step patch restored before the exception
    goes on; the report then notes the error (and R03 for out-of-memory).
    """

    def __init__(
        self,
        *,
        interval_ms: float,
        thresholds: MemoryThresholds | None,
        models: Sequence[Any],
        optimizers: Sequence[Any],
        batch_size: int | None,
        steps: bool,
        title: str,
        enabled: bool = True,
        fit_outcomes: bool = True,
        label_control: bool | str = True,
    ) -> None:
        from tfnb_debug.collect.memory import MemoryRecorder

        self.enabled = enabled
        self.interval_ms = interval_ms
        self.thresholds = thresholds or MemoryThresholds()
        self.models = list(models)
        self.batch_size = batch_size
        self.title = title
        self.recorder = MemoryRecorder(
            interval_s=interval_ms / 1000.0, steps=steps, optimizers=optimizers
        )
        self.report: MemoryReport | None = None
        self.saver: Any = None  # a run folder's writer (track_memory(save_to=...))
        from tfnb_debug.features.fit_data import record_fit_args

        # P13/P14 from the arguments of the fit calls; P15/P16 from what each fit left, read
        # once the recording has ended (so neither the predictions nor P15's control are in it)
        self.fits = record_fit_args(outcomes=fit_outcomes, at_end=True, label_control=label_control)

    def __enter__(self) -> MemoryTracker:
        if self.enabled:
            self.recorder.__enter__()
            try:
                self.fits.__enter__()
            except BaseException:
                self.recorder.__exit__(None, None, None)
                raise
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if not self.enabled:
            return
        try:
            self.fits.__exit__(exc_type, exc, tb)
        finally:
            self.recorder.__exit__(exc_type, exc, tb)  # stops the thread, restores the patches
        recording = self.recorder.recording
        assert recording is not None
        try:
            models = _unique([*self.models, *recording.models])
            estimates = tuple(collect_estimate(m, batch_size=self.batch_size) for m in models)
            self.report = build_memory_report(
                recording,
                interval_ms=self.interval_ms,
                thresholds=self.thresholds,
                estimates=estimates,
                error=exc,
                title=self.title,
            )
            from tfnb_debug.features.fit_data import with_fit_findings

            self.report = with_fit_findings(self.report, self.fits, failed=exc is not None)
            if self.saver is not None:
                self.saver.save(self.report)
        except Exception:
            if exc is None:
                raise
            # the user's own exception goes on unchanged; the report is lost with it


class MemoryLive:
    """A memory tracker as a source of the live view: the sampler's latest host readings
    (host RSS and each device allocator; no device read) and the steps marked so far."""

    def __init__(self, tracker: MemoryTracker) -> None:
        self._tracker = tracker

    def live_part(self) -> Any:
        from tfnb_debug.collect.memory import HEAP_SERIES
        from tfnb_debug.features.live import LivePart

        recorder = self._tracker.recorder
        sampler, markers = recorder.sampler, recorder.markers
        if not self._tracker.enabled or sampler is None:
            return LivePart()
        memory = tuple(
            (probe.name, current, peak)
            for probe, current, peak in sampler.latest()
            if probe.name != HEAP_SERIES
        )
        steps = len(markers.marks) if markers is not None else 0
        # steps inside tf.functions: the watched optimizers' iterations at the latest sample
        # minus their count before the cell's first step (as the final report counts them;
        # the first sample can come after the first steps ran)
        counts = list(sampler.step_counts)
        last = next((c for c in reversed(counts) if c is not None), None)
        baseline = markers.graph_baseline if markers is not None else None
        if baseline is None:
            baseline = next((c for c in counts if c is not None), None)
        in_graph = last - baseline if last is not None and baseline is not None else 0
        step = max(steps, in_graph) or None
        return LivePart(step=step, memory=memory)

    def stop_request(self, kind: str) -> Any:
        return None


def track_memory(
    interval_ms: float = DEFAULT_INTERVAL_MS,
    *,
    thresholds: MemoryThresholds | None = None,
    models: Iterable[Any] = (),
    optimizers: Iterable[Any] = (),
    batch_size: int | None = None,
    steps: bool = True,
    title: str = "tfnb_debug memory",
    enabled: bool = True,
    fit_outcomes: bool = True,
    label_control: bool | str = True,
    save_to: str | os.PathLike[str] | None = None,
) -> MemoryTracker:
    """Record host and device memory while the ``with`` block runs.

    ``interval_ms``: how often the background thread samples (default 50).
    ``models``: Keras models to estimate (models trained in the block with
    ``fit``/``train_on_batch`` are added); ``batch_size`` adds activations to
    the estimate.  ``steps=False`` leaves Keras and the optimizers unpatched
    (no step markers).  Steps inside a ``tf.function`` are counted at each
    sample from the ``iterations`` of the optimizers traced in the block and
    of ``optimizers`` (give them when the function was traced before the
    block).  ``thresholds`` overrides the rules' defaults.
    ``enabled=False`` gives a tracker that records nothing (``report`` stays
    None): the other magics' ``--mem`` option uses it.  The arguments of
    ``fit`` calls in the block are checked too (P13, P14), and, with ``fit_outcomes``,
    what each ``fit`` left (P15, P16), read when the recording has ended;
    ``label_control`` as for :func:`tfnb_debug.record_gradients`.
    ``save_to``: a run folder, as for :func:`tfnb_debug.record_gradients`:
    when the block ends this process writes its memory records
    (``memory.json``, ``memory.npz``) to ``save_to/worker-N/``, for ``%tfrun``.
    """
    if isinstance(interval_ms, bool) or not isinstance(interval_ms, int | float):
        raise TfnbDebugError(f"interval_ms must be a number of milliseconds, got {interval_ms!r}")
    if not 1 <= interval_ms <= 60_000:
        raise TfnbDebugError(
            f"interval_ms={interval_ms} is out of range: sample between every 1 ms and 60000 ms "
            f"(default {DEFAULT_INTERVAL_MS:g})"
        )
    if thresholds is not None and not isinstance(thresholds, MemoryThresholds):
        raise TfnbDebugError(
            "thresholds must be a tfnb_debug.MemoryThresholds, got " + type(thresholds).__name__
        )
    _check_batch_size(batch_size)
    saver = None
    if save_to is not None:
        from tfnb_debug.features.run_saving import memory_saver

        saver = memory_saver(save_to)
    tracker = MemoryTracker(
        interval_ms=float(interval_ms),
        thresholds=thresholds,
        models=_keras_models(models),
        optimizers=list(optimizers),
        batch_size=batch_size,
        steps=steps,
        title=title,
        enabled=enabled,
        fit_outcomes=fit_outcomes,
        label_control=label_control,
    )
    tracker.saver = saver
    return tracker


def _keras_models(models: Iterable[Any]) -> list[Any]:
    """``models`` as a list, each checked to be a Keras model (built or not)."""
    from tfnb_debug.collect.keras_access import require_keras

    found = list(models)
    for index, model in enumerate(found):
        require_keras(model, what=f"models[{index}]", built=False)
    return found


def estimate_model_memory(
    model: Any,
    *,
    batch_size: int | None = None,
    optimizer: Any = None,
    activation_elements: int | None = None,
    device_memory: int | None = None,
    thresholds: MemoryThresholds | None = None,
) -> ModelMemoryReport:
    """Estimate the memory training ``model`` needs, as a report with finding M06.

    Weights, gradients and optimizer state (its real variables once built,
    else its per-parameter slots: fp32 Adam 16 B per parameter, SGD with
    momentum 12 B) plus, with ``batch_size``, the layer outputs kept for the
    backward pass in the compute dtype (2 bytes under mixed precision).
    ``activation_elements`` (per example) replaces the count read from the
    layers' output shapes, e.g. for subclassed models.  ``device_memory``
    defaults to the first GPU's memory, else the host's RAM.
    """
    if not hasattr(model, "trainable_weights") or not hasattr(model, "weights"):
        raise TfnbDebugError(
            f"estimate_model_memory needs a Keras model, got {type(model).__name__}"
        )
    _check_batch_size(batch_size)
    estimate = collect_estimate(
        model, batch_size=batch_size, optimizer=optimizer, activation_elements=activation_elements
    )
    device, capacity = (
        default_device_memory() if device_memory is None else ("device", device_memory)
    )
    thresholds = thresholds or MemoryThresholds()
    findings = memory_budget(estimate, device, capacity, thresholds)
    known = "unknown" if capacity is None else format_bytes(capacity)
    return ModelMemoryReport(
        title=f"tfnb_debug memory estimate for {estimate.model!r}",
        summary=(estimate_line(estimate), f"compared with {device}: {known}"),
        findings=sort_findings(findings),
        tables=(estimate_table((estimate,)),),
        estimate=estimate,
        device=device,
        capacity=capacity,
    )


def collect_estimate(
    model: Any,
    *,
    batch_size: int | None = None,
    optimizer: Any = None,
    activation_elements: int | None = None,
) -> ModelMemoryEstimate:
    from tfnb_debug.collect.memory_estimate import collect_model_memory

    return collect_model_memory(
        model, batch_size=batch_size, optimizer=optimizer, activation_elements=activation_elements
    )


def _check_batch_size(batch_size: Any) -> None:
    if batch_size is not None and (
        isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1
    ):
        raise TfnbDebugError(f"batch_size must be a positive integer, got {batch_size!r}")


def _unique(models: Iterable[Any]) -> list[Any]:
    seen: set[int] = set()
    out = []
    for model in models:
        if id(model) not in seen:
            seen.add(id(model))
            out.append(model)
    return out


def with_memory(report: R, memory: MemoryReport | MemoryTracker | None) -> R:
    """A copy of ``report`` with the memory section and the memory findings added.

    ``memory`` may be a tracker (from ``track_memory(enabled=args.mem)``); when
    it recorded nothing, ``report`` comes back as it is.
    """
    if isinstance(memory, MemoryTracker):
        memory = memory.report
    if memory is None:
        return report
    return dataclasses.replace(
        report,
        sections=(*report.sections, memory_section(memory)),
        findings=sort_findings(dict.fromkeys((*report.findings, *memory.findings))),
    )
