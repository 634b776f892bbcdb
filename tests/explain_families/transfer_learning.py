"""Family: transfer learning with pretrained backbones from ``keras.applications``.

API: ``keras.applications.MobileNetV2`` / ``ResNet50`` / ``VGG16`` / ``EfficientNetB0`` /
``InceptionV3`` / ``MobileNetV3Small`` (here always ``weights=None``) with
``include_top``, ``input_shape``, ``pooling`` (``None``, ``"avg"``, ``"max"``) and
``classes``; the matching ``keras.applications.<family>.preprocess_input``;
``base.trainable = False``; a head stacked on ``base.output`` and wrapped with
``keras.Model(base.input, head)``, or ``base(x, training=False)`` inside a Functional
model built on a new ``keras.Input``; ``base.get_layer(name).output`` for feature
extraction; ``base.predict`` to precompute "bottleneck" features for a small head;
``keras.utils.image_dataset_from_directory`` feeding the model.  Contract (documented):
with ``include_top=True`` the model ends in a ``classes``-way softmax (1000 by default)
and the input size is fixed; with ``include_top=False`` and ``pooling=None`` the output
is a 4D feature map ``(batch, h, w, channels)`` that a head must pool or flatten, while
``pooling="avg"``/``"max"`` gives a 2D ``(batch, channels)`` vector; ``input_shape``
must have exactly 3 channels and at least 32x32 pixels (75x75 for InceptionV3); left
out, the backbone accepts ``(None, None, 3)`` and its output's spatial size is unknown,
so a ``Flatten``/``Dense`` head cannot be built; ``preprocess_input`` expects float
pixels in [0, 255] (the "tf"/"torch" modes divide in the input's dtype); the data must
have the backbone's height, width and 3 channels, and a batch axis
(``image_dataset_from_directory`` resizes to ``image_size=(256, 256)`` unless told
otherwise); ``get_layer`` takes a name that exists in that backbone.  Evidence a
diagnosis can read at the failure: the backbone's config (``input_shape``,
``include_top``, ``pooling``, ``classes``) and its output shape, the head's layers and
their input shapes, the data's shape, dtype and value range (and, for a dataset, its
element spec and where it came from), the labels' shape and width, the arguments of
``predict`` (``steps``), and the backbone's layer names.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "transfer_learning"

CASES = [
    # ValueError: Exception encountered when calling Functional.call().
    # Input 0 with name 'None' of layer 'Conv1' is incompatible with the layer: expected
    # axis -1 of input shape to have value 3, but received input with shape (8, 96, 96, 1)
    # (single-channel X-ray scans fed to a backbone built for 3-channel RGB input)
    Case(
        "tl_grayscale_xrays_into_rgb_backbone",
        FAMILY,
        """
xrays = np.random.rand(32, 96, 96, 1).astype("float32") * 255  # grayscale scans
labels = np.random.randint(0, 2, 32)
base = keras.applications.MobileNetV2(weights=None, include_top=False,
                                      input_shape=(96, 96, 3), pooling="avg")
base.trainable = False
out = keras.layers.Dense(1, activation="sigmoid")(base.output)
model = keras.Model(base.input, out)
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(keras.applications.mobilenet_v2.preprocess_input(xrays), labels,
          epochs=1, batch_size=8, verbose=0)
""",
        "S01",
        must=("channel",),
        must_not=("batch axis", "resize"),
        fix="repeat the gray channel 3 times",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None`
    # dimensions). Received: shape=(None, 64) for variable path='dense/kernel'
    # (VGG16 built without input_shape: its output is (None, None, None, 512), so
    # Flatten gives (None, None) and the Dense kernel cannot be created)
    Case(
        "tl_flatten_head_on_backbone_without_input_shape",
        FAMILY,
        """
