"""Fine-tuning ``keras.applications`` bases and freezing layers.

The family
----------
Transfer learning puts a new head on a model from ``keras.applications`` (here always with
``weights=None``: the architecture without a download).

* ``keras.applications.<Model>(include_top=True, weights=..., input_shape=None,
  pooling=None, classes=1000, classifier_activation="softmax")``.  With
  ``include_top=True`` the model ends in its own ``classes``-way softmax (1000 by default).
  With ``include_top=False`` it ends in the last convolutional feature map,
  ``(batch, h, w, channels)``, unless ``pooling="avg"`` / ``"max"`` reduces it to
  ``(batch, channels)``.  ``input_shape`` has exactly three entries, channels last; width and
  height must be at least 32 for most bases (MobileNetV2, ResNet, VGG, DenseNet; 75 for
  InceptionV3, 71 for Xception).  Without ``input_shape`` the spatial axes are ``None``,
  so a ``Flatten`` on the features has an unknown size and the next ``Dense`` cannot create
  its kernel; ``GlobalAveragePooling2D`` (or ``pooling="avg"``) has a fixed size.  A base
  built for ``(96, 96, 3)`` checks its input and refuses ``(64, 64, 3)`` images.
* A new head: ``keras.Sequential([base, Dense(n)])`` or ``x = base(inputs, training=False);
  x = GlobalAveragePooling2D()(x); outputs = Dense(n)(x)``.  A ``Dense`` applied directly to
  a 4D feature map acts per position and returns ``(batch, h, w, n)``.  The loss must fit the
  labels: integer labels ``(N,)`` with ``sparse_categorical_crossentropy``, one-hot ``(N,
  n)`` with ``categorical_crossentropy``, and the head must have as many units as there are
  classes.
* Freezing: ``base.trainable = False`` freezes every weight (and runs BatchNormalization
  in inference mode when the base is called with ``training=False``); individual layers via
  ``for layer in base.layers[:k]: layer.trainable = False``; ``compile`` again after a
  change.
* ``preprocess_input`` of each application maps raw ``[0, 255]`` pixels to the range the
  base expects (``mobilenet_v2``: ``x / 127.5 - 1``); on a ``uint8`` tensor in a ``tf.data``
  map that arithmetic mixes uint8 with float32, so the image must be cast to float first.
* Feature extraction: ``keras.Model(base.input, base.get_layer(name).output)``; feature maps
  of different depths have different spatial sizes (a stride-2 stage halves them), so joining
  them with ``Concatenate`` needs an ``UpSampling2D`` / pooling first.

Evidence a diagnosis needs
--------------------------
The base's output shape (4D map vs pooled vector) and how the head used it, the number of
output units against the label encoding and class count, the input shape the base was built
for against the data's, the dtype of the images reaching ``preprocess_input``, and the
spatial sizes of the feature maps a layer combined.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "fine_tuning_and_layer_freezing"

CASES = [
    # ValueError: Input size must be at least 32x32; Received: input_shape=(28, 28, 3)
    Case(
        name="f25_mobilenetv2_base_on_28px_images",
        family=FAMILY,
        code="""
x = np.random.rand(8, 28, 28, 3).astype("float32")
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=x.shape[1:], alpha=0.35)
base.trainable = False
model = keras.Sequential([base, keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(10)])
""",
        expect=None,
        unexplained="the message states the minimum (32x32) and the shape received; resizing the "
        "images (or a Resizing layer) follows",
        fix="resize the images to at least 32x32 (keras.layers.Resizing(32, 32)) and input_shape=(32, 32, 3)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None,), output.shape=(None, 2, 2, 5)
    Case(
        name="f25_dense_head_on_unpooled_base_feature_map",
        family=FAMILY,
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(64, 64, 3), alpha=0.35)
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(5, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
x = np.random.rand(8, 64, 64, 3).astype("float32")
y = np.random.randint(0, 5, (8,))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("pooling",),
        must_not=("to_categorical",),
        fix="pooling='avg' in the base or a GlobalAveragePooling2D before the Dense head",
    ),
    # TypeError: `x` and `y` must have the same dtype, got tf.uint8 != tf.float32.
    Case(
        name="f25_mobilenet_preprocess_input_on_uint8_in_map",
        family=FAMILY,
        code="""
