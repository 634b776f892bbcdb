"""Family ``data_loading``: reading training data from files and Python sources into Keras.

APIs: ``tf.data.experimental.make_csv_dataset`` yields ``(features, label)`` where
``features`` is an ``OrderedDict`` of one tensor per column (a model with one ``Input``
needs the columns packed, e.g. ``tf.stack``, or one named ``Input`` per column);
``tf.io.parse_single_example``/``parse_example`` with a feature spec: a
``FixedLenFeature(shape, dtype)`` must give the exact number of values stored and the
dtype the ``tf.train.Feature`` was written with (``int64_list`` -> ``tf.int64``,
``float_list`` -> ``tf.float32``, ``bytes_list`` -> ``tf.string``), ``VarLenFeature``
gives a ``SparseTensor``.  ``keras.utils.text_dataset_from_directory`` yields batches of
raw strings (``tf.string``) and labels from the sub-folder names, so a ``TextVectorization``
must turn the text into ids before an ``Embedding``.  ``tf.data.Dataset.from_generator``
needs ``output_signature`` describing every component the generator yields (the
structure, dtypes and shapes; without shapes they are unknown).  ``keras.utils.PyDataset``
subclasses return one batch per ``__getitem__`` as ``(x, y)`` (or ``(x, y,
sample_weight)``) and call ``super().__init__(**kwargs)``.  ``np.load`` of an ``.npz``
gives a lazy archive whose keys are the names passed to ``np.savez`` (``arr_0``... if
positional) and refuses object arrays unless ``allow_pickle=True``.

Evidence a diagnosis needs: the structure, dtypes and shapes the loader yields
(``element_spec``, the batch a ``PyDataset`` returns, a dict of columns against a model
with one input), the feature spec against what the record holds (dtype, number of
values), the declared ``output_signature`` against what the generator yielded, and the
layer that received raw strings.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().
    #   The structure of `inputs` doesn't match the expected structure.
    Case(
        name="f16_make_csv_dataset_dict_into_single_input_model",
        family="data_loading",
        code="""
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "iris.csv")
with open(path, "w") as f:
    f.write("sepal_length,sepal_width,petal_length,petal_width,species\\n")
    for i in range(24):
        f.write(f"{5 + i % 3 * 0.5},{3 + i % 2 * 0.2},{1.5 + i % 3},{0.2 + i % 3 * 0.8},{i % 3}\\n")
