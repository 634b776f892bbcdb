"""Family: functional models with several inputs and several outputs.

The APIs and their documented contract:

- ``keras.Model(inputs=[in_a, in_b], outputs=[out_1, out_2])`` (or dicts): ``Input(shape,
  name=...)`` and the output layers' ``name=`` define the keys by which data is matched.
  ``fit`` / ``evaluate`` / ``predict`` take ``x`` as a list in the order of ``inputs`` or a
  dict keyed by the Input names (every key present, spelled exactly), and ``y`` as a list in
  the order of ``outputs`` or a dict keyed by the OUTPUT LAYER names; one target per output.
  ``predict`` returns a list (or dict) of arrays, one per output.
- ``compile(loss=..., loss_weights=..., metrics=...)``: a single loss applies to every
  output; a list follows the output order; a dict must be keyed by the output names (Keras 3
  checks the keys: ``Expected keys [...] in loss dict``).  Each loss has its own contract on
  its output (``sparse_categorical_crossentropy``: integer ids for a softmax output;
  ``categorical_crossentropy``: one-hot rows; ``mse``: regression values).
- ``tf.data`` pipelines yield ``(x, y)`` or ``(x, y, sample_weight)``: for two inputs the
  inputs must be nested, ``((x1, x2), y)`` or ``({"a": x1, "b": x2}, y)``; a flat 3-tuple
  ``(x1, x2, y)`` is read as ``(x, y, sample_weight)``.
- Merging branches: ``Concatenate(axis=-1)`` needs inputs of equal rank and equal size on
  every axis but the concatenation axis (a 4-D conv feature map must be flattened / pooled
  before joining a 2-D vector); ``Add`` / ``Multiply`` / ``Average`` need identical shapes
  (project the branches to the same width with a ``Dense``).

Evidence a diagnosis needs to name the cause: the model's input and output names and order
vs the keys / list order / nesting of what was passed (a float regression target reaching
the classification loss betrays swapped targets); which loss got which target; the two
shapes a merge layer received and the layer that produced each.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Missing data for input "metadata". You passed a data dictionary with keys ['image_feats', 'meta']. Expected the following keys: ['image_feats', 'metadata']
    Case(
        name="f23_dataset_feature_dict_key_not_input_name",
        family="multi_input_multi_output_models",
        code="""
