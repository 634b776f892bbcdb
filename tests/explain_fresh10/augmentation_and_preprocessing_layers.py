"""Family ``augmentation_and_preprocessing_layers``: Keras image augmentation and numeric preprocessing layers.

APIs: the image layers ``RandomFlip``, ``RandomRotation``, ``RandomZoom``, ``RandomCrop``,
``Resizing``, ``Rescaling`` and ``CenterCrop`` take one image of rank 3 ``(H, W, C)`` or a
batch of rank 4 ``(B, H, W, C)`` in the layer's ``data_format`` (``channels_last`` unless
set): a grayscale ``(28, 28)`` image without its channel axis, or flattened ``(B, 784)``
rows, are neither (a rank-2 batch is read as ONE image without channels, and the batch
axis is lost); ``RandomZoom``'s factors lie in ``(-1, 1]``.  They are called on the
images only: ``ds.map(layer)`` on ``(image, label)`` elements hands the layer two
arguments, and an augmentation must never reach the labels.  A model built
``channels_last`` reads the last axis of ``(B, 3, 32, 32)`` channels-first data as 32
channels.  ``Normalization(mean=..., variance=...)`` broadcasts its statistics along
``axis`` (default ``-1``, the channels): three per-channel values need three channels on
that axis.  ``Discretization(bin_boundaries=[...])`` takes numbers and returns bin ids in
``[0, len(bin_boundaries)]``, one more bin than there are boundaries, which an
``Embedding`` must cover.

Evidence a diagnosis needs: the layer that failed and its settings (``data_format``,
``axis``, the length of ``mean``, ``bin_boundaries``, the factors), the shape, rank and
dtype of what it received against what it takes, and where that came from: an unbatched
``map`` over grayscale arrays, a flattened array, channels-first data, a ``map`` that
passed the labels too, a text column of numbers, the ``input_dim`` of the Embedding fed
the bin ids.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Exception encountered when calling RandomRotation.call().
    #   Expected image tensor to have rank 3 (single image) or 4 (batch of images).
    #   Received: data.shape=(28, 28)
    Case(
        name="f10_random_rotation_mapped_over_grayscale_digits_without_channel",
        family="augmentation_and_preprocessing_layers",
        code="""
digits = np.random.rand(8, 28, 28).astype("float32")
labels = np.arange(8) % 10
rotate = keras.layers.RandomRotation(0.05)
ds = tf.data.Dataset.from_tensor_slices((digits, labels))
ds = ds.map(lambda img, label: (rotate(img, training=True), label)).batch(4)
""",
        expect="S01",
        must=("channel",),
        must_not=("batch the dataset", "batch before"),
        fix="digits[..., np.newaxis] (shape (28, 28, 1)) before the map",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer:
    #   expected min_ndim=4, found ndim=2. Full shape received: (32, 32)
    Case(
        name="f10_resizing_flattened_mnist_rows",
        family="augmentation_and_preprocessing_layers",
        code="""
flat = np.random.rand(4, 784).astype("float32")
model = keras.Sequential([
    keras.Input((784,)),
    keras.layers.Resizing(32, 32),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10, activation="softmax"),
])
""",
        expect="S01",
        must=("reshape",),
        must_not=("expand_dims", "np.newaxis"),
        fix="keras.layers.Reshape((28, 28, 1)) before Resizing (or keep the images 2-D)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__BroadcastTo_device_/...}} Unable to broadcast
    #   tensor of shape [1,1,1,3] to tensor of shape [1,1,1,1] [Op:BroadcastTo]
    Case(
        name="f10_imagenet_mean_normalization_on_grayscale_images",
        family="augmentation_and_preprocessing_layers",
        code="""
norm = keras.layers.Normalization(
    mean=[0.485, 0.456, 0.406],
    variance=[0.229 ** 2, 0.224 ** 2, 0.225 ** 2],
)
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    norm,
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
""",
        expect="S01",
        must=("mean",),
        must_not=("transpose", "channels_first"),
        fix="one mean and variance for the single channel (or 3-channel images)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer: expected axis -1
    #   of input shape to have value 3, but received input with shape (None, 3, 32, 32)
    Case(
        name="f10_channels_first_arrays_into_a_channels_last_augmenting_model",
        family="augmentation_and_preprocessing_layers",
        code="""
images = np.random.rand(6, 3, 32, 32).astype("float32")
labels = np.arange(6) % 2
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Rescaling(1 / 255.0),
    keras.layers.RandomFlip("horizontal"),
    keras.layers.Conv2D(4, 3),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(images, labels, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channels_first",),
        must_not=("input((3, 32, 32)", "input(shape=(3, 32, 32)"),
        fix="np.transpose(images, (0, 2, 3, 1)) to channels_last",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... indices[..] = 4 is not in [0, 4) [[{{node sequential_1/embedding_1/GatherV2}}]]
    Case(
        name="f10_age_discretization_has_one_more_bin_than_the_embedding",
        family="augmentation_and_preprocessing_layers",
        code="""
ages = np.array([[12.0], [25.0], [37.0], [52.0], [70.0], [81.0]], dtype="float32")
model = keras.Sequential([
    keras.Input((1,)),
    keras.layers.Discretization(bin_boundaries=[18.0, 30.0, 45.0, 65.0]),
    keras.layers.Embedding(4, 2),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(ages, np.zeros(6), epochs=1, verbose=0)
""",
        expect="S09",
        must=("bin_boundaries",),
        must_not=("mask_zero",),
        fix="Embedding(len(bin_boundaries) + 1, 2), i.e. Embedding(5, 2)",
    ),
    # TypeError: DataLayer.__call__() takes 2 positional arguments but 3 were given
    Case(
        name="f10_random_flip_mapped_over_image_label_pairs",
        family="augmentation_and_preprocessing_layers",
        code="""
images = np.random.rand(8, 32, 32, 3).astype("float32")
labels = np.arange(8) % 2
flip = keras.layers.RandomFlip("horizontal")
train_ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(4).map(flip)
""",
        expect="S12",
        must=("label",),
        must_not=("padded_batch",),
        fix="train_ds.map(lambda x, y: (flip(x, training=True), y))",
    ),
    # InvalidArgumentError: Exception encountered when calling Discretization.call().
    #   Value for attr 'T' of string is not in the list of allowed values: int32, int64, float, double
    Case(
        name="f10_discretization_of_ages_read_as_strings",
        family="augmentation_and_preprocessing_layers",
        code="""
ages = np.array([["23"], ["51"], ["34"], ["67"]])
bucketize = keras.layers.Discretization(bin_boundaries=[18.0, 30.0, 45.0, 65.0])
age_bins = bucketize(ages)
""",
        expect="S11",
        must=("string",),
        must_not=("stringlookup",),
        fix='ages.astype("float32") (or tf.strings.to_number) before Discretization',
    ),
    # ValueError: The `height_factor` and `width_factor` arguments should be a number (or a list
    #   of two numbers) in the range (-1.0, 1.0]. Received: input_number=1.5
    Case(
        name="f10_random_zoom_factor_given_as_a_scale",
        family="augmentation_and_preprocessing_layers",
        code="""
augment = keras.Sequential([
    keras.layers.RandomFlip("horizontal"),
    keras.layers.RandomZoom(1.5),
])
""",
        expect=None,
        unexplained="the message gives the valid range (-1.0, 1.0] of the factor and the value received",
        fix="RandomZoom(0.5) (a fraction: -0.5 zooms in, 0.5 out)",
    ),
]
