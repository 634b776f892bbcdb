"""Family: arguments of data and op APIs that break the documented contract, raised deep inside TensorFlow.

APIs: ``fit(class_weight=...)``, ``fit``'s targets against the model's outputs,
``Dataset.padded_batch(padding_values=...)``, ``Dataset.from_generator(output_signature=...)``,
``tf.image`` colour ops, ``tf.nn.(sparse_)softmax_cross_entropy_with_logits``,
``Layer.set_weights``, ``tf.math.confusion_matrix``.  Evidence: the live
arguments (type, dtype, shape, channel count) against what the API takes.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_CASES_ARGS = [
    Case(
        "class_weight_array",
        "data_contracts",
        """
x = np.random.rand(30, 4).astype("float32"); y = np.random.randint(0, 3, 30)
m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")]); m.compile("adam", "sparse_categorical_crossentropy")
cw = np.array([1.0, 2.0, 0.5])
m.fit(x, y, class_weight=cw, epochs=1, verbose=0)
""",
        "S12",
        must=("class_weight", "dict"),
        must_not=("sample_weight=",),
    ),
    Case(
        "class_weight_list",
        "data_contracts",
        """
x = np.random.rand(30, 4).astype("float32"); y = np.random.randint(0, 2, 30)
m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")]); m.compile("adam", "binary_crossentropy")
m.fit(x, y, class_weight=[1.0, 3.0], epochs=1, verbose=0)
""",
        "S12",
        must=("class_weight", "dict"),
        must_not=(),
    ),
    Case(
        "padding_value_float_for_ints",
        "data_contracts",
        """
ds = tf.data.Dataset.from_generator(lambda: iter([[1, 2], [3, 4, 5]]), output_signature=tf.TensorSpec((None,), tf.int64))
batches = ds.padded_batch(2, padding_values=0.0)
""",
        "S11",
        must=("padding_values", "int64"),
        must_not=(),
    ),
    Case(
        "grayscale_of_gray",
        "data_contracts",
        """
imgs = tf.random.uniform((4, 28, 28, 1))
g = tf.image.rgb_to_grayscale(imgs)
""",
        "S07",
        must=("3 channels", "1"),
        must_not=("transpose", "inner sizes"),
    ),
    Case(
        "saturation_of_gray",
        "data_contracts",
        """
imgs = tf.random.uniform((4, 28, 28, 1))
g = tf.image.adjust_saturation(imgs, 2.0)
""",
        "S07",
        must=("3 channels",),
        must_not=("transpose",),
    ),
    Case(
        "generator_fixed_length",
        "data_contracts",
        """
def gen():
    for n in (10, 7, 12):
        yield np.ones(n, "float32")
ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((10,), tf.float32))
for item in ds:
    pass
""",
        "S13",
        must=("output_signature", "none"),
        must_not=(),
    ),
    Case(
        "softmax_ce_ids",
        "data_contracts",
        """
logits = tf.random.normal((4, 3)); labels = tf.constant([0, 2, 1, 1])
loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
""",
        "M05",
        must=("sparse_softmax_cross_entropy_with_logits",),
        must_not=("transpose",),
    ),
    Case(
        "set_weights_unbuilt",
        "data_contracts",
        """
layer = keras.layers.Dense(3)
layer.set_weights([np.ones((5, 3), "float32"), np.zeros(3, "float32")])
""",
        "S04",
        must=("build",),
        must_not=("transpose",),
    ),
    Case(
        "confusion_matrix_probs",
        "data_contracts",
        """
labels = np.random.randint(0, 3, 20); probs = tf.nn.softmax(tf.random.normal((20, 3)))
cm = tf.math.confusion_matrix(labels, probs)
""",
        "S07",
        must=("argmax",),
        must_not=("transpose",),
    ),
    Case(
        "onehot_for_sparse_tfnn",
        "data_contracts",
        """
logits = tf.random.normal((4, 3)); labels = tf.one_hot([0, 2, 1, 1], 3)
loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
""",
        "M05",
        must=("softmax_cross_entropy_with_logits", "argmax"),
        must_not=(),
    ),
]

_TWO_HEADS = """
inp = keras.Input((4,)); h = keras.layers.Dense(8)(inp)
a = keras.layers.Dense(1, name="price")(h); b = keras.layers.Dense(3, activation="softmax", name="kind")(h)
"""
_CASES_YSTRUCT = [
    Case(
        "two_outputs_one_array",
        "data_contracts",
        _TWO_HEADS
        + """
m = keras.Model(inp, [a, b]); m.compile("adam", ["mse", "sparse_categorical_crossentropy"])
m.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
""",
        "S12",
        must=("price", "kind"),
        must_not=("class_weight",),
    ),
    Case(
        "three_outputs_two_targets",
        "data_contracts",
        _TWO_HEADS
        + """
c = keras.layers.Dense(1, name="extra")(h)
m = keras.Model(inp, [a, b, c]); m.compile("adam", ["mse", "sparse_categorical_crossentropy", "mse"])
m.fit(np.random.rand(16, 4), [np.random.rand(16, 1), np.random.randint(0, 3, 16)], epochs=1, verbose=0)
""",
        "S12",
        must=("3 outputs", "extra"),
        must_not=(),
    ),
    Case(
        "one_output_two_targets",
        "data_contracts",
        """
m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
m.fit(np.random.rand(16, 4), [np.random.rand(16, 1), np.random.rand(16, 1)], epochs=1, verbose=0)
""",
        "S12",
        must=("1 output",),
        must_not=(),
    ),
    Case(
        "dataset_single_target_for_two_outputs",
        "data_contracts",
        _TWO_HEADS
        + """
m = keras.Model(inp, [a, b]); m.compile("adam", ["mse", "sparse_categorical_crossentropy"])
ds = tf.data.Dataset.from_tensor_slices((np.random.rand(16, 4), np.random.rand(16, 1))).batch(4)
m.fit(ds, epochs=1, verbose=0)
""",
        "S12",
        must=("price", "kind"),
        must_not=(),
    ),
    Case(
        "evaluate_two_outputs_one_array",
        "data_contracts",
        _TWO_HEADS
        + """
m = keras.Model(inp, {"price": a, "kind": b}); m.compile("adam", {"price": "mse", "kind": "sparse_categorical_crossentropy"})
m.evaluate(np.random.rand(16, 4), np.random.rand(16, 1), verbose=0)
""",
        "S12",
        must=("price", "kind"),
        must_not=(),
    ),
]

CASES = _CASES_ARGS + _CASES_YSTRUCT
