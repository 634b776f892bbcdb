"""Memory collection for ``%%tfmem``: a background sampler and training-step markers.

Two pieces, both owned by :class:`MemoryRecorder` (one context manager):

* :class:`MemorySampler`, a daemon thread that reads every memory probe each
  ``interval`` seconds: the process's resident set size (psutil) and, for each
  TensorFlow device whose allocator reports statistics (GPUs; CPU:0 only on
  some builds, see TRAPS.md #10), the allocator's current and peak bytes.
* :class:`StepMarkers`, class-level patches that note each training step with
  a reading of every probe taken right there: ``CallbackList.on_train_batch_end``
  (``model.fit``), ``Model.train_on_batch`` and the eager calls of
  ``Optimizer.apply`` / ``apply_gradients`` (custom loops).  Every patch is
  restored in ``finally``, also on ``KeyboardInterrupt``.

What comes out is :class:`MemoryRecording`: plain tuples of numbers, no tensors.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MemoryProbe",
    "MemoryRecorder",
    "MemoryRecording",
    "MemorySampler",
    "SeriesRecord",
    "StepMark",
    "StepMarkers",
    "host_probe",
    "malloc_probe",
    "tensorflow_probes",
]

HOST_SERIES = "host RSS"
HEAP_SERIES = "host malloc heap"


@dataclass(frozen=True)
class MemoryProbe:
    """One memory series: ``read()`` returns ``(current, peak)`` bytes; peak may be None.

    ``kind`` is ``"host"`` (psutil RSS of this process) or ``"device"`` (a
    TensorFlow allocator); ``capacity`` is the bytes available to it, when known.
    """

    name: str
    kind: str
    read: Callable[[], tuple[int, int | None]]
    capacity: int | None = None
    reset: Callable[[], None] | None = None


@dataclass(frozen=True)
class SeriesRecord:
    """The samples of one probe: seconds since the start, current bytes, allocator peak bytes."""

    name: str
    kind: str
    capacity: int | None
    times: tuple[float, ...]
    current: tuple[int, ...]
    peak: tuple[int | None, ...]


@dataclass(frozen=True)
class StepMark:
    """A training step: when it ended, what noted it, and every probe's current bytes then."""

    index: int
    time: float
    source: str
    readings: tuple[tuple[str, int], ...]

    def reading(self, series: str) -> int | None:
        for name, value in self.readings:
            if name == series:
                return value
        return None


@dataclass(frozen=True)
class MemoryRecording:
    """Everything one recorded run produced, as plain values."""

    interval_s: float
    duration_s: float
    series: tuple[SeriesRecord, ...]
    steps: tuple[StepMark, ...]
    probe_notes: tuple[str, ...]
    gpu_count: int
    models: tuple[Any, ...] = ()  # weak: the Keras models seen training, for the estimate


def host_probe() -> MemoryProbe:
    """This process's resident set size, read through psutil."""
    import psutil

    process = psutil.Process()

    def read() -> tuple[int, int | None]:
        return int(process.memory_info().rss), None

    return MemoryProbe(HOST_SERIES, "host", read, capacity=int(psutil.virtual_memory().total))


def malloc_probe() -> MemoryProbe | None:
    """Bytes in use in the C heap (glibc ``mallinfo2``: all arenas plus mmapped chunks).

    TensorFlow's CPU tensors live there.  Unlike RSS it does not stay flat
    while a leak reuses memory the process freed earlier (freed heap pages stay
    resident), so a leak shows from its first step.  None where the C library
    is not glibc >= 2.33 or another allocator (tcmalloc, jemalloc) answers zeros.
    """
    import ctypes

    fields = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in fields.split()]

    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return None
    mallinfo2.restype = MallInfo2
    mallinfo2.argtypes = []

    def read() -> tuple[int, int | None]:
        info = mallinfo2()
        return int(info.uordblks + info.hblkhd), None

    if read()[0] <= 0:
        return None
    return MemoryProbe(HEAP_SERIES, "host", read)


def tensorflow_probes() -> tuple[list[MemoryProbe], list[str], int]:
    """A probe per TensorFlow device whose allocator reports statistics.

    Returns the probes, notes on devices that could not be probed, and the
    number of visible GPUs.  ``get_memory_info`` raises on CPU:0 with some
    builds and works with others (TRAPS.md #10): both are handled, and the
    host series never depends on it.
    """
    import tensorflow as tf

    notes: list[str] = []
    probes: list[MemoryProbe] = []
    gpus = tf.config.list_logical_devices("GPU")
    limits = _memory_limits()
    for device in [*tf.config.list_logical_devices("CPU")[:1], *gpus]:
        short = device.name.split("device:")[-1]
        try:
            tf.config.experimental.get_memory_info(short)
        except (ValueError, RuntimeError) as err:
            if device.device_type == "GPU":
                notes.append(f"{short}: allocator statistics unavailable ({_first_line(err)})")
            continue
        probes.append(
            MemoryProbe(
                f"{short} allocator",
                "device",
                _device_reader(tf, short),
                capacity=limits.get(short) if device.device_type == "GPU" else None,
                reset=_device_resetter(tf, short),
            )
        )
    return probes, notes, len(gpus)


