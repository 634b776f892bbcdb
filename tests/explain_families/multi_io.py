"""Family: models with several inputs and outputs (Keras functional API).

API: ``keras.Model(inputs=[a, b], outputs=[o1, o2])`` or with dicts keyed by names;
``fit``/``evaluate``/``predict`` fed with lists, tuples or dicts of arrays, or a
``tf.data`` dataset whose element is ``((x1, x2), (y1, y2))`` or ``({"a": ..},
{"o1": ..})``; ``compile(loss=[...] | {name: loss}, loss_weights=..., metrics=...)``;
``class_weight``/``sample_weight`` in ``fit``; ``Concatenate`` and shared layers on
several inputs.  Contract (Keras documentation): arrays given as a list or tuple are
matched to ``model.inputs`` by position, and a dict is matched by the ``Input``
layers' ``name=``; targets are matched to the outputs the same way, a dict being keyed
by the output layers' names (not by Python variable names); a ``loss`` or ``metrics``
list needs one entry per output and a dict needs exactly the output names as keys; a
dataset element is ``(x, y)`` or ``(x, y, sample_weight)`` where x and y are
themselves the nested structures of the inputs and outputs (a flat 4-tuple is not);
``class_weight`` is only supported for a single output (the documented workaround is
one ``sample_weight`` array per output); ``Concatenate`` needs equal shapes on all
axes but the concatenation axis (so equal ranks); a shared layer is built by its
first call and fixes its input width.  Evidence a diagnosis can read at the failure:
the model's inputs and outputs (names, shapes) and its layers, the structure, shapes
and dtypes of ``x`` and ``y`` (list order, dict keys, a dataset's ``element_spec``),
the ``loss``/``metrics``/``class_weight`` arguments, the layer the framework names
and the shapes it received and was built for.

Written from the Keras/TensorFlow documentation and user reports, before the rules
for this family were read.  Every case was run: the exception and the first line of
its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "multi_io"

CASES = [
    # ValueError: Input 0 with name 'pixels' of layer 'functional' is incompatible with
    # the layer: expected shape=(None, 32), found shape=(None, 4)
    # (the arrays are listed in another order than Model(inputs=[pixels, meta]))
    Case(
        "mio_fit_inputs_in_swapped_order",
        FAMILY,
        """
