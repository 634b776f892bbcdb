"""Image augmentation and preprocessing.

The family
----------
Images reach a model as ``(batch, height, width, channels)`` tensors (channels last, the
Keras default ``data_format``), either from arrays or from a ``tf.data`` pipeline whose
``map`` functions prepare them.

* Preprocessing layers (``Rescaling(scale, offset)``, ``Resizing(h, w)``,
  ``CenterCrop(h, w)``, ``RandomFlip(mode)``, ``RandomRotation(factor)``,
  ``RandomZoom(height_factor, width_factor)``, ``RandomContrast(factor)``,
  ``Normalization``) accept a 3D unbatched image or a 4D batch, channels last, of any
  numeric dtype, and output floats.  Their factors are *fractions*: ``RandomZoom`` and
  ``RandomRotation`` take values in ``(-1, 1]`` (a positive zoom factor zooms out),
  ``RandomContrast`` in ``[0, 1]``.  Random layers act only with ``training=True`` (in
  ``fit``, or when called with it in a ``map``).  A ``keras.Sequential`` of them is one model
  taking ONE input; ``dataset.map(fn)`` calls ``fn`` with the element's components as
  separate positional arguments, so ``ds.map(augment)`` on ``(image, label)`` elements calls
  ``augment(image, label)`` -- the label lands in the ``training`` argument.
* ``tf.image`` functions: ``resize(images, size=[h, w])`` (3D or 4D, returns float32),
  ``flip_left_right``, ``random_crop(value, size)`` (``size`` has one entry per axis of
  ``value``: ``[h, w, c]`` for one image, ``[b, h, w, c]`` for a batch),
  ``convert_image_dtype`` (rescales integer images into ``[0, 1]`` floats),
  ``per_image_standardization``.  TensorFlow does not promote dtypes: arithmetic on a
  ``uint8`` image with a Python float (``image - 127.5``, ``image / 255.0`` after an op
  that keeps uint8) raises; ``tf.cast(image, tf.float32)`` (or ``convert_image_dtype``)
  comes first.
* ``tf.data``: ``batch()`` stacks elements and needs every element of one shape (images of
  different sizes need ``resize`` in the ``map`` before ``batch``, or ``padded_batch`` /
  ``ragged_batch``); ``tf.py_function`` returns tensors of unknown shape, which the model's
  layers cannot build on unless the ``map`` restores it (``set_shape`` /
  ``tf.ensure_shape``).
* Models: a model built for ``(None, H, W, C)`` takes batches; ``predict(image)`` on one
  ``(H, W, C)`` image reads its first axis as the batch.  Channels-first arrays
  ``(N, C, H, W)`` do not fit a channels-last model (``np.transpose(x, (0, 2, 3, 1))``).

Evidence a diagnosis needs
--------------------------
The element shapes and dtypes of the pipeline (two differing image shapes for ``batch``,
``uint8`` against a float constant, the stage that lost the shape), where in the pipeline the
op ran (per image before ``batch`` or per batch after it), and for a model the shape it
expected against the array it got (which axis holds 3 channels, whether the batch axis is
missing).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "image_augmentation_and_preprocessing"

CASES = [
    # InvalidArgumentError: Graph execution error:  (... Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: [28,28,3], [batch]: [32,40,3])
    Case(
        name="f25_batch_images_of_different_sizes_without_resize",
        family=FAMILY,
        code="""
