"""Family ``multi_input_multi_output_models``: functional models with several inputs and outputs.

The APIs and their documented contract (Keras 3):

- ``keras.Model(inputs=[a, b], outputs=[out1, out2])`` (or dicts) built from
  ``keras.Input(shape, name=...)`` tensors; outputs are named after the layers that produce
  them (``Dense(3, name="category")``).
- Data passed to ``fit``/``evaluate``/``predict`` must have the model's structure: for inputs,
  a list/tuple in the ORDER of ``inputs=[...]`` (each array of that input's shape) or a
  dict keyed by the ``Input`` names (every name present); for targets, a list in the order
  of ``outputs=[...]`` or a dict keyed by the output layer names -- one array per output,
  not one stacked array.  All arrays have the same number of samples.
- A ``tf.data.Dataset`` must yield ``(inputs, targets)`` pairs whose parts are nested the
  same way: ``((x1, x2), y)`` or ``({"title": x1, "meta": x2}, {"category": y1, ...})``.  A
  flat 3-tuple ``(x1, x2, y)`` is read as ``(x, y, sample_weight)``.
- ``compile(loss=..., loss_weights=..., metrics=...)`` takes one entry per output, as a
  list in output order or a dict keyed by output names; each output's loss must fit its
  labels (sparse loss with class ids, categorical loss with one-hot rows).
- ``Concatenate(axis=-1)`` joins tensors that agree on every axis but the last (same
  rank): an image branch ``(None, h, w, c)`` must be flattened/pooled before it meets a
  vector ``(None, d)``.  ``Add()`` needs identical shapes (same number of units).

What the framework raises, and the evidence a diagnosis needs to name the cause:

- ``Layer "functional" expects 2 named input(s) ... but it received 1 input tensors`` when
  a dataset yields a flat ``(x1, x2, y)``: Keras took ``x2`` as the labels and ``y`` as
  sample weights -> S12 (nest the inputs);
- ``y_true and y_pred have different structures``: one label array for several outputs ->
  S12 (one array per output, list or dict);
- ``Expected float32, but got cls of type 'str'``: a target dict whose keys are not the
  output names -> S12 (rename the keys to ``category``/``price``);
- ``Input 0 with name 'title' ... expected shape=(None, 8), found shape=(32, 4)``: the arrays
  are given in another order than ``inputs=[...]`` -> S12;
- ``Concatenate layer requires inputs with matching shapes except for the concatenation
  axis`` / ``Inputs have incompatible shapes`` in ``Add``: the two branch shapes -> S01;
- the sparse/categorical loss of ONE head against labels of the other encoding -> M05 with
  that output's name;
- ``Missing data for input "meta" ... Expected the following keys`` already names the key.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Layer "functional" expects 2 named input(s) with keys ['title', 'meta'], but it received 1 input tensors. Pass inputs as a dict, e.g. `layer({'title': ..., 'meta': ...})`.
    Case(
        name="f22_dataset_yields_flat_triple_for_two_inputs",
        family="multi_input_multi_output_models",
        code="""
title = keras.Input((8,), name="title")
meta = keras.Input((4,), name="meta")
h = keras.layers.Concatenate()([keras.layers.Dense(16, activation="relu")(title), meta])
model = keras.Model([title, meta], keras.layers.Dense(1, activation="sigmoid")(h))
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])

