"""What a ``%%tfgrad`` / ``%%tfcheck`` cell costs per cell, against the plain ``fit`` in one process.

The cells run through a real IPython shell, as in a notebook.  For each model:

* ``first cell``: the first instrumented cell after a plain fit (the plain
  train function is traced already; the instrumented one is not), with ``-q``
  and with the report shown;
* ``fresh model's first cell``: the first ``-q`` cell on a fresh identical
  model, never fit, against another fresh identical model's first plain
  ``fit`` (both in this process, one after the other);
* ``repeated cell``: the same cell run again (a notebook's re-run); also with
  ``validation_data`` (``fit`` then evaluates too), against the plain ``fit``
  with the same validation;
* ``steady state``: the second epoch of a two-epoch cell (no fixed cost in it).

Each figure is the median of ``--repeats`` runs, as a ratio to the plain
``fit`` of the same epochs measured in the same process, interleaved; wall
time and the process's CPU time (all threads), which other jobs on a shared
machine disturb less.  Cells
run with ``-q`` (no report shown) and, for ``displayed``, with the report's
HTML form built as a notebook would when it shows the report.

Models: the small CNN of ``bench_tfgrad.py`` (128 steps of batch 16, one epoch
per cell), and, with ``--deep``, a U-Net-like segmentation model and a small
Transformer text classifier written as in the official Keras examples
("Image segmentation with a U-Net-like architecture", "Text classification
with Transformer"), at sizes a CPU runs in a second; with ``--mobilenet``,
MobileNetV2 (``weights=None``, 96x96 inputs, 10 classes: 158 trainable
variables, the model a transfer-learning notebook trains).

Each row also gives what recording costs per step: the cell's extra wall time
over the plain ``fit`` divided by the steps, in ms and as a share of a plain
step (for a first cell it holds the one-off tracing too).

``--profile`` prints where the fixed cost of a cell goes instead (cProfile,
cumulative seconds of selected functions, first and repeated cell).

Run::

    python benchmarks/bench_tfgrad_cells.py [--repeats 3] [--deep] [--mobilenet] [--check] [--profile]
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import pstats  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from bench_tfgrad import build as small_cnn  # noqa: E402  (the same small CNN)


def unet(keras: Any, size: int = 32, classes: int = 3) -> Any:
    """The Keras example's U-Net-like (Xception-style) segmentation model, on small images."""
    layers = keras.layers
    inputs = keras.Input(shape=(size, size, 3))
    x = layers.Conv2D(32, 3, strides=2, padding="same")(inputs)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    previous = x
    for filters in [64, 128, 256]:
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
        residual = layers.Conv2D(filters, 1, strides=2, padding="same")(previous)
        x = layers.add([x, residual])
        previous = x
    for filters in [256, 128, 64, 32]:
        x = layers.Activation("relu")(x)
        x = layers.Conv2DTranspose(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.Conv2DTranspose(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.UpSampling2D(2)(x)
        residual = layers.UpSampling2D(2)(previous)
        residual = layers.Conv2D(filters, 1, padding="same")(residual)
        x = layers.add([x, residual])
        previous = x
    outputs = layers.Conv2D(classes, 3, activation="softmax", padding="same")(x)
    model = keras.Model(inputs, outputs, name="unet")
    model.compile(keras.optimizers.Adam(1e-4), "sparse_categorical_crossentropy")
    return model


def transformer(keras: Any, vocab: int = 2000, maxlen: int = 64) -> Any:
    """The Keras example's Transformer text classifier (one block, embed 32, 2 heads)."""
    layers = keras.layers
    ops = keras.ops

    class TransformerBlock(layers.Layer):
        def __init__(self, embed_dim: int, num_heads: int, ff_dim: int, rate: float = 0.1):
            super().__init__()
            self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
            self.ffn = keras.Sequential(
                [layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)]
            )
            self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
            self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
            self.dropout1 = layers.Dropout(rate)
            self.dropout2 = layers.Dropout(rate)

        def call(self, inputs: Any, training: bool = False) -> Any:
            attn = self.dropout1(self.att(inputs, inputs), training=training)
            out1 = self.layernorm1(inputs + attn)
            ffn = self.dropout2(self.ffn(out1), training=training)
            return self.layernorm2(out1 + ffn)

    class TokenAndPositionEmbedding(layers.Layer):
        def __init__(self, maxlen: int, vocab_size: int, embed_dim: int):
            super().__init__()
            self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
            self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

        def call(self, x: Any) -> Any:
            positions = ops.arange(0, ops.shape(x)[-1], 1)
            return self.token_emb(x) + self.pos_emb(positions)

    inputs = layers.Input(shape=(maxlen,))
    x = TokenAndPositionEmbedding(maxlen, vocab, 32)(inputs)
    x = TransformerBlock(32, 2, 32)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.1)(x)
    x = layers.Dense(20, activation="relu")(x)
    x = layers.Dropout(0.1)(x)
    outputs = layers.Dense(2, activation="softmax")(x)
    model = keras.Model(inputs, outputs, name="transformer")
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def mobilenet(keras: Any) -> Any:
    """MobileNetV2 from ``keras.applications``, untrained (no download), on 96x96 images."""
    model = keras.applications.MobileNetV2(weights=None, input_shape=(96, 96, 3), classes=10)
    model.compile("adam", "sparse_categorical_crossentropy")
    return model


