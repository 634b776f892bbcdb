"""A run folder's records: what each worker writes, in plain data, and reading them back.

``RUN_DIR/worker-N/`` holds three files (no pickles; JSON and NumPy ``.npz``
read with ``allow_pickle=False``):

* ``record.json``: the format version, which worker of how many, the
  gradient report's title, summary lines, notes and findings (every member of
  every group), the recorded variables, and the hashes of the first input
  batches with what they came from;
* ``gradients.npz``: the recorded statistics (``steps``, ``loss``,
  ``loss_known``, ``stats`` and ``hist`` as float32: what
  :class:`~tfnb_debug.gradient_history.GradientHistory` holds);
* ``steps.npz``: per timed compiled call that took optimizer steps, its
  ``start`` and ``end`` (seconds since the block began) and ``steps``.

Files go through ``tf.io.gfile`` (:mod:`tfnb_debug.collect.run_writer`), so
a run folder may be a ``gs://`` path.
"""

from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfnb_debug.errors import TfnbDebugError
from tfnb_debug.gradient_history import HIST_BINS, STAT_COLUMNS, GradientHistory, VariableMeta
from tfnb_debug.reports import Finding, Target
from tfnb_debug.text import first_line

__all__ = [
    "FORMAT",
    "RunSaver",
    "WorkerRecord",
    "find_workers",
    "load_worker",
    "run_saver",
    "save_worker",
]

#: the version of the files; a reader refuses a newer one
FORMAT = 1
RECORD, GRADIENTS, STEPS = "record.json", "gradients.npz", "steps.npz"


@dataclass(frozen=True, eq=False)
class WorkerRecord:
    """One worker's records, read back: plain values only."""

    name: str  # worker-N
    index: int
    workers: int
    task: str  # "worker 1", "chief 0", "single process"
    title: str
    summary: tuple[str, ...]
    notes: tuple[str, ...]
    model_name: str | None
    source: str
    findings: tuple[Finding, ...]
    history: GradientHistory
    call_start: np.ndarray
    call_end: np.ndarray
    call_steps: np.ndarray
    hashes: tuple[str, ...]
    batch_source: str
    other_calls: int
    size_bytes: int

    def step_seconds(self) -> np.ndarray:
        """Seconds per optimizer step, one value per timed call: from the end of the previous
        call (the block's start for the first) to this one's end, divided by its steps."""
        if not self.call_end.size:
            return np.zeros(0)
        previous = np.concatenate([[0.0], self.call_end[:-1]])
        return (self.call_end - previous) / np.maximum(self.call_steps, 1)

    def host_seconds(self) -> np.ndarray:
        """Seconds between a call's end and the next one's start (input, host code), per call
        after the first."""
        if self.call_end.size < 2:
            return np.zeros(0)
        return self.call_start[1:] - self.call_end[:-1]


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


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


def _finding_from(data: dict[str, Any]) -> Finding:
    target = data.get("target")
    return Finding(
        code=str(data["code"]),
        slug=str(data["slug"]),
        severity=data["severity"],
        message=str(data["message"]),
        place=str(data.get("place", "")),
        evidence=str(data.get("evidence", "")),
        hint=str(data.get("hint", "")),
        cause=str(data.get("cause", "")),
        target=Target(str(target["kind"]), str(target.get("path", "")), target.get("index"))
        if target
        else None,
    )


