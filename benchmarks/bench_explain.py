"""Cost of the automatic error diagnosis, against the same shell without it (same process).

Prints medians of several repeats and their ratios:
* a cell that succeeds (the hook only checks ``error_in_exec``);
* a cell that fails with a TensorFlow shape error (traceback + diagnosis box);
* ``explain_exception`` alone on that error.

Run: ``.venv/bin/python benchmarks/bench_explain.py``
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


if __name__ == "__main__":
    main()
