"""Family ``data_loading``: reading CSV, TFRecord, text, generator and ``PyDataset`` data into a model.

APIs: ``tf.data.experimental.make_csv_dataset(path, batch_size, label_name=...)`` yields
``(dict of column batches, label batch)``; ``label_name`` must be a header column, spelled
as in the file.  ``tf.io.parse_single_example(serialized, features)`` parses ONE scalar
serialized ``Example`` (after ``batch`` use ``tf.io.parse_example``, or map before batching);
``tf.io.FixedLenFeature(shape, dtype)`` must give the number of values each record stores
(``[]`` means exactly one; a 3-float feature needs ``[3]``) and the dtype it was written
with (``int64_list`` parses as ``tf.int64`` only; cast after parsing).
``tf.data.TextLineDataset`` and ``keras.utils.text_dataset_from_directory`` yield raw
strings: a ``TextVectorization`` layer must turn them into ids before an ``Embedding``;
``text_dataset_from_directory`` labels one class per sub-folder (``class_names``), so the
output layer needs as many units as there are folders.  ``Dataset.from_generator`` needs
``output_signature`` (``tf.TensorSpec`` with shapes; the deprecated ``output_types`` leaves
every shape unknown).  A ``keras.utils.PyDataset`` returns ``(x, y)`` (or ``(x, y,
sample_weight)``) batches from ``__getitem__`` for ``fit``.

Evidence a diagnosis needs: the file's header or the record's stored features (value counts
and list types) against what the reader was told (``label_name``, ``FixedLenFeature`` shape
and dtype), the rank of what ``parse_single_example`` received (a batch of records), the
dtype of the dataset's features (strings) against the first layer, the number of class
folders against the output units, the element_spec of a generator dataset (unknown shapes),
and the structure returned by ``__getitem__`` (inputs only).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: `label_name` provided must be one of the columns: ['rooms', 'area', 'price']. Received: Price.
    Case(
        name="f17_make_csv_dataset_label_name_capitalized",
        family="data_loading",
        code="""
import os
import tempfile
d = tempfile.mkdtemp()
path = os.path.join(d, "houses.csv")
with open(path, "w") as f:
    f.write("rooms,area,price\\n3,70.5,210000\\n2,48.0,150000\\n4,95.2,320000\\n3,66.1,205000\\n")
ds = tf.data.experimental.make_csv_dataset(path, batch_size=2, label_name="Price", num_epochs=1)
""",
        expect=None,
        unexplained="the message lists the file's columns and the label_name received",
        fix="label_name='price'",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_output_types_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Error in user-defined function passed to MapDataset:81 transformation with iterator: Iterator::Root::ParallelMapV2: Key: features.  Can't parse serialized Example: Some float_list slice was not parsed.
    Case(
        name="f17_tfrecord_three_floats_parsed_as_scalar_fixedlenfeature",
        family="data_loading",
        code="""
import os
import tempfile
d = tempfile.mkdtemp()
path = os.path.join(d, "data.tfrecord")
with tf.io.TFRecordWriter(path) as writer:
    for i in range(4):
        example = tf.train.Example(features=tf.train.Features(feature={
            "features": tf.train.Feature(float_list=tf.train.FloatList(value=np.random.rand(3).tolist())),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2])),
        }))
        writer.write(example.SerializeToString())
spec = {
    "features": tf.io.FixedLenFeature([], tf.float32),
    "label": tf.io.FixedLenFeature([], tf.int64),
}
ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec))
next(iter(ds))
""",
        expect="S07",
        must=("fixedlenfeature",),
        must_not=("tf.int64", "varlenfeature"),
        fix="tf.io.FixedLenFeature([3], tf.float32)",
    ),
    # InvalidArgumentError: Graph execution error:
    # Key: label.  Data types don't match. Data type: int64 but expected type: float
    Case(
        name="f17_tfrecord_int64_label_parsed_as_float32",
        family="data_loading",
        code="""
import os
import tempfile
d = tempfile.mkdtemp()
path = os.path.join(d, "data.tfrecord")
with tf.io.TFRecordWriter(path) as writer:
    for i in range(4):
        example = tf.train.Example(features=tf.train.Features(feature={
            "pixels": tf.train.Feature(float_list=tf.train.FloatList(value=np.random.rand(4).tolist())),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 3])),
        }))
        writer.write(example.SerializeToString())
spec = {
    "pixels": tf.io.FixedLenFeature([4], tf.float32),
    "label": tf.io.FixedLenFeature([], tf.float32),
}
def parse(record):
    ex = tf.io.parse_single_example(record, spec)
    return ex["pixels"], ex["label"]
