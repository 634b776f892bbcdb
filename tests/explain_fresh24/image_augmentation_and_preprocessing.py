"""Image augmentation and preprocessing.

The family
----------
Images reach Keras models as ``channels_last`` tensors ``(batch, height, width,
channels)``; a single image is ``(height, width, channels)``.  Two toolkits:

* Keras preprocessing layers (``Rescaling(scale, offset)``, ``Resizing(h, w)``,
  ``CenterCrop(h, w)``, ``RandomFlip(mode)``, ``RandomRotation(factor)``,
  ``RandomZoom(height_factor)`` with factors in ``(-1, 1]``, ``RandomContrast(factor)``,
  ``Normalization(axis=-1)`` adapted per channel).  They accept a batch or a single image,
  are active only with ``training=True``, and are layers: ``layer(inputs, training=...)``.
  A ``keras.Sequential`` of them used as a ``Dataset.map`` function receives every
  component of the element as a positional argument, so mapping it over ``(image, label)``
  pairs passes the label as ``training``; the documented pattern is
  ``ds.map(lambda x, y: (augment(x, training=True), y))``: augmentation is applied to the
  images only, never to integer labels.
* ``tf.image`` functions in a ``tf.data`` map: ``tf.image.resize(images, size)`` with
  ``size`` a 2-element ``[new_height, new_width]`` (returns float32);
  ``tf.image.random_crop(value, size)`` with ``size`` of the same rank as ``value``
  (``(24, 24, 3)`` for one image); ``flip_left_right`` / ``random_flip_left_right`` on
  rank 3 or 4 tensors (a grayscale image needs its channel axis);
  ``convert_image_dtype`` (uint8 -> float in ``[0, 1]``); ``per_image_standardization``.

Dtypes: decoded images are ``uint8`` in ``[0, 255]``.  TensorFlow arithmetic does not
promote: ``uint8_image + float_noise`` or ``uint8_image * 0.5`` raises; the fix is
``tf.cast(image, tf.float32)`` (or ``convert_image_dtype``) BEFORE the arithmetic.
Batching: ``Dataset.batch`` stacks elements, so images of different sizes must be resized
(or cropped) to one size in the map before ``batch`` (``padded_batch`` only pads).  A
model whose ``Input`` is ``(64, 64, 3)`` needs a batch axis even for one image
(``img[None]`` / ``np.expand_dims``), and ``channels_first`` arrays ``(N, 3, H, W)`` must
be transposed to ``(N, H, W, 3)`` for layers using the default ``channels_last``.

Evidence a diagnosis needs: the element spec of the dataset (shapes and dtypes of image and
label components) and which map function/op failed, the two differing image sizes in a
batch, the dtype of the image at the failing op, the shape the model expected vs the array
it got (a missing batch axis, channels on axis 1), and which component (image or label) an
augmentation layer received.
"""

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: Graph execution error:
    # (Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: [40,48,3], [batch]: [32,32,3])
    Case(
        name="f24_batch_images_of_different_sizes",
        family="image_augmentation_and_preprocessing",
        code="""
sizes = [(32, 32), (40, 48), (36, 30), (32, 32)]
def gen():
    for i, (h, w) in enumerate(sizes):
        yield np.random.randint(0, 256, (h, w, 3)).astype("uint8"), i % 2
ds = tf.data.Dataset.from_generator(gen, output_signature=(
    tf.TensorSpec((None, None, 3), tf.uint8), tf.TensorSpec((), tf.int32)))
ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y)).batch(4)
model = keras.Sequential([keras.Input((None, None, 3)), keras.layers.Conv2D(4, 3),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S13",
        must=("resize",),
        must_not=("drop_remainder",),
        fix="tf.image.resize(x, (32, 32)) in the map before batch()",
    ),
    # TypeError: Sequential.call() got multiple values for argument 'training'
    Case(
        name="f24_augment_sequential_mapped_over_pairs",
        family="image_augmentation_and_preprocessing",
        code="""
augment = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1)])
x = np.random.rand(16, 32, 32, 3).astype("float32")
y = np.random.randint(0, 2, 16)
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
ds = ds.map(augment)
""",
        expect="S12",
        must=("label",),
        must_not=("training=false",),
        fix="ds.map(lambda x, y: (augment(x, training=True), y))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape for input Tensor(... shape=(None,), dtype=float32) ... Expected shape (None, 32, 32, 3), but input has incompatible shape (None,))
    Case(
        name="f24_augmentation_applied_to_labels_too",
        family="image_augmentation_and_preprocessing",
        code="""
