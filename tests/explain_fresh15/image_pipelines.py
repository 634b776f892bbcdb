"""Family ``image_pipelines``: images through ``tf.data``, ``tf.image`` and ``image_dataset_from_directory``.

APIs: ``keras.utils.image_dataset_from_directory`` (yields float32 batches of shape
``(batch, *image_size, channels)`` with ``image_size=(256, 256)`` by default,
``color_mode="rgb"`` (3 channels) by default, and integer labels (``label_mode="int"``,
for a sparse loss; ``"categorical"`` gives one-hot labels)); ``tf.io.decode_png`` /
``decode_image`` (``decode_image`` may return a GIF animation, so its output has no
static rank unless ``expand_animations=False``; ``tf.image.resize`` needs a known rank);
``tf.image.random_crop`` (``size`` has one entry per axis of the value: a batch needs
``[B, h, w, C]``); arithmetic on decoded ``uint8`` images (TensorFlow does not promote
dtypes: cast to float first); ``Dataset.batch`` (every element needs the same shape:
images of different sizes must be resized or padded first); ``model.fit`` on a dataset
(the dataset must yield batches: an unbatched dataset of images hands the model single
rank-3 images).

Evidence a diagnosis needs: the dataset's ``element_spec`` (shape, dtype, whether it is
batched) at the step that failed and the transformation that made it (the arguments of
``image_dataset_from_directory``, a ``map`` with ``decode_image``, a missing ``batch``),
the model's ``Input`` (size, channels, dtype) or the loss (sparse or categorical) it was
fed to, and for ``batch`` two differing element shapes.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_WRITE_PNGS = """
import os, tempfile
root = tempfile.mkdtemp()
for cls in ("cats", "dogs"):
    os.makedirs(os.path.join(root, cls))
    for i in range(3):
        img = np.random.randint(0, 256, (40, 40, 3), dtype=np.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(img))
"""

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().
    # (Input 0 with name 'None' of layer 'classifier' is incompatible with the layer: expected axis -1 of input shape to have value 4800, but received input with shape (None, 196608))
    Case(
        name="f15_directory_images_at_default_256px_into_40px_model",
        family="image_pipelines",
        code=_WRITE_PNGS
        + """