x_title = np.random.rand(64, 8).astype("float32")
x_meta = np.random.rand(64, 4).astype("float32")
y = np.random.randint(0, 2, 64)
ds = tf.data.Dataset.from_tensor_slices((x_title, x_meta, y)).batch(16)
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("batch the dataset", "concatenate"),
        fix="from_tensor_slices(((x_title, x_meta), y))",
    ),
    # ValueError: y_true and y_pred have different structures.
    Case(
        name="f22_two_heads_given_one_stacked_label_array",
        family="multi_input_multi_output_models",
        code="""
inputs = keras.Input((10,), name="features")
h = keras.layers.Dense(32, activation="relu")(inputs)
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
price = keras.layers.Dense(1, name="price")(h)
model = keras.Model(inputs, [category, price])
model.compile(optimizer="adam", loss=["sparse_categorical_crossentropy", "mse"])

x = np.random.rand(64, 10).astype("float32")
y_category = np.random.randint(0, 3, 64)
y_price = np.random.rand(64).astype("float32")
y = np.stack([y_category, y_price], axis=1)   # (64, 2): one column per head
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("outputs",),
        must_not=("reshape", "expand_dims"),
        fix="model.fit(x, [y_category, y_price]) (or a dict keyed by output names)",
    ),
    # TypeError: Expected float32, but got cls of type 'str'.
    Case(
        name="f22_target_dict_keys_are_not_output_names",
        family="multi_input_multi_output_models",
        code="""
inputs = keras.Input((10,), name="features")
h = keras.layers.Dense(32, activation="relu")(inputs)
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
price = keras.layers.Dense(1, name="price")(h)
model = keras.Model(inputs, [category, price])
model.compile(optimizer="adam",
              loss={"category": "sparse_categorical_crossentropy", "price": "mse"})

x = np.random.rand(64, 10).astype("float32")
targets = {"cls": np.random.randint(0, 3, 64), "reg": np.random.rand(64).astype("float32")}
model.fit(x, targets, epochs=1, verbose=0)
""",
        expect="S12",
        must=("category", "price"),
        must_not=("astype",),
        fix="key the targets by output name: {'category': ..., 'price': ...}",
    ),
    # ValueError: Input 0 with name 'title' of layer 'functional' is incompatible with the layer: expected shape=(None, 8), found shape=(32, 4)
    Case(
        name="f22_two_input_arrays_passed_in_swapped_order",
        family="multi_input_multi_output_models",
        code="""
title = keras.Input((8,), name="title")
meta = keras.Input((4,), name="meta")
h = keras.layers.Concatenate()([keras.layers.Dense(16, activation="relu")(title),
                                keras.layers.Dense(4, activation="relu")(meta)])
model = keras.Model(inputs=[title, meta], outputs=keras.layers.Dense(1)(h))
model.compile(optimizer="adam", loss="mse")

x_meta = np.random.rand(64, 4).astype("float32")
x_title = np.random.rand(64, 8).astype("float32")
y = np.random.rand(64).astype("float32")
model.fit([x_meta, x_title], y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("order",),
        must_not=("reshape", "flatten"),
        fix="model.fit([x_title, x_meta], y) or a dict {'title': ..., 'meta': ...}",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 15, 15, 8), (None, 5)]
    Case(
        name="f22_concatenate_conv_feature_map_with_tabular_vector",
        family="multi_input_multi_output_models",
        code="""
image = keras.Input((32, 32, 3), name="image")
tabular = keras.Input((5,), name="tabular")
x = keras.layers.Conv2D(8, 3, activation="relu")(image)
x = keras.layers.MaxPooling2D()(x)
merged = keras.layers.Concatenate()([x, tabular])
out = keras.layers.Dense(1, activation="sigmoid")(merged)
model = keras.Model([image, tabular], out)
""",
        expect="S01",
        must=("15, 15, 8",),
        must_not=("strides", "axis=1"),
        fix="Flatten() or GlobalAveragePooling2D() on the image branch before Concatenate",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (32,) and (64,)
    Case(
        name="f22_add_branches_with_different_widths",
        family="multi_input_multi_output_models",
        code="""
user = keras.Input((12,), name="user")
item = keras.Input((20,), name="item")
u = keras.layers.Dense(32, activation="relu")(user)
i = keras.layers.Dense(64, activation="relu")(item)
joint = keras.layers.Add()([u, i])
score = keras.layers.Dense(1, activation="sigmoid", name="score")(joint)
model = keras.Model(inputs=[user, item], outputs=score)
""",
        expect="S01",
        must=("32", "64"),
        must_not=("batch",),
        fix="give both branches the same units (or use Concatenate)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(16,), output.shape=(16, 4)
    Case(
        name="f22_categorical_loss_on_one_head_with_class_ids",
        family="multi_input_multi_output_models",
        code="""
inputs = keras.Input((10,), name="features")
h = keras.layers.Dense(32, activation="relu")(inputs)
genre = keras.layers.Dense(4, activation="softmax", name="genre")(h)
rating = keras.layers.Dense(1, name="rating")(h)
model = keras.Model(inputs, {"genre": genre, "rating": rating})
model.compile(optimizer="adam",
              loss={"genre": "categorical_crossentropy", "rating": "mse"},
              loss_weights={"genre": 1.0, "rating": 0.2},
              metrics={"genre": ["accuracy"]})

x = np.random.rand(64, 10).astype("float32")
y = {"genre": np.random.randint(0, 4, 64), "rating": np.random.rand(64).astype("float32")}
model.fit(x, y, epochs=1, batch_size=16, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("loss_weights",),
        fix="loss={'genre': 'sparse_categorical_crossentropy', ...}",
    ),
    # ValueError: Missing data for input "meta". You passed a data dictionary with keys ['title', 'metadata']. Expected the following keys: ['meta', 'title']
    Case(
        name="f22_dict_dataset_input_key_misspelled",
        family="multi_input_multi_output_models",
        code="""
title = keras.Input((8,), name="title")
meta = keras.Input((4,), name="meta")
h = keras.layers.Concatenate()([title, meta])
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model({"title": title, "meta": meta}, category)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")

features = {"title": np.random.rand(32, 8).astype("float32"),
            "metadata": np.random.rand(32, 4).astype("float32")}
labels = np.random.randint(0, 3, 32)
ds = tf.data.Dataset.from_tensor_slices((features, labels)).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message names the missing input 'meta', the keys passed and the "
        "keys expected",
        must_not=("sample_weight",),
        fix="rename the feature key 'metadata' to 'meta'",
    ),
]
