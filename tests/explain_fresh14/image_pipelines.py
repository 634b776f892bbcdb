"""Family ``image_pipelines``: images through ``tf.data``, ``tf.image`` and ``image_dataset_from_directory`` into a model.

APIs: ``tf.io.decode_png``/``decode_jpeg`` (return a rank-3 ``uint8`` tensor whose height
and width are those of each file) and ``tf.io.decode_image`` (may return a rank-4 GIF
animation, so its static shape is unknown unless ``expand_animations=False``; ops such as
``tf.image.resize`` need a known rank), ``tf.image`` ops (``resize`` returns float32;
``random_crop``'s ``size`` must have the rank of the value, so a crop size for one image
fails on a batch; arithmetic between a ``uint8`` image and float constants needs a
``tf.cast`` first), ``Dataset.batch`` (stacks same-shape elements only: images of different
sizes need a resize in the ``map`` first), ``keras.utils.image_dataset_from_directory``
(defaults: ``color_mode="rgb"`` gives 3 channels even for grayscale files,
``image_size=(256, 256)`` resizes every image to 256x256, ``label_mode="int"`` gives integer
class ids, which need a sparse loss), Keras preprocessing/augmentation layers called in a
``map`` (a layer or ``Sequential`` takes the images only; a second positional argument is
``training``), and the model's ``Input`` (channels-last ``(H, W, C)`` by default).

Evidence a diagnosis needs: the element spec of the dataset at the failing step (shape,
rank, dtype of the image component), the shapes of two elements that differ, the op and
its arguments (crop size rank against the batch rank, the dtypes of the two operands), the
arguments of ``image_dataset_from_directory`` left at their defaults against the model's
``Input`` (size, channels) and loss, and the channel axis of the arrays (``(N, 3, H, W)``).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_output_types_1_device_/job:localhost/replica:0/task:0/device:CPU:0}} Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: [24,24,3], [batch]: [20,30,3] [Op:IteratorGetNext] name:
    # (which two of the four sizes are named varies from run to run)
    Case(
        name="f14_decoded_pngs_of_different_sizes_batched",
        family="image_pipelines",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
paths = []
for i, (h, w) in enumerate([(20, 30), (24, 24), (18, 40), (32, 16)]):
    pixels = np.random.randint(0, 256, size=(h, w, 3), dtype=np.uint8)
    path = os.path.join(root, f"img{i}.png")
    tf.io.write_file(path, tf.io.encode_png(pixels))
    paths.append(path)
def load(path):
    img = tf.io.decode_png(tf.io.read_file(path), channels=3)
    return tf.cast(img, tf.float32) / 255.0
ds = tf.data.Dataset.from_tensor_slices(paths).map(load).batch(2)
batch = next(iter(ds))
""",
        expect="S13",
        must=("resize",),
        must_not=("reshape",),
        fix="tf.image.resize(img, (32, 32)) in load, before batch",
    ),
    # TypeError: Input 'y' of 'Sub' Op has type float32 that does not match type uint8 of argument 'x'.
    Case(
        name="f14_uint8_images_minus_float_mean_in_map",
        family="image_pipelines",
        code="""
images = np.random.randint(0, 256, size=(6, 16, 16, 3), dtype=np.uint8)
labels = np.arange(6) % 2
mean = tf.constant([0.485, 0.456, 0.406])
def normalize(image, label):
    return image - mean, label
ds = tf.data.Dataset.from_tensor_slices((images, labels)).map(normalize).batch(3)
""",
        expect="S11",
        must=("uint8",),
        must_not=("float64",),
        fix="tf.cast(image, tf.float32) / 255.0 - mean",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer: expected axis -1 of input shape to have value 1, but received input with shape (None, 28, 28, 3)
    Case(
        name="f14_grayscale_folder_loaded_as_rgb",
        family="image_pipelines",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["cat", "dog"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(3):
        gray = np.random.randint(0, 256, size=(28, 28, 1), dtype=np.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(gray))
ds = keras.utils.image_dataset_from_directory(root, image_size=(28, 28), batch_size=4, verbose=False)
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Rescaling(1.0 / 255),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(2, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("color_mode",),
        must_not=("resize",),
        fix='image_dataset_from_directory(..., color_mode="grayscale")',
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense_1' is incompatible with the layer: expected axis -1 of input shape to have value 5776, but received input with shape (None, 258064)
    Case(
        name="f14_image_dataset_default_256px_into_40px_model",
        family="image_pipelines",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["ok", "defect"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(3):
        rgb = np.random.randint(0, 256, size=(40, 40, 3), dtype=np.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(rgb))
train_ds = keras.utils.image_dataset_from_directory(root, batch_size=2, verbose=False)
model = keras.Sequential([
    keras.Input((40, 40, 3)),
    keras.layers.Rescaling(1.0 / 255),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("image_size",),
        must_not=("globalaveragepooling", "color_mode"),
        fix="image_dataset_from_directory(..., image_size=(40, 40))",
    ),
    # ValueError: Dimensions must be equal, but are 4 and 3 for '{{node random_crop/GreaterEqual}} = GreaterEqual[T=DT_INT32](random_crop/Shape, random_crop/size)' with input shapes: [4], [3].
    Case(
        name="f14_random_crop_size_for_one_image_mapped_over_batches",
        family="image_pipelines",
        code="""
images = np.random.rand(8, 32, 32, 3).astype("float32")
labels = np.arange(8) % 4
def augment(image, label):
    image = tf.image.random_crop(image, size=(24, 24, 3))
    return image, label
ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(4).map(augment)
""",
        expect="S07",
        must=("batch",),
        must_not=("padded_batch",),
        fix="map(augment) before batch (or a keras.layers.RandomCrop(24, 24) on the batch)",
    ),
    # ValueError: 'images' contains no shape.
    Case(
        name="f14_decode_image_then_resize_in_map",
        family="image_pipelines",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
paths = []
for i in range(4):
    path = os.path.join(root, f"scan_{i}.png")
    tf.io.write_file(path, tf.io.encode_png(np.random.randint(0, 256, size=(50, 50, 3), dtype=np.uint8)))
    paths.append(path)
def load(path):
    image = tf.io.decode_image(tf.io.read_file(path), channels=3)
    return tf.image.resize(image, (32, 32))
ds = tf.data.Dataset.from_tensor_slices(paths).map(load).batch(2)
""",
        expect="S10",
        must=("decode_image",),
        must_not=("output_signature",),
        fix="decode_image(..., expand_animations=False) or decode_png, (or image.set_shape([None, None, 3]))",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(None,), output.shape=(None, 3)
    Case(
        name="f14_flower_folders_int_labels_with_categorical_loss",
        family="image_pipelines",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["daisy", "rose", "tulip"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(2):
        pixels = np.random.randint(0, 256, size=(24, 24, 3), dtype=np.uint8)
        tf.io.write_file(os.path.join(root, cls, f"{i}.png"), tf.io.encode_png(pixels))
flowers = keras.utils.image_dataset_from_directory(root, image_size=(24, 24), batch_size=3, verbose=False)
model = keras.Sequential([
    keras.Input((24, 24, 3)),
    keras.layers.Rescaling(1.0 / 255),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(flowers, epochs=1, verbose=0)
""",
        expect="M05",
        must=("categorical_crossentropy",),
        must_not=("resize", "image_size"),
        fix='label_mode="categorical" (or loss="sparse_categorical_crossentropy")',
    ),
    # TypeError: Sequential.call() got multiple values for argument 'training'
    Case(
        name="f14_augmentation_model_called_with_image_and_label",
        family="image_pipelines",
        code="""
augment = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1)])
images = np.random.rand(8, 32, 32, 3).astype("float32")
labels = np.arange(8) % 2
ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(4)
ds = ds.map(lambda x, y: augment(x, y))
""",
        expect="S12",
        must=("label",),
        must_not=("padded_batch", "reshape"),
        fix="ds.map(lambda x, y: (augment(x, training=True), y))",
    ),
]
