"""Family: transfer learning with ``keras.applications`` backbones (second pass).

API: ``keras.applications.MobileNetV2`` / ``MobileNet`` / ``MobileNetV3Small`` /
``ResNet50`` / ``VGG16`` / ``EfficientNetB0`` (``weights=None`` here) with
``include_top``, ``input_shape``, ``pooling``, ``classes`` and ``alpha``; the matching
``keras.applications.<family>.preprocess_input(x, data_format=None)``;
``base.trainable = False`` and ``base(x, training=False)``; a new head on
``base.output`` / ``base.layers[-1].output`` wrapped in ``keras.Model(base.input, ...)``;
``base.predict`` for bottleneck features fed to a separate head;
``keras.utils.image_dataset_from_directory`` (``color_mode``, ``image_size``).
Contract (documented): ``include_top=True`` keeps the classifier, whose input size is
fixed (224x224 by default, or the ``input_shape`` given) and whose softmax has
``classes`` units; ``weights="imagenet"`` with ``include_top=True`` requires
``classes=1000``; ``include_top=False`` with ``pooling=None`` outputs a 4-D feature map
``(batch, h, w, channels)``, ``pooling="avg"``/``"max"`` a 2-D ``(batch, channels)``
vector whose width depends on the backbone (1280 for MobileNetV2, 2048 for ResNet50);
the input must have 3 channels and at least 32x32 pixels; ``preprocess_input`` takes
one image batch (its second positional argument is ``data_format``), so it must not be
mapped directly over ``(image, label)`` pairs; a Functional model's outputs must be
computed from the inputs it is given; sparse labels must lie in ``[0, classes)``.
Evidence a diagnosis could read at the failure: the backbone's arguments
(``include_top``, ``input_shape``, ``pooling``, ``classes``) and its input and output
shapes, the head's layers and their input shapes, the data's shape, channels and dtype
(and a dataset's element spec and ``color_mode``), the label values, the function
passed to ``map`` and its arguments.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "transfer2"

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().
    # Invalid input shape for input Tensor("data:0", shape=(8, 2, 2, 1280), ...). Expected
    # shape (None, 1280), but input has incompatible shape (8, 2, 2, 1280)
    # (bottleneck features from base.predict without pooling are (40, 2, 2, 1280);
    # the small head was built for 2-D (None, 1280) vectors)
    Case(
        "tl2_unpooled_predict_features_into_dense_head",
        FAMILY,
        """
x = np.random.rand(40, 64, 64, 3).astype("float32") * 255
y = np.random.randint(0, 2, 40)
base = keras.applications.MobileNetV2(weights=None, include_top=False,
                                      input_shape=(64, 64, 3), alpha=0.35)
features = base.predict(keras.applications.mobilenet_v2.preprocess_input(x), verbose=0)
head = keras.Sequential([keras.Input((1280,)), keras.layers.Dense(64, activation="relu"),
                         keras.layers.Dense(1, activation="sigmoid")])
head.compile("adam", "binary_crossentropy", metrics=["accuracy"])
head.fit(features, y, epochs=1, batch_size=8, verbose=0)
""",
        "S01",
        must=("pooling",),
        must_not=("batch axis", "channel"),
        fix="pooling='avg' in the base (or pool the features)",
    ),
    # ValueError: Input 0 with name 'input_layer' of layer 'resnet50' is incompatible with
    # the layer: expected shape=(None, 224, 224, 3), found shape=(8, 64, 64, 3)
    # (include_top=True without input_shape: the classifier is built for 224x224;
    # the flower photos are 64x64)
    Case(
        "tl2_include_top_default_224_small_photos",
        FAMILY,
        """
NUM_CLASSES = 4
photos = np.random.rand(16, 64, 64, 3).astype("float32") * 255
labels = np.random.randint(0, NUM_CLASSES, 16)
model = keras.applications.ResNet50(weights=None, include_top=True, classes=NUM_CLASSES)
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(keras.applications.resnet50.preprocess_input(photos), labels,
          epochs=1, batch_size=8, verbose=0)
