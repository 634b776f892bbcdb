"""Family ``transfer_learning``: ``keras.applications`` bases with new heads, frozen or fine-tuned.

APIs: the ``keras.applications`` constructors (``MobileNetV2``, ``ResNet50``, ``VGG16``,
``EfficientNetB0``, ``DenseNet121``; built here with ``weights=None``).  Their contract:
``include_top=True`` keeps the ImageNet classifier, so the output has ``classes`` units
(1000 by default); ``include_top=False`` drops it and the output is the last feature *map*,
rank 4 ``(B, h, w, C)``, unless ``pooling="avg"``/``"max"`` reduces it to ``(B, C)`` (or a
``GlobalAveragePooling2D``/``Flatten`` is added); ``input_shape`` fixes the size the base
accepts (at least 32x32, and 3 channels for the ImageNet weights), and a model built on it
accepts only that size; a base called as a layer (``base(inputs, training=False)``) is a
model whose input is a batch.  A new head is grafted either by calling the base on a new
``keras.Input`` or by building ``keras.Model(base.input, ...)`` from the base's own tensors:
a tensor of the base graph is not connected to a fresh ``Input``.  The head's loss must fit
its labels (sparse loss for integer ids, categorical for one-hot).

Evidence a diagnosis needs: the base (which application, ``include_top``, ``pooling``, its
``input_shape``) and what it outputs, the rank and size of the images passed against that
``input_shape``, the channel count of the data (grayscale ``1`` vs ``3``), the labels'
shape and encoding against the head's units and loss, and, for a grafted model, which graph
the output tensor belongs to.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input size must be at least 32x32; Received: input_shape=(28, 28, 1)
    Case(
        name="f14_resnet50_base_on_28px_digits",
        family="transfer_learning",
        code="""
base = keras.applications.ResNet50(weights=None, include_top=False, input_shape=(28, 28, 1))
""",
        expect=None,
        unexplained="the message states the minimum size (32x32) next to the input_shape received",
        fix="resize or pad the digits to at least 32x32",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None,), output.shape=(None, 2, 2, 5)
    Case(
        name="f14_mobilenet_feature_map_into_dense_head_without_pooling",
        family="transfer_learning",
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(64, 64, 3))
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(5, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
x = np.random.rand(8, 64, 64, 3).astype("float32")
y = np.random.randint(0, 5, size=(8,))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("pooling",),
        must_not=("to_categorical", "one-hot"),
        fix='pooling="avg" on the base (or GlobalAveragePooling2D before the Dense head)',
    ),
    # ValueError: Input 0 with name 'input_layer_26' of layer 'functional_17' is incompatible with the layer: expected shape=(None, 64, 64, 3), found shape=(4, 96, 96, 3)
    Case(
        name="f14_efficientnet_head_predicts_on_96px_photos",
        family="transfer_learning",
        code="""
base = keras.applications.EfficientNetB0(weights=None, include_top=False, pooling="avg", input_shape=(64, 64, 3))
inputs = keras.Input((64, 64, 3))
outputs = keras.layers.Dense(3, activation="softmax")(base(inputs, training=False))
model = keras.Model(inputs, outputs)
photos = np.random.randint(0, 256, size=(4, 96, 96, 3)).astype("float32")
model.predict(photos, verbose=0)
""",
        expect="S01",
        must=("resize",),
        must_not=("expand_dims", "channel"),
        fix="tf.image.resize(photos, (64, 64)) (or build the base with input_shape=(96, 96, 3))",
    ),
    # ValueError: Exception encountered when calling Functional.call().
    # Input 0 with name 'None' of layer 'block1_conv1' is incompatible with the layer: expected axis -1 of input shape to have value 3, but received input with shape (None, 32, 32, 1)
    Case(
        name="f14_vgg16_base_fit_on_grayscale_digits",
        family="transfer_learning",
        code="""
base = keras.applications.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
model = keras.Sequential([base, keras.layers.Dense(10, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
digits = np.random.rand(8, 32, 32, 1).astype("float32")
labels = np.random.randint(0, 10, size=(8,))
model.fit(digits, labels, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("resize",),
        fix="repeat the gray channel 3 times (tf.image.grayscale_to_rgb) or input_shape=(32, 32, 1)",
    ),
    # ValueError: Output with path `` is not connected to `inputs`
    Case(
        name="f14_graft_mobilenet_out_relu_onto_a_new_input",
        family="transfer_learning",
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(64, 64, 3))
new_input = keras.Input((64, 64, 3))
features = base.get_layer("out_relu").output
x = keras.layers.GlobalAveragePooling2D()(features)
outputs = keras.layers.Dense(4, activation="softmax")(x)
model = keras.Model(new_input, outputs)
""",
        expect="S12",
        must=("mobilenetv2",),
        must_not=("reshape", "batch"),
        fix="keras.Model(base.input, outputs), or features = base(new_input)",
    ),
    # ValueError: Input 0 with name 'input_layer_31' of layer 'densenet121' is incompatible with the layer: expected shape=(None, 32, 32, 3), found shape=(32, 32, 3)
    Case(
        name="f14_densenet_features_of_a_single_image",
        family="transfer_learning",
        code="""
base = keras.applications.DenseNet121(weights=None, include_top=False, input_shape=(32, 32, 3))
image = np.random.rand(32, 32, 3).astype("float32")
features = base(image)
""",
        expect="S12",
        must=("batch",),
        must_not=("resize", "channel"),
        fix="base(image[None, ...]) or np.expand_dims(image, 0)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 3), output.shape=(None, 3)
    Case(
        name="f14_one_hot_labels_with_sparse_loss_on_new_head",
        family="transfer_learning",
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="max")
model = keras.Sequential([base, keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
x = np.random.rand(6, 32, 32, 3).astype("float32")
y = keras.utils.to_categorical([0, 1, 2, 0, 1, 2], num_classes=3)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("categorical_crossentropy",),
        must_not=("pooling", "flatten"),
        fix='loss="categorical_crossentropy" (or integer labels with the sparse loss)',
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 4), output.shape=(None, 1000)
    Case(
        name="f14_include_top_keeps_1000_classes_for_4_labels",
        family="transfer_learning",
        code="""
base = keras.applications.MobileNetV2(weights=None, include_top=True, input_shape=(32, 32, 3))
model = keras.Sequential([base])
model.compile("adam", "categorical_crossentropy")
images = np.random.rand(4, 32, 32, 3).astype("float32")
model.fit(images, keras.utils.to_categorical([0, 1, 2, 3], 4), epochs=1, verbose=0)
""",
        expect="M04",
        must=("1000",),
        must_not=("sparse",),
        fix="include_top=False with pooling and a Dense(4) head (or classes=4)",
    ),
]
