"""Rules over the environment: E01 (GPU memory growth off), E02 (no GPU), E03 (not Keras 3 on TF).

Plain facts in, findings out; no TensorFlow here.  :func:`tfnb_debug.features.env.check_environment`
collects :class:`EnvFacts`; :func:`tfnb_debug.features.env.enable_memory_growth` reports
E01 through :func:`memory_growth_not_set` at load.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from tfnb_debug.ground.reports import Finding, finding

__all__ = [
    "DeviceRow",
    "EnvFacts",
    "backend_problem",
    "growth_off",
    "memory_growth_not_set",
    "no_gpu",
    "run_rules",
]

LOAD_FIRST = (
    "load the extension in the first cell, before any TensorFlow code runs "
    "(`%load_ext tfnb_debug`), or restart the kernel and load it first"
)


@dataclass(frozen=True)
class DeviceRow:
    """One device TensorFlow lists: ``kind`` is ``physical`` or ``logical``."""

    kind: str
    name: str
    device_type: str
    memory_growth: str  # on, off, unknown, or - (not a GPU / a logical device)


@dataclass(frozen=True)
class EnvFacts:
    """What ``%tfenv`` read from the running process, as plain values."""

    python: str
    tfnb_debug: str
    tensorflow: str
    keras: str
    backend: str
    legacy_keras: bool
    cuda_build: bool
    cuda_version: str | None
    cudnn_version: str | None
    cpu_count: int
    intra_op_threads: int
    inter_op_threads: int
    host_memory_total: int
    host_memory_available: int
    mixed_precision_policy: str
    gpus: tuple[str, ...]  # physical GPUs
    growth_off: tuple[str, ...]  # physical GPUs whose memory growth is off
    devices: tuple[DeviceRow, ...] = ()
    matmul: tuple[tuple[str, str, str, float | str], ...] = ()  # asked, landed on, size, ms


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


def memory_growth_not_set(not_growing: list[str], reason: str) -> Finding:
    """E01 at load: the GPUs were initialized before tfnb_debug could turn memory growth on."""
    return finding(
        "E01",
        "the GPUs were already initialized when tfnb_debug loaded, so memory growth "
        f"could not be turned on for {', '.join(not_growing)}: TensorFlow may hold the "
        "whole card",
        place=", ".join(not_growing),
        evidence=reason,
        hint=LOAD_FIRST,
    )


def growth_off(facts: EnvFacts) -> list[Finding]:
    """E01 in ``%tfenv``: memory growth is off for a GPU."""
    if not facts.growth_off:
        return []
    off = ", ".join(facts.growth_off)
    return [
        finding(
            "E01",
            f"memory growth is off for {off}: TensorFlow may reserve the whole card",
            place=off,
            evidence="tf.config.experimental.get_memory_growth(...) is False",
            hint=LOAD_FIRST,
        )
    ]


def no_gpu(facts: EnvFacts) -> list[Finding]:
    """E02: TensorFlow sees no GPU (a CUDA build that finds none, or a CPU-only build)."""
    if facts.gpus:
        return []
    if facts.cuda_build:
        return [
            finding(
                "E02",
                "TensorFlow is built with CUDA but sees no GPU",
                place="tf.config.list_physical_devices('GPU')",
                evidence=f"CUDA {facts.cuda_version}, cuDNN {facts.cudnn_version}, 0 GPUs",
                hint="check `nvidia-smi`, the driver version and CUDA_VISIBLE_DEVICES; "
                "everything runs on the CPU meanwhile",
            )
        ]
    return [
        finding(
            "E02",
            "this TensorFlow is a CPU-only build: everything runs on the CPU",
            place="tf.sysconfig.get_build_info()",
            evidence="is_cuda_build is False",
            hint="for an NVIDIA GPU on Linux, install `tensorflow[and-cuda]` instead of "
            "tensorflow-cpu",
        )
    ]


def run_rules(facts: EnvFacts) -> list[Finding]:
    """E03, E01 and E02 over one environment check (the environment has no thresholds)."""
    problem = backend_problem(facts.backend, facts.legacy_keras)
    return [*([problem] if problem is not None else []), *growth_off(facts), *no_gpu(facts)]
