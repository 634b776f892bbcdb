"""How ``%tfenv``'s report is laid out: the summary line and the versions, devices and matmul tables.

Pure functions of :class:`~tfnb_debug.diagnostics.env.EnvFacts`; no TensorFlow.
"""

from __future__ import annotations

from tfnb_debug.diagnostics.env import EnvFacts
from tfnb_debug.ground.reports import Table
from tfnb_debug.ground.values import format_bytes

__all__ = ["report_summary", "report_tables"]


def report_summary(facts: EnvFacts) -> tuple[str, ...]:
    return (
        f"TensorFlow {facts.tensorflow}, Keras {facts.keras} on {facts.backend}; "
        f"{len(facts.gpus)} GPU(s); policy {facts.mixed_precision_policy}",
    )


def report_tables(facts: EnvFacts) -> tuple[Table, ...]:
    memory = (
        f"{format_bytes(facts.host_memory_total)} total, "
        f"{format_bytes(facts.host_memory_available)} available"
    )
    versions = Table(
        "versions",
        ("item", "value"),
        (
            ("Python", facts.python),
            ("tfnb_debug", facts.tfnb_debug),
            ("TensorFlow", facts.tensorflow),
            ("Keras", facts.keras),
            ("Keras backend", facts.backend),
            ("built with CUDA", facts.cuda_build),
            ("CUDA (build)", facts.cuda_version or "-"),
            ("cuDNN (build)", facts.cudnn_version or "-"),
            ("CPU count", facts.cpu_count),
            ("intra-op threads", f"{facts.intra_op_threads} (0 = TensorFlow picks)"),
            ("inter-op threads", f"{facts.inter_op_threads} (0 = TensorFlow picks)"),
            ("host memory", memory),
            ("mixed-precision policy", facts.mixed_precision_policy),
        ),
    )
    devices = Table(
        "devices",
        ("kind", "device", "type", "memory growth"),
        tuple((d.kind, d.name, d.device_type, d.memory_growth) for d in facts.devices),
    )
    matmul = Table("matmul check", ("device asked", "result landed on", "size", "ms"), facts.matmul)
    return versions, devices, matmul
