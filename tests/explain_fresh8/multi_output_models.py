"""Family ``multi_output_models``: functional models with several inputs or outputs, fed and compiled against their structure.

APIs: ``keras.Model(inputs, outputs)`` with lists or dicts of inputs/outputs (each output
is named after the layer that produced it), ``compile(loss=..., loss_weights=...,
metrics=...)`` (each may be one value for all outputs, a list in output order, or a dict
keyed by *output names*; a dict for ``loss`` must name every output, a dict for
``loss_weights`` must use the same keys), ``fit``/``evaluate`` (``x`` has one array per
input, all with the same number of samples; ``y`` has one array per output -- a list in
output order or a dict keyed by output names; a single array is not broadcast to several
outputs; ``sample_weight`` is a separate argument, never a third element of ``y``),
``class_weight`` (only for single-output models; per-output weighting goes through
``sample_weight`` given per output) and the loss each head gets (its labels must fit that
head: one-hot of the same width for ``categorical_crossentropy``, integer ids for
``sparse_categorical_crossentropy``).

Evidence a diagnosis needs: the model's input and output names and shapes, the structure
(list/dict, length, keys) of what was passed as ``x``, ``y``, ``loss``, ``loss_weights``,
``class_weight``, and, for a loss that failed, which output the loss belongs to and the
shape of its labels against that output.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_TWO_HEADS = """
x = np.random.rand(12, 6).astype("float32")
inp = keras.Input((6,), name="features")
h = keras.layers.Dense(16, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
category = keras.layers.Dense(4, activation="softmax", name="category")(h)
model = keras.Model(inp, [price, category])
"""

CASES = [
    # ValueError: y_true and y_pred have different structures.
    Case(
        name="two_output_model_fit_with_one_label_array",
        family="multi_output_models",
        code=_TWO_HEADS
        + """
model.compile(optimizer="adam", loss=["mse", "sparse_categorical_crossentropy"])
y_price = np.random.rand(12, 1).astype("float32")
model.fit(x, y_price, epochs=1, verbose=0)
""",
        expect="S12",
        must=("category",),
        must_not=("reshape",),
        fix="model.fit(x, [y_price, y_category])",
    ),
    # TypeError: Expected float32, but got price_target of type 'str'.
    Case(
        name="label_dict_keyed_by_target_names_not_output_names",
        family="multi_output_models",
        code=_TWO_HEADS
        + """
model.compile(optimizer="adam", loss={"price": "mse", "category": "sparse_categorical_crossentropy"})
targets = {
    "price_target": np.random.rand(12, 1).astype("float32"),
    "category_target": np.random.randint(0, 4, 12),
}
model.fit(x, targets, epochs=1, verbose=0)
""",
        expect="S12",
        must=("price_target",),
        must_not=("astype", "tf.cast"),
        fix='key y by the output names: {"price": ..., "category": ...}',
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same number of samples.'x' sizes: 20, 16
    Case(
        name="two_input_model_with_a_metadata_array_four_rows_short",
        family="multi_output_models",
        code="""
img = keras.Input((8,), name="image_feats")
meta = keras.Input((3,), name="meta")
h = keras.layers.Concatenate()([img, meta])
out = keras.layers.Dense(1, activation="sigmoid")(h)
model = keras.Model([img, meta], out)
model.compile("adam", "binary_crossentropy")
x_img = np.random.rand(20, 8).astype("float32")
x_meta = np.random.rand(16, 3).astype("float32")
y = np.random.randint(0, 2, 20)
model.fit([x_img, x_meta], y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("16",),
        must_not=("padded_batch", "drop_remainder"),
        fix="give x_meta one row per sample (20 rows)",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape.
    #   Received: target.shape=(None, 6), output.shape=(None, 4)
    Case(
        name="category_head_with_four_units_for_six_one_hot_classes",
        family="multi_output_models",
        code=_TWO_HEADS
        + """
model.compile(optimizer="adam", loss={"price": "mse", "category": "categorical_crossentropy"})
y_cat = keras.utils.to_categorical(np.random.randint(0, 6, 12), 6)
model.fit(x, {"price": np.random.rand(12, 1), "category": y_cat}, epochs=1, verbose=0)
""",
        expect="M04",
        must=("category",),
        must_not=("sparse_categorical",),
        fix='Dense(6, activation="softmax", name="category")',
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`.
    #   Received: target.shape=(None, 4), output.shape=(None, 4)
    Case(
        name="sparse_loss_for_a_head_given_one_hot_labels",
        family="multi_output_models",
        code=_TWO_HEADS
        + """
model.compile(optimizer="adam", loss={"price": "mse", "category": "sparse_categorical_crossentropy"})
y_cat = keras.utils.to_categorical(np.random.randint(0, 4, 12), 4)
model.fit(x, {"price": np.random.rand(12, 1), "category": y_cat}, epochs=1, verbose=0)
""",
        expect="M05",
        must=("category",),
        must_not=("return_sequences", "flatten"),
        fix='"categorical_crossentropy" for category, or integer labels',
    ),
    # KeyError: 'category'
    Case(
        name="loss_weights_dict_with_an_abbreviated_output_name",
        family="multi_output_models",
        code=_TWO_HEADS
        + """
model.compile(
    optimizer="adam",
    loss={"price": "mse", "category": "sparse_categorical_crossentropy"},
    loss_weights={"price": 0.5, "cat": 1.0},
)
model.fit(x, {"price": np.random.rand(12, 1), "category": np.random.randint(0, 4, 12)}, epochs=1, verbose=0)
""",
        expect="S12",
        must=("loss_weights",),
        must_not=("add a category label",),
        fix='loss_weights={"price": 0.5, "category": 1.0}',
    ),
    # ValueError: `class_weight` is only supported for Models with a single output.
    Case(
        name="class_weight_for_the_classifier_head_of_a_two_output_model",
        family="multi_output_models",
        code=_TWO_HEADS
        + """
model.compile(optimizer="adam", loss=["mse", "sparse_categorical_crossentropy"])
y_cat = np.random.randint(0, 4, 12)
model.fit(
    x, [np.random.rand(12, 1), y_cat],
    class_weight={0: 1.0, 1: 4.0, 2: 1.0, 3: 2.0},
    epochs=1, verbose=0,
)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("loss_weights",),
        fix="sample_weight per output: weights[y_cat] for category, ones for price",
    ),
    # ValueError: Expected keys ['price', 'category'] in loss dict, but found loss.keys()=['price_out', 'category']
    Case(
        name="loss_dict_key_that_is_not_an_output_name",
        family="multi_output_models",
        code=_TWO_HEADS
        + """
model.compile(optimizer="adam", loss={"price_out": "mse", "category": "sparse_categorical_crossentropy"})
model.fit(x, {"price": np.random.rand(12, 1), "category": np.random.randint(0, 4, 12)}, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message lists the expected loss keys next to the ones found",
        fix='loss={"price": "mse", ...}',
    ),
]
