"""The memory rules and the plot on hand-made numbers (fast, no TensorFlow)."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from tfnb_debug.diagnostics.memory import (
    MemoryThresholds,
    budget_findings,
    capacity_findings,
    fit_trend,
    growth_finding,
    oom_finding,
)
from tfnb_debug.features.memory import MemoryReport, MemorySeries, memory_section, with_memory
from tfnb_debug.ground.reports import Report, finding

MiB = 2**20
T = MemoryThresholds()


def _r01(ys: list[float], thresholds: MemoryThresholds = T) -> bool:
    xs = [float(i) for i in range(len(ys))]
    return (
        growth_finding(
            "host RSS", fit_trend(xs, ys, thresholds), per_step=True, thresholds=thresholds
        )
        is not None
    )


def _noise(i: int) -> float:
    return ((i * 7919) % 13 - 6) * 50_000.0  # deterministic +-300 KB jitter


def test_steady_climb_fires_and_flat_noise_does_not() -> None:
    base = 800 * MiB
    assert _r01([base + i * 1 * MiB + _noise(i) for i in range(60)])
    assert not _r01([base + _noise(i) for i in range(60)])


def test_one_off_allocation_is_not_a_leak() -> None:
    """A cache of 200 MiB built once in the middle: a big rise, but in one window only."""
    ys = [800 * MiB + (200 * MiB if i >= 30 else 0) + _noise(i) for i in range(60)]
    xs = [float(i) for i in range(60)]
    trend = fit_trend(xs, ys, T)
    assert trend is not None and trend.rise > T.growth_min_bytes  # the line does rise...
    assert not _r01(ys)  # ...but not steadily


def test_two_steps_are_not_steady_but_a_slow_chunky_leak_is() -> None:
    two = [800 * MiB + 100 * MiB * (i >= 20) + 100 * MiB * (i >= 40) for i in range(60)]
    assert not _r01(two)
    # RSS grows in 8 MiB chunks every 4 steps (allocator arenas): still a steady leak.
    chunky = [800 * MiB + 8 * MiB * (i // 4) for i in range(60)]
    assert _r01(chunky)


def test_growth_thresholds_are_overridable() -> None:
    small = [800 * MiB + i * 100_000 for i in range(60)]  # 6 MB over 60 steps
    assert not _r01(small)
    assert _r01(small, MemoryThresholds(growth_min_bytes=1 * MiB))
    assert not _r01([800 * MiB + i * MiB for i in range(6)])  # too few points


def test_time_based_message_says_so() -> None:
    xs = [i * 0.05 for i in range(40)]
    ys = [800 * MiB + i * MiB for i in range(40)]
    found = growth_finding("host RSS", fit_trend(xs, ys, T), per_step=False, thresholds=T)
    assert found is not None
    assert "no training steps were seen" in found.message
    assert "per second" in found.message


def test_capacity_and_budget_and_oom() -> None:
    assert capacity_findings("GPU:0 allocator", 95, 100, T)[0].code == "R02"
    assert capacity_findings("GPU:0 allocator", 80, 100, T) == []
    assert capacity_findings("host malloc heap", 80, None, T) == []
    assert budget_findings("m", 2 * MiB, 1 * MiB, "GPU:0", "w", T)[0].code == "M06"
    assert budget_findings("m", 1 * MiB, 2 * MiB, "GPU:0", "w", T) == []
    # under a lower budget the message names that budget, not "more than the device has"
    half = MemoryThresholds(budget_fraction=0.5)
    (over_half,) = budget_findings("m", 3 * MiB, 4 * MiB, "GPU:0", "w", half)
    assert "more than 50% of what GPU:0 has" in over_half.message
    assert (
        "more than GPU:0 has" in budget_findings("m", 2 * MiB, 1 * MiB, "GPU:0", "w", T)[0].message
    )
    oom = oom_finding(
        "ResourceExhaustedError",
        "OOM when allocating tensor with shape[8,1024,1024] and type float on GPU:0 by allocator GPU_0_bfc [Op:Fill]",
    )
    assert oom is not None and oom.code == "R03"
    assert "shape[8,1024,1024]" in oom.evidence
    assert oom_finding("ValueError", "OOM when allocating") is None


def _hand_made_report() -> MemoryReport:
    host = MemorySeries(
        name="host RSS",
        kind="host",
        capacity=16 * 1024 * MiB,
        times=(0.0, 0.1, 0.2, 0.3),
        current=(800 * MiB, 900 * MiB, 850 * MiB, 820 * MiB),
        allocator_peak=None,
    )
    gpu = MemorySeries(
        name="GPU:0 allocator",
        kind="device",
        capacity=1024 * MiB,
        times=(0.0, 0.1, 0.2, 0.3),
        current=(0, 600 * MiB, 950 * MiB, 100 * MiB),
        allocator_peak=990 * MiB,
    )
    return MemoryReport(
        title="hand made",
        summary=("4 samples",),
        findings=(finding("R02", "GPU:0 allocator peaked", place="GPU:0 allocator"),),
        interval_ms=100.0,
        duration_s=0.3,
        series=(host, gpu),
        step_times=(0.05, 0.15, 0.25),
        step_sources=("fit",),
        gpu_count=1,
    )


def test_series_properties() -> None:
    report = _hand_made_report()
    gpu = report.series_named("GPU:0 allocator")
    assert gpu.peak == 990 * MiB  # the allocator's own peak beats the samples
    assert gpu.peak_time == 0.2
    assert report.series_named("host RSS").delta == 20 * MiB
    with pytest.raises(KeyError, match="GPU:1"):
        report.series_named("GPU:1")


def test_plot_is_svg_with_a_panel_per_kind_peaks_and_steps() -> None:
    from tfnb_debug.render.memory import memory_plot_html

    pyplot = sys.modules.get("matplotlib.pyplot")
    before = pyplot.get_fignums() if pyplot is not None else []
    html = memory_plot_html(_hand_made_report())
    assert html.count("<svg") == 2  # host panel and device panel
    assert ">host memory</text>" in html and ">TensorFlow allocators</text>" in html
    assert ">peak 900.0 MiB</text>" in html
    assert "(allocator peak 990.0 MiB)</text>" in html
    assert html.count(">training steps (3)</text>") == 2  # in each panel's legend
    pyplot = sys.modules.get("matplotlib.pyplot")
    assert (pyplot.get_fignums() if pyplot is not None else []) == before
    empty = dataclasses.replace(_hand_made_report(), series=())
    assert "no memory readings" in memory_plot_html(empty)


def test_memory_section_joins_another_report() -> None:
    memory = _hand_made_report()
    other = Report(title="other", findings=(finding("E02", "cpu only"),))
    joined = with_memory(other, memory)
    assert joined.codes() == ["R02", "E02"]  # warnings before info
    assert joined.sections[-1].title == "memory over the cell's run"
    assert "<svg" in joined.to_html()
    assert "GPU:0 allocator" in joined.to_text()
    assert with_memory(other, None) is other
    assert memory_section(memory).text.startswith("4 samples")


def test_sampler_thins_long_runs_and_stops_on_a_failing_probe() -> None:
    from tfnb_debug.collect.memory import MemoryProbe, MemorySampler

    counter = iter(range(10_000))
    probe = MemoryProbe("n", "host", lambda: (next(counter), None))
    sampler = MemorySampler([probe], 0.01, max_samples=8)
    for _ in range(20):
        sampler.sample()
    assert len(sampler.times) < 8
    assert sampler.interval_s > 0.01  # doubled at each thinning
    (record,) = sampler.records()
    assert list(record.current) == sorted(record.current)  # still in time order

    def broken() -> tuple[int, int | None]:
        raise OSError("/proc is gone")

    failing = MemorySampler([MemoryProbe("b", "host", broken)], 0.001)
    failing.start()
    failing.stop()
    assert not failing.alive
    assert failing.errors and "OSError: /proc is gone" in failing.errors[0]