ds = tf.data.TFRecordDataset(path).map(parse).batch(2)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("label", "int64"),
        must_not=("tf.cast",),
        fix="tf.io.FixedLenFeature([], tf.int64) for label",
    ),
    # ValueError: Input serialized must be a scalar
    Case(
        name="f17_parse_single_example_mapped_after_batch",
        family="data_loading",
        code="""
import os
import tempfile
d = tempfile.mkdtemp()
path = os.path.join(d, "data.tfrecord")
with tf.io.TFRecordWriter(path) as writer:
    for i in range(6):
        example = tf.train.Example(features=tf.train.Features(feature={
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=np.random.rand(2).tolist())),
        }))
        writer.write(example.SerializeToString())
spec = {"x": tf.io.FixedLenFeature([2], tf.float32)}
ds = tf.data.TFRecordDataset(path).batch(3)
ds = ds.map(lambda records: tf.io.parse_single_example(records, spec))
""",
        expect="S12",
        must=("parse_example",),
        must_not=("expand_dims", "squeeze"),
        fix="tf.io.parse_example after batch, or map parse_single_example before batch",
    ),
    # ValueError: Input 0 with name 'None' of layer 'global_average_pooling1d' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 8)
    Case(
        name="f17_text_line_strings_straight_into_embedding",
        family="data_loading",
        code="""
import os
import tempfile
d = tempfile.mkdtemp()
path = os.path.join(d, "reviews.txt")
with open(path, "w") as f:
    f.write("great movie\\nterrible plot\\nloved it\\nboring\\n")
lines = tf.data.TextLineDataset(path)
labels = tf.data.Dataset.from_tensor_slices([1, 0, 1, 0])
ds = tf.data.Dataset.zip((lines, labels)).batch(2)
model = keras.Sequential([
    keras.layers.Embedding(1000, 8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("textvectorization",),
        must_not=("expand_dims", "return_sequences"),
        fix="a TextVectorization layer (adapted on the lines) before the Embedding",
    ),
    # InvalidArgumentError: Graph execution error:
    # Received a label value of 2 which is outside the valid range of [0, 2).  Label values: 0 1 2 0
    Case(
        name="f17_three_class_folders_two_unit_softmax",
        family="data_loading",
        code="""
import os
import tempfile
d = tempfile.mkdtemp()
for cls in ("neg", "neutral", "pos"):
    os.makedirs(os.path.join(d, cls))
    for i in range(3):
        with open(os.path.join(d, cls, f"{i}.txt"), "w") as f:
            f.write(f"{cls} review number {i}")
train = keras.utils.text_dataset_from_directory(d, batch_size=4, seed=0)
vectorize = keras.layers.TextVectorization(max_tokens=50, output_sequence_length=6)
vectorize.adapt(train.map(lambda text, label: text))
model = keras.Sequential([
    vectorize,
    keras.layers.Embedding(50, 8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(2, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(train, epochs=1, verbose=0)
""",
        expect="M04",
        must=("dense(3",),
        must_not=("to_categorical", "re-index"),
        fix="Dense(3, activation='softmax') (len(train.class_names) units)",
    ),
    # ValueError: as_list() is not defined on an unknown TensorShape.
    Case(
        name="f17_from_generator_with_output_types_only_into_dense",
        family="data_loading",
        code="""
def gen():
    for i in range(10):
        yield np.random.rand(5).astype("float32"), np.float32(i % 2)

ds = tf.data.Dataset.from_generator(gen, output_types=(tf.float32, tf.float32)).batch(4)
model = keras.Sequential([
    keras.layers.Dense(4, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S10",
        must=("output_signature",),
        must_not=("padded_batch",),
        fix="output_signature=(tf.TensorSpec((5,), tf.float32), tf.TensorSpec((), tf.float32))",
    ),
    # ValueError: None values not supported.
    Case(
        name="f17_pydataset_getitem_returns_images_without_labels",
        family="data_loading",
        code="""
class Images(keras.utils.PyDataset):
    def __init__(self, x, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.batch_size = x, batch_size

    def __len__(self):
        return int(np.ceil(len(self.x) / self.batch_size))

    def __getitem__(self, idx):
        return self.x[idx * self.batch_size:(idx + 1) * self.batch_size]

x = np.random.rand(16, 8, 8, 1).astype("float32")
labels = np.random.randint(0, 2, 16)
model = keras.Sequential([
    keras.Input((8, 8, 1)),
    keras.layers.Flatten(),
    keras.layers.Dense(2, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(Images(x, 4), epochs=1, verbose=0)
""",
        expect="S12",
        must=("__getitem__",),
        must_not=("fillna", "dropna"),
        fix="pass labels in and return (x_batch, y_batch) from __getitem__",
    ),
]