ds = keras.utils.image_dataset_from_directory(root, batch_size=2, verbose=False)
model = keras.Sequential([
    keras.Input((40, 40, 3)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Flatten(),
    keras.layers.Dense(2, name="classifier"),
])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("image_size",),
        must_not=("color_mode",),
        fix="image_dataset_from_directory(root, image_size=(40, 40), ...)",
    ),
    # ValueError: Exception encountered when calling Functional.call().
    # (Input 0 with name 'None' of layer 'stem' is incompatible with the layer: expected axis -1 of input shape to have value 1, but received input with shape (None, 40, 40, 3))
    Case(
        name="f15_directory_rgb_images_into_single_channel_model",
        family="image_pipelines",
        code=_WRITE_PNGS
        + """
ds = keras.utils.image_dataset_from_directory(root, image_size=(40, 40), batch_size=2, verbose=False)
inputs = keras.Input((40, 40, 1))
x = keras.layers.Conv2D(4, 3, name="stem")(inputs)
x = keras.layers.Flatten()(x)
model = keras.Model(inputs, keras.layers.Dense(2)(x))
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("color_mode",),
        must_not=("image_size",),
        fix='color_mode="grayscale" (or Input((40, 40, 3)))',
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(None,), output.shape=(None, 2)
    Case(
        name="f15_directory_int_labels_with_categorical_crossentropy",
        family="image_pipelines",
        code=_WRITE_PNGS
        + """
ds = keras.utils.image_dataset_from_directory(root, image_size=(40, 40), batch_size=3, verbose=False)
model = keras.Sequential([
    keras.Input((40, 40, 3)),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Flatten(),
    keras.layers.Dense(2, activation="softmax"),
])
model.compile("adam", "categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="M05",
        must=("label_mode",),
        must_not=("flatten",),
        fix='label_mode="categorical" (or loss="sparse_categorical_crossentropy")',
    ),
    # ValueError: Dimensions must be equal, but are 4 and 3 for '{{node random_crop/GreaterEqual}} = GreaterEqual[T=DT_INT32](random_crop/Shape, random_crop/size)' with input shapes: [4], [3].
    Case(
        name="f15_random_crop_size_for_one_image_mapped_over_batches",
        family="image_pipelines",
        code="""
images = tf.random.uniform((8, 32, 32, 3))
labels = tf.range(8) % 2
ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(4)
ds = ds.map(lambda x, y: (tf.image.random_crop(x, size=[28, 28, 3]), y))
""",
        expect="S07",
        must=("random_crop",),
        must_not=("expand_dims",),
        fix="map the crop before batch(), or size=[4, 28, 28, 3] (a RandomCrop layer)",
    ),
    # TypeError: Expected uint8 passed to parameter 'y' of op 'Sub', got 127.5 of type 'float' instead. Error: Expected uint8, but got 127.5 of type 'float'.
    Case(
        name="f15_uint8_pixels_centred_with_float_in_dataset_map",
        family="image_pipelines",
        code="""
images = np.random.randint(0, 256, (6, 16, 16, 3), dtype=np.uint8)
labels = np.array([0, 1, 0, 1, 1, 0])
ds = tf.data.Dataset.from_tensor_slices((images, labels))
ds = ds.map(lambda x, y: ((x - 127.5) / 127.5, y))
""",
        expect="S11",
        must=("uint8",),
        must_not=("reshape",),
        fix="(tf.cast(x, tf.float32) - 127.5) / 127.5",
    ),
    # ValueError: 'images' contains no shape.
    Case(
        name="f15_decode_image_of_unknown_rank_then_resize",
        family="image_pipelines",
        code=_WRITE_PNGS
        + """
files = tf.data.Dataset.list_files(os.path.join(root, "*", "*.png"))
def load(path):
    img = tf.io.decode_image(tf.io.read_file(path), channels=3)
    return tf.image.resize(img, (32, 32))
ds = files.map(load).batch(2)
""",
        expect="S10",
        must=("decode_image",),
        must_not=("padded_batch",),
        fix="tf.io.decode_image(..., expand_animations=False) (or decode_png)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape for input Tensor("data:0", shape=(24, 24, 3), dtype=float32) with name 'keras_tensor...' and path ''. Expected shape (None, 24, 24, 3), but input has incompatible shape (24, 24, 3))
    Case(
        name="f15_shuffled_image_dataset_never_batched_before_fit",
        family="image_pipelines",
        code="""
images = np.random.rand(12, 24, 24, 3).astype("float32")
labels = np.random.randint(0, 3, 12)
ds = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(12)
model = keras.Sequential([
    keras.Input((24, 24, 3)),
    keras.layers.Conv2D(4, 3),
    keras.layers.GlobalMaxPooling2D(),
    keras.layers.Dense(3),
])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("batch",),
        must_not=("input_shape",),
        fix="ds.shuffle(12).batch(4)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_output_types_1_device_/job:localhost/replica:0/task:0/device:CPU:0}} Cannot add tensor to the batch: number of elements does not match. Shapes are: ...
    # (the two shapes are [30,40,3] and [32,32,3], in either order)
    Case(
        name="f15_photos_of_different_sizes_batched_after_decode",
        family="image_pipelines",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
paths = []
for i, (h, w) in enumerate([(30, 40), (32, 32), (48, 20), (32, 32)]):
    p = os.path.join(root, f"photo_{i}.png")
    tf.io.write_file(p, tf.io.encode_png(np.random.randint(0, 256, (h, w, 3), dtype=np.uint8)))
    paths.append(p)
ds = tf.data.Dataset.from_tensor_slices(paths)
ds = ds.map(lambda p: tf.cast(tf.io.decode_png(tf.io.read_file(p), channels=3), tf.float32) / 255.0)
for batch in ds.batch(2):
    print(batch.shape)
""",
        expect="S13",
        must=("resize",),
        must_not=("drop_remainder",),
        fix="tf.image.resize(img, (32, 32)) in the map before batch()",
    ),
]
