"""Family ``transfer_learning``: a ``keras.applications`` base with a new head.

APIs: ``keras.applications.*`` constructors (here always ``weights=None`` so nothing is
downloaded) with ``include_top``, ``input_shape``, ``pooling`` and ``classes``;
``base.trainable`` for freezing and unfreezing; ``keras.applications.<net>.preprocess_input``;
heads added with ``keras.Sequential([base, ...])`` or on ``base.output``; ``compile`` before
``fit`` (again after unfreezing); ``base.predict`` for feature extraction.  The documented
contract: ``include_top=True`` (the default) keeps the ImageNet classifier, a
``Dense(classes=1000, softmax)`` on a fixed input size, so a new task needs
``include_top=False`` and its own head; with ``include_top=False`` the base outputs a 4-D
feature map ``(batch, h, w, channels)`` unless ``pooling="avg"``/``"max"`` (or a
``GlobalAveragePooling2D``) reduces it, and features saved with ``predict`` keep that
shape; ``input_shape`` fixes the height, width and three colour channels the base
accepts (grayscale images must be repeated to 3 channels, other sizes resized);
``preprocess_input(x, data_format=None)`` takes the images only, so mapping it over
``(image, label)`` pairs passes the label as ``data_format``; a model must be compiled
before ``fit``; a one-unit sigmoid head pairs with ``binary_crossentropy``.

Evidence a diagnosis needs: the base's name and its ``include_top``/``pooling``/
``input_shape`` settings, the shape of the base's output against what the head or the
labels expect (4-D feature map vs. a vector; 1000 ImageNet classes vs. the task's
classes), the image batch's height, width and channels against ``input_shape``, and the
loss against the head's units and activation.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Exception encountered when calling Functional.call().
    #   ... Input 0 with name 'None' of layer 'Conv1' is incompatible with the layer: expected axis -1 of input shape to have value 3, but received input with sha ...
    Case(
        name="f13_grayscale_xrays_into_mobilenetv2_base",
        family="transfer_learning",
        code="""
