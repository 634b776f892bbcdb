"""Each covered TensorFlow/Keras error, raised for real in a real shell, gets its finding under the traceback."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import ExecutionResult, InteractiveShell
from IPython.utils.capture import capture_output


@dataclass
class Cell:
    """A cell run through ``shell.run_cell``: its result, printed traceback and displayed boxes."""

    result: ExecutionResult
    stdout: str
    outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def boxes(self) -> list[dict[str, Any]]:
        return [o for o in self.outputs if "tfnb-explain" in o.get("text/html", "")]

    @property
    def text(self) -> str:
        return "\n".join(o["text/plain"] for o in self.boxes)

    def finding(self, code: str) -> str:
        """The text/plain line of the finding ``code`` in the box (fails if absent)."""
        lines = [line for line in self.text.splitlines() if line.startswith(code + " ")]
        assert lines, (
            f"no {code} in the diagnosis box:\n{self.text or '(no box)'}\n{self.stdout[-2000:]}"
        )
        return lines[0]


def run(shell: InteractiveShell, code: str) -> Cell:
    with capture_output() as captured:
        result = shell.run_cell(textwrap.dedent(code).lstrip("\n"), store_history=False)
    return Cell(result, captured.stdout, [o.data for o in captured.outputs])


PRELUDE = """
import numpy as np
import tensorflow as tf
import keras
"""


@pytest.fixture
def tfshell(shell: InteractiveShell) -> InteractiveShell:
    cell = run(shell, PRELUDE)
    assert cell.result.success, cell.stdout
    return shell


def test_s01_missing_flatten_names_the_model_and_shapes(tfshell: InteractiveShell) -> None:
    cell = run(
        tfshell,
        """
        model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(10)], name="mlp")
        model(np.zeros((2, 28, 28), "float32"))
        """,
    )
    assert cell.result.success is False
    line = cell.finding("S01")
    assert "at layer 'mlp'" in line
    assert "(2, 28, 28)" in line and "(None, 784)" in line
    assert "Flatten is missing" in line
    assert "%%tfshape" in cell.text or "model.summary()" in cell.text

    fixed = run(
        tfshell,
        """
        model = keras.Sequential([keras.Input((28, 28)), keras.layers.Flatten(), keras.layers.Dense(10)])
        model(np.zeros((2, 28, 28), "float32"))
        """,
    )
    assert fixed.result.success and fixed.boxes == []


def test_s01_layer_rank_names_layer_and_missing_axis(tfshell: InteractiveShell) -> None:
    cell = run(
        tfshell,
        """
        model = keras.Sequential([keras.Input((28, 28)), keras.layers.Conv2D(4, 3, name="conv_a")])
        """,
    )
    line = cell.finding("S01")
    assert "at layer 'conv_a'" in line
    assert "received (None, 28, 28), expected min_ndim=4" in line
    assert "input dtype float32 from layer '" in line  # the Input layer that produced it
    assert "channel axis" in line
    ok = run(
        tfshell, "model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(4, 3)])"
    )
    assert ok.result.success and ok.boxes == []


@pytest.mark.parametrize("strides", [2, 1])
def test_s01_skip_branch_not_downsampled(tfshell: InteractiveShell, strides: int) -> None:
    cell = run(
        tfshell,
        f"""
        inp = keras.Input((32, 32, 3))
        a = keras.layers.Conv2D(8, 3, padding="same")(inp)
        b = keras.layers.Conv2D(8, 3, strides={strides}, padding="same")(a)
        out = keras.layers.Concatenate(name="merge")([a, b])
        """,
    )
    if strides == 1:
        assert cell.result.success and cell.boxes == []
        return
    line = cell.finding("S01")
    assert "at layer 'merge'" in line
    assert "(None, 32, 32, 8), (None, 16, 16, 8)" in line
    assert "skip branch is not downsampled" in line and "strides=2" in line


def test_s07_loss_on_incompatible_shapes_names_op_and_loss(tfshell: InteractiveShell) -> None:
    code = """
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(2)])
        model.compile("sgd", "mse")
        model.fit(np.zeros((8, 5), "float32"), np.zeros((8, {width}), "float32"), verbose=0)
        """
    cell = run(tfshell, code.format(width=3))
    assert cell.result.success is False
    line = cell.finding("S07")
    assert "at op Sub in the loss 'mse'" in line
    assert "[?,3], [?,2]" in line
    # the label input (data_1) and the output differ on the last axis only: units vs columns
    assert "the model output has 2 units but the labels have 3 columns" in line
    assert "batch" not in line.split(" -- ")[1]
    ok = run(tfshell, code.format(width=2))
    assert ok.result.success and ok.boxes == []


def test_s07_eager_op_and_graph_gradient(tfshell: InteractiveShell) -> None:
    eager = run(tfshell, "tf.add(tf.ones((4, 3)), tf.ones((4, 2)))")
    line = eager.finding("S07")
    assert "at op AddV2" in line and "[4,3] vs [4,2]" in line
    assert "broadcast" in line
    graph = run(
        tfshell,
        """
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(2)])
        model.compile("sgd", "mse")
        ds = tf.data.Dataset.from_generator(
            lambda: iter([(np.zeros((4, 5), "float32"), np.zeros((4, 3), "float32"))]),
            output_signature=(tf.TensorSpec((None, 5)), tf.TensorSpec((None, None))),
        )
        model.fit(ds, verbose=0, shuffle=False)
        """,
    )
    line = graph.finding("S07")
    # TensorFlow may run the loss's forward `sub` or its gradient first: either op is named,
    # and the message must say which one it was.
    if "at op sub " in line:
        assert "in the loss 'mse'" in line
    else:
        assert "in the gradient of the loss 'mse'" in line
    assert "[4,3] vs [4,2]" in line
    assert "defined at Cell In[" in line and "line 7" in line  # the model.fit line


def test_s07_loss_rank_points_to_missing_pooling(tfshell: InteractiveShell) -> None:
    cell = run(
        tfshell,
        """
        model = keras.Sequential([keras.Input((8, 8)), keras.layers.Dense(3)])
        model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(np.zeros((8, 8, 8), "float32"), np.zeros((8,), "int32"), verbose=0)
        """,
    )
    line = cell.finding("S07")
    assert "(sparse_categorical_crossentropy)" in line
    assert "the labels (8,) have one value per example" in line
    assert "output (None, 8, 3) keeps axis 8" in line
    # the axis is the data's own and Dense keeps it: pool it where it enters, the input
    assert "come from the input" in line and "act" in line
    assert "Flatten() or GlobalAveragePooling1D() as the first layer" in line
    assert "return_sequences" not in line  # no RNN on the path


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ("[0, 1, 2, 5]", "give the last layer 6 units"),
        ("[1, 2, 3, 3]", "1-based"),
        ("[0, 1, 2, 2]", None),
    ],
)
def test_p12_label_out_of_range(
    tfshell: InteractiveShell, labels: str, expected: str | None
) -> None:
    cell = run(
        tfshell,
        f"""
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
        model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(np.zeros((4, 5), "float32"), np.array({labels}), batch_size=4, verbose=0)
        """,
    )
    if expected is None:
        assert cell.result.success and cell.boxes == []
        return
    line = cell.finding("P12")
    assert "the loss 'sparse_categorical_crossentropy'" in line
    assert "outside the valid range [0, 3)" in line
    assert expected in line


def test_s06_float_labels_in_sparse_loss(tfshell: InteractiveShell) -> None:
    cell = run(
        tfshell,
        """
        labels = tf.constant([0.0, 2.0])
        logits = tf.zeros((2, 3))
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        """,
    )
    line = cell.finding("S06")
    assert "at op SparseSoftmaxCrossEntropyWithLogits" in line
    assert "float labels" in line and "tf.cast(labels, tf.int32)" in line
    ok = run(
        tfshell,
        "loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 2]), logits=tf.zeros((2, 3)))",
    )
    assert ok.result.success and ok.boxes == []


def test_int_labels_in_own_loss_code_are_an_op_dtype_clash(tfshell: InteractiveShell) -> None:
    """The user's own loss arithmetic mixing int labels with float predictions is S11 (an op
    that cannot mix dtypes), with the labels' cast; S06 is for a library loss given labels of
    a dtype it does not take (test_s06_float_labels_in_sparse_loss)."""
    cell = run(
        tfshell,
        """
        def squared_loss(y_true, y_pred):
            return tf.reduce_mean(tf.square(y_true - y_pred))

        squared_loss(tf.constant([[1], [0]]), tf.zeros((2, 1)))
        """,
    )
    line = cell.finding("S11")
    assert "S06" not in cell.text
    assert "line 2 in squared_loss()" in line
    assert "int32 vs float" in line or "float vs int32" in line
    assert "tf.cast(y_true, y_pred.dtype)" in line

    # The same dtype clash in code that has nothing to do with labels or a loss: no S06,
    # but S11 for the clash itself, with the cast.
    other = run(
        tfshell,
        """
        def rescale(x, factor):
            return x * factor

        rescale(tf.ones(3), tf.constant(2))
        """,
    )
    assert other.result.success is False
    assert "S06" not in other.text
    assert "tf.cast" in other.finding("S11")


def test_t02_numpy_inside_tf_function_points_to_user_line(tfshell: InteractiveShell) -> None:
    cell = run(
        tfshell,
        """
        @tf.function
        def double(x):
            y = x * 2
            return y.numpy()

        double(tf.ones(3))
        """,
    )
    line = cell.finding("T02")
    assert "Cell In[" in line and "line 4 in double()" in line
    assert "`return y.numpy()`" in line
    assert "run_functions_eagerly" in line


@pytest.mark.parametrize("autograph", [False, True])
def test_t02_python_if_on_tensor(tfshell: InteractiveShell, autograph: bool) -> None:
    cell = run(
        tfshell,
        f"""
        @tf.function(autograph={autograph})
        def relu_sum(x):
            if tf.reduce_sum(x) > 0:
                return x
            return -x

        relu_sum(tf.ones(3))
        """,
    )
    if autograph:  # AutoGraph turns the `if` into tf.cond: nothing to explain
        assert cell.result.success and cell.boxes == []
        return
    line = cell.finding("T02")
    assert "line 3 in relu_sum()" in line and "`if tf.reduce_sum(x) > 0:`" in line
    assert "tf.cond" in line


def test_t02_inside_a_custom_layer_during_model_build(tfshell: InteractiveShell) -> None:
    cell = run(
        tfshell,
        """
        class Scale(keras.layers.Layer):
            def call(self, x):
                return x * x.numpy().max()

        model = keras.Sequential([keras.Input((3,)), Scale()])
        """,
    )
    line = cell.finding("T02")
    assert "line 3 in Scale.call()" in line and "x.numpy().max()" in line
    # raised while Keras built the Sequential, but one problem gets one finding: no S01 too
    codes = [f.split()[0] for f in cell.text.splitlines() if f[:1].isupper() and f[1:3].isdigit()]
    assert codes == ["T02"]


def test_r03_out_of_memory_gives_allocation_and_remedies_in_order(
    tfshell: InteractiveShell,
) -> None:
    # 2**46 float32 = 256 TiB: more than any address space, so the CPU allocator refuses at once.
    cell = run(tfshell, "big = tf.zeros((2**46,))")
    assert cell.result.success is False
    line = cell.finding("R03")
    assert "at op Fill on CPU:0" in line
    assert "shape [70368744177664] of float = 256.0 TiB" in line
    order = ["smaller batch", "mixed precision", "gradient accumulation", "lower input resolution"]
    positions = [line.index(word) for word in order]
    assert positions == sorted(positions)
    ok = run(tfshell, "small = tf.zeros((2**10,))")
    assert ok.result.success and ok.boxes == []


def test_n01_check_numerics_in_a_layer_during_fit(tfshell: InteractiveShell) -> None:
    code = """
        class LogCheck(keras.layers.Layer):
            def call(self, x):
                return tf.debugging.check_numerics(tf.math.log(x - {shift}), "log features")

        model = keras.Sequential([keras.Input((3,)), LogCheck(), keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
        """
    cell = run(tfshell, code.format(shift=2.0))
    assert cell.result.success is False
    line = cell.finding("N01")
    assert "check 'log features'" in line
    assert "log_check" in line  # the layer's name scope
    assert "line 3 in call()" in line
    assert "epsilon" in line
    assert "G03" not in cell.text
    ok = run(tfshell, code.format(shift=-1.0))
    assert ok.result.success and ok.boxes == []


def test_g03_nonfinite_gradient_check(tfshell: InteractiveShell) -> None:
    cell = run(
        tfshell,
        """
        w = tf.Variable([1.0, 0.0])
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sqrt(w))
        grad = tape.gradient(loss, w)
        tf.debugging.assert_all_finite(grad, "gradient of w")
        """,
    )
    line = cell.finding("G03")
    assert "check 'gradient of w'" in line and "line 5" in line
    # the tape's loss code takes sqrt: its gradient at 0 is the cause named, not the step size
    assert "Inf values" in line and "sqrt" in line and "1e-12" in line
    assert "learning rate" not in line
    assert "N01" not in cell.text


def test_enable_check_numerics_names_the_producing_op(tfshell: InteractiveShell) -> None:
    cell = run(
        tfshell,
        """
        tf.debugging.enable_check_numerics()
        try:
            @tf.function
            def log_of(x):
                return tf.math.log(x)
            log_of(tf.constant([0.0, 1.0]))
        finally:
            tf.debugging.disable_check_numerics()
        """,
    )
    line = cell.finding("N01")
    assert "op Log" in line and "-Inf values" in line
    assert "line 5 in log_of()" in line


def _always_overcommit() -> bool:
    path = Path("/proc/sys/vm/overcommit_memory")
    return path.exists() and path.read_text().strip() == "1"


@pytest.mark.skipif(
    _always_overcommit(),
    reason="with overcommit_memory=1 the allocation might not be refused at once",
)
def test_r03_weight_too_big_names_the_layer_not_the_batch(tfshell: InteractiveShell) -> None:
    # Flatten gives 2**17 features, Dense(2**29) needs a 2**46-float kernel (256 TiB): more
    # than any address space, so the CPU allocator refuses it at once with a real OOM.
    cell = run(
        tfshell,
        """
        model = keras.Sequential([
            keras.Input((128, 128, 8)),
            keras.layers.Flatten(name="flat"),
            keras.layers.Dense(2**29, name="head"),
        ])
        """,
    )
    assert cell.result.success is False
    assert type(cell.result.error_in_exec).__name__ == "ResourceExhaustedError"
    line = cell.finding("R03")
    assert "at layer 'head'" in line
    assert "a weight of Dense 'head' does not fit in memory: it needs 256.0 TiB" in line
    assert "shape [131072,536870912]" in line
    assert "its input from 'flat' has 131,072 features" in line
    assert "shrink 'head'" in line and "pooling or strided convolutions before Flatten" in line
    assert "smaller batch does not help" in line and "1) a smaller batch" not in line
    assert [f.split()[0] for f in cell.text.splitlines() if f[:1] in "RS"] == ["R03"]


def test_s12_unbatched_validation_dataset_says_to_batch_it(tfshell: InteractiveShell) -> None:
    setup = """
        x = np.random.rand(32, 8).astype("float32")
        y = np.random.randint(0, 3, 32)
        train_ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
        val_ds = tf.data.Dataset.from_tensor_slices((x[:8], y[:8]))
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])
        model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        """
    assert run(tfshell, setup).result.success
    cell = run(tfshell, "model.fit(train_ds, validation_data=val_ds, epochs=1, verbose=0)")
    line = cell.finding("S12")  # the catalog's S12: examples without their batch axis
    assert "received (8,), expected (None, 8)" in line
    assert "dataset `val_ds` yields single examples of shape (8,) (no batch axis)" in line
    assert "batch it, e.g. `val_ds = val_ds.batch(32)`" in line
    assert "folded" not in line
    ok = run(tfshell, "model.fit(train_ds, validation_data=val_ds.batch(8), epochs=1, verbose=0)")
    assert ok.result.success and ok.boxes == []
    # a function that gets the dataset under another name
    helper = run(
        tfshell,
        """
        def evaluate(data):
            return model.evaluate(data, verbose=0)
        evaluate(val_ds)
        """,
    )
    # the test step was traced for batches before, so tf.function relaxed the shape to
    # unknown rank: Keras says only "Cannot take the length of shape with unknown rank"
    assert "unknown rank" in str(helper.result.error_in_exec)
    line = helper.finding("S12")
    assert "expects inputs of shape (None, 8) but received a tensor of unknown rank" in line
    assert "batch it, e.g. `val_ds = val_ds.batch(32)`" in line
    # a single NumPy example: no dataset is named, the batch axis is missing (the catalog's S12)
    single = run(tfshell, "model(x[0])").finding("S12")
    assert "dataset" not in single and "folded" not in single
    assert "single example without its batch axis" in single and "x[None]" in single
