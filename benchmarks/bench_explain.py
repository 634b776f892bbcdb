"""Cost of the automatic error diagnosis, against the same shell without it (same process).

Prints medians of several repeats and their ratios:
* a cell that succeeds (the hook only checks ``error_in_exec``);
* a cell that fails with a TensorFlow shape error (traceback + diagnosis box);
* ``explain_exception`` alone on that error;
* ``explain_exception`` on the real exception of every case of the explain corpus
  (``tests/explain_corpus``) and of the fifth blind set (``tests/explain_fresh5``: saved-model
  loads, custom training loops, preprocessing layers): median, 90th percentile, slowest cases.

Run: ``.venv/bin/python benchmarks/bench_explain.py`` from the repository root.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

OK_CELL = "y = sum(range(100))"
FAILING_CELL = "tf.add(tf.ones((4, 3)), tf.ones((4, 2)))"


def median_seconds(fn: Callable[[], object], *, number: int, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times)


def run(shell: InteractiveShell, code: str) -> None:
    with capture_output():
        shell.run_cell(code, store_history=False)


def main() -> None:
    shell = InteractiveShell.instance()
    run(shell, "import tensorflow as tf")
    run(shell, FAILING_CELL)  # warm up TF's op path and IPython's traceback formatting

    base_ok = median_seconds(lambda: run(shell, OK_CELL), number=200)
    base_fail = median_seconds(lambda: run(shell, FAILING_CELL), number=10)

    with capture_output():
        shell.run_line_magic("load_ext", "tfnb_debug")
    try:
        run(shell, FAILING_CELL)
        auto_ok = median_seconds(lambda: run(shell, OK_CELL), number=200)
        auto_fail = median_seconds(lambda: run(shell, FAILING_CELL), number=10)
    finally:
        with capture_output():
            shell.run_line_magic("unload_ext", "tfnb_debug")

    import tensorflow as tf

    from tfnb_debug.explain import explain_exception

    try:
        tf.add(tf.ones((4, 3)), tf.ones((4, 2)))
    except Exception as err:
        error = err
    explain_only = median_seconds(lambda: explain_exception(error), number=50)

    print(
        f"succeeding cell : {base_ok * 1e6:8.1f} us -> {auto_ok * 1e6:8.1f} us  ratio {auto_ok / base_ok:.3f}"
    )
    print(
        f"failing cell    : {base_fail * 1e3:8.2f} ms -> {auto_fail * 1e3:8.2f} ms  ratio {auto_fail / base_fail:.3f}"
    )
    print(
        f"explain_exception alone: {explain_only * 1e3:.3f} ms ({explain_only / base_fail:.1%} of a failing cell)"
    )
    corpus(shell)


def corpus(shell: InteractiveShell) -> None:
    """Time the diagnosis of every corpus mistake on its real exception (the cell runs once),
    then of the fifth blind set's (saved-model loads, custom loops, preprocessing layers)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.explain_corpus import PRELUDE, all_cases
    from tests.explain_fresh5 import all_cases as fresh5_cases

    run(shell, PRELUDE)
    timed(shell, "corpus", all_cases())
    timed(shell, "explain_fresh5", fresh5_cases())


def timed(shell: InteractiveShell, label: str, cases: list) -> None:
    import textwrap

    from tfnb_debug.explain import explain_exception

    timings: list[tuple[float, str]] = []
    for case in cases:
        with capture_output():
            result = shell.run_cell(textwrap.dedent(case.code).strip("\n"), store_history=False)
        error = result.error_in_exec
        if error is None:
            continue
        timings.append(
            (median_seconds(lambda e=error: explain_exception(e), number=3, repeat=5), case.name)
        )
    values = sorted(t for t, _ in timings)
    p90 = values[int(0.9 * (len(values) - 1))]
    print(
        f"{label} ({len(values)} real errors): explain_exception median "
        f"{statistics.median(values) * 1e3:.2f} ms, p90 {p90 * 1e3:.2f} ms, "
        f"max {values[-1] * 1e3:.2f} ms"
    )
    for seconds, name in sorted(timings, reverse=True)[:5]:
        print(f"  {seconds * 1e3:7.2f} ms  {name}")


if __name__ == "__main__":
    main()
