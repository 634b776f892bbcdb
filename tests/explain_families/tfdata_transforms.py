"""Family: tf.data transformations beyond map/batch, and the element structure they hand on.

APIs: ``Dataset.window`` (a dataset of *datasets*: each window must be turned back into
a tensor with ``flat_map(lambda w: w.batch(n))`` before a ``map`` can slice it),
``Dataset.zip`` (the nesting of the tuple is the element's structure, and ``fit`` reads a
2-tuple as ``(x, y)`` and a 3-tuple as ``(x, y, sample_weight)``: several inputs must be
nested, ``zip(((a, b), y))``), ``filter`` (the predicate gets one element and must return
a scalar ``tf.bool``; after ``batch`` it gets a whole batch), ``from_tensors`` (the whole
structure is ONE element) against ``from_tensor_slices`` (slices along the first axis,
so every component needs the same length and a rectangular shape),
``TFRecordDataset`` + ``tf.io.parse_single_example`` (a ``FixedLenFeature``'s shape is
the number of values stored per example; ``[]`` means exactly one), ``tf.io.serialize_tensor``
/ ``parse_tensor`` (``out_type`` must be the dtype that was serialized),
``Dataset.sample_from_datasets`` / ``choose_from_datasets`` (all datasets need
compatible element specs; the choice dataset yields scalar ``tf.int64``), and
``interleave`` (``map_func`` is traced once with a symbolic element and must return a
``Dataset``).  Contract: every transformation's function runs on symbolic tensors in a
graph, gets the element's structure as its arguments, and must return the structure,
dtype and shape the transformation documents; ``fit`` takes the final element_spec as
``(x, y[, sample_weight])`` against the model's inputs.  Evidence a diagnosis can read:
the element_spec at each stage of the pipeline (and which transformation produced it),
the transformation's arguments (window size, ``drop_remainder``, feature spec,
``out_type``, the choice dataset) and its function's source and parameters, the
NumPy arrays the datasets were built from (their dtypes, lengths, the Python lists'
ragged lengths), a record read back from the TFRecord file, and the model's named
inputs.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "tfdata_transforms"

CASES = [
    # TypeError: '_VariantDataset' object is not subscriptable
    # (each window is a nested Dataset; it was never flat_map'ed into a tensor)
    Case(
        "td_window_sliced_without_flat_map",
        FAMILY,
        """
series = np.sin(np.arange(60) / 5).astype("float32")
ds = tf.data.Dataset.from_tensor_slices(series)
ds = ds.window(11, shift=1, drop_remainder=True)
ds = ds.map(lambda w: (w[:-1], w[-1]))
ds = ds.batch(8)
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S12",
        must=("flat_map",),
        must_not=("py_function",),
        fix="flat_map(lambda w: w.batch(11)) before the map",
    ),
    # ValueError: Layer "functional" expects 2 named input(s) with keys ['image', 'meta'],
    # but it received 1 input tensors. Pass inputs as a dict, e.g. `layer({'image': ..., 'meta': ...})`.
    # (flat 3-tuple from zip: fit reads it as (x, y, sample_weight))
    Case(
        "td_zip_two_inputs_and_label_flat",
        FAMILY,
        """
img_ds = tf.data.Dataset.from_tensor_slices(np.random.rand(32, 8, 8, 1).astype("float32"))
meta_ds = tf.data.Dataset.from_tensor_slices(np.random.rand(32, 3).astype("float32"))
label_ds = tf.data.Dataset.from_tensor_slices(np.random.randint(0, 2, 32))
train_ds = tf.data.Dataset.zip((img_ds, meta_ds, label_ds)).batch(8)
img_in = keras.Input((8, 8, 1), name="image")
meta_in = keras.Input((3,), name="meta")
h = keras.layers.Flatten()(img_in)
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Concatenate()([h, meta_in]))
model = keras.Model([img_in, meta_in], out)
model.compile("adam", "binary_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("meta",),
        must_not=("batch axis",),
        fix="nest the inputs: zip(((img_ds, meta_ds), label_ds))",
    ),
    # ValueError: Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor,
    # but its return type is TensorSpec(shape=(None,), dtype=tf.bool, name=None).
    # (filter placed after batch: the predicate sees a batch of labels)
    Case(
        "td_filter_after_batch",
        FAMILY,
        """
x = np.random.rand(40, 4).astype("float32")
y = np.random.randint(0, 3, 40)
ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(40).batch(8)
ds = ds.filter(lambda x, y: y != 2)  # drop the 'unknown' class
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        "S07",
        must=("filter", "batch"),
        must_not=("reduce_all", "reduce_any"),
        fix="filter before batch()",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Invalid input shape for input Tensor("data:0", shape=(None, 40, 4), dtype=float32) ...
    # Expected shape (None, 4), but input has incompatible shape (None, 40, 4)
    # (from_tensors makes the whole array ONE element; batch then adds an axis on top)
    Case(
        "td_from_tensors_whole_array_one_element",
        FAMILY,
        """
x_train = np.random.rand(40, 4).astype("float32")
y_train = np.random.randint(0, 3, 40)
train_ds = tf.data.Dataset.from_tensors((x_train, y_train)).shuffle(40).batch(8)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("from_tensor_slices",),
        must_not=("flatten", "expand_dims"),
        fix="from_tensor_slices((x_train, y_train))",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_...}} Key: pixels.
    # Can't parse serialized Example: Some float_list slice was not parsed.
    # (64 floats stored per record, FixedLenFeature declared with shape [])
    Case(
        "td_fixedlen_feature_scalar_shape_for_vector",
        FAMILY,
        """
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "digits.tfrecord")
with tf.io.TFRecordWriter(path) as writer:
    for _ in range(16):
        ex = tf.train.Example(features=tf.train.Features(feature={
            "pixels": tf.train.Feature(float_list=tf.train.FloatList(value=np.random.rand(64))),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[np.random.randint(10)])),
        }))
        writer.write(ex.SerializeToString())
