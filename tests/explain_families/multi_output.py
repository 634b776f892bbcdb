"""Family: models with several outputs (and several inputs), a second pass.

API: ``keras.Model(inputs, [out_a, out_b])`` or ``keras.Model(inputs, {key: out})``;
``compile(loss=[...] | {output_name: loss}, loss_weights=[...] | {output_name: w},
metrics=[...] | {output_name: [...]})``; ``fit``/``evaluate`` with
``y=[y_a, y_b] | {output_name: y}``, ``sample_weight`` (one array per output, the
documented replacement for ``class_weight``, which only single-output models take), a
``tf.data`` element ``(x, y, sample_weight)`` whose y and weights are nested like the
outputs; ``predict`` returning a list or a dict; ``evaluate(return_dict=True)`` keys
such as ``price_loss``.  Contract (Keras 3 documentation and behaviour): a list given
for ``loss``/``metrics``/``loss_weights``/``y`` is matched to the outputs BY POSITION
(for a model built with a dict of outputs, that position is the dict's keys in sorted
order), and a ``metrics`` list holds one entry per output (not a list applied to every
output, as in Keras 2); a dict is matched by the output names, which are the output
layers' ``name=`` for a list of outputs but the dict's KEYS for a dict of outputs
(``model.output_names`` still lists the layers' names); every output that has a loss
needs a target (``None`` only where that output's loss is ``None``); all targets have
the sample count of ``x``; a ``sample_weight`` structure has one entry per output;
layer names (``Input`` included) are unique in a model.  Evidence a diagnosis can read
at the failure: the model's outputs (names, dict keys, shapes, activations), the
compile arguments (loss, metrics, loss_weights: list length or dict keys), the
structure of ``y`` and of the weights (list order, dict keys, ``None`` entries, a
single 2-column frame), each target's shape, dtype and row count, a dataset's
``element_spec``, the loss or metric named in the failing op's scope.

Written from the Keras/TensorFlow documentation and user reports, before the rules
for this family were read.  Every case was run: the exception and the first line of
its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "multi_output"

CASES = [
    # InvalidArgumentError: Graph execution error: ... (last line: Incompatible shapes:
    # [32] vs. [32,3] [[{{node sub}}]], raised in losses.mean_absolute_error)
    # (Keras 3 pairs a metrics list with the outputs by position: "accuracy" lands on
    # 'price' and "mae" on the 3-way softmax 'category' with its integer labels)
    Case(
        "mo_metrics_list_paired_with_wrong_output",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inp, [price, category])
model.compile("adam", loss=["mse", "sparse_categorical_crossentropy"],
              metrics=["accuracy", "mae"])
x = np.random.rand(40, 6).astype("float32")
y_price = np.random.rand(40, 1).astype("float32")
y_category = np.random.randint(0, 3, 40)
model.fit(x, [y_price, y_category], epochs=1, verbose=0)
""",
        "S07",
        must=("mae", "category"),
        must_not=("to_categorical",),
        fix="metrics={'price': ['mae'], 'category': ['accuracy']}",
    ),
    # KeyError: 'price'
    # (loss dict keyed by the output names, loss_weights keyed by the Python variables)
    Case(
        "mo_loss_weights_keyed_by_variable_names",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inp)
price_out = keras.layers.Dense(1, name="price")(h)
cat_out = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inp, [price_out, cat_out])
model.compile("adam",
              loss={"price": "mse", "category": "sparse_categorical_crossentropy"},
              loss_weights={"price_out": 1.0, "cat_out": 0.3})
x = np.random.rand(40, 6).astype("float32")
model.fit(x, [np.random.rand(40, 1), np.random.randint(0, 3, 40)], epochs=1, verbose=0)
""",
        "S12",
        must=("loss_weights", "price_out"),
        must_not=("astype", "tf.cast"),
        fix="key loss_weights by the output names: price, category",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(None, 1), output.shape=(None, 3)
    # (targets listed as [category, price] for outputs [price, category]; the one-hot
    # category labels go to the mse head, the price column to categorical_crossentropy)
    Case(
        "mo_target_list_in_other_order_than_outputs",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inp, [price, category])
model.compile("adam", loss=["mse", "categorical_crossentropy"])
x = np.random.rand(40, 6).astype("float32")
y_category = keras.utils.to_categorical(np.random.randint(0, 3, 40), 3)
y_price = np.random.rand(40, 1).astype("float32")
model.fit(x, [y_category, y_price], epochs=1, verbose=0)
""",
        "S12",
        must=("price", "category"),
        must_not=("sparse",),
        fix="fit(x, [y_price, y_category]) in the outputs' order, or a dict",
    ),
    # ValueError: None values not supported.
    # (an 'embedding' output kept for later use gets no target, but the single loss
    # string applies binary_crossentropy to it as well)
    Case(
        "mo_none_target_for_output_with_a_loss",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inp)