xrays = np.random.rand(8, 96, 96, 1).astype("float32")
labels = np.array([0, 1] * 4)
base = keras.applications.MobileNetV2(include_top=False, weights=None,
                                      input_shape=(96, 96, 3), pooling="avg")
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(xrays, labels, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("batch axis", "flatten"),
        fix="tf.image.grayscale_to_rgb(xrays) (or np.repeat(xrays, 3, axis=-1))",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 5), output.shape=(None, 1000)
    Case(
        name="f13_resnet50_default_top_with_five_flower_classes",
        family="transfer_learning",
        code="""
images = np.random.rand(4, 64, 64, 3).astype("float32")
labels = keras.utils.to_categorical([0, 1, 2, 4], 5)
model = keras.applications.ResNet50(weights=None, input_shape=(64, 64, 3))
model.compile(optimizer="adam", loss="categorical_crossentropy")
model.fit(images, labels, epochs=1, verbose=0)
""",
        expect="M04",
        must=("include_top",),
        must_not=("sparse_categorical", "flatten"),
        fix="include_top=False, pooling='avg' + Dense(5, softmax) (or classes=5)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None,), output.shape=(None, 2, 2, 3)
    Case(
        name="f13_efficientnet_feature_map_straight_into_dense_head",
        family="transfer_learning",
        code="""
images = np.random.rand(6, 64, 64, 3).astype("float32")
labels = np.array([0, 1, 2, 0, 1, 2])
base = keras.applications.EfficientNetB0(include_top=False, weights=None, input_shape=(64, 64, 3))
base.trainable = False
inputs = keras.Input(shape=(64, 64, 3))
x = base(inputs, training=False)
outputs = keras.layers.Dense(3, activation="softmax")(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(images, labels, epochs=1, verbose=0)
""",
        expect="S07",
        must=("pool",),
        must_not=("one-hot", "to_categorical"),
        fix="pooling='avg' in the base, or GlobalAveragePooling2D() before the Dense",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   ... Invalid input shape for input Tensor("data:0", shape=(None, 3, 3, 1280), dtype=float32) with name 'keras_tensor' and path ''. Expected shape (None, 12 ...
    Case(
        name="f13_saved_mobilenet_features_into_vector_classifier",
        family="transfer_learning",
        code="""
images = np.random.rand(10, 96, 96, 3).astype("float32")
labels = np.array([0, 1] * 5)
base = keras.applications.MobileNetV2(include_top=False, weights=None, input_shape=(96, 96, 3))
features = base.predict(images, verbose=0)
clf = keras.Sequential([
    keras.Input(shape=(1280,)),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
clf.compile(optimizer="adam", loss="binary_crossentropy")
clf.fit(features, labels, epochs=1, verbose=0)
""",
        expect="S01",
        must=("pool",),
        must_not=("expand_dims", "batch axis"),
        fix="MobileNetV2(..., pooling='avg') before predict (or features.mean(axis=(1, 2)))",
    ),
    # ValueError: You must call `compile()` before using the model.
    Case(
        name="f13_fine_tune_model_fit_before_compile",
        family="transfer_learning",
        code="""
images = np.random.rand(4, 64, 64, 3).astype("float32")
labels = np.array([0, 1, 1, 0])
base = keras.applications.MobileNetV2(include_top=False, weights=None,
                                      input_shape=(64, 64, 3), pooling="avg")
base.trainable = True
inputs = keras.Input(shape=(64, 64, 3))
outputs = keras.layers.Dense(1, activation="sigmoid")(base(inputs))
fine_tune_model = keras.Model(inputs, outputs)
fine_tune_model.fit(images, labels, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message says compile() must be called before using the model",
        fix="fine_tune_model.compile(optimizer=keras.optimizers.Adam(1e-5), loss='binary_crossentropy')",
    ),
    # ValueError: Input 0 with name 'input_layer' of layer 'functional' is incompatible with the layer: expected shape=(None, 160, 160, 3), found shape=(None, 224, 224, ...
    Case(
        name="f13_base_built_for_160_fed_224_images",
        family="transfer_learning",
        code="""
images = np.random.rand(4, 224, 224, 3).astype("float32")
labels = np.array([0, 1, 2, 1])
base = keras.applications.MobileNetV2(include_top=False, weights=None, input_shape=(160, 160, 3))
base.trainable = False
inputs = keras.Input(shape=(160, 160, 3))
x = base(inputs, training=False)
x = keras.layers.Flatten()(x)
outputs = keras.layers.Dense(3, activation="softmax")(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(images, labels, epochs=1, verbose=0)
""",
        expect="S01",
        must=("160",),
        must_not=("batch axis", "channel"),
        fix="tf.image.resize(images, (160, 160)) (or a Resizing(160, 160) layer)",
    ),
    # TypeError: Tensor is unhashable. Instead, use tensor.ref() as the key.
    Case(
        name="f13_preprocess_input_mapped_over_image_label_pairs",
        family="transfer_learning",
        code="""
images = np.random.randint(0, 256, size=(6, 64, 64, 3)).astype("float32")
labels = np.array([0, 1, 0, 1, 0, 1])
ds = tf.data.Dataset.from_tensor_slices((images, labels))
ds = ds.map(keras.applications.resnet50.preprocess_input).batch(2)
""",
        expect="S12",
        must=("label",),
        must_not=("cast", "expand_dims"),
        fix="ds.map(lambda x, y: (preprocess_input(x), y))",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Received a label value of 1 which is outside the valid range of [0, 1).  Label values: 1 0 1 0 1 0
    Case(
        name="f13_sigmoid_head_trained_with_sparse_categorical_loss",
        family="transfer_learning",
        code="""
images = np.random.rand(6, 64, 64, 3).astype("float32")
is_dog = np.array([0, 1, 1, 0, 1, 0])
base = keras.applications.MobileNetV3Small(include_top=False, weights=None,
                                           input_shape=(64, 64, 3), pooling="avg")
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(images, is_dog, epochs=1, verbose=0)
""",
        expect="M03",
        must=("binary_crossentropy",),
        must_not=("from_logits=true", "input_dim"),
        fix="loss='binary_crossentropy' (or Dense(2, softmax))",
    ),
]