augment = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1)])
x = np.random.rand(16, 32, 32, 3).astype("float32")
y = np.random.randint(0, 2, 16)
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
ds = ds.map(lambda img, label: (augment(img, training=True), augment(label, training=True)))
""",
        expect="S01",
        must=("label",),
        must_not=("expand_dims",),
        fix="augment only the images: (augment(img, training=True), label)",
    ),
    # ValueError: Dimensions must be equal, but are 3 and 2 for '{{node random_crop/GreaterEqual}} = GreaterEqual[T=DT_INT32](random_crop/Shape, random_crop/size)' with input shapes: [3], [2].
    Case(
        name="f24_random_crop_size_without_channels",
        family="image_augmentation_and_preprocessing",
        code="""
x = np.random.rand(16, 32, 32, 3).astype("float32")
y = np.random.randint(0, 2, 16)
ds = tf.data.Dataset.from_tensor_slices((x, y))
ds = ds.map(lambda img, label: (tf.image.random_crop(img, size=(24, 24)), label)).batch(8)
""",
        expect="S07",
        must=("random_crop",),
        must_not=("expand_dims",),
        fix="size=(24, 24, 3): the crop size has the image's rank, channels included",
    ),
    # TypeError: Input 'y' of 'AddV2' Op has type float32 that does not match type uint8 of argument 'x'.
    Case(
        name="f24_gaussian_noise_added_to_uint8_images",
        family="image_augmentation_and_preprocessing",
        code="""
x = np.random.randint(0, 256, (16, 32, 32, 3)).astype("uint8")
y = np.random.randint(0, 2, 16)
def add_noise(img, label):
    img = tf.image.random_flip_left_right(img)
    img = img + tf.random.normal(tf.shape(img), stddev=8.0)
    return img, label
ds = tf.data.Dataset.from_tensor_slices((x, y)).map(add_noise).batch(8)
""",
        expect="S11",
        must=("uint8",),
        must_not=("float64",),
        fix="img = tf.cast(img, tf.float32) before adding the noise",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape for input Tensor("data:0", shape=(32, 64, 3), ...). Expected shape (None, 64, 64, 3), but input has incompatible shape (32, 64, 3))
    Case(
        name="f24_predict_one_image_without_batch_axis",
        family="image_augmentation_and_preprocessing",
        code="""
model = keras.Sequential([keras.Input((64, 64, 3)), keras.layers.Rescaling(1 / 255.0),
                          keras.layers.Conv2D(8, 3, activation="relu"),
                          keras.layers.GlobalAveragePooling2D(),
                          keras.layers.Dense(3, activation="softmax")])
img = np.random.randint(0, 256, (64, 64, 3)).astype("float32")
probs = model.predict(img, verbose=0)
""",
        expect="S12",
        must=("batch",),
        must_not=("resiz",),
        fix="model.predict(img[None]) (np.expand_dims(img, 0))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Input 0 with name 'None' of layer 'conv2d_2' is incompatible with the layer: expected axis -1 of input shape to have value 3, but received input with shape (None, 3, 32, 32))
    Case(
        name="f24_channels_first_images_into_channels_last_model",
        family="image_augmentation_and_preprocessing",
        code="""
x = np.random.rand(16, 3, 32, 32).astype("float32")
y = np.random.randint(0, 10, 16)
model = keras.Sequential([keras.Input((32, 32, 3)), keras.layers.RandomFlip("horizontal"),
                          keras.layers.Conv2D(8, 3, activation="relu"),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channels",),
        must_not=("expand_dims",),
        fix="np.transpose(x, (0, 2, 3, 1)) to channels-last",
    ),
    # ValueError: 'size' must be a 1-D Tensor of 2 elements: new_height, new_width
    Case(
        name="f24_tf_image_resize_with_single_int",
        family="image_augmentation_and_preprocessing",
        code="""
x = np.random.rand(16, 40, 40, 3).astype("float32")
ds = tf.data.Dataset.from_tensor_slices(x).map(lambda img: tf.image.resize(img, 32)).batch(8)
""",
        expect=None,
        unexplained=(
            "TensorFlow's message says size must be 2 elements, new_height and new_width: "
            "the fix (size=(32, 32)) is stated"
        ),
        fix="tf.image.resize(img, (32, 32))",
    ),
]