def data_for(name: str, steps: int, batch: int) -> tuple[Any, Any]:
    import numpy as np

    rng = np.random.default_rng(0)
    n = steps * batch
    if name == "MobileNetV2":
        return rng.random((n, 96, 96, 3), dtype=np.float32), rng.integers(0, 10, n)
    if name == "small CNN":
        return rng.random((n, 28, 28, 1), dtype=np.float32), rng.integers(0, 10, n)
    if name == "U-Net":
        return rng.random((n, 32, 32, 3), dtype=np.float32), rng.integers(0, 3, (n, 32, 32, 1))
    return rng.integers(0, 2000, (n, 64)), rng.integers(0, 2, n)


def shell_with_extension() -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "tfnb_debug")
    return shell


class Cells:
    """One model in a shell: plain fits and instrumented cells, timed."""

    def __init__(self, shell: Any, keras: Any, name: str, steps: int, batch: int) -> None:
        build = {
            "small CNN": small_cnn,
            "U-Net": unet,
            "Transformer": transformer,
            "MobileNetV2": mobilenet,
        }[name]
        x, y = data_for(name, steps, batch)
        self.shell = shell
        self.name = name
        self.steps = steps
        self.build, self.keras = build, keras
        self.model = build(keras)
        self.variables = len(self.model.trainable_variables)
        shell.user_ns.update(model=self.model, x=x, y=y, batch=batch)

    def own_first_fit(self) -> Timing:
        """The first plain ``fit`` of a fresh identical model (it traces its train function,
        as a first instrumented cell traces the instrumented one)."""
        self.shell.user_ns["fresh"] = self.build(self.keras)
        start = _now()
        self.shell.run_cell("fresh.fit(x, y, batch_size=batch, epochs=1, verbose=0);")
        took = _since(start)
        del self.shell.user_ns["fresh"]
        return took

    def fresh_first_cell(self, magic: str) -> Timing:
        """The first ``-q`` cell on a fresh identical model, never fit (it traces only the
        instrumented train function); the model is dropped afterwards."""
        self.shell.user_ns["model"] = self.build(self.keras)
        try:
            return self.cell(magic)
        finally:
            self.shell.user_ns["model"] = self.model

    def plain(self, epochs: int = 1, validation: bool = False) -> Timing:
        start = _now()
        self.shell.run_cell(_fit(epochs, validation) + ";")
        return _since(start)

    def cell(
        self, magic: str, *, displayed: bool = False, epochs: int = 1, validation: bool = False
    ) -> Timing:
        fit = _fit(epochs, validation)
        start = _now()
        report = self.shell.run_cell_magic(magic, "-q -o", fit)
        if displayed:
            report._repr_mimebundle_()
        return _since(start)

    def forget(self) -> None:
        """Drop whatever tfnb_debug keeps for this model, so the next cell is a first cell."""
        self.shell.run_line_magic("unload_ext", "tfnb_debug")
        self.shell.run_line_magic("load_ext", "tfnb_debug")


