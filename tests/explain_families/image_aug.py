"""Family: image preprocessing and augmentation with Keras 3 and ``tf.data``.

API: the preprocessing layers ``keras.layers.Rescaling``, ``Resizing``, ``RandomFlip``,
``RandomRotation``, ``RandomZoom``, ``RandomCrop``, ``CenterCrop``, used inside the
model or called in ``dataset.map`` (whose function receives the element's parts as
separate arguments, ``(image, label)``); ``keras.utils.image_dataset_from_directory``
(``image_size`` a pair ``(height, width)``, ``batch_size``, ``label_mode``,
``color_mode``: ``"rgb"`` gives 3 channels, ``"grayscale"`` 1, ``"rgba"`` 4);
``tf.image.resize`` / ``convert_image_dtype`` / ``random_flip_left_right`` /
``random_crop`` / ``rgb_to_grayscale`` in a map; ``tf.io.decode_png`` /
``decode_jpeg``, whose ``channels`` argument defaults to 0 ("use the number of
channels in the file", so the channel axis is unknown to the graph).  Contract: an
image is ``(height, width, channels)`` (a batch adds a leading axis; a rank-3 tensor is
read as ONE image, so a batch of ``(28, 28)`` grayscale arrays is taken for one image
with 28 channels); the spatial size and channel count that reach the model are the
Input's; a Keras model or a ``Sequential`` with an ``Input`` is called on batches;
``batch()`` needs every image to have the same shape, so resizing belongs in the map,
before ``batch``; decoded images are ``uint8`` until cast; ``tf.image.random_crop``
needs ``size <= image shape``.  Evidence a diagnosis can read: the dataset's
``element_spec`` (shapes, an unknown channel axis, dtypes, batched or not), the
mapped function's source and the layers it calls, the layers' arguments (``Resizing``
height/width, ``RandomCrop`` size, ``color_mode``, ``image_size``, ``channels``), the
model's Input shape and layers, the images on disk (their sizes and channels).

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "image_aug"

CASES = [
    # TypeError: Sequential.call() got multiple values for argument 'training'
    # (the augmentation model is mapped over (image, label): map calls
    # data_augmentation(image, label), so the label lands in `training`)
    Case(
        "ia_augmentation_model_mapped_over_pairs",
        FAMILY,
        """
images = np.random.rand(32, 64, 64, 3).astype("float32")
labels = np.random.randint(0, 2, 32)
train_ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(8)
data_augmentation = keras.Sequential([
    keras.layers.RandomFlip("horizontal"),
    keras.layers.RandomRotation(0.1),
])
train_ds = train_ds.map(data_augmentation)
""",
        "S12",
        must=("data_augmentation",),
        must_not=("batch the dataset", "expand_dims"),
        fix="map(lambda x, y: (data_augmentation(x), y))",
    ),
    # ValueError: Input 0 with name 'input_layer_1' of layer 'functional_1' is
    # incompatible with the layer: expected shape=(None, 96, 96, 3), found
    # shape=(None, 128, 128, 3)
    # (Resizing in the map resizes to 128, the model was built for 96x96)
    Case(
        "ia_resizing_in_map_differs_from_input",
        FAMILY,
        """
