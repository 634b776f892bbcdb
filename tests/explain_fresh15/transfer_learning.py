"""Family ``transfer_learning``: ``keras.applications`` bases reused for a new task.

APIs: the application constructors (``ResNet50``, ``VGG16``, ``MobileNetV2``, ...;
``weights=None`` here, no downloads).  With ``include_top=False`` the base ends in a
4-D feature map ``(B, h, w, C)`` unless ``pooling="avg"``/``"max"`` reduces it to
``(B, C)``; a ``Dense`` head put straight on the feature map keeps the spatial axes, so
the head's output is ``(B, h, w, units)``.  ``input_shape`` fixes the size and channels
the base accepts (three channels, at least 32x32); a base built for one size does not
accept another, and grayscale images need three channels.  ``preprocess_input`` of each
application scales or centres float images (``mobilenet_v2``: ``x / 127.5 - 1`` in the
tensor's own dtype, so a ``uint8`` tensor fails); ``trainable=False`` freezes a base and
``base(x, training=False)`` keeps its BatchNormalization in inference mode; a head's
units must match the number of classes in the labels.  Layers of a base are a graph,
not a list: ResNet's layers have skip connections (``Add`` of two branches), so
re-stacking ``base.layers`` in a ``Sequential`` feeds each layer the previous one's
output instead of its real input; ``get_layer(name)`` needs an existing layer name.

Evidence a diagnosis needs: the base (class, ``include_top``, ``pooling``,
``input_shape``) and the shape of what it outputs, the head on top of it and the labels
(rank, number of classes) the loss received, the shape/channels/dtype of the images
against the base's input, and, for re-stacked layers, the layer that received the wrong
input and where its real input came from.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'conv2_block1_3_conv' is incompatible with the layer: expected axis -1 of input shape to have value 64, but received input with shape (None, 8, 8, 256)
    Case(
        name="f15_resnet_layers_restacked_into_sequential",
        family="transfer_learning",
        code="""
base = keras.applications.ResNet50(weights=None, include_top=False, input_shape=(32, 32, 3))
model = keras.Sequential(
    base.layers[:-10] + [keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(5)]
)
""",
        expect="S01",
        must=("conv2_block1_3_conv",),
        must_not=("reshape",),
        fix="keep the base whole: keras.Model(base.input, base.get_layer(...).output), then add the head",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None,), output.shape=(None, 1, 1, 4)
    Case(
        name="f15_mobilenet_base_without_pooling_under_dense_head",
        family="transfer_learning",
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(32, 32, 3))
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(4, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
x = np.random.rand(8, 32, 32, 3).astype("float32")
y = np.array([0, 1, 2, 3, 0, 1, 2, 3])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("pooling",),
        must_not=("to_categorical", "one_hot"),
        fix='pooling="avg" in MobileNetV2(...) or a GlobalAveragePooling2D before the Dense',
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(None,), output.shape=(None, 1, 1, 1)
    Case(
        name="f15_vgg_feature_maps_extracted_then_fed_to_dense_head",
        family="transfer_learning",
        code="""
base = keras.applications.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3))
images = np.random.rand(6, 32, 32, 3).astype("float32")
labels = np.array([0, 1, 1, 0, 1, 0])
features = base.predict(images, verbose=0)
head = keras.Sequential([keras.layers.Dense(1, activation="sigmoid")])
head.compile(optimizer="adam", loss="binary_crossentropy")
head.fit(features, labels, epochs=1, verbose=0)
""",
        expect="S07",
        must=("pooling",),
        must_not=("expand_dims",),
        fix='VGG16(..., pooling="avg") or a Flatten/GlobalAveragePooling2D as the head\'s first layer',
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Input 0 with name 'input_layer...' of layer 'resnet50' is incompatible with the layer: expected shape=(None, 64, 64, 3), found shape=(None, 32, 32, 3))
    Case(
        name="f15_resnet_built_for_64px_trained_on_32px_images",
        family="transfer_learning",
        code="""
base = keras.applications.ResNet50(weights=None, include_top=False, input_shape=(64, 64, 3), pooling="avg")
model = keras.Sequential([base, keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
x = np.random.rand(6, 32, 32, 3).astype("float32")
model.fit(x, np.array([0, 1, 2, 0, 1, 2]), epochs=1, verbose=0)
""",
        expect="S01",
        must=("resnet50",),
        must_not=("expand_dims",),
        fix="tf.image.resize the images to 64x64 (or build the base with input_shape=(32, 32, 3))",
    ),
    # ValueError: Exception encountered when calling Functional.call().
    # (Input 0 with name 'None' of layer 'block1_conv1' is incompatible with the layer: expected axis -1 of input shape to have value 3, but received input with shape (4, 32, 32, 1))
    Case(
        name="f15_grayscale_digits_through_frozen_vgg16",
        family="transfer_learning",
        code="""
base = keras.applications.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(10, activation="softmax")])
digits = np.random.rand(4, 32, 32, 1).astype("float32")
probs = model.predict(digits, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("batch",),
        fix="tf.image.grayscale_to_rgb(digits) (or np.repeat(digits, 3, axis=-1))",
    ),
    # TypeError: `x` and `y` must have the same dtype, got tf.uint8 != tf.float32.
    Case(
        name="f15_mobilenet_preprocess_input_on_uint8_tensor",
        family="transfer_learning",
        code="""
images = tf.constant(np.random.randint(0, 256, (4, 32, 32, 3)), dtype=tf.uint8)
x = keras.applications.mobilenet_v2.preprocess_input(images)
""",
        expect="S11",
        must=("uint8",),
        must_not=("convert_image_dtype",),
        fix="preprocess_input(tf.cast(images, tf.float32))",
    ),
    # InvalidArgumentError: Graph execution error:
    # (... Received a label value of 9 which is outside the valid range of [0, 5). ...)
    Case(
        name="f15_frozen_vgg_head_with_five_units_for_ten_classes",
        family="transfer_learning",
        code="""
base = keras.applications.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="max")
base.trainable = False
inputs = keras.Input((32, 32, 3))
outputs = keras.layers.Dense(5, activation="softmax")(base(inputs, training=False))
model = keras.Model(inputs, outputs)
model.compile("adam", "sparse_categorical_crossentropy")
x = np.random.rand(8, 32, 32, 3).astype("float32")
y = np.array([0, 3, 7, 2, 9, 1, 5, 8])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M04",
        must=("units",),
        must_not=("from_logits",),
        fix='Dense(10, activation="softmax") (one unit per class)',
    ),
    # ValueError: No such layer: block_13_conv. Existing layers are: [...] (every layer name of the base)
    Case(
        name="f15_fine_tune_from_a_layer_name_mobilenet_lacks",
        family="transfer_learning",
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(32, 32, 3))
base.trainable = True
for layer in base.layers[: base.layers.index(base.get_layer("block_13_conv"))]:
    layer.trainable = False
""",
        expect=None,
        unexplained="Keras's message names the missing layer and lists every existing layer name to pick from",
        fix='base.get_layer("block_13_expand")',
    ),
]