def save_worker(run_dir: str, report: Any, identity: Any, times: Any) -> str:
    """Write one worker's records under ``run_dir/worker-N/``; return that folder.

    ``report``: the block's :class:`~tfnb_debug.gradients.GradientReport`;
    ``identity``: a :class:`~tfnb_debug.collect.run_writer.WorkerIdentity`;
    ``times``: the block's :class:`~tfnb_debug.collect.run_writer.StepTimes`.
    """
    from tfnb_debug._version import __version__
    from tfnb_debug.collect.run_writer import write_bytes

    history: GradientHistory = report.history
    folder = f"{str(run_dir).rstrip('/')}/{identity.folder}"
    record = {
        "format": FORMAT,
        "tfnb_debug": __version__,
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "worker": identity.index,
        "workers": identity.workers,
        "task": {"type": identity.task_type, "index": identity.task_index},
        "single_process": identity.workers == 1,
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


def find_workers(run_dir: str) -> list[str]:
    """The ``worker-N`` folders of ``run_dir`` that hold a record, in worker order; a missing
    folder or one without records is a one-line :class:`TfnbDebugError`."""
    from tfnb_debug.collect.run_writer import is_folder, list_folder

    try:
        if not is_folder(run_dir):
            raise TfnbDebugError(
                f"no run folder {run_dir!r}: give the folder a script recorded into with "
                "record_gradients(save_to=...)"
            )
        found = []
        for name in list_folder(run_dir):
            head, _, number = name.partition("-")
            folder = f"{run_dir.rstrip('/')}/{name}"
            if head == "worker" and number.isdigit() and RECORD in list_folder(folder):
                found.append((int(number), name))
    except TfnbDebugError:
        raise
    except Exception as err:  # a filesystem that refuses (permissions, no credentials)
        raise TfnbDebugError(f"cannot read the run folder {run_dir!r}: {first_line(err)}") from None
    if not found:
        raise TfnbDebugError(
            f"{run_dir!r} holds no worker-N/{RECORD}: it is not a run folder, or the script "
            "has not finished a record_gradients(save_to=...) block yet"
        )
    return [name for _, name in sorted(found)]


def _load_npz(path: str) -> tuple[dict[str, np.ndarray], int]:
    """The arrays of one ``.npz`` file and its size in bytes."""
    from tfnb_debug.collect.run_writer import read_bytes

    raw = read_bytes(path)
    with np.load(io.BytesIO(raw), allow_pickle=False) as data:
        return {key: data[key] for key in data.files}, len(raw)


def load_worker(run_dir: str, name: str) -> WorkerRecord:
    """Read ``run_dir/name/`` back; a record this version cannot read is a one-line error."""
    from tfnb_debug.collect.run_writer import read_bytes

    folder = f"{run_dir.rstrip('/')}/{name}"
    try:
        raw = read_bytes(f"{folder}/{RECORD}")
    except Exception as err:
        raise TfnbDebugError(f"cannot read {folder}/{RECORD}: {first_line(err)}") from None
    try:
        record = json.loads(raw.decode("utf-8"))
        version = int(record["format"])
    except (ValueError, KeyError, TypeError) as err:
        raise TfnbDebugError(f"{folder}/{RECORD} is not a tfnb_debug run record ({err})") from None
    if version > FORMAT:
        raise TfnbDebugError(
            f"{folder} was written by a newer tfnb_debug ({record.get('tfnb_debug', '?')}, "
            f"record format {version}; this one reads format {FORMAT}): upgrade tfnb_debug "
            "to open this run"
        )
    try:
        return _worker(record, name, folder, len(raw))
    except (KeyError, TypeError, ValueError, OSError) as err:
        raise TfnbDebugError(f"the records in {folder} are incomplete or damaged ({err})") from None


def _worker(record: dict[str, Any], name: str, folder: str, size: int) -> WorkerRecord:
    grads, grads_size = _load_npz(f"{folder}/{GRADIENTS}")
    steps, steps_size = _load_npz(f"{folder}/{STEPS}")
    variables = tuple(
        VariableMeta(str(p), str(layer), str(n), tuple(int(d) for d in shape), str(dt), str(opt))
        for p, layer, n, shape, dt, opt in record["variables"]
    )
    count = len(variables)
    stats = grads["stats"].reshape(-1, count, len(STAT_COLUMNS))
    history = GradientHistory(
        variables=variables,
        steps=grads["steps"],
        loss=grads["loss"].astype(np.float64),
        loss_known=grads["loss_known"],
        stats=stats,
        hist=grads["hist"].reshape(-1, count, HIST_BINS),
        no_gradient=tuple(record.get("no_gradient", ())),
        total_steps=int(record["total_steps"]),
    )
    task = record.get("task", {})
    return WorkerRecord(
        name=name,
        index=int(record["worker"]),
        workers=int(record["workers"]),
        task="single process"
        if record.get("single_process")
        else f"{task.get('type', 'worker')} {task.get('index', '?')}",
        title=str(record["title"]),
        summary=tuple(record.get("summary", ())),
        notes=tuple(record.get("notes", ())),
        model_name=record.get("model_name"),
        source=str(record.get("source", "")),
        findings=tuple(_finding_from(f) for f in record.get("findings", ())),
        history=history,
        call_start=steps["start"],
        call_end=steps["end"],
        call_steps=steps["steps"],
        hashes=tuple(record.get("batches", {}).get("hashes", ())),
        batch_source=str(record.get("batches", {}).get("source", "")),
        other_calls=int(record.get("other_calls", 0)),
        size_bytes=size + grads_size + steps_size,
    )


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
    import os

    try:
        path = os.fspath(save_to)
    except TypeError:
        raise TfnbDebugError(
            f"save_to must be a folder path (a str or os.PathLike), got {type(save_to).__name__}"
        ) from None
    if isinstance(path, bytes):
        path = path.decode()
    if not path.strip():
        raise TfnbDebugError("save_to is empty: give the run folder's path")
    return RunSaver(path)