feature_spec = {"pixels": tf.io.FixedLenFeature([], tf.float32),
                "label": tf.io.FixedLenFeature([], tf.int64)}
def parse(record):
    ex = tf.io.parse_single_example(record, feature_spec)
    return ex["pixels"], ex["label"]
ds = tf.data.TFRecordDataset(path).map(parse).batch(4)
for xb, yb in ds.take(1):
    print(xb.shape, yb.shape)
model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(10, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        "S07",
        must=("pixels", "64"),
        must_not=("float64",),
        fix="FixedLenFeature([64], tf.float32)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_...}} Type mismatch
    # between parsed tensor (double) and dtype (float)
    # (np.random.rand gives float64; the tensors were serialized as float64)
    Case(
        "td_parse_tensor_out_type_float32_for_float64",
        FAMILY,
        """
feats = np.random.rand(20, 5)
records = [tf.io.serialize_tensor(f).numpy() for f in feats]
labels = np.random.rand(20).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((records, labels))
ds = ds.map(lambda s, y: (tf.io.parse_tensor(s, out_type=tf.float32), y)).batch(4)
for xb, yb in ds.take(1):
    print(xb.shape)
""",
        "S11",
        must=("out_type", "float64"),
        must_not=("reshape",),
        fix="feats.astype('float32') before serialize_tensor",
    ),
    # TypeError: Invalid `datasets`. `datasets` must have compatible element specs.
    # (Dataset 0 labels float64 from np.ones, Dataset 1 labels int64)
    Case(
        "td_sample_from_datasets_label_dtypes_differ",
        FAMILY,
        """
x_min = np.random.rand(5, 4).astype("float32")
x_maj = np.random.rand(45, 4).astype("float32")
minority = tf.data.Dataset.from_tensor_slices((x_min, np.ones(5))).repeat()
majority = tf.data.Dataset.from_tensor_slices((x_maj, np.zeros(45, dtype="int64")))
balanced = tf.data.Dataset.sample_from_datasets([minority, majority], weights=[0.5, 0.5])
balanced = balanced.batch(8)
""",
        "S11",
        must=("minority", "float64"),
        must_not=("reshape",),
        fix="same label dtype: np.ones(5, 'int64')",
    ),
    # TypeError: Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar
    # `tf.int64` tensors but are TensorSpec(shape=(), dtype=tf.int32, name=None).
    Case(
        "td_choose_from_datasets_int32_choices",
        FAMILY,
        """
clean = tf.data.Dataset.from_tensor_slices(np.random.rand(10, 4).astype("float32"))
noisy = tf.data.Dataset.from_tensor_slices(np.random.rand(10, 4).astype("float32"))
order = tf.data.Dataset.from_tensor_slices([0, 1, 0, 1, 0, 1])
mixed = tf.data.Dataset.choose_from_datasets([clean, noisy], order)
""",
        None,
        unexplained="TensorFlow's own message says the choice dataset's elements must be "
        "scalar tf.int64 and shows the int32 spec it got: the fix is stated.",
        fix="build the choices as int64",
    ),
    # TypeError: list indices must be integers or slices, not SymbolicTensor
    # (interleave's map_func is traced once; i is symbolic, so a Python list cannot be indexed)
    Case(
        "td_interleave_indexes_python_list",
        FAMILY,
        """
shards = [np.random.rand(10, 4).astype("float32") for _ in range(3)]
ds = tf.data.Dataset.range(len(shards)).interleave(
    lambda i: tf.data.Dataset.from_tensor_slices(shards[i]), cycle_length=3)
ds = ds.batch(8)
""",
        "T02",
        must=("shards",),
        must_not=("run_functions_eagerly",),
        fix="from_tensor_slices(np.stack(shards)) or tf.gather",
    ),
    # ValueError: Can't convert non-rectangular Python sequence to Tensor.
    # (token lists of different lengths given to from_tensor_slices)
    Case(
        "td_from_tensor_slices_ragged_token_lists",
        FAMILY,
        """
sentences = [[4, 12, 7], [9, 2], [15, 3, 8, 1], [6]] * 5
labels = np.random.randint(0, 2, 20)
ds = tf.data.Dataset.from_tensor_slices((sentences, labels)).batch(4)
model = keras.Sequential([keras.layers.Embedding(20, 8), keras.layers.GlobalAveragePooling1D(),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        "S13",
        must=("sentences",),
        must_not=("number of samples", "drop_remainder"),
        fix="tf.ragged.constant(sentences) or pad_sequences",
    ),
]