n = 32
img = np.random.rand(n, 16).astype("float32")
meta = np.random.rand(n, 4).astype("float32")
y = np.random.randint(0, 3, n)
a = keras.Input(shape=(16,), name="image_feats")
b = keras.Input(shape=(4,), name="metadata")
h = keras.layers.Concatenate()([keras.layers.Dense(8, activation="relu")(a), b])
out = keras.layers.Dense(3, activation="softmax", name="category")(h)
model = keras.Model(inputs={"image_feats": a, "metadata": b}, outputs=out)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
ds = tf.data.Dataset.from_tensor_slices(({"image_feats": img, "meta": meta}, y)).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("metadata",),
        must_not=("concatenate", "expand_dims"),
        fix="key the feature dict by the Input names: {'image_feats': ..., 'metadata': ...}",
    ),
    # ValueError: Layer "functional" expects 2 named input(s) with keys ['image_feats', 'metadata'], but it received 1 input tensors. Pass inputs as a dict, e.g. `layer({'image_feats': ..., 'metadata': ...})`.
    Case(
        name="f23_two_input_dataset_from_flat_triple",
        family="multi_input_multi_output_models",
        code="""
n = 32
img = np.random.rand(n, 16).astype("float32")
meta = np.random.rand(n, 4).astype("float32")
y = np.random.randint(0, 3, n)
a = keras.Input(shape=(16,), name="image_feats")
b = keras.Input(shape=(4,), name="metadata")
h = keras.layers.Concatenate()([keras.layers.Dense(8, activation="relu")(a), b])
out = keras.layers.Dense(3, activation="softmax")(h)
model = keras.Model(inputs=[a, b], outputs=out)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
ds = tf.data.Dataset.from_tensor_slices((img, meta, y)).batch(8)
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("concatenate", "expand_dims"),
        fix="nest the inputs: from_tensor_slices(((img, meta), y))",
    ),
    # TypeError: Expected float32, but got cls of type 'str'.
    Case(
        name="f23_target_dict_keyed_by_nicknames",
        family="multi_input_multi_output_models",
        code="""
n = 32
x = np.random.rand(n, 10).astype("float32")
y_cls = np.random.randint(0, 3, n)
y_reg = np.random.rand(n).astype("float32")
inp = keras.Input(shape=(10,), name="features")
h = keras.layers.Dense(16, activation="relu")(inp)
cls = keras.layers.Dense(3, activation="softmax", name="category")(h)
reg = keras.layers.Dense(1, name="price")(h)
model = keras.Model(inp, [cls, reg])
model.compile(optimizer="adam", loss={"category": "sparse_categorical_crossentropy", "price": "mse"})
model.fit(x, {"cls": y_cls, "reg": y_reg}, epochs=1, verbose=0)
""",
        expect="S12",
        must=("category",),
        must_not=("astype", "tf.cast"),
        fix="key the targets by the output names: {'category': y_cls, 'price': y_reg}",
    ),
    # InvalidArgumentError: Graph execution error: (... Received a label value of .. which is outside the valid range of [0, 3) ... node compile_loss/sparse_categorical_crossentropy/...)
    Case(
        name="f23_target_list_in_other_order_than_outputs",
        family="multi_input_multi_output_models",
        code="""
n = 32
x = np.random.rand(n, 10).astype("float32")
y_category = np.random.randint(0, 3, n)
y_price = np.random.uniform(50, 500, n).astype("float32")
inp = keras.Input(shape=(10,))
h = keras.layers.Dense(16, activation="relu")(inp)
category = keras.layers.Dense(3, activation="softmax", name="category")(h)
price = keras.layers.Dense(1, name="price")(h)
model = keras.Model(inputs=inp, outputs=[category, price])
model.compile(optimizer="adam", loss=["sparse_categorical_crossentropy", "mse"])
model.fit(x, [y_price, y_category], epochs=1, verbose=0)
""",
        expect="S12",
        must=("order",),
        must_not=("to_categorical", "from_logits"),
        fix="targets in output order [y_category, y_price] (or a dict keyed by output names)",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 15, 15, 8), (None, 8)]
    Case(
        name="f23_concatenate_conv_feature_map_with_tabular_vector",
        family="multi_input_multi_output_models",
        code="""
image = keras.Input(shape=(32, 32, 3), name="image")
tabular = keras.Input(shape=(5,), name="tabular")
x = keras.layers.Conv2D(8, 3, activation="relu")(image)
x = keras.layers.MaxPooling2D()(x)
t = keras.layers.Dense(8, activation="relu")(tabular)
merged = keras.layers.Concatenate()([x, t])
out = keras.layers.Dense(1, activation="sigmoid")(merged)
model = keras.Model([image, tabular], out)
""",
        expect="S01",
        must=("concatenate",),
        must_not=("strides", "downsample"),
        fix="Flatten() or GlobalAveragePooling2D() on the image branch before Concatenate",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (32,) and (16,)
    Case(
        name="f23_add_two_branches_of_different_width",
        family="multi_input_multi_output_models",
        code="""
user = keras.Input(shape=(10,), name="user")
item = keras.Input(shape=(6,), name="item")
u = keras.layers.Dense(32, activation="relu")(user)
v = keras.layers.Dense(16, activation="relu")(item)
joint = keras.layers.Add()([u, v])
score = keras.layers.Dense(1, activation="sigmoid")(joint)
model = keras.Model(inputs=[user, item], outputs=score)
""",
        expect="S01",
        must=("32", "16"),
        must_not=("strides", "expand_dims"),
        fix="give both branches the same width (Dense(32) on each) or use Concatenate",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(32,), output.shape=(32, 3)
    Case(
        name="f23_per_output_categorical_loss_on_class_ids",
        family="multi_input_multi_output_models",
        code="""
n = 32
img = np.random.rand(n, 16).astype("float32")
meta = np.random.rand(n, 4).astype("float32")
y_cls = np.random.randint(0, 3, n)
y_reg = np.random.rand(n).astype("float32")
a = keras.Input(shape=(16,), name="image_feats")
b = keras.Input(shape=(4,), name="metadata")
h = keras.layers.Concatenate()([a, b])
cls = keras.layers.Dense(3, activation="softmax", name="category")(h)
reg = keras.layers.Dense(1, name="price")(h)
model = keras.Model(inputs=[a, b], outputs=[cls, reg])
model.compile(optimizer="adam",
              loss={"category": "categorical_crossentropy", "price": "mse"},
              loss_weights={"category": 1.0, "price": 0.1},
              metrics={"category": ["accuracy"]})
model.fit({"image_feats": img, "metadata": meta}, {"category": y_cls, "price": y_reg},
          epochs=1, verbose=0)
""",
        expect="M05",
        must=("category", "sparse"),
        must_not=("flatten", "return_sequences"),
        fix="loss 'sparse_categorical_crossentropy' for the 'category' output (or one-hot y_cls)",
    ),
    # ValueError: Expected keys ['category', 'price'] in loss dict, but found loss.keys()=['category_output', 'price_output']
    Case(
        name="f23_loss_dict_keys_with_output_suffix",
        family="multi_input_multi_output_models",
        code="""
n = 32
x = np.random.rand(n, 10).astype("float32")
y_cls = np.random.randint(0, 3, n)
y_reg = np.random.rand(n).astype("float32")
inp = keras.Input(shape=(10,))
h = keras.layers.Dense(16, activation="relu")(inp)
cls = keras.layers.Dense(3, activation="softmax", name="category")(h)
reg = keras.layers.Dense(1, name="price")(h)
model = keras.Model(inp, [cls, reg])
model.compile(optimizer="adam",
              loss={"category_output": "sparse_categorical_crossentropy", "price_output": "mse"})
model.fit(x, {"category": y_cls, "price": y_reg}, epochs=1, verbose=0)
""",
        expect=None,
        must_not=("astype", "expand_dims"),
        unexplained="Keras' message lists the expected loss-dict keys next to the ones received",
        fix="loss={'category': ..., 'price': ...}",
    ),
]
