"""%%tfcheck says what it checked: an Embedding's sparse gradient (IndexedSlices) is checked
like a dense one, and a run that checked no loss or gradient says so in every row."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.features.check import run_checked

VOCAB = 30
IDS = np.random.default_rng(0).integers(0, VOCAB, (32, 13)).astype("int64")


class NextToken(keras.Model):
    """Embedding -> GRU -> Dense over the vocabulary; returns its state on request."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = keras.layers.Embedding(VOCAB, 8)
        self.gru = keras.layers.GRU(16, return_sequences=True, return_state=True)
        self.dense = keras.layers.Dense(VOCAB)

    def call(self, inputs, states=None, return_state=False, training=False):  # type: ignore[no-untyped-def]
        x = self.embedding(inputs, training=training)
        if states is None:
            states = self.gru.get_initial_state(tf.shape(x)[0])
        x, states = self.gru(x, initial_state=states, training=training)
        x = self.dense(x, training=training)
        return (x, states) if return_state else x


def token_data() -> tf.data.Dataset:
    return tf.data.Dataset.from_tensor_slices((IDS[:, :-1], IDS[:, 1:])).batch(8)


def next_token_model() -> NextToken:
    model = NextToken()
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


class Rows(keras.layers.Layer):
    """Rows of its own table for integer ids; NaN only in the table's gradient (the norm of a
    zero vector), finite forward.  ``sparse``: looked up with a gather (an IndexedSlices
    gradient, as an Embedding's), else with a one-hot matmul (a dense gradient)."""

    def __init__(self, sparse: bool, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.sparse = sparse

    def build(self, input_shape: object) -> None:
        self.table = self.add_weight(shape=(VOCAB, 4), initializer="ones", name="table")

    def call(self, ids):  # type: ignore[no-untyped-def]
        if self.sparse:
            rows = tf.gather(self.table, ids)
        else:
            rows = tf.matmul(tf.one_hot(ids, VOCAB), self.table)
        return rows + tf.norm(rows - rows, axis=-1, keepdims=True)


def rows_model(sparse: bool) -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input((12,), dtype="int64"),
            Rows(sparse, name="rows"),
            keras.layers.Flatten(),
            keras.layers.Dense(1),
        ]
    )
    model.compile("sgd", "mse")
    return model


def test_the_embedding_gradient_is_checked_with_the_dense_ones() -> None:
    model = next_token_model()
    _, report = run_checked(lambda: model.fit(token_data(), epochs=1, shuffle=False, verbose=0))
    assert not report.stopped
    paths = {v.path for v in model.trainable_variables}
    assert len(paths) == 6
    assert set(report.gradients_checked) == paths  # the Embedding's IndexedSlices among them
    assert report.gradients_unchecked == ()
    assert "6 gradients checked" in report.summary[0], report.summary[0]


@pytest.mark.parametrize("sparse", [True, False], ids=["indexed-slices", "dense"])
def test_a_nan_in_a_lookup_tables_gradient_stops_at_the_first_step(sparse: bool) -> None:
    model = rows_model(sparse)
    y = np.zeros((32, 1), "float32")
    _, report = run_checked(
        lambda: model.fit(IDS[:, :12], y, batch_size=8, shuffle=False, verbose=0), models=[model]
    )
    assert report.codes() == ["G03"], report.to_text()
    assert report.failure.kind == "gradient" and report.failure.step == 0
    assert report.failure.place.endswith("rows/table")


def test_a_run_that_checks_no_loss_or_gradient_says_so_in_its_rows() -> None:
    model = next_token_model()
    model.fit(token_data(), epochs=1, shuffle=False, verbose=0)

    @tf.function
    def one_step(ids: tf.Tensor) -> tf.Tensor:
        logits = model(ids)
        return tf.random.categorical(logits[:, -1, :], 1)

    # a concrete function is a graph traced already: no check can enter it (a tf.function
    # called in the run is traced again with the checks)
    graph = one_step.get_concrete_function(tf.TensorSpec([1, 3], tf.int64))

    def generate() -> list[tf.Tensor]:
        return [graph(tf.constant([[1, 2, 3]], tf.int64)) for _ in range(3)]

    _, report = run_checked(generate, functions=[one_step])
    assert report.checked_nothing and report.summary[0].startswith("NOTHING CHECKED")
    (table,) = report.tables
    how = {row[0]: row[2] for row in table.rows}
    assert how["layer outputs (N01)"] != "checked" and how["gradients (G03)"] != "checked"
    assert how["losses (G05)"] != "checked" and how["input batches (N05)"] != "checked"


def test_a_generation_loop_checks_layer_outputs_and_names_what_did_not_run(
    shell: InteractiveShell,
) -> None:
    model = next_token_model()
    model.fit(token_data(), epochs=1, shuffle=False, verbose=0)
    shell.user_ns["model"] = model
    shell.run_cell(
        "import tensorflow as tf\n"
        "@tf.function\n"
        "def one_step(ids, states=None):\n"
        "    logits, states = model(ids, states=states, return_state=True)\n"
        "    return tf.random.categorical(logits[:, -1, :], 1), states\n"
    )
    cell = (
        "ids, states = tf.constant([[1, 2, 3]], tf.int64), None\n"
        "for _ in range(3):\n"
        "    ids, states = one_step(ids, states)\n"
    )
    report = run_magic(shell, "%%tfcheck -o", cell=cell).result
    assert report.layers_checked and not report.checked_nothing
    assert "no loss and no optimizer update ran" in report.summary[0], report.summary[0]
    assert "0 optimizer step" not in report.summary[0]
    how = {row[0]: row[2] for row in report.tables[0].rows}
    assert how["layer outputs (N01)"] == "checked"
    assert how["losses (G05)"] != "checked" and how["gradients (G03)"] != "checked"
