"""Fine-tuning ``keras.applications`` bases and freezing layers.

The family
----------
``keras.applications.<Net>(include_top=True, weights="imagenet", input_shape=None,
pooling=None, classes=1000, ...)`` builds a Functional model.  Here always with
``weights=None`` (no download).  The documented contract:

* ``include_top=False`` removes the classifier: the output is the last feature MAP,
  rank 4 ``(batch, h, w, channels)`` (MobileNetV2: 1280 channels, ResNet50 / DenseNet:
  2048 / 1024), unless ``pooling="avg"`` or ``"max"``, which makes it rank 2
  ``(batch, channels)``.  A new head therefore needs ``GlobalAveragePooling2D`` (or
  ``pooling=``), not a ``Dense`` directly on the map, and not a second pooling after
  ``pooling="avg"``.
* ``input_shape``: three integers, channels last; each model has a minimum spatial size
  (32 for VGG / ResNet / MobileNet / DenseNet / EfficientNet, 75 for InceptionV3 /
  InceptionResNetV2).  Without ``input_shape`` and with ``include_top=False`` the input is
  ``(None, None, 3)``: the spatial size of the output is unknown, so a ``Flatten`` gives an
  unknown number of features and the next ``Dense`` cannot create its kernel; pooling (or a
  fixed ``input_shape``) fixes that.  The base's input fixes the channel count (3): a
  grayscale array ``(N, H, W, 1)`` must be repeated to 3 channels.
* ``<module>.preprocess_input(x)`` expects float pixels in ``[0, 255]``; NumPy arrays are
  cast, but a ``uint8`` tensor (a ``tf.data`` element) goes through TensorFlow arithmetic
  with float constants and fails: cast it to ``float32`` first.
* Freezing: ``base.trainable = False`` (recursively), and ``base(x, training=False)`` keeps
  BatchNormalization in inference mode; changing ``trainable`` requires ``compile`` again
  to take effect.
* Feature extraction: ``base.get_layer(name)`` (``ValueError: No such layer`` lists the
  existing names); ``keras.Model(base.input, base.get_layer(name).output)``: the inputs
  must be the tensors the outputs were computed from (``base.input``); a fresh
  ``keras.Input`` is not connected to them.  The extractor keeps the base's fixed input
  size.

Evidence a diagnosis needs: the base's output shape (rank 4 map vs pooled vector) and the
head layers after it, the ``pooling`` argument, the base's input spec vs the data's shape
(channels, size), the dtype of the tensor given to ``preprocess_input``, and for a
disconnected extractor which inputs the requested output depends on.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input size must be at least 75x75; Received: input_shape=(64, 64, 3)
    Case(
        name="f24_inception_v3_input_below_minimum",
        family="fine_tuning_and_layer_freezing",
        code="""