base = keras.applications.VGG16(weights=None, include_top=False)
base.trainable = False
x = keras.layers.Flatten()(base.output)
x = keras.layers.Dense(64, activation="relu")(x)
out = keras.layers.Dense(3, activation="softmax")(x)
model = keras.Model(base.input, out)
""",
        "S01",
        must=("input_shape",),
        must_not=("batch axis", "add a flatten"),
        fix="give input_shape=(h, w, 3), or pool",
    ),
    # ValueError: Input 0 with name 'input_layer' of layer 'functional' is incompatible
    # with the layer: expected shape=(None, 64, 64, 3), found shape=(32, 64, 3)
    # (one test image, shape (64, 64, 3), passed to predict without a batch axis)
    Case(
        "tl_predict_single_image_without_batch_axis",
        FAMILY,
        """
x_test = np.random.rand(10, 64, 64, 3).astype("float32") * 255
base = keras.applications.ResNet50(weights=None, include_top=False,
                                   input_shape=(64, 64, 3), pooling="avg")
base.trainable = False
out = keras.layers.Dense(3, activation="softmax")(base.output)
model = keras.Model(base.input, out)
img = keras.applications.resnet50.preprocess_input(x_test[0])
probs = model.predict(img, verbose=0)
""",
        "S12",
        must=("img",),
        must_not=("channel", "resize"),
        fix="img[None] / np.expand_dims(img, 0)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(8,), output.shape=(8, 2, 2, 5)
    # (include_top=False with the default pooling=None: the Dense head is applied to the
    # (2, 2, 1280) feature map, and the loss gets (8, 2, 2, 5) against labels (8,))
    Case(
        "tl_dense_head_on_unpooled_feature_map",
        FAMILY,
        """
