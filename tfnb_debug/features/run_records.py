"""A run folder's records, in plain data, and reading them back (the writing: run_saving.py).

``RUN_DIR/worker-N/`` holds three files (no pickles; JSON and NumPy ``.npz``
read with ``allow_pickle=False``):

* ``record.json``: the format version, which worker of how many, the
  gradient report's title, summary lines, notes and findings (every member of
  every group), the recorded variables, and the hashes of the first input
  batches with what they came from;
* ``gradients.npz``: the recorded statistics (``steps``, ``loss``,
  ``loss_known``, ``stats`` and ``hist`` as float32: what
  :class:`~tfnb_debug.records.gradients.GradientHistory` holds);
* ``steps.npz``: per timed compiled call that took optimizer steps, its
  ``start`` and ``end`` (seconds since the block began) and ``steps``;
* from ``track_memory(save_to=RUN_DIR)``: ``memory.json`` (the memory
  report's summary, notes, findings, each series' name, kind, capacity and
  allocator peak, the step times) and ``memory.npz`` (each series' sample
  times and bytes).

A worker folder holds the gradient files, the memory files, or both.

Files go through ``tf.io.gfile`` (:mod:`tfnb_debug.collect.run_writer`), so
a run folder may be a ``gs://`` path.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, Table, Target
from tfnb_debug.ground.text import first_line
from tfnb_debug.records.gradients import HIST_BINS, STAT_COLUMNS, GradientHistory, VariableMeta

__all__ = [
    "FORMAT",
    "folder_path",
    "SeriesRecord",
    "WorkerMemory",
    "WorkerRecord",
    "find_workers",
    "load_worker",
]

#: the version of the files; a reader refuses a newer one
FORMAT = 1
RECORD, GRADIENTS, STEPS = "record.json", "gradients.npz", "steps.npz"
MEMORY, MEMORY_ARRAYS = "memory.json", "memory.npz"
STEP_KEYS = ("start", "end", "steps")


@dataclass(frozen=True, eq=False)
class SeriesRecord:
    """One memory series of a worker: bytes over seconds since its block began."""

    name: str
    kind: str  # "host" or "device"
    capacity: int | None
    allocator_peak: int | None
    times: np.ndarray
    current: np.ndarray

    @property
    def peak(self) -> int:
        highest = int(self.current.max()) if self.current.size else 0
        return max(highest, self.allocator_peak or 0)


@dataclass(frozen=True, eq=False)
class WorkerMemory:
    """One worker's memory records (``track_memory(save_to=...)``)."""

    title: str
    summary: tuple[str, ...]
    series: tuple[SeriesRecord, ...]
    step_times: np.ndarray
    findings: tuple[Finding, ...] = ()


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
    memory: WorkerMemory | None = None
    tables: tuple[Table, ...] = ()  # the gradient report's other tables (per replica)

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
            if head != "worker" or not number.isdigit():
                continue
            if {RECORD, MEMORY} & set(list_folder(folder)):
                found.append((int(number), name))
    except TfnbDebugError:
        raise
    except Exception as err:  # a filesystem that refuses (permissions, no credentials)
        raise TfnbDebugError(f"cannot read the run folder {run_dir!r}: {first_line(err)}") from None
    if not found:
        raise TfnbDebugError(
            f"{run_dir!r} holds no worker-N/{RECORD} or {MEMORY}: it is not a run folder, or "
            "the script has not finished a record_gradients(save_to=...) block yet"
        )
    return [name for _, name in sorted(found)]


def _load_npz(path: str) -> tuple[dict[str, np.ndarray], int]:
    """The arrays of one ``.npz`` file and its size in bytes."""
    from tfnb_debug.collect.run_writer import read_bytes

    raw = read_bytes(path)
    with np.load(io.BytesIO(raw), allow_pickle=False) as data:
        return {key: data[key] for key in data.files}, len(raw)


def _read_json(folder: str, file: str) -> tuple[dict[str, Any], int]:
    """A record file and its size; unreadable, not a record, or a newer format: one line."""
    from tfnb_debug.collect.run_writer import read_bytes

    try:
        raw = read_bytes(f"{folder}/{file}")
    except Exception as err:
        raise TfnbDebugError(f"cannot read {folder}/{file}: {first_line(err)}") from None
    try:
        record = json.loads(raw.decode("utf-8"))
        version = int(record["format"])
    except (ValueError, KeyError, TypeError) as err:
        raise TfnbDebugError(f"{folder}/{file} is not a tfnb_debug run record ({err})") from None
    if version > FORMAT:
        raise TfnbDebugError(
            f"{folder} was written by a newer tfnb_debug ({record.get('tfnb_debug', '?')}, "
            f"record format {version}; this one reads format {FORMAT}): upgrade tfnb_debug "
            "to open this run"
        )
    return record, len(raw)


