"""The environment check (``%tfenv``) and GPU memory growth at load (findings E01-E03)."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tfnb_debug._version import __version__
from tfnb_debug.reports import Finding, Report, Table, finding, sort_findings
from tfnb_debug.text import first_line
from tfnb_debug.values import format_bytes

__all__ = [
    "EnvReport",
    "GpuGrowth",
    "MemoryGrowthResult",
    "backend_problem",
    "check_environment",
    "enable_memory_growth",
    "keras_backend",
    "status_line",
]

_LOAD_FIRST = (
    "load the extension in the first cell, before any TensorFlow code runs "
    "(`%load_ext tfnb_debug`), or restart the kernel and load it first"
)


@dataclass(frozen=True)
class GpuGrowth:
    name: str
    growth: bool | None  # None: unknown


@dataclass(frozen=True)
class MemoryGrowthResult:
    gpus: tuple[GpuGrowth, ...]
    findings: tuple[Finding, ...]

    def describe(self) -> str:
        if not self.gpus:
            return "CPU only"
        parts = []
        for gpu in self.gpus:
            state = {True: "memory growth on", False: "memory growth OFF", None: "growth unknown"}
            parts.append(f"{gpu.name} ({state[gpu.growth]})")
        return ", ".join(parts)


def keras_backend() -> tuple[str, bool]:
    """The Keras backend in use and whether legacy tf_keras is forced (``TF_USE_LEGACY_KERAS``).

    Read the way Keras reads it (``KERAS_BACKEND``, else ``keras.json`` in
    ``KERAS_HOME`` or ``~/.keras``), so that a backend whose package is missing
    is still named instead of failing at ``import keras``.  When Keras is
    already imported, its own answer wins.
    """
    legacy = os.environ.get("TF_USE_LEGACY_KERAS", "").strip().lower() in {"1", "true", "yes"}
    keras = sys.modules.get("keras")
    if keras is not None and hasattr(keras, "backend"):
        return str(keras.backend.backend()), legacy
    return configured_keras_backend(), legacy


def configured_keras_backend() -> str:
    backend = os.environ.get("KERAS_BACKEND", "").strip()
    if backend:
        return backend
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    try:
        with open(os.path.join(home, "keras.json"), encoding="utf-8") as fh:
            config = json.load(fh)
        return str(config.get("backend") or "tensorflow")
    except (OSError, ValueError, AttributeError):
        return "tensorflow"


def backend_problem(backend: str, legacy_keras: bool = False) -> Finding | None:
    """E03 when Keras does not run on TensorFlow (or tf_keras replaces Keras 3), else None."""
    if backend != "tensorflow":
        return finding(
            "E03",
            f"Keras runs on the {backend!r} backend; tfnb_debug instruments Keras 3 on TensorFlow "
            "and registered no magics",
            place="keras.backend",
            evidence=f"keras.backend.backend() == {backend!r}",
            hint="set KERAS_BACKEND=tensorflow before Python starts (or in ~/.keras/keras.json), "
            "restart the kernel, and load the extension again",
        )
    if legacy_keras:
        return finding(
            "E03",
            "TF_USE_LEGACY_KERAS is set, so tf.keras is Keras 2 (tf_keras), which tfnb_debug "
            "does not instrument; registered no magics",
            place="TF_USE_LEGACY_KERAS",
            evidence=f"TF_USE_LEGACY_KERAS={os.environ.get('TF_USE_LEGACY_KERAS')!r}",
            hint="unset TF_USE_LEGACY_KERAS, restart the kernel, and build models with `import keras`",
        )
    return None


def enable_memory_growth(
    list_gpus: Callable[[], Sequence[Any]] | None = None,
    set_growth: Callable[[Any, bool], None] | None = None,
    get_growth: Callable[[Any], bool] | None = None,
) -> MemoryGrowthResult:
    """Turn on memory growth for every physical GPU.

    Only lists physical devices, which does not initialize the runtime.  When
    the GPUs were initialized already, ``set_memory_growth`` raises
    ``RuntimeError``; that becomes finding E01 instead of an error.  The three
    callables default to TensorFlow's own functions; they are a seam for tests
    on machines without a GPU.
    """
    import tensorflow as tf

    list_gpus = list_gpus or (lambda: tf.config.list_physical_devices("GPU"))
    set_growth = set_growth or tf.config.experimental.set_memory_growth
    get_growth = get_growth or tf.config.experimental.get_memory_growth
    gpus = list(list_gpus())
    states: list[GpuGrowth] = []
    failed: list[str] = []
    reason = ""
    for gpu in gpus:
        name = _device_name(gpu)
        try:
            set_growth(gpu, True)
        except (RuntimeError, ValueError) as err:
            failed.append(name)
            reason = reason or first_line(err)
        try:
            growth: bool | None = bool(get_growth(gpu))
        except (RuntimeError, ValueError):
            growth = None
        states.append(GpuGrowth(name, growth))
    findings: list[Finding] = []
    not_growing = [s.name for s in states if s.growth is not True]
    if failed and not_growing:
        findings.append(
            finding(
                "E01",
                "the GPUs were already initialized when tfnb_debug loaded, so memory growth "
                f"could not be turned on for {', '.join(not_growing)}: TensorFlow may hold the "
                "whole card",
                place=", ".join(not_growing),
                evidence=reason,
                hint=_LOAD_FIRST,
            )
        )
    return MemoryGrowthResult(tuple(states), tuple(findings))


def status_line(backend: str, growth: MemoryGrowthResult | None) -> str:
    """The one line printed at load: versions, backend, GPUs and their memory growth."""
    import keras
    import tensorflow as tf

    devices = growth.describe() if growth is not None else "devices not checked"
    return (
        f"tfnb_debug {__version__} | TensorFlow {tf.__version__} | Keras {keras.__version__} "
        f"(backend: {backend}) | {devices}"
    )


@dataclass(frozen=True, kw_only=True, repr=False)
class EnvReport(Report):
    """What ``%tfenv`` shows; every field is a plain value."""

    python: str
    tensorflow: str
    keras: str
    backend: str
    cuda_build: bool
    cuda_version: str | None
    cudnn_version: str | None
    cpu_count: int
    intra_op_threads: int
    inter_op_threads: int
    host_memory_total: int
    host_memory_available: int
    mixed_precision_policy: str


def check_environment(*, matmul_size: int = 256) -> EnvReport:
    """Collect the environment check every TensorFlow guide starts with."""
    import keras
    import psutil
    import tensorflow as tf

    backend, legacy = keras_backend()
    build = dict(tf.sysconfig.get_build_info())
    cuda_build = bool(build.get("is_cuda_build", False))
    physical = tf.config.list_physical_devices()
    gpus = [d for d in physical if d.device_type == "GPU"]
    findings: list[Finding] = []
    problem = backend_problem(backend, legacy)
    if problem is not None:
        findings.append(problem)

    device_rows = []
    for dev in physical:
        growth: str = "-"
        if dev.device_type == "GPU":
            try:
                growth = "on" if tf.config.experimental.get_memory_growth(dev) else "off"
            except (RuntimeError, ValueError):
                growth = "unknown"
        device_rows.append(("physical", dev.name, dev.device_type, growth))
    logical = tf.config.list_logical_devices()
    for dev in logical:
        device_rows.append(("logical", dev.name, dev.device_type, "-"))

    off = [d.name for d in gpus if _growth_of(tf, d) is False]
    if off:
        findings.append(
            finding(
                "E01",
                f"memory growth is off for {', '.join(off)}: TensorFlow may reserve the whole card",
                place=", ".join(off),
                evidence="tf.config.experimental.get_memory_growth(...) is False",
                hint=_LOAD_FIRST,
            )
        )
    if not gpus:
        if cuda_build:
            findings.append(
                finding(
                    "E02",
                    "TensorFlow is built with CUDA but sees no GPU",
                    place="tf.config.list_physical_devices('GPU')",
                    evidence=f"CUDA {build.get('cuda_version')}, cuDNN {build.get('cudnn_version')}, 0 GPUs",
                    hint="check `nvidia-smi`, the driver version and CUDA_VISIBLE_DEVICES; "
                    "everything runs on the CPU meanwhile",
                )
            )
        else:
            findings.append(
                finding(
                    "E02",
                    "this TensorFlow is a CPU-only build: everything runs on the CPU",
                    place="tf.sysconfig.get_build_info()",
                    evidence="is_cuda_build is False",
                    hint="for an NVIDIA GPU on Linux, install `tensorflow[and-cuda]` instead of "
                    "tensorflow-cpu",
                )
            )

    matmul_rows = [_matmul_on(tf, dev.name, matmul_size) for dev in logical]
    vm = psutil.virtual_memory()
    policy = keras.mixed_precision.global_policy().name
    intra = tf.config.threading.get_intra_op_parallelism_threads()
    inter = tf.config.threading.get_inter_op_parallelism_threads()
    cpus = os.cpu_count() or 1
    versions = Table(
        "versions",
        ("item", "value"),
        (
            ("Python", platform.python_version()),
            ("tfnb_debug", __version__),
            ("TensorFlow", tf.__version__),
            ("Keras", keras.__version__),
            ("Keras backend", backend),
            ("built with CUDA", cuda_build),
            ("CUDA (build)", build.get("cuda_version") or "-"),
            ("cuDNN (build)", build.get("cudnn_version") or "-"),
            ("CPU count", cpus),
            ("intra-op threads", f"{intra} (0 = TensorFlow picks)"),
            ("inter-op threads", f"{inter} (0 = TensorFlow picks)"),
            (
                "host memory",
                f"{format_bytes(vm.total)} total, {format_bytes(vm.available)} available",
            ),
            ("mixed-precision policy", policy),
        ),
    )
    devices = Table("devices", ("kind", "device", "type", "memory growth"), tuple(device_rows))
    matmul = Table(
        "matmul check",
        ("device asked", "result landed on", "size", "ms"),
        tuple(matmul_rows),
    )
    summary = (
        f"TensorFlow {tf.__version__}, Keras {keras.__version__} on {backend}; "
        f"{len(gpus)} GPU(s); policy {policy}",
    )
    return EnvReport(
        title="tfnb_debug environment check",
        summary=summary,
        findings=sort_findings(findings),
        tables=(versions, devices, matmul),
        python=platform.python_version(),
        tensorflow=tf.__version__,
        keras=keras.__version__,
        backend=backend,
        cuda_build=cuda_build,
        cuda_version=build.get("cuda_version"),
        cudnn_version=build.get("cudnn_version"),
        cpu_count=cpus,
        intra_op_threads=intra,
        inter_op_threads=inter,
        host_memory_total=int(vm.total),
        host_memory_available=int(vm.available),
        mixed_precision_policy=policy,
    )


def _growth_of(tf: Any, device: Any) -> bool | None:
    try:
        return bool(tf.config.experimental.get_memory_growth(device))
    except (RuntimeError, ValueError):
        return None


def _matmul_on(tf: Any, device: str, size: int) -> tuple[str, str, str, float | str]:
    try:
        with tf.device(device):
            a = tf.random.stateless_uniform((size, size), seed=(1, 2))
            tf.matmul(a, a).numpy()  # warm-up
            start = time.perf_counter()
            c = tf.matmul(a, a)
            c.numpy()
            elapsed = (time.perf_counter() - start) * 1000
        return device, c.device, f"{size}x{size}", elapsed
    except Exception as err:  # a device that cannot run a matmul is itself worth showing
        return device, f"failed: {first_line(err)}", f"{size}x{size}", "-"


def _device_name(device: Any) -> str:
    name = getattr(device, "name", str(device))
    return str(name).replace("/physical_device:", "")