base = keras.applications.InceptionV3(weights=None, include_top=False, input_shape=(64, 64, 3))
""",
        expect=None,
        unexplained=(
            "Keras' message states the minimum (75x75) and the shape received: resize the "
            "images (input_shape of at least 75x75)"
        ),
        fix="input_shape of at least (75, 75, 3), resizing the images",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None,), output.shape=(None, 2, 2, 5)
    Case(
        name="f24_dense_head_on_unpooled_feature_map",
        family="fine_tuning_and_layer_freezing",
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(64, 64, 3))
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(5, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
x = np.random.rand(8, 64, 64, 3).astype("float32")
y = np.random.randint(0, 5, 8)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("pool",),
        must_not=("one-hot",),
        fix='pooling="avg" on the base or GlobalAveragePooling2D before the Dense head',
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None` dimensions). Received: shape=(None, 10) for variable path='dense_2/kernel'
    Case(
        name="f24_flatten_after_base_with_unknown_size",
        family="fine_tuning_and_layer_freezing",
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False)
base.trainable = False
inputs = keras.Input((None, None, 3))
h = base(inputs, training=False)
h = keras.layers.Flatten()(h)
outputs = keras.layers.Dense(10, activation="softmax")(h)
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("flatten",),
        must_not=("model.build",),
        fix="GlobalAveragePooling2D instead of Flatten (or a fixed input_shape)",
    ),
    # ValueError: Input 0 with name 'None' of layer 'global_average_pooling2d_1' is incompatible with the layer: expected ndim=4, found ndim=2. Full shape received: (None, 1280)
    Case(
        name="f24_pooling_avg_base_then_global_pool_again",
        family="fine_tuning_and_layer_freezing",
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(64, 64, 3),
                                      pooling="avg")
base.trainable = False
inputs = keras.Input((64, 64, 3))
h = base(inputs, training=False)
h = keras.layers.GlobalAveragePooling2D()(h)
outputs = keras.layers.Dense(3, activation="softmax")(h)
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("pooling",),
        must_not=("reshape",),
        fix='drop the GlobalAveragePooling2D (the base already pools with pooling="avg")',
    ),
    # ValueError: Exception encountered when calling Functional.call().
    # (Input 0 with name 'None' of layer 'conv1_conv' is incompatible with the layer: expected axis -1 of input shape to have value 3, but received input with shape (None, 38, 38, 1))
    Case(
        name="f24_grayscale_images_into_rgb_base",
        family="fine_tuning_and_layer_freezing",
        code="""
base = keras.applications.DenseNet121(weights=None, include_top=False, input_shape=(32, 32, 3),
                                      pooling="avg")
base.trainable = False
inputs = keras.Input((32, 32, 3))
outputs = keras.layers.Dense(10, activation="softmax")(base(inputs, training=False))
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
x = np.random.rand(8, 32, 32, 1).astype("float32")
y = np.random.randint(0, 10, 8)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("transpose",),
        fix="np.repeat(x, 3, axis=-1) (or tf.image.grayscale_to_rgb)",
    ),
    # ValueError: No such layer: block5_conv3. Existing layers are: ['input_layer_10', 'conv1_pad', 'conv1_conv', ...
    Case(
        name="f24_vgg_layer_name_on_resnet_base",
        family="fine_tuning_and_layer_freezing",
        code="""
base = keras.applications.ResNet50(weights=None, include_top=False, input_shape=(64, 64, 3))
features = keras.Model(base.input, base.get_layer("block5_conv3").output)
""",
        expect=None,
        unexplained=(
            "Keras' message names the missing layer and lists every existing layer name "
            "to choose from"
        ),
        fix="a ResNet50 layer name, e.g. 'conv5_block3_out'",
    ),
    # ValueError: Output with path `` is not connected to `inputs`
    Case(
        name="f24_feature_extractor_with_fresh_input",
        family="fine_tuning_and_layer_freezing",
        code="""
base = keras.applications.VGG16(weights=None, include_top=False, input_shape=(64, 64, 3))
inputs = keras.Input((64, 64, 3))
features = keras.Model(inputs, base.get_layer("block4_conv3").output)
""",
        expect="S12",
        must=("base.input",),
        must_not=("input_shape",),
        fix="keras.Model(base.input, base.get_layer('block4_conv3').output)",
    ),
    # TypeError: `x` and `y` must have the same dtype, got tf.uint8 != tf.float32.
    Case(
        name="f24_preprocess_input_on_uint8_dataset",
        family="fine_tuning_and_layer_freezing",
        code="""
x = np.random.randint(0, 256, (8, 32, 32, 3)).astype("uint8")
y = np.random.randint(0, 2, 8)
ds = tf.data.Dataset.from_tensor_slices((x, y))
ds = ds.map(lambda img, label: (keras.applications.mobilenet_v2.preprocess_input(img), label))
""",
        expect="S11",
        must=("uint8",),
        must_not=("float64",),
        fix="tf.cast(img, tf.float32) before preprocess_input",
    ),
]
