"""Family ``image_pipelines``: image tensors through ``tf.image`` ops, Keras image layers and datasets.

APIs: image models and layers take a batch of images of rank 4, ``(batch, height,
width, channels)`` with the channels LAST by default (``data_format="channels_last"``);
a ``keras.Input((H, W, C))`` fixes H, W and C, so the data must have the same number of
channels (1 for grayscale, 3 for RGB; ``tf.image.grayscale_to_rgb`` converts) and the
channels on the last axis (an array stored ``(N, C, H, W)`` must be transposed).
``keras.utils.image_dataset_from_directory`` resizes every image to ``image_size``, which
defaults to ``(256, 256)``, yields ``(images, labels)`` batches of float32 images in
[0, 255], and its labels follow ``label_mode``: ``"int"`` (the default, sparse class ids
of shape ``(batch,)``, for ``sparse_categorical_crossentropy``), ``"categorical"``
(one-hot) or ``"binary"``.  ``tf.io.decode_jpeg``/``decode_png`` return ``uint8``
tensors of rank 3; ``tf.io.decode_image`` (``expand_animations=True`` by default) returns
a tensor whose rank is unknown in graph mode (a GIF may be rank 4), so shape-dependent ops
such as ``tf.image.resize`` fail on it inside ``Dataset.map``; ``expand_animations=False``
(or ``decode_png``/``decode_jpeg``) gives rank 3.  TensorFlow ops do not promote dtypes:
a ``uint8`` image combined with float32 values needs ``tf.cast`` (or
``tf.image.convert_image_dtype``) first.  ``tf.image.random_crop(value, size)`` wants a
``size`` with one entry per axis of ``value``, the channel axis included.  Keras
preprocessing layers (``Rescaling``, ``Resizing``, ``RandomFlip``...) take one tensor of
images; ``Dataset.map`` passes each component of a tuple element as a separate argument,
so ``ds.map(layer)`` on ``(image, label)`` pairs calls the layer with two arguments
(``ds.map(lambda x, y: (layer(x), y))`` is the documented form).

Evidence a diagnosis needs: the shape, rank and dtype of the image tensor at the failing
op or layer against what the model's ``Input``/the op expects (which axis holds the
channels and how many there are; the spatial size the directory loader produced and its
``image_size`` default), the dtype on each side of the failing arithmetic, the static
shape lost by ``decode_image``, the element structure (image, label) that ``map``
unpacked, and the encoding of the labels against the loss.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Exception encountered when calling Functional.call().
    #   Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer: expected
    #   axis -1 of input shape to have value 3, but received input with shape (None, 32, 32, 1)
    Case(
        name="f9_grayscale_scans_into_rgb_conv_input",
        family="image_pipelines",
        code="""
