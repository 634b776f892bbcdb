"""Writing a run folder: what ``record_gradients(save_to=...)`` and ``track_memory(save_to=...)``
leave in ``RUN_DIR/worker-N/`` when their block ends (the files: :mod:`tfnb_debug.features.run_records`)."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import numpy as np

from tfnb_debug.features.run_records import FORMAT, GRADIENTS, MEMORY, MEMORY_ARRAYS, RECORD, STEPS
from tfnb_debug.ground.reports import Finding
from tfnb_debug.records.gradients import GradientHistory

__all__ = [
    "MemorySaver",
    "RunSaver",
    "memory_saver",
    "run_saver",
    "save_memory",
    "save_worker",
]


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def _plain(value: Any) -> Any:
    """A table cell as JSON holds it: numbers, text, None (anything else as its text)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return str(value)


def _table_json(table: Any) -> dict[str, Any]:
    return {
        "name": table.name,
        "columns": list(table.columns),
        "rows": [[_plain(v) for v in row] for row in table.rows],
        "row_marks": list(table.row_marks),
    }


def _finding_json(f: Finding) -> dict[str, Any]:
    out: dict[str, Any] = {
        "code": f.code,
        "slug": f.slug,
        "severity": f.severity,
        "message": f.message,
        "place": f.place,
        "evidence": f.evidence,
        "hint": f.hint,
        "cause": f.cause,
    }
    if f.target is not None:
        out["target"] = {"kind": f.target.kind, "path": f.target.path, "index": f.target.index}
    return out


def save_worker(run_dir: str, report: Any, identity: Any, times: Any) -> str:
    """Write one worker's records under ``run_dir/worker-N/``; return that folder.

    ``report``: the block's :class:`~tfnb_debug.features.gradient_report.GradientReport`;
    ``identity``: a :class:`~tfnb_debug.collect.run_writer.WorkerIdentity`;
    ``times``: the block's :class:`~tfnb_debug.collect.run_writer.StepTimes`.
    """
    from tfnb_debug.collect.run_writer import write_bytes

    history: GradientHistory = report.history
    folder = f"{str(run_dir).rstrip('/')}/{identity.folder}"
    record = {
        **_header(identity),
        "kind": "gradients",
        "title": report.title,
        "summary": list(report.summary),
        "notes": list(report.notes),
        "model_name": report.model_name,
        "source": report.source,
        "total_steps": int(history.total_steps),
        "variables": [
            [v.path, v.layer, v.name, list(v.shape), v.dtype, v.optimizer]
            for v in history.variables
        ],
        "no_gradient": list(history.no_gradient),
        "findings": [_finding_json(f) for f in report.all_findings()],
        "batches": {"source": times.batch_source, "hashes": list(times.hashes)},
        "other_calls": times.other_calls,
        # the report's other tables (the per-replica one under a strategy), as plain values
        "tables": [_table_json(t) for t in report.tables if t.name != "gradients"],
    }
    write_bytes(
        f"{folder}/{GRADIENTS}",
        _npz(
            {
                "steps": np.asarray(history.steps, np.int64),
                "loss": np.asarray(history.loss, np.float32),
                "loss_known": np.asarray(history.loss_known, bool),
                "stats": np.asarray(history.stats, np.float32),
                "hist": np.asarray(history.hist, np.float32),
            }
        ),
    )
    write_bytes(
        f"{folder}/{STEPS}",
        _npz(
            {
                "start": np.asarray(times.start, np.float64),
                "end": np.asarray(times.end, np.float64),
                "steps": np.asarray(times.steps, np.int64),
            }
        ),
    )
    # the record last: a folder with record.json has its arrays
    write_bytes(f"{folder}/{RECORD}", json.dumps(record, indent=1).encode("utf-8"))
    return folder


def _header(identity: Any) -> dict[str, Any]:
    from tfnb_debug._version import __version__

    return {
        "format": FORMAT,
        "tfnb_debug": __version__,
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "worker": identity.index,
        "workers": identity.workers,
        "task": {"type": identity.task_type, "index": identity.task_index},
        "single_process": identity.workers == 1,
    }


def save_memory(run_dir: str, report: Any, identity: Any) -> str:
    """Write one worker's memory records (a :class:`~tfnb_debug.features.memory.MemoryReport`) under
    ``run_dir/worker-N/``; return that folder."""
    from tfnb_debug.collect.run_writer import write_bytes

    folder = f"{str(run_dir).rstrip('/')}/{identity.folder}"
    record = {
        **_header(identity),
        "kind": "memory",
        "title": report.title,
        "summary": list(report.summary),
        "findings": [_finding_json(f) for f in report.all_findings()],
        "series": [[s.name, s.kind, s.capacity, s.allocator_peak] for s in report.series],
        "step_times": list(report.step_times),
    }
    arrays: dict[str, np.ndarray] = {}
    for i, series in enumerate(report.series):
        arrays[f"times_{i}"] = np.asarray(series.times, np.float64)
        arrays[f"bytes_{i}"] = np.asarray(series.current, np.int64)
    write_bytes(f"{folder}/{MEMORY_ARRAYS}", _npz(arrays))
    write_bytes(f"{folder}/{MEMORY}", json.dumps(record, indent=1).encode("utf-8"))
    return folder


class RunSaver:
    """The run-folder side of ``record_gradients(save_to=...)``: the step timer while the
    block runs, this worker's files when it ends."""

    def __init__(self, run_dir: str) -> None:
        from tfnb_debug.collect.run_writer import worker_identity

        self.run_dir = run_dir
        self.identity = worker_identity()  # a bad TF_CONFIG says so before the block runs
        self._timer: Any = None
        self.folder: str | None = None

    def start(self, capture: Any) -> Any:
        """Start timing the block's compiled calls against ``capture``'s optimizer steps;
        returns the timer (its ``__exit__`` undoes the start)."""
        from tfnb_debug.collect.run_writer import RunTimer

        timer = RunTimer(capture.steps_so_far)
        timer.__enter__()
        self._timer = timer
        return timer

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.__exit__(None, None, None)

    def save(self, report: Any) -> str:
        from tfnb_debug.collect.run_writer import StepTimes

        times = self._timer.times if self._timer is not None else StepTimes()
        self.folder = save_worker(self.run_dir, report, self.identity, times)
        return self.folder


def run_saver(save_to: Any) -> RunSaver:
    """Check ``save_to`` (a path or a ``gs://...`` string) and make the block's saver."""
    from tfnb_debug.features.run_records import folder_path

    path = folder_path(
        save_to,
        wrong_type="save_to must be a folder path (a str or os.PathLike), got {type}",
        empty="save_to is empty: give the run folder's path",
    )
    return RunSaver(path)


class MemorySaver:
    """The run-folder side of ``track_memory(save_to=...)``: this worker's memory files."""

    def __init__(self, run_dir: str) -> None:
        from tfnb_debug.collect.run_writer import worker_identity

        self.run_dir = run_dir
        self.identity = worker_identity()
        self.folder: str | None = None

    def save(self, report: Any) -> str:
        self.folder = save_memory(self.run_dir, report, self.identity)
        return self.folder


def memory_saver(save_to: Any) -> MemorySaver:
    """Check ``save_to`` and make a memory tracker's saver."""
    return MemorySaver(run_saver(save_to).run_dir)