def _device_reader(tf: Any, device: str) -> Callable[[], tuple[int, int | None]]:
    def read() -> tuple[int, int | None]:
        info = tf.config.experimental.get_memory_info(device)
        return int(info["current"]), int(info["peak"])

    return read


def _device_resetter(tf: Any, device: str) -> Callable[[], None]:
    def reset() -> None:
        with contextlib.suppress(ValueError, RuntimeError):
            tf.config.experimental.reset_memory_stats(device)

    return reset


def _memory_limits() -> dict[str, int]:
    """Bytes each GPU's allocator may use (``device_lib``: private but long-lived; may fail)."""
    try:
        from tensorflow.python.client import device_lib

        return {
            d.name.split("device:")[-1]: int(d.memory_limit)
            for d in device_lib.list_local_devices()
            if d.device_type == "GPU" and d.memory_limit
        }
    except Exception:  # an internal API changed: capacity becomes "unknown", not an error
        return {}


class MemorySampler:
    """A daemon thread reading every probe each ``interval_s`` seconds.

    ``start`` takes a first sample synchronously; ``stop`` sets the event,
    joins the thread and takes a last sample, so even a short run has two
    points.  Past ``max_samples`` the samples are thinned by two and the
    interval doubled, so a long cell keeps bounded memory.
    """

    def __init__(
        self, probes: list[MemoryProbe], interval_s: float, *, max_samples: int = 20_000
    ) -> None:
        self.probes = probes
        self.interval_s = interval_s
        self.max_samples = max_samples
        self.origin = time.perf_counter()
        self.times: list[float] = []
        self.values: list[list[tuple[int, int | None]]] = [[] for _ in probes]
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        self.origin = time.perf_counter()
        self.sample()
        self._thread = threading.Thread(
            target=self._run, name="tfnb_debug-memory-sampler", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.sample()

    def read_all(self) -> list[tuple[int, int | None]]:
        return [probe.read() for probe in self.probes]

    def sample(self) -> None:
        try:
            readings = self.read_all()
        except Exception as err:  # a probe that fails stops being sampled, and says why
            self.errors.append(f"sampling failed: {type(err).__name__}: {_first_line(err)}")
            self._stop.set()
            return
        now = time.perf_counter() - self.origin
        with self._lock:
            self.times.append(now)
            for store, reading in zip(self.values, readings, strict=True):
                store.append(reading)
            if len(self.times) >= self.max_samples:
                self.times = self.times[::2]
                self.values = [store[::2] for store in self.values]
                self.interval_s *= 2

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def records(self) -> tuple[SeriesRecord, ...]:
        with self._lock:
            return tuple(
                SeriesRecord(
                    name=probe.name,
                    kind=probe.kind,
                    capacity=probe.capacity,
                    times=tuple(self.times),
                    current=tuple(v[0] for v in store),
                    peak=tuple(v[1] for v in store),
                )
                for probe, store in zip(self.probes, self.values, strict=True)
            )


class StepMarkers:
    """Class-level patches that note each training step; ``install``/``restore`` pair up.

    Nested calls (``train_on_batch`` -> ``apply_gradients`` -> ``apply`` run
    eagerly) note one step, from the outermost call.  ``model.fit`` with
    ``run_eagerly=True`` reaches both the optimizer and the callback: a batch
    end right after an eager step of the model's own optimizer is that same
    step (no tensor is read to tell).  Calls made while a ``tf.function``
    traces are ignored (they are not steps).
    """

    def __init__(self, read: Callable[[], list[tuple[int, int | None]]], names: list[str]):
        self._read = read
        self._names = names
        self.origin = time.perf_counter()
        self.marks: list[StepMark] = []
        self.models: weakref.WeakSet[Any] = weakref.WeakSet()
        self._saved: list[tuple[type, str, Any]] = []
        self._depth = threading.local()
        self._last_optimizer: int | None = None  # id of the optimizer of the last eager step
        self._thread = threading.get_ident()

    # -- the patches ---------------------------------------------------------------------
    def install(self) -> None:
        import keras
        import tensorflow as tf

        markers = self

        callback_list = keras.callbacks.CallbackList
        batch_end = callback_list.on_train_batch_end

        def on_train_batch_end(self: Any, batch: Any, logs: Any = None) -> Any:
            result = batch_end(self, batch, logs)
            model = getattr(self, "model", None)
            markers._note("fit", getattr(model, "optimizer", None), model)
            return result

        self._patch(callback_list, "on_train_batch_end", on_train_batch_end)

        trainer = _defining_class(keras.Model, "train_on_batch")
        train_on_batch = trainer.__dict__["train_on_batch"]

        def patched_train_on_batch(self: Any, *args: Any, **kwargs: Any) -> Any:
            with markers._outer() as outermost:
                result = train_on_batch(self, *args, **kwargs)
            if outermost:
                markers._note("train_on_batch", getattr(self, "optimizer", None), self)
            return result

        self._patch(trainer, "train_on_batch", patched_train_on_batch)

        for method in ("apply_gradients", "apply"):
            owner = _defining_class(keras.optimizers.Optimizer, method)
            self._patch(owner, method, self._optimizer_wrapper(tf, owner.__dict__[method], method))

    def restore(self) -> None:
        saved, self._saved = self._saved, []
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)

    def _patch(self, owner: type, name: str, replacement: Callable[..., Any]) -> None:
        original = owner.__dict__[name]
        self._saved.append((owner, name, original))
        replacement.__wrapped__ = original  # type: ignore[attr-defined]
        replacement.__name__ = name
        replacement.__doc__ = getattr(original, "__doc__", None)
        setattr(owner, name, replacement)

    def _optimizer_wrapper(
        self, tf: Any, original: Callable[..., Any], method: str
    ) -> Callable[..., Any]:
        markers = self

        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not tf.executing_eagerly():
                return original(self, *args, **kwargs)
            with markers._outer() as outermost:
                result = original(self, *args, **kwargs)
            if outermost:
                markers._note(method, self, None)
            return result

        return wrapper

    # -- bookkeeping ---------------------------------------------------------------------
    @contextlib.contextmanager
    def _outer(self) -> Iterator[bool]:
        depth = getattr(self._depth, "value", 0)
        self._depth.value = depth + 1
        try:
            yield depth == 0
        finally:
            self._depth.value = depth

    def _note(self, source: str, optimizer: Any, model: Any) -> None:
        if threading.get_ident() != self._thread:
            return  # another thread's training is not this cell's
        if model is not None:
            with contextlib.suppress(TypeError):
                self.models.add(model)
        if source in ("fit", "train_on_batch"):
            same = optimizer is not None and id(optimizer) == self._last_optimizer
            self._last_optimizer = None
            if same and self.marks:  # run_eagerly: the optimizer already noted this step
                self.marks[-1] = dataclasses.replace(self.marks[-1], source=source)
                return
        else:
            self._last_optimizer = id(optimizer)
        now = time.perf_counter() - self.origin
        try:
            readings = self._read()
        except Exception:
            return
        self.marks.append(
            StepMark(
                index=len(self.marks),
                time=now,
                source=source,
                readings=tuple(
                    (name, value[0]) for name, value in zip(self._names, readings, strict=True)
                ),
            )
        )


