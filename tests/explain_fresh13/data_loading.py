"""Family ``data_loading``: getting files and arrays into ``tf.data`` for training.

APIs: ``keras.utils.image_dataset_from_directory`` / ``text_dataset_from_directory`` (one
sub-folder per class; they yield ``(batch, label)`` pairs, images resized to
``image_size=(256, 256)`` unless told otherwise, labels as integer ids unless
``label_mode="categorical"``/``"binary"``), ``tf.data.experimental.make_csv_dataset``
(yields ``(OrderedDict of column -> tensor, label)`` batches: the features stay a dict
keyed by column name), ``tf.io.TFRecordWriter`` with ``tf.train.Example`` and
``tf.io.parse_single_example`` (each ``FixedLenFeature(shape, dtype)`` must state the
stored list's length as its shape and its kind: ``tf.string`` for ``bytes_list``,
``tf.int64`` for ``int64_list``, ``tf.float32`` for ``float_list``),
``tf.io.read_file``/``tf.io.decode_png`` in a ``map`` (each image keeps its own size, so
``batch`` needs a resize first), ``Dataset.from_generator`` (``output_signature`` gives
shapes; the deprecated ``output_types`` alone leaves them unknown), and
``TextVectorization.adapt`` (adapts on the texts only, not on ``(text, label)`` pairs).

Evidence a diagnosis needs: the dataset's ``element_spec`` (structure, shapes, dtypes)
at the step that failed and which loader or transformation made it (the loader's
``image_size``/``label_mode`` defaults, a dict from ``make_csv_dataset``, the
``FixedLenFeature`` spec against what the record holds, a ``from_generator`` without
shapes), and what the consumer expected (the model's input shape, the loss's label
encoding, a single text tensor).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().
    #   ... Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected axis -1 of input shape to have value 30752, but received input with ...
    Case(
        name="f13_image_folder_loaded_at_default_256_pixels",
        family="data_loading",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["cats", "dogs"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(3):
        img = np.random.randint(0, 256, size=(40, 50, 3)).astype("uint8")
        keras.utils.save_img(os.path.join(root, cls, f"{i}.png"), img)
train_ds = keras.utils.image_dataset_from_directory(root, batch_size=4, verbose=False)
model = keras.Sequential([
    keras.Input(shape=(64, 64, 3)),
    keras.layers.Rescaling(1.0 / 255),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(2, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("image_size",),
        must_not=("batch axis", "channel"),
        fix="image_dataset_from_directory(root, image_size=(64, 64))",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(None,), output.shape=(None, 3)
    Case(
        name="f13_image_folder_int_labels_with_categorical_loss",
        family="data_loading",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for cls in ["daisy", "rose", "tulip"]:
    os.makedirs(os.path.join(root, cls))
    for i in range(2):
        img = np.random.randint(0, 256, size=(32, 32, 3)).astype("uint8")
        keras.utils.save_img(os.path.join(root, cls, f"{i}.png"), img)
train_ds = keras.utils.image_dataset_from_directory(
    root, image_size=(32, 32), batch_size=3, verbose=False)
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Rescaling(1.0 / 255),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="M05",
        must=("label_mode",),
        must_not=("image_size", "dense(1"),
        fix='label_mode="categorical" (or loss="sparse_categorical_crossentropy")',
    ),
    # InvalidArgumentError: cannot compute Pack as input #1(zero-based) was expected to be a string tensor but is a int32 tensor [Op:Pack] name: packed
    Case(
        name="f13_text_folder_adapt_on_text_label_pairs",
        family="data_loading",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
reviews = {"neg": ["dull plot", "too long", "bad acting"], "pos": ["great film", "loved it", "so fun"]}
for cls, texts in reviews.items():
    os.makedirs(os.path.join(root, cls))
    for i, t in enumerate(texts):
        with open(os.path.join(root, cls, f"{i}.txt"), "w") as f:
            f.write(t)
train_ds = keras.utils.text_dataset_from_directory(root, batch_size=2, verbose=False)
vectorize = keras.layers.TextVectorization(max_tokens=100, output_sequence_length=8)
vectorize.adapt(train_ds)
""",
        expect="S12",
        must=("map",),
        must_not=("padded_batch", "ragged"),
        fix="vectorize.adapt(train_ds.map(lambda text, label: text))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   ... The structure of `inputs` doesn't match the expected structure. ... Received: inputs=OrderedDict([('rooms', ...), ('area', ...), ('age', ...)])
    Case(
        name="f13_csv_dataset_dict_into_sequential_model",
        family="data_loading",
        code="""
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "houses.csv")
with open(path, "w") as f:
    f.write("rooms,area,age,price\\n")
    for i in range(12):
        f.write(f"{2 + i % 4},{50 + 7 * i},{i % 30},{100 + 9 * i}\\n")
train_ds = tf.data.experimental.make_csv_dataset(
    path, batch_size=4, label_name="price", num_epochs=1)
model = keras.Sequential([
    keras.Input(shape=(3,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("dict",),
        must_not=("reshape(-1", "padded_batch"),
        fix="map(lambda f, y: (tf.stack([tf.cast(f[k], tf.float32) for k in f], axis=1), y)), or dict Inputs",
    ),
    # InvalidArgumentError: Error in user-defined function passed to MapDataset:... transformation with iterator: ...
    #   ... Key: image.  Data types don't match. Data type: string but expected type: int64
    Case(
        name="f13_tfrecord_image_bytes_parsed_as_int64",
        family="data_loading",
        code="""
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "train.tfrecord")
with tf.io.TFRecordWriter(path) as writer:
    for i in range(4):
        img = np.random.randint(0, 256, size=(8, 8, 1)).astype("uint8")
        png = tf.io.encode_png(img).numpy()
        ex = tf.train.Example(features=tf.train.Features(feature={
            "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[png])),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2])),
        }))
        writer.write(ex.SerializeToString())