pixels = keras.Input((32,), name="pixels")
meta = keras.Input((4,), name="meta")
h1 = keras.layers.Dense(16, activation="relu")(pixels)
h2 = keras.layers.Dense(4, activation="relu")(meta)
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([h1, h2]))
model = keras.Model(inputs=[pixels, meta], outputs=out)
model.compile("adam", "binary_crossentropy")
x_pixels = np.random.rand(40, 32).astype("float32")
x_meta = np.random.rand(40, 4).astype("float32")
y = np.random.randint(0, 2, (40, 1))
model.fit([x_meta, x_pixels], y, epochs=1, verbose=0)
""",
        "S12",
        must=("meta",),
        must_not=("batch axis", "flatten"),
        fix="pass the arrays in the order of model.inputs (or a dict by name)",
    ),
    # TypeError: Expected float32, but got price_out of type 'str'.
    # (the target dict is keyed by the Python variable names, not the layers' name=)
    Case(
        "mio_label_dict_keyed_by_variable_names",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(16, activation="relu")(inp)
price_out = keras.layers.Dense(1, name="price")(h)
cat_out = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inp, [price_out, cat_out])
model.compile("adam", loss={"price": "mse", "category": "sparse_categorical_crossentropy"})
x = np.random.rand(40, 6).astype("float32")
model.fit(x, {"price_out": np.random.rand(40, 1), "cat_out": np.random.randint(0, 3, 40)},
          epochs=1, verbose=0)
""",
        "S12",
        must=("price_out",),
        must_not=("astype", "tf.cast"),
        fix="key y by the output layers' names: price, category",
    ),
    # ValueError: Expected keys ['dense_1', 'dense_2'] in loss dict, but found
    # loss.keys()=['output_1', 'output_2']  (the dense_N numbers depend on the session)
    # (Keras 2 style output_1/output_2 keys for unnamed output layers)
    Case(
        "mio_loss_dict_keyed_output_1_output_2",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(16, activation="relu")(inp)
price = keras.layers.Dense(1)(h)
fraud = keras.layers.Dense(1, activation="sigmoid")(h)
model = keras.Model(inp, [price, fraud])
model.compile("adam", loss={"output_1": "mse", "output_2": "binary_crossentropy"})
x = np.random.rand(40, 6).astype("float32")
model.fit(x, [np.random.rand(40, 1), np.random.randint(0, 2, (40, 1))], epochs=1, verbose=0)
""",
        None,
        unexplained="Keras lists the expected keys and the keys it found in the loss dict",
        fix="key the loss dict by the output layers' names",
    ),
    # KeyError: "The path: (2,) in the `loss` argument, can't be found in either the
    # model's output (`y_pred`) or in the labels (`y_true`)."
    # (three losses in the list for a model with two outputs)
    Case(
        "mio_loss_list_longer_than_outputs",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(16, activation="relu")(inp)
o1 = keras.layers.Dense(1, name="price")(h)
o2 = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inp, [o1, o2])
model.compile("adam", loss=["mse", "sparse_categorical_crossentropy", "mae"])
x = np.random.rand(40, 6).astype("float32")
model.fit(x, [np.random.rand(40, 1), np.random.randint(0, 3, 40)], epochs=1, verbose=0)
""",
        "S12",
        must=("loss", "3"),
        must_not=("batch axis",),
        fix="one loss per output: two entries",
    ),
    # ValueError: y_true and y_pred have different structures.
    # (labels for the 'price' output only; the 'category' output gets none)
    Case(
        "mio_labels_for_one_output_only",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(16, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inp, [price, category])
model.compile("adam", loss=["mse", "sparse_categorical_crossentropy"])
x = np.random.rand(40, 6).astype("float32")
y_price = np.random.rand(40, 1).astype("float32")
model.fit(x, y_price, epochs=1, verbose=0)
""",
        "S12",
        must=("category",),
        must_not=("batch axis",),
        fix="pass [y_price, y_category] (one target per output)",
    ),
    # ValueError: Data is expected to be in format `x`, `(x,)`, `(x, y)`, or
    # `(x, y, sample_weight)`, found: (<tf.Tensor 'data:0' shape=(None, 5) ...> x4)
    # (the dataset's element is a flat tuple of four, not ((x1, x2), (y1, y2)))
    Case(
        "mio_dataset_flat_tuple_of_four",
        FAMILY,
        """
a = keras.Input((5,), name="a")
b = keras.Input((3,), name="b")
h = keras.layers.Concatenate()([a, b])
o1 = keras.layers.Dense(1, name="o1")(h)
o2 = keras.layers.Dense(1, activation="sigmoid", name="o2")(h)
model = keras.Model([a, b], [o1, o2])
model.compile("adam", loss=["mse", "binary_crossentropy"])
x1 = np.random.rand(32, 5).astype("float32")
x2 = np.random.rand(32, 3).astype("float32")
y1 = np.random.rand(32, 1).astype("float32")
y2 = np.random.randint(0, 2, (32, 1)).astype("float32")
train_ds = tf.data.Dataset.from_tensor_slices((x1, x2, y1, y2)).batch(8)
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("train_ds",),
        must_not=("batch the dataset", "unbatched"),
        fix="from_tensor_slices(((x1, x2), (y1, y2)))",
    ),
    # ValueError: `class_weight` is only supported for Models with a single output.
    # (imbalanced 'churn' output next to a regression 'spend' output)
    Case(
        "mio_class_weight_with_two_outputs",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(16, activation="relu")(inp)
churn = keras.layers.Dense(1, activation="sigmoid", name="churn")(h)
spend = keras.layers.Dense(1, name="spend")(h)
model = keras.Model(inp, [churn, spend])
model.compile("adam", loss=["binary_crossentropy", "mse"])
x = np.random.rand(40, 6).astype("float32")
y_churn = (np.random.rand(40, 1) < 0.1).astype("float32")
y_spend = np.random.rand(40, 1).astype("float32")
model.fit(x, [y_churn, y_spend], class_weight={0: 1.0, 1: 9.0}, epochs=1, verbose=0)
""",
        "S12",
        must=("sample_weight",),
        must_not=("batch axis",),
        fix="sample_weight per output instead of class_weight",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for
    # the concatenation axis. Received: input_shape=[(None, 10, 8), (None, 5)]
    # (a sequence input of rank 3 concatenated with a profile vector of rank 2)
    Case(
        "mio_concatenate_sequence_with_vector",
        FAMILY,
        """
clicks = keras.Input((10, 8), name="clicks")
profile = keras.Input((5,), name="profile")
merged = keras.layers.Concatenate(name="merge")([clicks, profile])
out = keras.layers.Dense(1, activation="sigmoid")(merged)
model = keras.Model([clicks, profile], out)
""",
        "S01",
        must=("merge",),
        must_not=("strides", "padding"),
        fix="pool or flatten 'clicks' to rank 2 before Concatenate",
    ),
    # ValueError: Input 0 with name 'None' of layer 'shared_enc' is incompatible with the
    # layer: expected axis -1 of input shape to have value 8, but received input with
    # shape (None, 12)
    # (one Dense shared by two inputs of widths 8 and 12; its first call fixed it at 8)
    Case(
        "mio_shared_encoder_different_widths",
        FAMILY,
        """
left = keras.Input((8,), name="left")
right = keras.Input((12,), name="right")
encoder = keras.layers.Dense(16, activation="relu", name="shared_enc")
diff = keras.layers.Subtract()([encoder(left), encoder(right)])
model = keras.Model([left, right], keras.layers.Dense(1)(diff))
""",
        "S01",
        must=("shared_enc",),
        must_not=("batch axis", "strides"),
        fix="project both inputs to one width before the shared layer",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    # Received: target.shape=(None,), output.shape=(None, 3)
    # (integer species ids for the dict output 'species' with categorical_crossentropy)
    Case(
        "mio_dict_output_categorical_loss_int_labels",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(16, activation="relu")(inp)
species = keras.layers.Dense(3, activation="softmax", name="species")(h)
mass = keras.layers.Dense(1, name="mass")(h)
model = keras.Model(inp, {"species": species, "mass": mass})
model.compile("adam", loss={"species": "categorical_crossentropy", "mass": "mse"})
x = np.random.rand(40, 6).astype("float32")
model.fit(x, {"species": np.random.randint(0, 3, 40), "mass": np.random.rand(40, 1)},
          epochs=1, verbose=0)
""",
        "M05",
        must=("species",),
        must_not=("expand_dims",),
        fix="sparse_categorical_crossentropy for 'species'",
    ),
]