ds = tf.data.experimental.make_csv_dataset(path, batch_size=8, label_name="species", num_epochs=1)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("dict",),
        must_not=("reshape", "expand_dims"),
        fix="ds.map(lambda f, y: (tf.stack(list(f.values()), axis=-1), y)), or one Input per column",
    ),
    # InvalidArgumentError: {{function_node ...}} Error in user-defined function passed to MapDataset:N ...
    #   ... Key: age.  Data types don't match. Data type: int64 but expected type: float
    Case(
        name="f16_tfrecord_int64_feature_parsed_as_float32",
        family="data_loading",
        code="""
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "users.tfrecord")
with tf.io.TFRecordWriter(path) as writer:
    for age, clicks in [(31, 4), (45, 0), (23, 9)]:
        example = tf.train.Example(features=tf.train.Features(feature={
            "age": tf.train.Feature(int64_list=tf.train.Int64List(value=[age])),
            "clicks": tf.train.Feature(int64_list=tf.train.Int64List(value=[clicks])),
        }))
        writer.write(example.SerializeToString())
spec = {
    "age": tf.io.FixedLenFeature([], tf.float32),
    "clicks": tf.io.FixedLenFeature([], tf.int64),
}
ds = tf.data.TFRecordDataset(path).map(lambda rec: tf.io.parse_single_example(rec, spec))
for row in ds:
    print(row["age"])
""",
        expect="S11",
        must=("age", "int64"),
        must_not=("astype",),
        fix='FixedLenFeature([], tf.int64) for "age", then tf.cast to float32',
    ),
    # InvalidArgumentError: {{function_node ...}} Key: xyz.  Can't parse serialized Example: Some float_list slice was not parsed.
    Case(
        name="f16_tfrecord_fixed_len_scalar_spec_for_three_value_feature",
        family="data_loading",
        code="""
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "points.tfrecord")
with tf.io.TFRecordWriter(path) as writer:
    for i in range(4):
        example = tf.train.Example(features=tf.train.Features(feature={
            "xyz": tf.train.Feature(float_list=tf.train.FloatList(value=[i, i + 0.5, i + 1.0])),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2])),
        }))
        writer.write(example.SerializeToString())
spec = {"xyz": tf.io.FixedLenFeature([], tf.float32), "label": tf.io.FixedLenFeature([], tf.int64)}
ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec))
batch = next(iter(ds.batch(2)))
""",
        expect="S07",
        must=("xyz",),
        must_not=("tf.cast", "float64"),
        fix='FixedLenFeature([3], tf.float32) for "xyz"',
    ),
    # ValueError: as_list() is not defined on an unknown TensorShape.
    Case(
        name="f16_from_generator_output_types_without_shapes_into_fit",
        family="data_loading",
        code="""
def sensor_batches():
    for _ in range(6):
        yield np.random.rand(8, 5).astype("float32"), np.random.rand(8, 1).astype("float32")
ds = tf.data.Dataset.from_generator(sensor_batches, output_types=(tf.float32, tf.float32))
model = keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S10",
        must=("output_signature",),
        must_not=("astype", "float64"),
        fix="output_signature=(tf.TensorSpec((None, 5), tf.float32), tf.TensorSpec((None, 1), tf.float32))",
    ),
    # InvalidArgumentError: {{function_node ...}} TypeError: `generator` yielded an element that could not be converted to the expected type.
    #   The expected type was float32, but the yielded element was (array([0., 0., 0., 0.], dtype=float32), np.float32(0.0)).
    Case(
        name="f16_from_generator_signature_lists_only_the_features",
        family="data_loading",
        code="""
def examples():
    for i in range(10):
        yield np.full((4,), i, dtype="float32"), np.float32(i % 2)
ds = tf.data.Dataset.from_generator(
    examples, output_signature=tf.TensorSpec(shape=(4,), dtype=tf.float32))
for x in ds.batch(5):
    print(x.shape)
""",
        expect="S12",
        must=("output_signature",),
        must_not=("padded_batch", "astype"),
        fix="output_signature=(tf.TensorSpec((4,), tf.float32), tf.TensorSpec((), tf.float32))",
    ),
    # ValueError: None values not supported.
    Case(
        name="f16_pydataset_getitem_returns_only_the_images",
        family="data_loading",
        code="""
class ImageBatches(keras.utils.PyDataset):
    def __init__(self, images, labels, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.images, self.labels, self.batch_size = images, labels, batch_size
    def __len__(self):
        return int(np.ceil(len(self.images) / self.batch_size))
    def __getitem__(self, idx):
        sl = slice(idx * self.batch_size, (idx + 1) * self.batch_size)
        return self.images[sl] / 255.0
images = np.random.randint(0, 256, size=(20, 8, 8, 1)).astype("float32")
labels = np.random.randint(0, 2, size=(20,))
model = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Flatten(), keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(ImageBatches(images, labels, batch_size=8), epochs=1, verbose=0)
""",
        expect="S12",
        must=("__getitem__",),
        must_not=("reshape", "to_categorical"),
        fix="return self.images[sl] / 255.0, self.labels[sl] from __getitem__",
    ),
    # ValueError: Input 0 with name 'None' of layer 'global_average_pooling1d' is incompatible with the layer: expected ndim=3, ...
    Case(
        name="f16_text_directory_strings_straight_into_embedding",
        family="data_loading",
        code="""
import os, tempfile
root = tempfile.mkdtemp()
for label, texts in {"neg": ["dull plot", "waste of time", "too long"], "pos": ["loved it", "great cast", "fun ride"]}.items():
    os.makedirs(os.path.join(root, label))
    for i, t in enumerate(texts):
        with open(os.path.join(root, label, f"{i}.txt"), "w") as f:
            f.write(t)
train_ds = keras.utils.text_dataset_from_directory(root, batch_size=2, verbose=False)
model = keras.Sequential([
    keras.layers.Embedding(1000, 8, name="word_embedding"),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("textvectorization",),
        must_not=("expand_dims", "return_sequences"),
        fix="adapt a TextVectorization on the texts and map it over the dataset (or put it first in the model)",
    ),
    # ValueError: Object arrays cannot be loaded when allow_pickle=False
    Case(
        name="f16_npz_of_ragged_sentences_loaded_without_allow_pickle",
        family="data_loading",
        code="""
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "corpus.npz")
sentences = np.empty(3, dtype=object)
sentences[:] = [[4, 12, 7], [9, 2], [5, 5, 31, 8]]
np.savez(path, tokens=sentences, labels=np.array([1, 0, 1]))
data = np.load(path)
tokens = data["tokens"]
""",
        expect=None,
        unexplained="NumPy's message says object arrays need allow_pickle=True",
        fix="np.load(path, allow_pickle=True) (only for trusted files), or save padded int arrays",
    ),
]
