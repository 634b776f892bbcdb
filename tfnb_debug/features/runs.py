"""Open a run that scripts recorded (``%tfrun``, :func:`open_run`): every worker in one report.

Each worker of a multi-worker job (or a single-process script) records with
``tfnb_debug.record_gradients(save_to=RUN_DIR)`` and writes
``RUN_DIR/worker-N/`` (:mod:`tfnb_debug.features.run_records`).  :func:`open_run`
reads every worker's records and returns a :class:`RunReport`: per-worker
step times with the stragglers named, per-worker gradient norms side by
side, each worker's findings, and D02 unsharded-input when workers read
identical input batches.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from tfnb_debug.diagnostics.runs import (
    RunThresholds,
    WorkerInput,
    WorkerTimes,
    stragglers,
    unsharded_input,
)
from tfnb_debug.features.run_records import WorkerRecord, find_workers, folder_path, load_worker
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, Report, sort_findings
from tfnb_debug.ground.startup import install_command, tensorflow_installed

__all__ = ["RunReport", "RunThresholds", "open_run"]


@dataclass(frozen=True, kw_only=True, repr=False)
class RunReport(Report):
    """What ``%tfrun`` shows.  ``workers`` holds each worker's records (plain values);
    :meth:`worker` gives one worker's own gradient report."""

    run_dir: str
    workers: tuple[WorkerRecord, ...]
    stragglers: dict[str, str] = field(default_factory=dict)
    size_bytes: int = 0

    def worker(self, index: int) -> Any:
        """The :class:`~tfnb_debug.features.gradient_report.GradientReport` of worker ``index``, rebuilt from
        its records (the rules run again on its statistics; the other findings of its gradient
        recording as recorded)."""
        from tfnb_debug.features.gradient_report import build_report

        w = self._record(index)
        memory = w.memory.findings if w.memory is not None else ()
        report = build_report(
            w.history,
            source=w.source,
            model_name=w.model_name,
            extra_findings=[
                f for f in w.findings if not f.code.startswith("G") and f not in memory
            ],
            max_steps=max(w.history.n_records, 1),
            notes=(f"{w.name} ({w.task}) of run {self.run_dir}", *w.notes),
        )
        return replace(report, tables=(*report.tables, *w.tables))

    def step_times(self, index: int) -> np.ndarray:
        """Seconds per optimizer step of worker ``index``, one value per timed call."""
        return self._record(index).step_seconds()

    def _record(self, index: int) -> WorkerRecord:
        for w in self.workers:
            if w.index == index:
                return w
        known = ", ".join(w.name for w in self.workers)
        raise TfnbDebugError(f"this run has no worker {index!r}; workers: {known}")


def open_run(
    run_dir: str | os.PathLike[str], *, thresholds: RunThresholds | None = None
) -> RunReport:
    """Read every ``worker-N/`` record of ``run_dir`` (a local folder or ``gs://...``) and merge
    them into one :class:`RunReport`.

    A folder that does not exist, one without worker records, or records
    written by a newer tfnb_debug is a one-line :class:`TfnbDebugError`.

    Example::

        run = tfnb_debug.open_run("runs/exp1")
        run.to_dataframe("workers")
        run.worker(1)  # worker 1's own gradient report
    """
    path = folder_path(
        run_dir,
        wrong_type="open_run needs a run folder's path, got {type}",
        empty="no run folder given: %tfrun RUN_DIR, e.g. %tfrun runs/exp1",
    )
    if "://" in path and not tensorflow_installed():
        raise TfnbDebugError(
            f"{path} is read through tf.io.gfile, which needs TensorFlow, not installed for "
            f"this Python ({sys.executable}): run `{install_command()}`, or copy the run "
            "folder to a local path (a local folder opens without TensorFlow)"
        )
    workers = tuple(load_worker(path, name) for name in find_workers(path))
    return build_run_report(path, workers, thresholds)


