"""Family ``tfdata_contracts``: ``tf.data`` pipelines built against the contract of their transformations.

APIs: ``tf.data.Dataset.from_tensor_slices`` (slices every component along its first
axis, so all components, the values of a dict included, need the same length, and each
component must be a rectangular array), ``map`` (the function receives the components of
a tuple element as separate positional arguments, as many as the element has; a dict
element arrives as one argument; the function is traced once in graph mode, so its
tensors are symbolic and have no ``.numpy()``), ``batch`` (adds a leading batch axis:
a ``map`` after it sees whole batches), ``padded_batch`` (``padded_shapes`` gives the
shape each component is padded *to*; ``None`` pads to the longest element of the batch,
and a fixed size smaller than an element fails), ``concatenate`` (both datasets must have
compatible element structures and the same dtypes), ``window`` (yields a dataset of
*datasets*; ``flat_map(lambda w: w.batch(size))`` turns the windows into tensors) and
``shuffle`` (``buffer_size`` is a required argument).

Evidence a diagnosis needs: the element structure and dtypes of the dataset at the step
that failed (``element_spec``), the transformation that failed and what its function or
argument expected (the parameter count of the mapped function, the padded size against
the longest element, the component of a dict whose length differs, the dtype of each
side of a concatenation), and where that structure came from (the arrays passed to
``from_tensor_slices``, a ``batch`` before the ``map``, a ``window`` without
``flat_map``).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: scale() missing 1 required positional argument: 'weight'
    Case(
        name="map_function_takes_a_weight_the_slices_never_had",
        family="tfdata_contracts",
        code="""
x = np.random.rand(6, 4).astype("float32")
y = np.array([0, 1, 0, 1, 1, 0])
w = np.array([1.0, 3.0, 1.0, 3.0, 3.0, 1.0], dtype="float32")
ds = tf.data.Dataset.from_tensor_slices((x, y))
def scale(features, label, weight):
    return features * 2.0, label, weight
ds = ds.map(scale).batch(2)
""",
        expect="S12",
        must=("weight",),
        must_not=("padded_batch", "reshape"),
        fix="from_tensor_slices((x, y, w))",
    ),
    # ValueError: Dimensions 5 and 4 are not compatible
    Case(
        name="from_tensor_slices_dict_with_a_shorter_income_column",
        family="tfdata_contracts",
        code="""
columns = {
    "age": np.array([23, 35, 41, 52, 29], dtype="float32"),
    "income": np.array([31.0, 48.5, 52.0, 61.2], dtype="float32"),
}
labels = np.array([0, 1, 1, 0, 1])
ds = tf.data.Dataset.from_tensor_slices((columns, labels))
""",
        expect="S12",
        must=("income",),
        must_not=("padded", "ragged"),
        fix="give every column (and the labels) the same number of rows",
    ),
    # InvalidArgumentError: ... Error in user-defined function passed to MapDataset:...
    # Input to reshape is a tensor with 3136 values, but the requested shape has 784
    Case(
        name="reshape_to_one_image_mapped_after_batch",
        family="tfdata_contracts",
        code="""
pixels = np.random.rand(8, 784).astype("float32")
labels = np.arange(8) % 10
ds = tf.data.Dataset.from_tensor_slices((pixels, labels)).batch(4)
ds = ds.map(lambda x, y: (tf.reshape(x, (28, 28, 1)), y))
images, _ = next(iter(ds))
""",
        expect="S07",
        must=("batch",),
        must_not=("padded_batch", "expand_dims"),
        fix="map before batch, or reshape to (-1, 28, 28, 1)",
    ),
    # DataLossError: ... Attempted to pad to a smaller size than the input element.
    Case(
        name="padded_batch_to_five_tokens_with_a_seven_token_sentence",
        family="tfdata_contracts",
        code="""
token_lists = [[4, 8, 15], [16, 23, 42, 7, 9, 11, 3], [5, 6]]
ds = tf.data.Dataset.from_generator(
    lambda: iter(token_lists),
    output_signature=tf.TensorSpec(shape=(None,), dtype=tf.int32),
)
batches = ds.padded_batch(3, padded_shapes=[5])
for b in batches:
    print(b.shape)
""",
        expect="S13",
        must=("padded_shapes",),
        must_not=("drop_remainder",),
        fix="padded_shapes=[None], or truncate to 5 tokens in a map first",
    ),
    # TypeError: Incompatible dataset elements:
    #   (TensorSpec(shape=(3,), dtype=tf.float64, ...), ...) vs. (TensorSpec(shape=(3,), dtype=tf.float32, ...), ...)
    Case(
        name="concatenate_float64_and_float32_feature_datasets",
        family="tfdata_contracts",
        code="""
x_a = np.random.rand(4, 3)
x_b = np.random.rand(4, 3).astype("float32")
y_a = np.array([0, 1, 0, 1])
y_b = np.array([1, 1, 0, 0])
ds_a = tf.data.Dataset.from_tensor_slices((x_a, y_a))
ds_b = tf.data.Dataset.from_tensor_slices((x_b, y_b))
ds = ds_a.concatenate(ds_b)
""",
        expect="S11",
        must=("float64",),
        must_not=("without labels",),
        fix='x_a.astype("float32")',
    ),
    # TypeError: '_VariantDataset' object is not subscriptable
    Case(
        name="window_subdatasets_indexed_like_tensors_in_map",
        family="tfdata_contracts",
        code="""
series = np.sin(np.arange(30, dtype="float32") / 3)
ds = tf.data.Dataset.from_tensor_slices(series)
windows = ds.window(6, shift=1, drop_remainder=True)
pairs = windows.map(lambda w: (w[:-1], w[-1]))
""",
        expect="S12",
        must=("flat_map",),
        must_not=("numpy",),
        fix="windows.flat_map(lambda w: w.batch(6)) before the map",
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    Case(
        name="numpy_decode_of_text_inside_dataset_map",
        family="tfdata_contracts",
        code="""
reviews = np.array([b"great film", b"dull and long", b"loved it"])
labels = np.array([1, 0, 1])
def clean(text, label):
    text = text.numpy().decode("utf-8").lower()
    return text, label
ds = tf.data.Dataset.from_tensor_slices((reviews, labels)).map(clean)
""",
        expect="T02",
        must=("map",),
        must_not=("run_eagerly", "tf.cond"),
        fix="tf.strings.lower(text) (or tf.py_function)",
    ),
    # TypeError: DatasetV2.shuffle() missing 1 required positional argument: 'buffer_size'
    Case(
        name="shuffle_called_without_buffer_size",
        family="tfdata_contracts",
        code="""
ds = tf.data.Dataset.from_tensor_slices((np.random.rand(6, 2), np.arange(6)))
ds = ds.shuffle().batch(2)
""",
        expect=None,
        unexplained="the message names the missing buffer_size argument of shuffle()",
        fix="ds.shuffle(buffer_size=6)",
    ),
]