score = keras.layers.Dense(1, activation="sigmoid", name="score")(h)
embedding = keras.layers.Dense(4, name="embedding")(h)
model = keras.Model(inp, [score, embedding])
model.compile("adam", loss="binary_crossentropy")
x = np.random.rand(40, 6).astype("float32")
y_score = np.random.randint(0, 2, (40, 1))
model.fit(x, [y_score, None], epochs=1, verbose=0)
""",
        "S12",
        must=("embedding",),
        must_not=("fillna", "dropna", "impute"),
        fix="loss={'score': 'binary_crossentropy', 'embedding': None}",
    ),
    # KeyError: "The path: ('price',) in the `loss` argument, can't be found in either
    # the model's output (`y_pred`) or in the labels (`y_true`)."
    # (outputs given as a dict: its keys 'sale_price'/'segment' are the output names,
    # not the layers' name= 'price'/'category' that the loss dict uses)
    Case(
        "mo_loss_dict_by_layer_names_for_dict_outputs",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inp, {"sale_price": price, "segment": category})
model.compile("adam", loss={"price": "mse", "category": "sparse_categorical_crossentropy"})
x = np.random.rand(40, 6).astype("float32")
model.fit(x, {"sale_price": np.random.rand(40, 1), "segment": np.random.randint(0, 3, 40)},
          epochs=1, verbose=0)
""",
        "S12",
        must=("sale_price",),
        must_not=("rename the layer",),
        fix="key the loss dict by the output dict's keys: sale_price, segment",
    ),
    # ValueError: y_true and y_pred have different structures.
    # (both targets passed as one 2-column DataFrame for the two outputs 'lat', 'lon')
    Case(
        "mo_two_outputs_fed_one_two_column_frame",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame(np.random.rand(40, 8).astype("float32"),
                  columns=["f1", "f2", "f3", "f4", "f5", "f6", "lat", "lon"])
inp = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inp)
lat = keras.layers.Dense(1, name="lat")(h)
lon = keras.layers.Dense(1, name="lon")(h)
model = keras.Model(inp, [lat, lon])
model.compile("adam", loss=["mse", "mse"])
features = df[["f1", "f2", "f3", "f4", "f5", "f6"]]
model.fit(features, df[["lat", "lon"]], epochs=1, verbose=0)
""",
        "S12",
        must=("lat", "lon"),
        must_not=("expand_dims", "batch axis"),
        fix="fit(features, [df['lat'], df['lon']]) or a dict by output name",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 40
    # (the NaN prices were dropped from the 'price' target only: 32 rows against 40;
    # 32 is not a batch size here)
    Case(
        "mo_one_target_filtered_rows_differ",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
sold = keras.layers.Dense(1, activation="sigmoid", name="sold")(h)
model = keras.Model(inp, [price, sold])
model.compile("adam", loss=["mse", "binary_crossentropy"])
x = np.random.rand(40, 6).astype("float32")
y_price = np.random.rand(40).astype("float32")
y_price[::5] = np.nan
y_sold = np.random.randint(0, 2, 40)
y_price = y_price[~np.isnan(y_price)]
model.fit(x, [y_price, y_sold], epochs=1, verbose=0)
""",
        "S12",
        must=("price", "32"),
        must_not=("batch_size", "drop_remainder"),
        fix="drop the same rows from x and every target (one mask)",
    ),
    # InvalidArgumentError: Graph execution error: ... (last line: Incompatible shapes:
    # [32] vs. [32,3] [[{{node gradient_tape/compile_loss/mse/sub/BroadcastGradientArgs}}]])
    # (outputs given as a dict: a loss list follows the keys' sorted order, so "mse"
    # goes to 'category' and the sparse loss to 'price')
    Case(
        "mo_loss_list_for_dict_outputs_sorted_keys",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inp, {"price": price, "category": category})
model.compile("adam", loss=["mse", "sparse_categorical_crossentropy"])
x = np.random.rand(40, 6).astype("float32")
model.fit(x, {"price": np.random.rand(40, 1), "category": np.random.randint(0, 3, 40)},
          epochs=1, verbose=0)
""",
        "S07",
        must=("mse", "category"),
        must_not=("to_categorical",),
        fix="loss={'price': 'mse', 'category': 'sparse_categorical_crossentropy'}",
    ),
    # KeyError: 'price'
    # (class_weight is refused for two outputs, so per-example weights for the rare
    # categories are put in the dataset, but only for 'category', not for 'price')
    Case(
        "mo_dataset_sample_weight_for_one_output",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inp, {"price": price, "category": category})
model.compile("adam", loss={"price": "mse", "category": "sparse_categorical_crossentropy"})
x = np.random.rand(40, 6).astype("float32")
y_category = np.random.randint(0, 3, 40)
cat_weights = np.where(y_category == 2, 5.0, 1.0).astype("float32")
train_ds = tf.data.Dataset.from_tensor_slices(
    (x, {"price": np.random.rand(40, 1), "category": y_category}, {"category": cat_weights})
).batch(8)
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("sample_weight", "price"),
        must_not=("loss_weights",),
        fix="add 'price': np.ones(40) to the weights dict",
    ),
    # ValueError: The name "price" is used 2 times in the model. All operation names
    # should be unique.
    # (the last-price Input and the predicted-price Dense are both named "price")
    Case(
        "mo_dense_output_named_like_an_input",
        FAMILY,
        """
last_price = keras.Input((1,), name="price")
volume = keras.Input((1,), name="volume")
h = keras.layers.Dense(8, activation="relu")(keras.layers.Concatenate()([last_price, volume]))
next_price = keras.layers.Dense(1, name="price")(h)
direction = keras.layers.Dense(1, activation="sigmoid", name="direction")(h)
model = keras.Model([last_price, volume], [next_price, direction])
""",
        None,
        unexplained="Keras names the duplicated layer name and says names must be unique",
        fix="rename the output layer, e.g. name='next_price'",
    ),
]
