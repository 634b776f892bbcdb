"""The environment check and GPU memory growth, on this machine's real TensorFlow."""

from __future__ import annotations

from typing import Any

import pytest
import tensorflow as tf

from tfnb_debug.features.env import check_environment, enable_memory_growth


def test_check_environment_reports_real_values() -> None:
    import keras

    report = check_environment(matmul_size=32)
    assert report.tensorflow == tf.__version__
    assert report.keras == keras.__version__
    assert report.backend == "tensorflow"
    assert report.cuda_build == bool(tf.sysconfig.get_build_info().get("is_cuda_build"))
    devices = report.to_dataframe("devices")
    assert set(devices["device"]) >= {d.name for d in tf.config.list_logical_devices()}
    matmul = report.to_dataframe("matmul check")
    assert len(matmul) == len(tf.config.list_logical_devices())
    # The result of each matmul landed on the device it was asked for.
    for asked, landed in zip(matmul["device asked"], matmul["result landed on"], strict=True):
        assert landed.endswith(asked.split("device:")[-1])
    has_gpu = bool(tf.config.list_physical_devices("GPU"))
    assert ("E02" in report.codes()) != has_gpu
    assert report.mixed_precision_policy == keras.mixed_precision.global_policy().name


class _FakeGpu:
    """Stands in for the device list only (no GPU on this machine)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.device_type = "GPU"


def test_memory_growth_already_initialized_gives_e01() -> None:
    gpus = [_FakeGpu("/physical_device:GPU:0"), _FakeGpu("/physical_device:GPU:1")]

    def set_growth(device: Any, value: bool) -> None:
        raise RuntimeError("Physical devices cannot be modified after being initialized")

    result = enable_memory_growth(lambda: gpus, set_growth, lambda device: False)
    assert [f.code for f in result.findings] == ["E01"]
    text = result.findings[0].to_text()
    assert text.startswith("E01 memory-growth-not-set (warning)")
    assert "GPU:0" in text and "GPU:1" in text and "first cell" in text
    assert "memory growth OFF" in result.describe()


def test_memory_growth_set_on_every_gpu() -> None:
    state: dict[str, bool] = {}
    gpus = [_FakeGpu("/physical_device:GPU:0"), _FakeGpu("/physical_device:GPU:1")]

    def set_growth(device: Any, value: bool) -> None:
        state[device.name] = value

    result = enable_memory_growth(lambda: gpus, set_growth, lambda d: state.get(d.name, False))
    assert result.findings == ()
    assert all(g.growth for g in result.gpus) and len(result.gpus) == 2
    assert "GPU:0 (memory growth on)" in result.describe()


def test_no_gpus_is_cpu_only() -> None:
    result = enable_memory_growth(lambda: [])
    assert result.describe() == "CPU only" and result.findings == ()


@pytest.mark.gpu
@pytest.mark.skipif(not tf.config.list_physical_devices("GPU"), reason="needs a visible GPU")
def test_real_gpu_growth_on_after_load(bare_shell: Any) -> None:
    from IPython.utils.capture import capture_output

    with capture_output():
        bare_shell.run_line_magic("load_ext", "tfnb_debug")
    try:
        for gpu in tf.config.list_physical_devices("GPU"):
            assert tf.config.experimental.get_memory_growth(gpu) is True
    finally:
        with capture_output():
            bare_shell.run_line_magic("unload_ext", "tfnb_debug")


def _facts(**changes: Any) -> Any:
    from dataclasses import replace

    from tfnb_debug.diagnostics.env import EnvFacts

    plain = EnvFacts(
        python="3.11",
        tfnb_debug="0",
        tensorflow="2",
        keras="3",
        backend="tensorflow",
        legacy_keras=False,
        cuda_build=True,
        cuda_version="12",
        cudnn_version="9",
        cpu_count=4,
        intra_op_threads=0,
        inter_op_threads=0,
        host_memory_total=2**34,
        host_memory_available=2**33,
        mixed_precision_policy="float32",
        gpus=("/physical_device:GPU:0",),
        growth_off=(),
    )
    return replace(plain, **changes)


def test_env_rules_over_plain_facts() -> None:
    from tfnb_debug.diagnostics.env import run_rules

    assert run_rules(_facts()) == []  # a GPU with memory growth on: nothing to say
    (e01,) = run_rules(_facts(growth_off=("/physical_device:GPU:0",)))
    assert e01.code == "E01" and e01.place == "/physical_device:GPU:0"
    (cuda,) = run_rules(_facts(gpus=()))
    assert cuda.code == "E02" and "built with CUDA but sees no GPU" in cuda.message
    assert cuda.evidence == "CUDA 12, cuDNN 9, 0 GPUs"
    (cpu,) = run_rules(_facts(gpus=(), cuda_build=False))
    assert cpu.code == "E02" and "CPU-only build" in cpu.message
    assert [f.code for f in run_rules(_facts(backend="jax", gpus=()))] == ["E03", "E02"]


def test_env_tables_are_laid_out_from_the_facts() -> None:
    from tfnb_debug.diagnostics.env import DeviceRow
    from tfnb_debug.render.env import report_summary, report_tables

    facts = _facts(devices=(DeviceRow("physical", "/physical_device:GPU:0", "GPU", "on"),))
    versions, devices, matmul = report_tables(facts)
    assert dict(versions.rows)["host memory"] == "16.0 GiB total, 8.0 GiB available"
    assert devices.rows == (("physical", "/physical_device:GPU:0", "GPU", "on"),)
    assert matmul.rows == ()
    assert report_summary(facts) == (
        "TensorFlow 2, Keras 3 on tensorflow; 1 GPU(s); policy float32",
    )