Timing = tuple[float, float]  # (wall seconds, CPU seconds of this process, all threads)


def _fit(epochs: int, validation: bool) -> str:
    """The cell's ``fit`` call; with ``validation``, on a quarter of the data as validation."""
    extra = ", validation_data=(x[: len(x) // 4], y[: len(y) // 4])" if validation else ""
    return f"model.fit(x, y, batch_size=batch, epochs={epochs}, verbose=0{extra})"


def _now() -> Timing:
    return time.perf_counter(), time.process_time()


def _since(start: Timing) -> Timing:
    return time.perf_counter() - start[0], time.process_time() - start[1]


def _minus(a: Timing, b: Timing) -> Timing:
    return a[0] - b[0], a[1] - b[1]


def measure(cells: Cells, magic: str, repeats: int) -> dict[str, list[float]]:
    """Per row: median wall seconds, median wall ratio, median CPU seconds, median CPU ratio,
    median extra wall ms per step over the plain ``fit``."""
    import io
    from contextlib import redirect_stdout

    rows: dict[str, list[tuple[float, float, float, float, float]]] = {}

    def add(row: str, seconds: Timing, plain: Timing) -> None:
        per_step = (seconds[0] - plain[0]) / cells.steps * 1000
        rows.setdefault(row, []).append(
            (seconds[0], seconds[0] / plain[0], seconds[1], seconds[1] / plain[1], per_step)
        )

    cells.plain()  # trace the plain train function once
    for _ in range(repeats):
        with redirect_stdout(io.StringIO()):
            cells.forget()
        plain = cells.plain()
        add("plain fit", plain, plain)
        first = cells.cell(magic)
        add("first cell (-q)", first, plain)
        own = cells.own_first_fit()
        add("the model's own first fit (fresh copy)", own, plain)
        add("first cell (-q) / own first fit", first, own)
        plain = cells.plain()
        add("repeated cell (-q)", cells.cell(magic), plain)
        plain = cells.plain()
        add("repeated cell, displayed", cells.cell(magic, displayed=True), plain)
        cells.plain(validation=True)  # the user's evaluation traced (not timed)
        cells.cell(magic, validation=True)  # a first cell with validation (not timed)
        plain = cells.plain(validation=True)
        add("repeated cell, validation_data (-q)", cells.cell(magic, validation=True), plain)
        plain2 = _minus(cells.plain(epochs=2), cells.plain())
        two = _minus(cells.cell(magic, epochs=2), cells.cell(magic))
        add("steady state (one more epoch)", two, plain2)
        with redirect_stdout(io.StringIO()):
            cells.forget()
        plain = cells.plain()
        add("first cell, displayed", cells.cell(magic, displayed=True), plain)
        own = cells.own_first_fit()  # last: the other rows' cells all ran on cells.model
        add("fresh model: first cell / first fit", cells.fresh_first_cell(magic), own)
    return {
        row: [statistics.median(v[i] for v in values) for i in range(5)]
        for row, values in rows.items()
    }


_PROFILED = {
    "trace (tf.function, Python side)": "_create_concrete_function",
    "  per-variable statistics ops": "variable_stats",
    "  loss watch op callback": "_op_callback",
    "  %%tfcheck layer hook": "_layer_hook",
    "read back from device": "read",
    "rules (check_gradients)": "check_gradients",
    "figures (gradient_sections)": "gradient_sections",
    "report built (build_report)": "build_report",
    "HTML form": "_repr_mimebundle_",
    "whole cell": "run_cell_magic",
}