def load_worker(run_dir: str, name: str) -> WorkerRecord:
    """Read ``run_dir/name/`` back; a record this version cannot read is a one-line error."""
    from tfnb_debug.collect.run_writer import list_folder

    folder = f"{run_dir.rstrip('/')}/{name}"
    files = set(list_folder(folder))
    record, size = _read_json(folder, RECORD) if RECORD in files else (None, 0)
    memory, memory_size = _read_json(folder, MEMORY) if MEMORY in files else (None, 0)
    try:
        worker = _worker(record, memory or {}, name, folder, size + memory_size)
        if memory is not None:
            part, arrays_size = _memory(memory, folder)
            worker = replace(
                worker,
                memory=part,
                findings=(*worker.findings, *part.findings),
                size_bytes=worker.size_bytes + arrays_size,
            )
        return worker
    except (KeyError, TypeError, ValueError, OSError) as err:
        raise TfnbDebugError(f"the records in {folder} are incomplete or damaged ({err})") from None


def _memory(record: dict[str, Any], folder: str) -> tuple[WorkerMemory, int]:
    arrays, size = _load_npz(f"{folder}/{MEMORY_ARRAYS}")
    series = tuple(
        SeriesRecord(
            name=str(name),
            kind=str(kind),
            capacity=None if capacity is None else int(capacity),
            allocator_peak=None if peak is None else int(peak),
            times=arrays[f"times_{i}"],
            current=arrays[f"bytes_{i}"],
        )
        for i, (name, kind, capacity, peak) in enumerate(record["series"])
    )
    part = WorkerMemory(
        title=str(record.get("title", "")),
        summary=tuple(record.get("summary", ())),
        series=series,
        step_times=np.asarray(record.get("step_times", ()), np.float64),
        findings=tuple(_finding_from(f) for f in record["findings"]),
    )
    return part, size


def _worker(
    record: dict[str, Any] | None, memory: dict[str, Any], name: str, folder: str, size: int
) -> WorkerRecord:
    """The gradient part of a worker (empty when only its memory was recorded)."""
    head = record if record is not None else memory
    if record is not None:
        grads, grads_size = _load_npz(f"{folder}/{GRADIENTS}")
        steps, steps_size = _load_npz(f"{folder}/{STEPS}")
        size += grads_size + steps_size
    else:
        grads = {}
        steps = {k: np.zeros(0, np.int64 if k == "steps" else np.float64) for k in STEP_KEYS}
        record = {"variables": [], "total_steps": 0}
    variables = tuple(
        VariableMeta(str(p), str(layer), str(n), tuple(int(d) for d in shape), str(dt), str(opt))
        for p, layer, n, shape, dt, opt in record["variables"]
    )
    count = len(variables)
    records = grads.get("steps", np.zeros(0, np.int64))
    shape = (len(records), count)
    history = GradientHistory(
        variables=variables,
        steps=records,
        loss=grads.get("loss", np.zeros(0)).astype(np.float64),
        loss_known=grads.get("loss_known", np.zeros(0, bool)),
        stats=grads.get("stats", np.zeros(0)).reshape(*shape, len(STAT_COLUMNS)),
        hist=grads.get("hist", np.zeros(0)).reshape(*shape, HIST_BINS),
        no_gradient=tuple(record.get("no_gradient", ())),
        total_steps=int(record["total_steps"]),
    )
    task = head.get("task", {})
    batches = record.get("batches", {})
    return WorkerRecord(
        name=name,
        index=int(head["worker"]),
        workers=int(head["workers"]),
        task="single process"
        if head.get("single_process")
        else f"{task.get('type', 'worker')} {task.get('index', '?')}",
        title=str(head["title"]),
        summary=tuple(record.get("summary", ())),
        notes=tuple(record.get("notes", ())),
        model_name=record.get("model_name"),
        source=str(record.get("source", "")),
        findings=tuple(_finding_from(f) for f in record.get("findings", ())),
        history=history,
        call_start=steps["start"],
        call_end=steps["end"],
        call_steps=steps["steps"],
        hashes=tuple(batches.get("hashes", ())),
        batch_source=str(batches.get("source", "")),
        other_calls=int(record.get("other_calls", 0)),
        tables=tuple(
            Table(
                str(t["name"]),
                tuple(str(c) for c in t["columns"]),
                tuple(
                    tuple(tuple(v) if isinstance(v, list) else v for v in row) for row in t["rows"]
                ),
                tuple(str(m) for m in t.get("row_marks", ())),
            )
            for t in record.get("tables", ())
        ),
        size_bytes=size,
    )


def folder_path(value: Any, *, wrong_type: str, empty: str) -> str:
    """``value`` (a ``str``, ``bytes`` or ``os.PathLike``: a local folder or ``gs://...``) as
    a path string, or a one-line ``TfnbDebugError``: ``wrong_type`` (formatted with the
    value's ``{type}``) for anything else, ``empty`` for a blank path.  The one check of a
    run folder's path, for saving a run and for opening it."""
    try:
        path = os.fspath(value)
    except TypeError:
        raise TfnbDebugError(wrong_type.format(type=type(value).__name__)) from None
    if isinstance(path, bytes):
        path = path.decode()
    path = str(path)
    if not path.strip():
        raise TfnbDebugError(empty)
    return path
