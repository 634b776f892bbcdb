"""S09-S13, S11 and C05 under a failing cell: the fixed code runs without a diagnosis, and the
evidence readers read the user's call and pipeline without running any of the user's code."""

from __future__ import annotations

import textwrap

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

PRELUDE = """
import os, tempfile
import numpy as np
import tensorflow as tf
import keras
"""


def run(shell: InteractiveShell, code: str) -> tuple[bool, str]:
    """(success, the text of the diagnosis boxes) of a cell."""
    with capture_output() as captured:
        result = shell.run_cell(textwrap.dedent(code).strip("\n"), store_history=False)
    boxes = [
        o.data["text/plain"]
        for o in captured.outputs
        if "tfnb-explain" in o.data.get("text/html", "")
    ]
    return bool(result.success), "\n".join(boxes)


@pytest.fixture
def tfshell(shell: InteractiveShell) -> InteractiveShell:
    ok, _ = run(shell, PRELUDE)
    assert ok
    return shell


CLEAN_TWINS = {
    "S09 input_dim = max id + 1": """
        ids = (np.arange(60).reshape(12, 5) % 40) + 1
        model = keras.Sequential([keras.Input((5,), dtype="int32"), keras.layers.Embedding(41, 8),
                                  keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(ids, np.zeros(12), epochs=1, verbose=0)
        """,
    "S10 ensure_shape after py_function": """
        x = np.random.rand(16, 4).astype("float32"); y = np.random.rand(16, 1).astype("float32")
        def augment(features, label):
            features = tf.py_function(lambda f: f + 0.01, [features], tf.float32)
            return tf.ensure_shape(features, (4,)), label
        train_ds = tf.data.Dataset.from_tensor_slices((x, y)).map(augment).batch(8)
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(train_ds, epochs=1, verbose=0)
        """,
    "S10 output_signature": """
        def rows():
            for i in range(12):
                yield np.full(3, i, "float32"), np.float32(i % 2)
        spec = (tf.TensorSpec((3,), tf.float32), tf.TensorSpec((), tf.float32))
        ds = tf.data.Dataset.from_generator(rows, output_signature=spec).batch(4)
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        model.fit(ds, epochs=1, verbose=0)
        """,
    "S11 cast before the arithmetic": """
        images = np.random.randint(0, 256, (8, 4, 4, 3), dtype=np.uint8)
        ds = tf.data.Dataset.from_tensor_slices(images)
        ds = ds.map(lambda image: (tf.cast(image, tf.float32) - 127.5) / 127.5)
        next(iter(ds))
        """,
    "S11 add_weight under mixed_float16": """
        keras.mixed_precision.set_global_policy("mixed_float16")
        try:
            class Scale(keras.layers.Layer):
                def build(self, input_shape):
                    self.gain = self.add_weight(shape=(), initializer="ones")
                def call(self, x):
                    return x * self.gain
            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4), Scale()])
            model(np.zeros((2, 4), "float32"))
        finally:
            keras.mixed_precision.set_global_policy("float32")
        """,
    "S12 one array per input, same rows": """
        num = keras.Input((4,), name="numeric"); cat = keras.Input((3,), name="onehot")
        model = keras.Model([num, cat], keras.layers.Dense(1)(keras.layers.Concatenate()([num, cat])))
        model.compile("adam", "mse")
        features = np.random.rand(16, 7).astype("float32")
        model.fit([features[:, :4], features[:, 4:]], np.zeros(16), epochs=1, verbose=0,
                  validation_data=([features[:4, :4], features[:4, 4:]], np.zeros(4)))
        """,
    "S13 padded_batch": """
        sentences = [[4, 8, 15], [16, 23, 42, 7, 1], [3, 9]]
        ds = tf.data.Dataset.from_generator(lambda: iter(sentences),
                                            output_signature=tf.TensorSpec((None,), tf.int32))
        shapes = [tuple(b.shape) for b in ds.padded_batch(2)]
        """,
    "C05 custom_objects and a complete get_config": """
        class Affine(keras.layers.Layer):
            def __init__(self, scale, shift, **kwargs):
                super().__init__(**kwargs)
                self.scale, self.shift = scale, shift
            def call(self, x):
                return x * self.scale + self.shift
            def get_config(self):
                config = super().get_config()
                config.update(scale=self.scale, shift=self.shift)
                return config
        model = keras.Sequential([keras.Input((3,)), Affine(2.0, 1.0)])
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        keras.models.load_model(path, custom_objects={"Affine": Affine})
        """,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CLEAN_TWINS))
def test_fixed_code_runs_without_a_diagnosis(tfshell: InteractiveShell, name: str) -> None:
    ok, box = run(tfshell, CLEAN_TWINS[name])
    assert ok, f"{name}: the fixed code failed:\n{box}"
    assert box == ""


def test_a_plain_python_conversion_error_is_not_s11(tfshell: InteractiveShell) -> None:
    ok, box = run(tfshell, 'value = "12,5"\nfloat(value)')
    assert not ok
    assert "S11" not in box


def test_the_call_reader_runs_no_user_code(tfshell: InteractiveShell) -> None:
    ok, box = run(
        tfshell,
        """
        calls = []
        def make_labels():
            calls.append(1)
            return np.zeros((8, 1), "float32")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(np.zeros((10, 4), "float32"), make_labels(), epochs=1, verbose=0)
        """,
    )
    assert not ok
    assert box.startswith("tfnb_debug") and "S12" in box
    assert "10" in box and "8" in box
    ok, _ = run(tfshell, "assert calls == [1], calls")
    assert ok, "the diagnosis called make_labels() again"


def test_the_pipeline_reader_names_each_step() -> None:
    import numpy as np
    import tensorflow as tf

    from tfnb_debug.explain._evidence import dataset_stages

    def augment(x: tf.Tensor) -> tf.Tensor:
        return tf.py_function(lambda t: t * 2, [x], tf.float32)

    ds = tf.data.Dataset.from_tensor_slices(np.zeros((4, 3), "float32")).map(augment).batch(2)
    stages = dataset_stages(ds)
    assert [s.kind for s in stages] == ["from_tensor_slices", "map", "batch"]
    assert stages[0].shapes == ((3,),)
    assert stages[1].function == "augment" and stages[1].python == "tf.py_function"
    assert stages[1].shapes == (None,)
    assert stages[2].batch_size == 2 and stages[2].dtypes == ("float32",)


def test_the_argument_reader_evaluates_only_data_subscripts() -> None:
    import ast

    import numpy as np

    from tfnb_debug.explain._call import _describe

    space = {"y": np.arange(10), "f": lambda: 1 / 0}
    spaces = (space,)
    sliced = _describe(ast.parse("y[:4]", mode="eval").body, spaces)
    assert sliced.kind == "array" and sliced.shape == (4,) and sliced.high == 3
    called = _describe(ast.parse("f()", mode="eval").body, spaces)
    assert called.kind == "unread"
    missing = _describe(ast.parse("z", mode="eval").body, spaces)
    assert missing.kind == "unread"
