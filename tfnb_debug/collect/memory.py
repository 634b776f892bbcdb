"""Memory collection for ``%%tfmem``: a background sampler and training-step markers.

Two pieces, both owned by :class:`MemoryRecorder` (one context manager):

* :class:`MemorySampler`, a daemon thread that reads every memory probe each
  ``interval`` seconds: the process's resident set size (psutil), the C heap
  in use (glibc), and, for each TensorFlow device whose allocator reports
  statistics (GPUs; CPU:0 only on some builds, see TRAPS.md #10), the
  allocator's current and peak bytes.
* :class:`~tfnb_debug.collect.memory_steps.StepMarkers`, class-level patches
  that note each training step with a reading of every probe taken right
  there.  Every patch is restored in ``finally``, also on ``KeyboardInterrupt``.

What comes out is :class:`MemoryRecording`: plain tuples of numbers, no tensors.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tfnb_debug.collect.memory_steps import StepMark, StepMarkers
from tfnb_debug.ground.text import first_line

__all__ = [
    "MemoryProbe",
    "MemoryRecorder",
    "MemoryRecording",
    "MemorySampler",
    "SeriesRecord",
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
class MemoryRecording:
    """Everything one recorded run produced, as plain values."""

    interval_s: float
    duration_s: float
    series: tuple[SeriesRecord, ...]
    steps: tuple[StepMark, ...]
    probe_notes: tuple[str, ...]
    gpu_count: int
    # at each sample, the most steps a watched optimizer took since the cell's first step
    sample_steps: tuple[int | None, ...] = ()
    models: tuple[Any, ...] = ()  # weak: the Keras models seen training, for the estimate
    # steps taken inside tf.functions: each watched optimizer's iterations at the end minus
    # its count before the cell's first step, the most of them (None: none stepped in a graph)
    graph_steps: int | None = None
    graph_baseline: int | None = None  # what sample_steps count from: 0 (None: nothing watched)
    replicas: int = 1  # the most replicas a model or optimizer seen training had (tf.distribute)


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
                notes.append(f"{short}: allocator statistics unavailable ({first_line(err)})")
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
        from tfnb_debug.collect.keras_access import device_lib

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
        self.step_counter: Callable[[], int | None] | None = None
        self.step_counts: list[int | None] = []
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
            self.errors.append(f"sampling failed: {type(err).__name__}: {first_line(err)}")
            self._stop.set()
            return
        now = time.perf_counter() - self.origin
        count = self.step_counter() if self.step_counter is not None else None
        with self._lock:
            self.times.append(now)
            self.step_counts.append(count)
            for store, reading in zip(self.values, readings, strict=True):
                store.append(reading)
            if len(self.times) >= self.max_samples:
                self.times = self.times[::2]
                self.step_counts = self.step_counts[::2]
                self.values = [store[::2] for store in self.values]
                self.interval_s *= 2

    def latest(self) -> list[tuple[MemoryProbe, int, int]]:
        """Each probe's last reading and the highest so far (current or allocator peak), in
        bytes: host values the thread already read, for a live view."""
        with self._lock:
            out = []
            for probe, store in zip(self.probes, self.values, strict=True):
                if store:
                    high = max(max(v[0], v[1] or 0) for v in store)
                    out.append((probe, store[-1][0], high))
            return out

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


class MemoryRecorder:
    """The one context manager that owns the sampler thread and every step patch.

    ``with MemoryRecorder(interval_s=0.05) as rec: ...`` then ``rec.recording``.
    On exit (also on an exception or ``KeyboardInterrupt``) the thread is
    stopped and joined and every patch restored, before the exception goes on.
    """

    def __init__(
        self,
        *,
        interval_s: float,
        steps: bool = True,
        max_samples: int = 20_000,
        optimizers: Iterable[Any] = (),
    ):
        self.optimizers = list(optimizers)
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
                self.markers.watch(self.optimizers)
                sampler.step_counter = self.markers.graph_step_count
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
        graph_steps = None
        if markers is not None and markers.graph_baseline is not None:
            final = markers.graph_step_count()
            if final is not None:
                graph_steps = final - markers.graph_baseline
        self.recording = MemoryRecording(
            interval_s=self.interval_s,
            duration_s=duration,
            series=sampler.records(),
            sample_steps=tuple(sampler.step_counts),
            steps=tuple(markers.marks) if markers is not None else (),
            probe_notes=tuple(self._notes + sampler.errors),
            gpu_count=self._gpu_count,
            models=tuple(markers.models) if markers is not None else (),
            graph_steps=graph_steps,
            graph_baseline=markers.graph_baseline if markers is not None else None,
            replicas=_replicas(
                [*(markers.models if markers is not None else ())],
                [*self.optimizers, *(markers.graph_optimizers if markers is not None else ())],
            ),
        )


def _replicas(models: Iterable[Any], optimizers: Iterable[Any]) -> int:
    """The most replicas among the models' strategies and the optimizers' step counters (a
    mirrored ``iterations`` holds one copy per local replica); 1 without a strategy."""
    counts = [1]
    for model in models:
        with contextlib.suppress(Exception):
            counts.append(int(model.distribute_strategy.num_replicas_in_sync))
    for optimizer in optimizers:
        with contextlib.suppress(Exception):
            value = getattr(optimizer.iterations, "value", optimizer.iterations)
            counts.append(len(getattr(value, "values", ())))
    return max(counts)
