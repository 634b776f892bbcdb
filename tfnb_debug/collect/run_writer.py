"""What a script's recorded block adds for its run folder, and the folder's files.

``record_gradients(save_to=RUN_DIR)`` in a script (one process per worker)
writes ``RUN_DIR/worker-N/`` when the block ends.  This module is the
TensorFlow side of it:

* :func:`worker_identity`: which worker this process is, from the
  ``TF_CONFIG`` cluster (``TFConfigClusterResolver``, the one
  ``MultiWorkerMirroredStrategy`` reads): a chief is worker 0 and the
  workers follow, as the strategy numbers them; no cluster is worker 0 of 1.
* :class:`RunTimer`: host-side step times and a hash of the first input
  batches.  Two hooks, through :class:`~tfnb_debug.collect._patching.Patches`
  (restored when the block ends, also on an exception or interrupt): the
  outermost eager call of a ``tf.function`` (a compiled step, or ``fit``'s
  train function) is timed, and counts as steps when the recorded optimizer
  steps advanced during it (one scalar read per call); ``__next__`` of a
  ``tf.data`` iterator and of a distributed iterator hashes the batches it
  returns (their bytes, shapes and dtypes) until :data:`HASHED_BATCHES` of
  them fed a training step: a batch is kept when the next compiled call takes
  an optimizer step, so batches read for something else (an evaluation
  before training) are not compared.
* :func:`write_bytes`, :func:`read_bytes`, :func:`list_folder`,
  :func:`is_folder`: ``tf.io.gfile`` for a URL, so a run folder may be any
  path TensorFlow opens (``gs://...``, ``hdfs://...``); a local folder is read
  with Python's own files (opening a run in a notebook imports no TensorFlow).

Nothing here holds a tensor after the block: the records are floats and
hex digests.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tfnb_debug.collect._patching import Patches

__all__ = [
    "HASHED_BATCHES",
    "RunTimer",
    "StepTimes",
    "WorkerIdentity",
    "is_folder",
    "list_folder",
    "read_bytes",
    "worker_identity",
    "write_bytes",
]

#: how many input batches each worker hashes (D02 compares them across workers)
HASHED_BATCHES = 4


@dataclass(frozen=True)
class WorkerIdentity:
    """Which worker of which cluster this process is."""

    index: int
    workers: int
    task_type: str
    task_index: int

    @property
    def folder(self) -> str:
        return f"worker-{self.index}"


def worker_identity(environ: dict[str, str] | None = None) -> WorkerIdentity:
    """This process's worker index and the number of workers, from ``TF_CONFIG``.

    Chief and workers are numbered as ``MultiWorkerMirroredStrategy`` numbers
    them (the chief first); without ``TF_CONFIG`` (a single-process script),
    worker 0 of 1.  Another task type (an evaluator) is refused: it trains
    nothing of the run.
    """
    from tfnb_debug.ground.errors import TfnbDebugError

    env = os.environ if environ is None else environ
    raw = env.get("TF_CONFIG", "")
    if not raw.strip():
        return WorkerIdentity(0, 1, "worker", 0)
    try:
        config = json.loads(raw)
        cluster = config.get("cluster", {}) or {}
        task = config.get("task", {}) or {}
        task_type = str(task.get("type", "worker"))
        task_index = int(task.get("index", 0))
    except (ValueError, TypeError, AttributeError) as err:
        raise TfnbDebugError(f"TF_CONFIG is not the JSON a cluster needs ({err})") from None
    chiefs = len(cluster.get("chief", []) or [])
    workers = len(cluster.get("worker", []) or [])
    if task_type == "chief":
        index = task_index
    elif task_type == "worker":
        index = chiefs + task_index
    else:
        raise TfnbDebugError(
            f"TF_CONFIG names this process a {task_type!r} task: only the chief and the workers "
            "of a run record into its folder"
        )
    return WorkerIdentity(index, max(chiefs + workers, index + 1), task_type, task_index)


@dataclass
class StepTimes:
    """The timed compiled calls that took optimizer steps.

    Per call: ``start`` and ``end`` (seconds since the block began) and
    ``steps`` (optimizer steps it took: more than one with
    ``steps_per_execution``).  ``hashes``: hex digests of the first input
    batches that fed a step; ``batch_source`` what they came from (``"distributed"``: a
    ``strategy.experimental_distribute_dataset`` / ``distribute_datasets_from_function``
    iterator, ``"dataset"``: a plain ``tf.data`` iterator).
    """

    start: list[float] = field(default_factory=list)
    end: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    batch_source: str = ""
    other_calls: int = 0  # compiled calls that took no optimizer step


class RunTimer:
    """The two hooks of a recorded block (see the module docstring); ``with RunTimer(count):``.

    ``count`` returns the optimizer steps recorded so far (read after each
    outermost compiled call).
    """

    def __init__(self, count: Callable[[], int]) -> None:
        self._count = count
        self._patches = Patches()
        self._thread = threading.get_ident()
        self._depth = 0
        self._hashing = False
        self._pending: tuple[str, str] | None = None  # the last batch read: (digest, source)
        self._origin = 0.0
        self._last_count = 0
        self.times = StepTimes()

    def __enter__(self) -> RunTimer:
        self._origin = time.perf_counter()
        try:
            self._install()
        except BaseException:
            self._patches.restore()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._patches.restore()

    def _install(self) -> None:
        import tensorflow as tf

        from tfnb_debug.collect.keras_access import private

        timer = self
        function_class = private("PolymorphicFunction")
        call = function_class.__dict__["__call__"]

        def timed_call(self: Any, *args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            if timer._depth or threading.get_ident() != timer._thread or not tf.executing_eagerly():
                return call(self, *args, **kwargs)
            timer._depth += 1
            start = time.perf_counter()
            try:
                result = call(self, *args, **kwargs)
            finally:
                timer._depth -= 1
            timer._note_call(start)
            return result

        self._patches.set(function_class, "__call__", timed_call)
        for name, source in (
            ("OwnedIterator", "dataset"),
            ("DistributedIteratorBase", "distributed"),
        ):
            owner = private(name)
            self._patches.set(
                owner, "__next__", self._hashing_next(owner.__dict__["__next__"], source)
            )

    def _hashing_next(self, original: Any, source: str) -> Any:
        import tensorflow as tf

        timer = self

        def next_batch(self: Any) -> Any:
            __tracebackhide__ = True
            if (
                timer._hashing
                or len(timer.times.hashes) >= HASHED_BATCHES
                or threading.get_ident() != timer._thread
                or not tf.executing_eagerly()
            ):
                return original(self)
            timer._hashing = True  # a distributed iterator's inner iterators are not counted
            try:
                batch = original(self)
            finally:
                timer._hashing = False
            timer._note_batch(batch, source)
            return batch

        return next_batch

    def _note_call(self, start: float) -> None:
        end = time.perf_counter()
        try:
            count = int(self._count())
        except Exception:  # the step counters cannot be read: this call is not timed
            return
        taken, self._last_count = count - self._last_count, count
        pending, self._pending = self._pending, None
        if taken <= 0:
            self.times.other_calls += 1
            return
        if pending is not None and len(self.times.hashes) < HASHED_BATCHES:
            digest, source = pending
            if self.times.batch_source in ("", source):  # one kind of iterator: the first
                self.times.batch_source = source
                self.times.hashes.append(digest)
        self.times.start.append(start - self._origin)
        self.times.end.append(end - self._origin)
        self.times.steps.append(taken)

    def _note_batch(self, batch: Any, source: str) -> None:
        """Hash the batch; it is kept if the next compiled call takes an optimizer step."""
        try:
            self._pending = (batch_digest(batch), source)
        except Exception:  # a batch that cannot be read on the host (a string of an odd kind)
            self._pending = None


def batch_digest(batch: Any) -> str:
    """A hex digest of every tensor of ``batch`` (a distributed batch: each local replica's
    part), with its shape and dtype."""
    import numpy as np
    import tensorflow as tf

    digest = hashlib.sha256()
    for part in tf.nest.flatten(batch, expand_composites=True):
        value = np.asarray(part.numpy() if hasattr(part, "numpy") else part)
        digest.update(f"{value.dtype}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
    return digest.hexdigest()[:32]


# -- the folder: tf.io.gfile for a URL (gs://, hdfs://, ram://), Python's own files otherwise --


def _is_url(path: str) -> bool:
    return "://" in path


def write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` (a local path, or any URL TensorFlow's filesystems open),
    creating its folder."""
    folder = path.rsplit("/", 1)[0]
    if not _is_url(path):
        if folder:
            os.makedirs(folder, exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
        return
    import tensorflow as tf

    if folder and not tf.io.gfile.isdir(folder):
        tf.io.gfile.makedirs(folder)
    with tf.io.gfile.GFile(path, "wb") as handle:
        handle.write(data)


def read_bytes(path: str) -> bytes:
    if not _is_url(path):
        with open(path, "rb") as handle:
            return handle.read()
    import tensorflow as tf

    with tf.io.gfile.GFile(path, "rb") as handle:
        data = handle.read()
    return data if isinstance(data, bytes) else bytes(data)


def is_folder(path: str) -> bool:
    if not _is_url(path):
        return os.path.isdir(path)
    import tensorflow as tf

    return bool(tf.io.gfile.isdir(path))


def list_folder(path: str) -> list[str]:
    if not _is_url(path):
        return sorted(os.listdir(path))
    import tensorflow as tf

    return sorted(name.rstrip("/") for name in tf.io.gfile.listdir(path))