photos = np.random.randint(0, 256, (32, 100, 100, 3)).astype("float32")
labels = np.random.randint(0, 2, 32)
IMG_SIZE = 128
resize_and_rescale = keras.Sequential([keras.layers.Resizing(IMG_SIZE, IMG_SIZE), keras.layers.Rescaling(1.0 / 255)])
train_ds = tf.data.Dataset.from_tensor_slices((photos, labels)).batch(8)
train_ds = train_ds.map(lambda x, y: (resize_and_rescale(x), y))
inputs = keras.Input(shape=(96, 96, 3))
x = keras.layers.Conv2D(8, 3, activation="relu")(inputs)
x = keras.layers.GlobalAveragePooling2D()(x)
outputs = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
model.compile("adam", "binary_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S01",
        must=("128", "96"),
        must_not=("batch the dataset", "channels"),
        fix="Resizing(96, 96), or Input((128, 128, 3))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer: expected
    # axis -1 of input shape to have value 3, but received input with shape (None, 32, 32, 1)
    # (color_mode="grayscale" gives 1 channel; the model was built for RGB)
    Case(
        "ia_grayscale_color_mode_into_rgb_model",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["cat", "dog"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(6):
        img = tf.constant(np.random.randint(0, 256, (40, 40, 3)), dtype=tf.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(img))
train_ds = keras.utils.image_dataset_from_directory(
    root, image_size=(32, 32), batch_size=4, color_mode="grayscale", verbose=False)
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Rescaling(1.0 / 255),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(2),
])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S01",
        must=("color_mode",),
        must_not=("batch the dataset", "image_size", "rescaling"),
        fix='color_mode="rgb", or Input((32, 32, 1))',
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None`
    # dimensions). Received: shape=(None, 16) for variable path='sequential/dense/kernel'
    # (decode_png without channels= leaves the channel axis unknown: (None, 48, 48, None))
    Case(
        "ia_decode_png_without_channels",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
paths = []
for i in range(8):
    img = tf.constant(np.random.randint(0, 256, (48, 48, 3)), dtype=tf.uint8)
    p = os.path.join(root, f"img_{i}.png")
    tf.io.write_file(p, tf.io.encode_png(img))
    paths.append(p)
labels = np.random.randint(0, 2, 8)
def load(path, label):
    image = tf.io.decode_png(tf.io.read_file(path))
    image = tf.image.resize(image, (48, 48)) / 255.0
    return image, label
ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(load).batch(4)
model = keras.Sequential([
    keras.layers.Flatten(),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        "S10",
        must=("decode_png", "channels"),
        must_not=("output_signature", "py_function"),
        fix="tf.io.decode_png(..., channels=3)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_output_types_2_...}}
    # assertion failed: [Need value.shape >= size, got ] [28 28 3] [32 32 3]
    # (CIFAR-style random_crop of 32x32 copied onto 28x28 images, no padding first)
    Case(
        "ia_random_crop_larger_than_image",
        FAMILY,
        """
images = np.random.rand(16, 28, 28, 3).astype("float32")
labels = np.random.randint(0, 10, 16)
def augment(image, label):
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_crop(image, size=(32, 32, 3))
    return image, label
train_ds = tf.data.Dataset.from_tensor_slices((images, labels)).map(augment).batch(4)
for batch_images, batch_labels in train_ds.take(1):
    print(batch_images.shape)
""",
        "S07",
        must=("random_crop",),
        must_not=("batch the dataset", "from_logits"),
        fix="crop to <= 28, or resize_with_crop_or_pad first",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the
    # layer: expected min_ndim=4, found ndim=3. Full shape received: (32, 32, 28)
    # (grayscale digits of shape (28, 28) have no channel axis: Resizing takes the
    # (None, 28, 28) batch for ONE image with 28 channels)
    Case(
        "ia_resizing_on_images_without_channel_axis",
        FAMILY,
        """
digits = np.random.randint(0, 256, (20, 28, 28)).astype("float32")
labels = np.random.randint(0, 10, 20)
model = keras.Sequential([
    keras.Input(shape=digits.shape[1:]),
    keras.layers.Resizing(32, 32),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(10),
])
""",
        "S01",
        must=("resizing", "channel"),
        must_not=("batch the dataset", "padding"),
        fix="digits[..., None] and Input((28, 28, 1))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Invalid input shape for input Tensor("args_0:0", shape=(32, 32, 3), dtype=float32)
    # with name 'keras_tensor' and path ''. Expected shape (None, 32, 32, 3), but input
    # has incompatible shape (32, 32, 3)
    # (an augmentation Sequential with an Input is mapped before .batch())
    Case(
        "ia_augmentation_with_input_on_unbatched_elements",
        FAMILY,
        """
images = np.random.rand(24, 32, 32, 3).astype("float32")
labels = np.random.randint(0, 10, 24)
augment = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.RandomFlip("horizontal"),
    keras.layers.RandomZoom(0.1),
])
ds = tf.data.Dataset.from_tensor_slices((images, labels))
ds = ds.map(lambda x, y: (augment(x, training=True), y)).batch(8)
""",
        "S12",
        must=("augment", "batch"),
        must_not=("channels", "resiz"),
        fix="batch before the map: .batch(8).map(...)",
    ),
    # ValueError: Invalid `image_size` value. Expected a tuple of 2 integers.
    # Received: image_size=(32, 32, 3)
    Case(
        "ia_image_size_with_channels",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["daisy", "rose"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(6):
        img = tf.constant(np.random.randint(0, 256, (40, 40, 3)), dtype=tf.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(img))
train_ds = keras.utils.image_dataset_from_directory(root, image_size=(32, 32, 3), batch_size=4)
""",
        None,
        unexplained="Keras says image_size must be a tuple of 2 integers and shows (32, 32, 3)",
        fix="image_size=(32, 32)",
    ),
    # TypeError: Expected uint8 passed to parameter 'y' of op 'Sub', got 127.5 of type
    # 'float' instead. Error: Expected uint8, but got 127.5 of type 'float'.
    # (decode_png gives uint8; the map scales it to [-1, 1] without a cast)
    Case(
        "ia_uint8_image_minus_float_in_map",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
paths = []
for i in range(8):
    img = tf.constant(np.random.randint(0, 256, (64, 64, 3)), dtype=tf.uint8)
    p = os.path.join(root, f"photo_{i}.png")
    tf.io.write_file(p, tf.io.encode_png(img))
    paths.append(p)
labels = np.random.randint(0, 2, 8)
def preprocess(path, label):
    image = tf.io.decode_png(tf.io.read_file(path), channels=3)
    image = (image - 127.5) / 127.5
    return image, label
ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(preprocess).batch(4)
""",
        "S11",
        must=("uint8", "cast"),
        must_not=("astype", "float64"),
        fix="tf.cast(image, tf.float32) before the arithmetic",
    ),
    # InvalidArgumentError: Graph execution error: ... Cannot add tensor to the batch:
    # number of elements does not match. Shapes are: [tensor]: [60,60,3], [batch]: [48,64,3]
    # (photos of different sizes are batched; the Resizing layer inside the model
    # comes too late)
    Case(
        "ia_mixed_size_photos_resized_inside_model",
        FAMILY,
        """
import os, tempfile
root = tempfile.mkdtemp()
paths = []
for i, (h, w) in enumerate([(48, 64), (60, 60), (64, 64), (50, 70), (64, 64), (72, 56)]):
    img = tf.constant(np.random.randint(0, 256, (h, w, 3)), dtype=tf.uint8)
    p = os.path.join(root, f"scan_{i}.jpg")
    tf.io.write_file(p, tf.io.encode_jpeg(img))
    paths.append(p)
labels = np.random.randint(0, 3, 6)
def load(path, label):
    image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    image = tf.image.convert_image_dtype(image, tf.float32)
    image = tf.image.random_flip_left_right(image)
    return image, label
ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(load).batch(3)
model = keras.Sequential([
    keras.Input((None, None, 3)),
    keras.layers.Resizing(64, 64),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(3),
])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)
""",
        "S13",
        must=("resize",),
        must_not=("channels=", "batch_size"),
        fix="tf.image.resize in the map, before batch",
    ),
]
