"""The environment check and GPU memory growth, on this machine's real TensorFlow."""

from __future__ import annotations

from typing import Any

import pytest
import tensorflow as tf

from tfnb_debug.env import check_environment, enable_memory_growth


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