scans = np.random.rand(8, 32, 32, 1).astype("float32")
labels = np.random.randint(0, 2, 8)
inp = keras.Input((32, 32, 3))
h = keras.layers.Conv2D(8, 3, activation="relu")(inp)
h = keras.layers.GlobalAveragePooling2D()(h)
out = keras.layers.Dense(1, activation="sigmoid")(h)
model = keras.Model(inp, out)
model.compile("adam", "binary_crossentropy")
model.fit(scans, labels, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("expand_dims", "batch the dataset"),
        fix="tf.image.grayscale_to_rgb(scans), or keras.Input((32, 32, 1))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'conv2d_1' is incompatible with the layer: expected
    #   axis -1 of input shape to have value 3, but received input with shape (None, 3, 32, 32)
    Case(
        name="f9_channels_first_cifar_array_into_channels_last_model",
        family="image_pipelines",
        code="""
x = np.random.randint(0, 256, (8, 3, 32, 32)).astype("float32") / 255.0
y = np.random.randint(0, 10, 8)
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Conv2D(8, 3),
    keras.layers.GlobalMaxPooling2D(),
    keras.layers.Dense(10),
])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channels",),
        must_not=("grayscale_to_rgb", "resize"),
        fix="np.transpose(x, (0, 2, 3, 1))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense_2' is incompatible with the layer: expected
    #   axis -1 of input shape to have value 30752, but received input with shape (None, 516128)
    Case(
        name="f9_image_dataset_from_directory_left_at_default_image_size",
        family="image_pipelines",
        code="""
import os, tempfile
from PIL import Image
root = tempfile.mkdtemp()
for cls in ["cats", "dogs"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(3):
        pixels = np.random.randint(0, 255, (40, 40, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(os.path.join(root, cls, f"{i}.png"))
train_ds = keras.utils.image_dataset_from_directory(root, batch_size=4, verbose=False)
model = keras.Sequential([
    keras.Input((64, 64, 3)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Conv2D(8, 3),
    keras.layers.Flatten(),
    keras.layers.Dense(2),
])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("image_size",),
        must_not=("add a flatten", "return_sequences"),
        fix="image_dataset_from_directory(root, image_size=(64, 64))",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    #   Received: target.shape=(None,), output.shape=(None, 3)
    Case(
        name="f9_directory_int_labels_with_categorical_crossentropy",
        family="image_pipelines",
        code="""
import os, tempfile
from PIL import Image
root = tempfile.mkdtemp()
for cls in ["circle", "square", "triangle"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(2):
        pixels = np.random.randint(0, 255, (24, 24, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(os.path.join(root, cls, f"{i}.png"))
train_ds = keras.utils.image_dataset_from_directory(
    root, image_size=(24, 24), batch_size=3, verbose=False
)
model = keras.Sequential([
    keras.Input((24, 24, 3)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Flatten(),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile("adam", "categorical_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("from_logits",),
        fix='loss="sparse_categorical_crossentropy", or label_mode="categorical"',
    ),
    # TypeError: Input 'y' of 'Sub' Op has type float32 that does not match type uint8 of argument 'x'.
    Case(
        name="f9_uint8_decoded_jpeg_minus_float_imagenet_mean",
        family="image_pipelines",
        code="""
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "photo.jpg")
tf.io.write_file(path, tf.io.encode_jpeg(tf.zeros((8, 8, 3), tf.uint8)))
mean = tf.constant([0.485, 0.456, 0.406])
def load(p):
    img = tf.io.decode_jpeg(tf.io.read_file(p), channels=3)
    return img - mean
ds = tf.data.Dataset.from_tensor_slices([path, path]).map(load)
""",
        expect="S11",
        must=("uint8",),
        must_not=("float64",),
        fix="tf.image.convert_image_dtype(img, tf.float32) (or tf.cast) before subtracting",
    ),
    # ValueError: 'images' contains no shape.
    Case(
        name="f9_decode_image_without_static_rank_before_resize",
        family="image_pipelines",
        code="""
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "tile.png")
tf.io.write_file(path, tf.io.encode_png(tf.zeros((20, 20, 3), tf.uint8)))
def load(p):
    img = tf.io.decode_image(tf.io.read_file(p), channels=3)
    img = tf.image.resize(img, (16, 16))
    return img
ds = tf.data.Dataset.from_tensor_slices([path, path]).map(load)
""",
        expect="S10",
        must=("decode_image",),
        must_not=("output_signature", "padded_batch"),
        fix="tf.io.decode_image(..., expand_animations=False), or decode_png",
    ),
    # InvalidArgumentError: {{function_node __wrapped__GreaterEqual_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   Incompatible shapes: [3] vs. [2] [Op:GreaterEqual] name:
    Case(
        name="f9_random_crop_size_without_the_channel_axis",
        family="image_pipelines",
        code="""
img = tf.random.uniform((32, 32, 3))
patch = tf.image.random_crop(img, size=(24, 24))
""",
        expect="S07",
        must=("random_crop",),
        must_not=("batch axis", "expand_dims"),
        fix="tf.image.random_crop(img, size=(24, 24, 3))",
    ),
    # TypeError: DataLayer.__call__() takes 2 positional arguments but 3 were given
    Case(
        name="f9_rescaling_layer_mapped_over_image_label_pairs",
        family="image_pipelines",
        code="""
x = np.random.rand(6, 32, 32, 3).astype("float32") * 255
y = np.array([0, 1, 0, 1, 1, 0])
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(2)
rescale = keras.layers.Rescaling(1.0 / 255)
ds = ds.map(rescale)
""",
        expect="S12",
        must=("label",),
        must_not=("unbatch", "expand_dims"),
        fix="ds.map(lambda x, y: (rescale(x), y))",
    ),
]