images = np.random.randint(0, 256, (8, 32, 32, 3), dtype=np.uint8)
labels = np.random.randint(0, 2, (8,))
preprocess = keras.applications.mobilenet_v2.preprocess_input
ds = tf.data.Dataset.from_tensor_slices((images, labels))
ds = ds.map(lambda x, y: (preprocess(x), y)).batch(4)
""",
        expect="S11",
        must=("uint8",),
        must_not=("float64",),
        fix="preprocess(tf.cast(x, tf.float32))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (Input 0 with name 'input_layer' of layer 'mobilenetv2_0.35_96' is incompatible with the layer: expected shape=(None, 96, 96, 3), found shape=(None, 64, 64, 3))
    Case(
        name="f25_base_built_for_96px_fed_64px_images",
        family=FAMILY,
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(96, 96, 3), alpha=0.35, pooling="avg")
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(4, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
x = np.random.rand(8, 64, 64, 3).astype("float32")
y = np.random.randint(0, 4, (8,))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("mobilenetv2",),
        must_not=("expand_dims",),
        fix="build the base with input_shape=(64, 64, 3), or resize the images to 96x96",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 8, 8, 96), (None, 4, 4, 192)]
    Case(
        name="f25_concatenate_features_of_two_base_stages",
        family=FAMILY,
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(64, 64, 3), alpha=0.35)
base.trainable = False
f1 = base.get_layer("block_6_expand_relu").output
f2 = base.get_layer("block_13_expand_relu").output
merged = keras.layers.Concatenate()([f1, f2])
out = keras.layers.Dense(3)(keras.layers.GlobalAveragePooling2D()(merged))
extractor = keras.Model(base.input, out)
""",
        expect="S01",
        must=("concatenate",),
        must_not=("batch size",),
        fix="UpSampling2D(2) on the 4x4 map (or pool the 8x8 one) before Concatenate",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 5), output.shape=(None, 1000)
    Case(
        name="f25_include_top_default_1000_classes_on_5_class_labels",
        family=FAMILY,
        code="""
model = keras.applications.MobileNetV2(weights=None, input_shape=(32, 32, 3), alpha=0.35)
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
x = np.random.rand(8, 32, 32, 3).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 5, (8,)), 5)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M04",
        must=("1000",),
        must_not=("sparse_categorical",),
        fix="include_top=False with pooling='avg' and a Dense(5, 'softmax') head (or classes=5)",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None` dimensions). Received: shape=(None, 64) for variable path='dense/kernel'
    Case(
        name="f25_flatten_head_on_base_without_input_shape",
        family=FAMILY,
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, alpha=0.35)
base.trainable = False
x = keras.layers.Flatten()(base.output)
x = keras.layers.Dense(64, activation="relu")(x)
outputs = keras.layers.Dense(5, activation="softmax")(x)
model = keras.Model(base.input, outputs)
""",
        expect="S01",
        must=("flatten",),
        must_not=("batch size",),
        fix="GlobalAveragePooling2D instead of Flatten, or input_shape=(96, 96, 3) in the base",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(None,), output.shape=(None, 5)
    Case(
        name="f25_new_head_integer_labels_categorical_crossentropy",
        family=FAMILY,
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(32, 32, 3), alpha=0.35, pooling="avg")
base.trainable = False
inputs = keras.Input(shape=(32, 32, 3))
outputs = keras.layers.Dense(5, activation="softmax")(base(inputs, training=False))
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
x = np.random.rand(8, 32, 32, 3).astype("float32")
y = np.random.randint(0, 5, (8,))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("flatten",),
        fix="loss='sparse_categorical_crossentropy' (or one-hot labels)",
    ),
]
