"""The environment check (``%tfenv``) and GPU memory growth at load (findings E01-E03).

This module reads TensorFlow into plain :class:`~tfnb_debug.diagnostics.env.EnvFacts`;
the rules are in ``diagnostics/env.py``, the tables in ``render/env.py``.
"""

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
from tfnb_debug.diagnostics.env import (
    DeviceRow,
    EnvFacts,
    backend_problem,
    memory_growth_not_set,
    run_rules,
)
from tfnb_debug.ground.reports import Finding, Report, sort_findings
from tfnb_debug.ground.text import first_line

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
    not_growing = [s.name for s in states if s.growth is not True]
    findings = (memory_growth_not_set(not_growing, reason),) if failed and not_growing else ()
    return MemoryGrowthResult(tuple(states), findings)


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
    from tfnb_debug.render.env import report_summary, report_tables

    facts = _env_facts(matmul_size)
    return EnvReport(
        title="tfnb_debug environment check",
        summary=report_summary(facts),
        findings=sort_findings(run_rules(facts)),
        tables=report_tables(facts),
        python=facts.python,
        tensorflow=facts.tensorflow,
        keras=facts.keras,
        backend=facts.backend,
        cuda_build=facts.cuda_build,
        cuda_version=facts.cuda_version,
        cudnn_version=facts.cudnn_version,
        cpu_count=facts.cpu_count,
        intra_op_threads=facts.intra_op_threads,
        inter_op_threads=facts.inter_op_threads,
        host_memory_total=facts.host_memory_total,
        host_memory_available=facts.host_memory_available,
        mixed_precision_policy=facts.mixed_precision_policy,
    )


def _env_facts(matmul_size: int) -> EnvFacts:
    """Read versions, devices, threads and memory, and run one matmul per logical device."""
    import keras
    import psutil
    import tensorflow as tf

    backend, legacy = keras_backend()
    build = dict(tf.sysconfig.get_build_info())
    physical = tf.config.list_physical_devices()
    gpus = [d for d in physical if d.device_type == "GPU"]
    devices = []
    for dev in physical:
        growth = "-"
        if dev.device_type == "GPU":
            growth = {True: "on", False: "off", None: "unknown"}[_growth_of(tf, dev)]
        devices.append(DeviceRow("physical", dev.name, dev.device_type, growth))
    logical = tf.config.list_logical_devices()
    devices += [DeviceRow("logical", dev.name, dev.device_type, "-") for dev in logical]
    vm = psutil.virtual_memory()
    return EnvFacts(
        python=platform.python_version(),
        tfnb_debug=__version__,
        tensorflow=tf.__version__,
        keras=keras.__version__,
        backend=backend,
        legacy_keras=legacy,
        cuda_build=bool(build.get("is_cuda_build", False)),
        cuda_version=build.get("cuda_version"),
        cudnn_version=build.get("cudnn_version"),
        cpu_count=os.cpu_count() or 1,
        intra_op_threads=tf.config.threading.get_intra_op_parallelism_threads(),
        inter_op_threads=tf.config.threading.get_inter_op_parallelism_threads(),
        host_memory_total=int(vm.total),
        host_memory_available=int(vm.available),
        mixed_precision_policy=keras.mixed_precision.global_policy().name,
        gpus=tuple(d.name for d in gpus),
        growth_off=tuple(d.name for d in gpus if _growth_of(tf, d) is False),
        devices=tuple(devices),
        matmul=tuple(_matmul_on(tf, dev.name, matmul_size) for dev in logical),
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