def profile(cells: Cells, magic: str) -> None:
    import io
    from contextlib import redirect_stdout

    cells.plain()
    with redirect_stdout(io.StringIO()):
        cells.forget()
    plain, _ = cells.plain()
    print(
        f"\n{cells.name} ({cells.variables} trainable variables), %%{magic}: plain fit {plain:.2f} s"
    )
    for label in ("first cell", "repeated cell", "repeated cell, not shown"):
        profiler = cProfile.Profile()
        profiler.enable()
        report = cells.shell.run_cell_magic(
            magic, "-q -o", "model.fit(x, y, batch_size=batch, epochs=1, verbose=0)"
        )
        if label != "repeated cell, not shown":
            report._repr_mimebundle_()
        profiler.disable()
        stats = pstats.Stats(profiler)
        found: dict[str, float] = {}
        for (file, _, func), (_, _, _, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
            for row, name in _PROFILED.items():
                if func == name and (
                    "tfnb_debug" in file or "tensorflow" in file or "IPython" in file
                ):
                    found[row] = max(found.get(row, 0.0), cumulative)
        print(f"  {label}:")
        for row in _PROFILED:
            if row in found:
                print(f"    {row:36s} {found[row]:7.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=128, help="steps per epoch (small CNN)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--deep", action="store_true", help="also the U-Net and the Transformer")
    parser.add_argument("--only-deep", action="store_true", help="only the deeper models")
    parser.add_argument(
        "--mobilenet", action="store_true", help="also MobileNetV2 (weights=None, 96x96)"
    )
    parser.add_argument("--only-mobilenet", action="store_true", help="only MobileNetV2")
    parser.add_argument("--check", action="store_true", help="also %%%%tfcheck")
    parser.add_argument("--profile", action="store_true", help="where the fixed cost goes")
    args = parser.parse_args()

    import keras
    import tensorflow as tf

    shell = shell_with_extension()
    models = [] if args.only_deep or args.only_mobilenet else ["small CNN"]
    if args.deep or args.only_deep:
        models += ["U-Net", "Transformer"]
    if args.mobilenet or args.only_mobilenet:
        models += ["MobileNetV2"]
    magics = ["tfgrad", "tfcheck"] if args.check else ["tfgrad"]
    print(
        f"TF {tf.__version__}, Keras {keras.__version__}, {os.cpu_count()} CPU(s); "
        f"small CNN {args.steps} steps of batch {args.batch}, deeper models 16 steps of batch 8"
    )
    for name in models:
        steps, batch = (args.steps, args.batch) if name == "small CNN" else (16, 8)
        cells = Cells(shell, keras, name, steps, batch)
        for magic in magics:
            if args.profile:
                profile(cells, magic)
                continue
            result = measure(cells, magic, args.repeats)
            print(
                f"\n{name} ({cells.variables} trainable variables), %%{magic}, "
                f"median of {args.repeats}:       wall (ratio)      CPU (ratio)   "
                "extra wall per step (share of a plain step)"
            )
            plain_step = result["plain fit"][0] / steps * 1000
            for row, (wall, wall_ratio, cpu, cpu_ratio, per_step) in result.items():
                extra = (
                    ""
                    if row == "plain fit"
                    else f"  {per_step:+7.1f} ms ({per_step / plain_step:+.0%})"
                )
                print(
                    f"  {row:36s} {wall:7.2f} s {wall_ratio:5.2f}x  {cpu:7.2f} s {cpu_ratio:5.2f}x"
                    + (f"  plain step {plain_step:.1f} ms" if row == "plain fit" else extra)
                )


if __name__ == "__main__":
    main()