""",
        "S01",
        must=("224",),
        must_not=("channel", "batch axis"),
        fix="input_shape=(64, 64, 3), or resize to 224",
    ),
    # ValueError: If using `weights="imagenet"` with `include_top` as true, `classes`
    # should be 1000. Received `classes=5`
    # (a 5-class classifier asked of the ImageNet weights with the top kept; the check
    # runs before any download)
    Case(
        "tl2_imagenet_weights_top_with_5_classes",
        FAMILY,
        """
base = keras.applications.MobileNetV2(weights="imagenet", include_top=True, classes=5,
                                      input_shape=(96, 96, 3), alpha=0.35)
""",
        None,
        unexplained="Keras says classes must be 1000 with weights='imagenet' and include_top=True",
        fix="include_top=False + own 5-way head",
    ),
    # TypeError: Tensor is unhashable. Instead, use tensor.ref() as the key.
    # (preprocess_input mapped directly over (image, label) pairs: the label is passed
    # as its second argument, data_format)
    Case(
        "tl2_preprocess_input_mapped_over_pairs",
        FAMILY,
        """
images = np.random.rand(12, 64, 64, 3).astype("float32") * 255
labels = np.random.randint(0, 2, 12)
train_ds = (tf.data.Dataset.from_tensor_slices((images, labels))
            .map(keras.applications.mobilenet_v2.preprocess_input)
            .batch(4))
""",
        "S12",
        must=("preprocess_input", "label"),
        must_not=("ref()", "float32"),
        fix="map(lambda x, y: (preprocess_input(x), y))",
    ),
    # ValueError: Input 0 with name 'None' of layer 'global_average_pooling2d_1' is
    # incompatible with the layer: expected ndim=4, found ndim=2. Full shape received:
    # (None, 1280)
    # (pooling="avg" already gives (None, 1280); a GlobalAveragePooling2D on
    # base.layers[-1].output expects a 4-D map)
    Case(
        "tl2_global_pool_after_pooling_avg",
        FAMILY,
        """
base = keras.applications.MobileNetV2(weights=None, include_top=False,
                                      input_shape=(96, 96, 3), alpha=0.35, pooling="avg")
base.trainable = False
x = keras.layers.GlobalAveragePooling2D()(base.layers[-1].output)
x = keras.layers.Dropout(0.2)(x)
out = keras.layers.Dense(3, activation="softmax")(x)
model = keras.Model(base.input, out)
""",
        "S01",
        must=("pooling",),
        must_not=("batch axis", "flatten", "channel"),
        fix="drop GlobalAveragePooling2D, or pooling=None",
    ),
    # ValueError: Exception encountered when calling Functional.call().
    # Input 0 with name 'None' of layer 'Conv1' is incompatible with the layer: expected
    # axis -1 of input shape to have value 3, but received input with shape (None, 64, 64, 1)
    # (image_dataset_from_directory with color_mode="grayscale" gives 1-channel
    # batches; the backbone was built for 3 channels)
    Case(
        "tl2_grayscale_color_mode_dataset",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["normal", "pneumonia"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(4):
        pixels = tf.cast(tf.random.uniform((64, 64, 1), 0, 255), tf.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(pixels))
train_ds = keras.utils.image_dataset_from_directory(
    root, image_size=(64, 64), color_mode="grayscale", batch_size=4)
base = keras.applications.MobileNetV2(weights=None, include_top=False,
                                      input_shape=(64, 64, 3), alpha=0.35, pooling="avg")
base.trainable = False
inputs = keras.Input((64, 64, 3))
x = keras.applications.mobilenet_v2.preprocess_input(inputs)
x = base(x, training=False)
outputs = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
model.compile("adam", "binary_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S01",
        must=("color_mode",),
        must_not=("batch axis", "resize", "image_size"),
        fix="color_mode='rgb' (or repeat the channel)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected
    # axis -1 of input shape to have value 2048, but received input with shape (None, 1280)
    # (backbone switched from ResNet50 to MobileNetV2; the saved-feature head still
    # expects ResNet50's 2048-wide pooled vectors, MobileNetV2 gives 1280)
    Case(
        "tl2_head_sized_for_other_backbone_features",
        FAMILY,
        """