spec = {
    "image": tf.io.FixedLenFeature([], tf.int64),
    "label": tf.io.FixedLenFeature([], tf.int64),
}
def parse(record):
    ex = tf.io.parse_single_example(record, spec)
    return ex["image"], ex["label"]
ds = tf.data.TFRecordDataset(path).map(parse)
for image, label in ds.take(1):
    print(image.shape, label)
""",
        expect="S11",
        must=("tf.string",),
        must_not=("astype", 'float32")'),
        fix='FixedLenFeature([], tf.string), then tf.io.decode_png(ex["image"])',
    ),
    # InvalidArgumentError: Key: measurements.  Can't parse serialized Example: Some float_list slice was not parsed.
    Case(
        name="f13_tfrecord_four_floats_parsed_as_scalar",
        family="data_loading",
        code="""
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "iris.tfrecord")
rows = np.random.rand(5, 4).astype("float32")
with tf.io.TFRecordWriter(path) as writer:
    for i, row in enumerate(rows):
        ex = tf.train.Example(features=tf.train.Features(feature={
            "measurements": tf.train.Feature(float_list=tf.train.FloatList(value=row.tolist())),
            "species": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 3])),
        }))
        writer.write(ex.SerializeToString())
spec = {
    "measurements": tf.io.FixedLenFeature([], tf.float32),
    "species": tf.io.FixedLenFeature([], tf.int64),
}
ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec))
batch = next(iter(ds.batch(5)))
""",
        expect="S07",
        must=("fixedlenfeature",),
        must_not=("tf.string", "padded_batch"),
        fix="FixedLenFeature([4], tf.float32)",
    ),
    # ValueError: as_list() is not defined on an unknown TensorShape.
    Case(
        name="f13_from_generator_with_output_types_only",
        family="data_loading",
        code="""
def sensor_windows():
    for i in range(12):
        yield np.random.rand(6).astype("float32"), np.float32(i % 2)
ds = tf.data.Dataset.from_generator(sensor_windows, output_types=(tf.float32, tf.float32))
ds = ds.batch(4)
model = keras.Sequential([
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S10",
        must=("output_signature",),
        must_not=("batch axis", "flatten"),
        fix="output_signature=(tf.TensorSpec((6,), tf.float32), tf.TensorSpec((), tf.float32))",
    ),
    # InvalidArgumentError: Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: [30,40,3], [batch]: [32,32,3] ...
    #   (which two shapes are named varies from run to run)
    Case(
        name="f13_png_files_of_different_sizes_batched_without_resize",
        family="data_loading",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
paths = []
for i, (h, w) in enumerate([(30, 40), (32, 32), (28, 36), (32, 32)]):
    p = os.path.join(root, f"img{i}.png")
    keras.utils.save_img(p, np.random.randint(0, 256, size=(h, w, 3)).astype("uint8"))
    paths.append(p)
labels = [0, 1, 0, 1]
def load(path, label):
    img = tf.io.decode_png(tf.io.read_file(path), channels=3)
    return tf.cast(img, tf.float32) / 255.0, label
ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(load).batch(4)
images, y = next(iter(ds))
""",
        expect="S13",
        must=("resize",),
        must_not=("padded_shapes=[none]", "ragged_batch"),
        fix="tf.image.resize(img, (32, 32)) in load",
    ),
]