x = np.random.rand(16, 64, 64, 3).astype("float32") * 255
y = np.random.randint(0, 5, 16)
base = keras.applications.EfficientNetB0(weights=None, include_top=False, input_shape=(64, 64, 3))
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(5, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        "S07",
        must=("pooling",),
        must_not=("one-hot", "to_categorical"),
        fix="pooling='avg' or GlobalAveragePooling2D",
    ),
    # ValueError: Input 0 with name 'input_layer_1' of layer 'functional' is incompatible
    # with the layer: expected shape=(None, 160, 160, 3), found shape=(None, 256, 256, 3)
    # (image_dataset_from_directory without image_size resizes to 256x256; the model
    # was built for 160x160)
    Case(
        "tl_directory_dataset_default_image_size",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["cats", "dogs"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(6):
        pixels = tf.cast(tf.random.uniform((200, 300, 3), 0, 255), tf.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(pixels))
train_ds = keras.utils.image_dataset_from_directory(root, batch_size=4)
IMG_SIZE = (160, 160)
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=IMG_SIZE + (3,))
base.trainable = False
inputs = keras.Input(shape=IMG_SIZE + (3,))
x = keras.applications.mobilenet_v2.preprocess_input(inputs)
x = base(x, training=False)
x = keras.layers.GlobalAveragePooling2D()(x)
outputs = keras.layers.Dense(1)(x)
model = keras.Model(inputs, outputs)
model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True), metrics=["accuracy"])
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S01",
        must=("image_size", "256"),
        must_not=("batch axis", "channel"),
        fix="image_size=IMG_SIZE in image_dataset_from_directory",
    ),
    # ValueError: Exception encountered when calling Functional.call().
    # Computed output size would be zero or negative. Received `inputs shape=(None, 1, 1,
    # 96)`, `kernel shape=(3, 3, 96, 96)`, `dilation_rate=[1 1]`, `strides=(2, 2)`,
    # `padding=valid`.
    # (CIFAR-sized 32x32 images into InceptionV3 built without input_shape; its valid
    # convolutions and pools need at least 75x75)
    Case(
        "tl_inception_on_cifar_sized_images",
        FAMILY,
        """
base = keras.applications.InceptionV3(weights=None, include_top=False)
base.trainable = False
inputs = keras.Input(shape=(32, 32, 3))  # CIFAR-10 images
x = keras.applications.inception_v3.preprocess_input(inputs)
x = base(x, training=False)
x = keras.layers.GlobalAveragePooling2D()(x)
outputs = keras.layers.Dense(10, activation="softmax")(x)
model = keras.Model(inputs, outputs)
""",
        "S01",
        must=("75",),
        must_not=("batch axis", "expand_dims"),
        fix="resize the images to at least 75x75",
    ),
    # TypeError: `x` and `y` must have the same dtype, got tf.uint8 != tf.float32.
    # (raised while the map function is traced)
    # (decode_jpeg gives uint8; mobilenet_v2.preprocess_input divides by 127.5 in the
    # input's dtype inside the map)
    Case(
        "tl_preprocess_input_on_uint8_decoded_images",
        FAMILY,
        """
jpegs = [tf.io.encode_jpeg(tf.cast(tf.random.uniform((96, 96, 3), 0, 255), tf.uint8))
         for _ in range(12)]
labels = np.random.randint(0, 2, 12)
def load(jpeg, label):
    image = tf.io.decode_jpeg(jpeg, channels=3)
    image = keras.applications.mobilenet_v2.preprocess_input(image)
    return image, label
train_ds = tf.data.Dataset.from_tensor_slices((jpegs, labels)).map(load).batch(4)
""",
        "S11",
        must=("uint8",),
        must_not=("float64", "astype"),
        fix="tf.cast(image, tf.float32) before preprocess_input",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 48 / 'y' sizes: 50
    # (bottleneck features taken with steps=len(x) // batch_size: 3 batches of 16 = 48
    # feature rows for 50 labels)
    Case(
        "tl_bottleneck_features_steps_drop_samples",
        FAMILY,
        """
x = np.random.rand(50, 64, 64, 3).astype("float32") * 255
y = np.random.randint(0, 2, 50)
batch_size = 16
extractor = keras.applications.VGG16(weights=None, include_top=False,
                                     input_shape=(64, 64, 3), pooling="avg")
ds = tf.data.Dataset.from_tensor_slices(keras.applications.vgg16.preprocess_input(x)).batch(batch_size)
features = extractor.predict(ds, steps=len(x) // batch_size, verbose=0)
head = keras.Sequential([keras.Input((512,)), keras.layers.Dense(1, activation="sigmoid")])
head.compile("adam", "binary_crossentropy")
head.fit(features, y, epochs=1, verbose=0)
""",
        "S12",
        must=("48", "steps"),
        must_not=("batch axis", "validation_data"),
        fix="predict without steps (or ceil)",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(8, 5), output.shape=(8, 1000)
    # (include_top left at its default: the model ends in a 1000-way softmax, the labels
    # are one-hot over 5 flower classes)
    Case(
        "tl_include_top_left_on_1000_classes",
        FAMILY,
        """
NUM_FLOWERS = 5
x = np.random.rand(16, 64, 64, 3).astype("float32") * 255
y = keras.utils.to_categorical(np.random.randint(0, NUM_FLOWERS, 16), NUM_FLOWERS)
model = keras.applications.MobileNetV3Small(weights=None, input_shape=(64, 64, 3))
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        "M04",
        must=("1000",),
        must_not=("sparse", "batch axis"),
        fix="classes=5, or include_top=False + own head",
    ),
    # ValueError: No such layer: conv4_block6_out. Existing layers are: ['input_layer',
    # 'Conv1', 'bn_Conv1', ... (all 154 names of the MobileNetV2 backbone)
    # (a ResNet50 layer name used on a MobileNetV2 backbone)
    Case(
        "tl_get_layer_name_from_other_backbone",
        FAMILY,
        """
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(96, 96, 3))
features = base.get_layer("conv4_block6_out").output
extractor = keras.Model(base.input, features)
""",
        None,
        unexplained="Keras names the missing layer and lists every layer name of the backbone",
        fix="use a name from base.layers",
    ),
]