x = np.random.rand(24, 64, 64, 3).astype("float32") * 255
y = np.random.randint(0, 3, 24)
extractor = keras.applications.MobileNetV2(weights=None, include_top=False,
                                           input_shape=(64, 64, 3), alpha=0.35, pooling="avg")
feats = extractor.predict(keras.applications.mobilenet_v2.preprocess_input(x), verbose=0)
FEATURE_DIM = 2048  # ResNet50's pooled output
head = keras.Sequential([keras.Input((FEATURE_DIM,)), keras.layers.Dense(3, activation="softmax")])
head.compile("adam", "sparse_categorical_crossentropy")
head.fit(feats, y, epochs=1, verbose=0)
""",
        "S01",
        must=("2048", "1280"),
        must_not=("batch axis", "pooling="),
        fix="FEATURE_DIM = feats.shape[-1] (1280)",
    ),
    # InvalidArgumentError: Graph execution error: ... Detected at node
    # compile_loss/sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/...
    # Received a label value of 9 which is outside the valid range of [0, 5).
    # (classes=NUM_CLASSES is 5, the labels run over 10 CIFAR classes)
    Case(
        "tl2_classes_smaller_than_label_ids",
        FAMILY,
        """
NUM_CLASSES = 5
x = np.random.rand(16, 32, 32, 3).astype("float32") * 255
y = np.arange(16) % 10  # CIFAR-10 labels 0..9
model = keras.applications.MobileNet(weights=None, include_top=True, alpha=0.25,
                                     input_shape=(32, 32, 3), classes=NUM_CLASSES)
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        "P12",
        must=("classes",),
        must_not=("one-hot", "to_categorical", "from_logits"),
        fix="classes=10",
    ),
    # ValueError: Input 0 with name 'input_layer' of layer 'efficientnetb0' is incompatible
    # with the layer: expected shape=(None, 96, 96, 3), found shape=(None, 128, 128, 3)
    # (the base is built for 96x96, the outer Sequential declares 128x128 inputs)
    Case(
        "tl2_outer_input_size_differs_from_base",
        FAMILY,
        """
base = keras.applications.EfficientNetB0(weights=None, include_top=False,
                                         input_shape=(96, 96, 3), pooling="max")
base.trainable = False
model = keras.Sequential([
    keras.Input((128, 128, 3)),
    base,
    keras.layers.Dense(2, activation="softmax"),
])
""",
        "S01",
        must=("96", "128"),
        must_not=("batch axis", "channel"),
        fix="one size for base input_shape and Input",
    ),
    # ValueError: Output with path `` is not connected to `inputs`
    # (the head is computed from a new keras.Input through base(inputs), but the model
    # is wrapped with base.input, which the outputs do not depend on)
    Case(
        "tl2_model_wrapped_with_base_input_after_new_input",
        FAMILY,
        """
base = keras.applications.MobileNetV2(weights=None, include_top=False,
                                      input_shape=(64, 64, 3), alpha=0.35)
base.trainable = False
inputs = keras.Input((64, 64, 3))
x = base(inputs, training=False)
x = keras.layers.GlobalAveragePooling2D()(x)
out = keras.layers.Dense(3, activation="softmax")(x)
model = keras.Model(base.input, out)
""",
        "S12",
        must=("inputs",),
        must_not=("batch axis", "expand_dims", "channel"),
        fix="keras.Model(inputs, out)",
    ),
]