def _defining_class(cls: type, name: str) -> type:
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass
    raise AttributeError(f"{cls.__name__} has no {name!r}")


class MemoryRecorder:
    """The one context manager that owns the sampler thread and every step patch.

    ``with MemoryRecorder(interval_s=0.05) as rec: ...`` then ``rec.recording``.
    On exit (also on an exception or ``KeyboardInterrupt``) the thread is
    stopped and joined and every patch restored, before the exception goes on.
    """

    def __init__(self, *, interval_s: float, steps: bool = True, max_samples: int = 20_000):
        self.interval_s = interval_s
        self.steps = steps
        self.max_samples = max_samples
        self.recording: MemoryRecording | None = None
        self.sampler: MemorySampler | None = None
        self.markers: StepMarkers | None = None
        self._notes: list[str] = []
        self._gpu_count = 0

    def __enter__(self) -> MemoryRecorder:
        probes = [host_probe()]
        heap = malloc_probe()
        if heap is not None:
            probes.append(heap)
        try:
            device_probes, notes, self._gpu_count = tensorflow_probes()
        except ImportError:
            device_probes, notes = [], ["TensorFlow is not importable: host memory only"]
        probes.extend(device_probes)
        self._notes = notes
        for probe in probes:
            if probe.reset is not None:
                probe.reset()
        sampler = MemorySampler(probes, self.interval_s, max_samples=self.max_samples)
        try:
            if self.steps:
                self.markers = StepMarkers(sampler.read_all, [p.name for p in probes])
                self.markers.install()
            sampler.start()
            if self.markers is not None:
                self.markers.origin = sampler.origin
        except BaseException:
            if self.markers is not None:
                self.markers.restore()
            if sampler.alive:
                sampler.stop()
            raise
        self.sampler = sampler
        return self

    def __exit__(self, *exc: Any) -> None:
        sampler, markers = self.sampler, self.markers
        try:
            if sampler is not None:
                sampler.stop()
        finally:
            if markers is not None:
                markers.restore()
        assert sampler is not None
        duration = time.perf_counter() - sampler.origin
        self.recording = MemoryRecording(
            interval_s=self.interval_s,
            duration_s=duration,
            series=sampler.records(),
            steps=tuple(markers.marks) if markers is not None else (),
            probe_notes=tuple(self._notes + sampler.errors),
            gpu_count=self._gpu_count,
            models=tuple(markers.models) if markers is not None else (),
        )


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__