def build_run_report(
    run_dir: str, workers: tuple[WorkerRecord, ...], thresholds: RunThresholds | None = None
) -> RunReport:
    from tfnb_debug.render.runs import gradient_table, run_sections, workers_table

    times = [_times(w) for w in workers]
    slow = stragglers(times, thresholds)
    findings: list[Finding] = list(
        unsharded_input(
            [WorkerInput(w.name, w.hashes, w.batch_source) for w in workers], thresholds
        )
    )
    for w in workers:
        for f in w.findings:
            findings.append(_on_worker(f, w.name))
    expected = max(w.workers for w in workers)
    summary = [_workers_line(run_dir, workers, expected)]
    if len({w.workers for w in workers}) > 1:
        said = ", ".join(f"{w.name} {w.workers}" for w in workers)
        summary.append(
            f"the records disagree on the number of workers ({said}): some may be left in this "
            "folder by an earlier run; give each run its own folder"
        )
    if slow:
        summary.extend(f"straggler {text}" for text in slow.values())
    elif len(workers) > 1 and all(t.steps for t in times):
        low, high = min(t.step for t in times), max(t.step for t in times)
        summary.append(
            f"no straggler: median step {low * 1000:.3g}-{high * 1000:.3g} ms across the workers"
        )
    summary.append(_batches_line(workers))
    size = sum(w.size_bytes for w in workers)
    summary.append(f"records: {size / 1024:.0f} KiB")
    model = workers[0].model_name
    title = f"Run {run_dir}: {len(workers)} worker(s)" + (f", model '{model}'" if model else "")
    return RunReport(
        title=title,
        summary=tuple(summary),
        findings=sort_findings(findings),
        tables=(
            workers_table(workers, times, slow),
            gradient_table(workers),
            *(replace(t, name=f"{w.name} {t.name}") for w in workers for t in w.tables),
        ),
        sections=run_sections(workers),
        run_dir=run_dir,
        workers=workers,
        stragglers=slow,
        size_bytes=size,
    )


def _on_worker(f: Finding, name: str) -> Finding:
    place = f"{name}: {f.place}" if f.place else name
    return replace(f, place=place, group=())


def _times(w: WorkerRecord) -> WorkerTimes:
    step = w.step_seconds()
    outside = w.host_seconds()
    steps = int(w.call_steps.sum())
    # the first call traces the step: left out of the medians when there are others
    step = step[1:] if step.size > 1 else step
    return WorkerTimes(
        name=w.name,
        step=float(np.median(step)) if step.size else float("nan"),
        outside=float(np.median(outside)) if outside.size else 0.0,
        steps=steps if step.size else 0,
    )


def _workers_line(run_dir: str, workers: tuple[WorkerRecord, ...], expected: int) -> str:
    recorded = ", ".join(_what(w) for w in workers)
    if len(workers) == 1 and workers[0].workers == 1:
        return f"a single-process run: {recorded}"
    line = f"{len(workers)} of {expected} worker(s) recorded"
    missing = sorted(set(range(expected)) - {w.index for w in workers})
    if missing:
        line += f" (no records from {', '.join(f'worker-{i}' for i in missing)})"
    return f"{line}: {recorded}"


def _what(w: WorkerRecord) -> str:
    parts = []
    if w.history.variables:
        parts.append(f"{w.history.total_steps} optimizer step(s)")
    if w.memory is not None:
        parts.append("memory")
    return f"{w.name} " + " and ".join(parts)


def _batches_line(workers: tuple[WorkerRecord, ...]) -> str:
    hashed = [w for w in workers if w.hashes]
    if not hashed:
        return (
            "input batches: none read on the host (a dataset iterated inside a tf.function, "
            "or by fit), so D02 was not checked"
        )
    kinds = sorted({w.batch_source for w in hashed})
    return (
        f"input batches: the first {min(len(w.hashes) for w in hashed)} of "
        f"{len(hashed)} worker(s) hashed ({', '.join(kinds)} iterator)"
    )