sizes = [(32, 40), (28, 28), (36, 30), (32, 32)]
images = [np.random.randint(0, 255, (h, w, 3), dtype=np.uint8) for h, w in sizes]
labels = [0, 1, 0, 1]
ds = tf.data.Dataset.from_generator(
    lambda: zip(images, labels),
    output_signature=(tf.TensorSpec((None, None, 3), tf.uint8), tf.TensorSpec((), tf.int32)),
)
ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y)).batch(2)
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Conv2D(4, 3),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(2),
])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S13",
        must=("resize",),
        must_not=("drop_remainder",),
        fix="tf.image.resize(x, (32, 32)) in the map before batch()",
    ),
    # TypeError: Expected uint8 passed to parameter 'y' of op 'Sub', got 127.5 of type 'float' instead. Error: Expected uint8, but got 127.5 of type 'float'.
    Case(
        name="f25_uint8_image_minus_float_in_map",
        family=FAMILY,
        code="""
images = np.random.randint(0, 256, (8, 32, 32, 3), dtype=np.uint8)
labels = np.random.randint(0, 2, (8,))

def preprocess(image, label):
    image = tf.image.random_flip_left_right(image)
    image = (image - 127.5) / 127.5
    return image, label

ds = tf.data.Dataset.from_tensor_slices((images, labels)).map(preprocess).batch(4)
""",
        expect="S11",
        must=("uint8",),
        must_not=("float64",),
        fix="image = tf.cast(image, tf.float32) before the arithmetic",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (Invalid input shape ... Expected shape (None, 64, 64, 3), but input has incompatible shape (32, 64, 3))
    Case(
        name="f25_predict_one_image_without_batch_axis",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input(shape=(64, 64, 3)),
    keras.layers.Rescaling(1.0 / 255),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(3, activation="softmax"),
])
img = np.random.randint(0, 256, (64, 64, 3)).astype("float32")
probs = model.predict(img, verbose=0)
""",
        expect="S12",
        must=("batch",),
        must_not=("resiz",),
        fix="model.predict(img[None]) (np.expand_dims(img, 0))",
    ),
    # TypeError: Sequential.call() got multiple values for argument 'training'
    Case(
        name="f25_dataset_map_augmentation_model_on_image_label_pairs",
        family=FAMILY,
        code="""
augment = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1)])
images = np.random.rand(8, 32, 32, 3).astype("float32")
labels = np.random.randint(0, 2, (8,))
train_ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(4)
train_ds = train_ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE)
""",
        expect="S12",
        must=("label",),
        must_not=("training=false",),
        fix="train_ds.map(lambda x, y: (augment(x, training=True), y))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (Input 0 ... of layer 'conv2d' ... expected axis -1 of input shape to have value 3, but received input with shape (None, 3, 32, 32))
    Case(
        name="f25_channels_first_images_into_channels_last_model",
        family=FAMILY,
        code="""
x = np.random.rand(16, 3, 32, 32).astype("float32")
y = np.random.randint(0, 10, (16,))
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10),
])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("expand_dims",),
        fix="x = np.transpose(x, (0, 2, 3, 1)) (channels last)",
    ),
    # ValueError: Dimensions must be equal, but are 4 and 3 for '{{node random_crop/GreaterEqual}} = GreaterEqual[T=DT_INT32](random_crop/Shape, random_crop/size)' with input shapes: [4], [3].
    Case(
        name="f25_random_crop_single_image_size_on_batches",
        family=FAMILY,
        code="""
images = np.random.rand(16, 32, 32, 3).astype("float32")
labels = np.random.randint(0, 2, (16,))
ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(8)
ds = ds.map(lambda x, y: (tf.image.random_crop(x, size=(28, 28, 3)), y))
""",
        expect="S07",
        must=("random_crop",),
        must_not=("padded_batch",),
        fix="crop before batch() (map per image), or size=(tf.shape(x)[0], 28, 28, 3)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (Cannot take the length of shape with unknown rank.)
    Case(
        name="f25_py_function_augmentation_loses_image_shape",
        family=FAMILY,
        code="""
images = np.random.rand(8, 32, 32, 3).astype("float32")
labels = np.random.randint(0, 2, (8,))

def brighten(image):
    return np.clip(image.numpy() * 1.2, 0.0, 1.0).astype("float32")

ds = tf.data.Dataset.from_tensor_slices((images, labels))
ds = ds.map(lambda x, y: (tf.py_function(brighten, [x], tf.float32), y)).batch(4)
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(2),
])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S10",
        must=("py_function",),
        must_not=("input_shape",),
        fix="restore the shape in the map: img.set_shape((32, 32, 3)) / tf.ensure_shape, or use tf.image ops",
    ),
    # ValueError: The `height_factor` and `width_factor` arguments should be a number (or a list of two numbers) in the range (-1.0, 1.0]. Received: input_number=1.2
    Case(
        name="f25_random_zoom_scale_range_instead_of_fraction",
        family=FAMILY,
        code="""
augment = keras.Sequential([
    keras.layers.RandomFlip("horizontal"),
    keras.layers.RandomZoom(height_factor=(0.8, 1.2)),
])
images = np.random.rand(4, 32, 32, 3).astype("float32")
out = augment(images, training=True)
""",
        expect=None,
        unexplained="the message names the argument, its allowed range (-1, 1] and the value "
        "received; a fraction such as (-0.2, 0.2) follows",
        fix="keras.layers.RandomZoom(height_factor=(-0.2, 0.2))",
    ),
]
