"""tf.data generators and structures: ``Dataset.from_generator``, ``padded_batch``, ``zip``,
``unbatch``, nested element structures and ``keras.utils.PyDataset`` meeting ``fit``.

The family, written down from the ``tf.data`` and Keras 3 documentation before the cases:

* ``Dataset.from_generator(generator, output_signature=...)``: ``output_signature`` is a
  nested structure (tuple / dict) of ``tf.TensorSpec(shape, dtype)`` mirroring what ONE
  call of the generator yields; a ``None`` in a shape is a dimension of unknown size, and
  ``shape=None`` is a tensor of unknown RANK.  Each yielded element is checked against the
  signature ("`generator` yielded an element of shape (4,) where an element of shape (None,
  4) was expected").  The static shapes of the signature are all the downstream code (and a
  Keras model building its weights) can know: an unknown rank or last dimension leaves a
  ``Dense`` layer unable to build ("as_list() is not defined on an unknown TensorShape",
  "The last dimension of the inputs to a Dense layer should be defined").  The deprecated
  ``output_types`` without ``output_shapes`` gives unknown shapes too.
* ``Dataset.padded_batch(batch_size, padded_shapes=None, padding_values=None,
  drop_remainder=False)``: ``padded_shapes`` (and ``padding_values``) must have the same
  nested structure as the element: for ``(sequence, label)`` elements ``([None], [])`` or
  ``([maxlen], [])``; a fixed length shorter than the longest element fails at iteration
  ("Attempted to pad to a smaller size than the input element"): truncate in a ``map`` or
  use ``None``.  ``bucket_by_sequence_length`` takes ``len(bucket_boundaries) + 1`` batch
  sizes.
* ``Dataset.zip(*datasets)`` / ``Dataset.zip((a, b))`` takes datasets in a tuple (or dict),
  never a list.  ``Dataset.from_tensor_slices((x, y))`` slices a TUPLE component-wise; a
  LIST ``[x, y]`` is one tensor to be stacked, which fails (or silently stacks) when ``x``
  and ``y`` differ in shape.  ``unbatch()`` splits each element along its first axis;
  ``fit`` needs batched elements, so an unbatched dataset must be batched again.
* ``fit`` reads each element as ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``: a
  model with two inputs needs ``((a, b), y)`` or ``({"in_a": a, "in_b": b}, y)``; a flat
  triple ``(a, b, y)`` is read as ``x=a, y=b, sample_weight=y``.  Dict keys must match the
  ``name`` of the ``keras.Input`` layers.
* ``keras.utils.PyDataset``: ``__len__`` returns the number of BATCHES, ``__getitem__(idx)``
  returns batch ``idx`` as ``(x_batch, y_batch)`` (arrays with a leading batch axis);
  ``__init__`` calls ``super().__init__(**kwargs)``.

Evidence a diagnosis needs: the dataset's ``element_spec`` (structure, shapes, dtypes) and
the step of the pipeline that made it (``from_generator`` signature, ``unbatch``, a list
passed where a tuple belongs), against what ``fit`` and the model's inputs expect; for
padding, the longest element against the padded length, or the structure of
``padded_shapes`` against the element's.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "tf_data_generators_and_structures"

CASES = [
    # ValueError: as_list() is not defined on an unknown TensorShape.
    Case(
        name="f29_from_generator_signature_unknown_rank",
        family=FAMILY,
        code="""
def sensor_rows():
    for i in range(16):
        yield np.random.rand(4).astype("float32"), np.int32(i % 2)

ds = tf.data.Dataset.from_generator(
    sensor_rows,
    output_signature=(tf.TensorSpec(shape=None, dtype=tf.float32), tf.TensorSpec(shape=(), dtype=tf.int32)),
).batch(8)
model = keras.Sequential([keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S10",
        must=("output_signature",),
        must_not=("batch the dataset",),
        fix="tf.TensorSpec(shape=(4,), dtype=tf.float32) in output_signature",
    ),
    # TypeError: If shallow structure is a sequence, input must also be a sequence. Input has
    # type: 'list'.
    Case(
        name="f29_padded_shapes_not_matching_element_tuple",
        family=FAMILY,
        code="""
sequences = [[3, 1, 4], [1, 5], [9, 2, 6, 5], [2]]
labels = [0, 1, 0, 1]
ds = tf.data.Dataset.from_generator(
    lambda: zip(sequences, labels),
    output_signature=(tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.int32)),
)
ds = ds.padded_batch(2, padded_shapes=[None])
""",
        expect="S12",
        must=("padded_shapes",),
        must_not=("resize",),
        fix="padded_shapes=([None], [])",
    ),
    # DataLossError: {{function_node __wrapped__IteratorGetNext_output_types_2_device_/
    # job:localhost/replica:0/task:0/device:CPU:0}} Attempted to pad to a smaller size than
    # the input element. [Op:IteratorGetNext] name:
    Case(
        name="f29_padded_shapes_shorter_than_longest",
        family=FAMILY,
        code="""
sequences = [[3, 1, 4], [1, 5], [9, 2, 6, 5, 3, 5, 8], [2]]
labels = [0, 1, 0, 1]
ds = tf.data.Dataset.from_generator(
    lambda: zip(sequences, labels),
    output_signature=(tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.int32)),
)
ds = ds.padded_batch(2, padded_shapes=([5], []))
for x, y in ds:
    pass
""",
        expect="S13",
        must=("padded_shapes",),
        must_not=("drop_remainder",),
        fix="ds.map(lambda s, y: (s[:5], y)) before padded_batch, or padded_shapes=([None], [])",
    ),
    # ValueError: Layer "functional" expects 2 named input(s) with keys ['input_layer',
    # 'input_layer_1'], but it received 1 input tensors. Pass inputs as a dict, e.g.
    # `layer({'input_layer': ..., 'input_layer_1': ...})`.
    Case(
        name="f29_two_inputs_flat_triple_read_as_weights",
        family=FAMILY,
        code="""
prices = np.random.rand(16, 4).astype("float32")
volumes = np.random.rand(16, 3).astype("float32")
target = np.random.rand(16, 1).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((prices, volumes, target)).batch(8)
in_p = keras.Input(shape=(4,))
in_v = keras.Input(shape=(3,))
out = keras.layers.Dense(1)(keras.layers.Concatenate()([in_p, in_v]))
model = keras.Model([in_p, in_v], out)
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("reshape",),
        fix="from_tensor_slices(((prices, volumes), target))",
    ),
    # ValueError: Can't convert non-rectangular Python sequence to Tensor.
    Case(
        name="f29_from_tensor_slices_list_of_x_and_y",
        family=FAMILY,
        code="""
features = np.random.rand(16, 4).astype("float32")
classes = np.random.randint(0, 2, size=(16,))
ds = tf.data.Dataset.from_tensor_slices([features, classes]).batch(8)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("tuple",),
        must_not=("pad",),
        fix="from_tensor_slices((features, classes))",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape for input Tensor("data:0", shape=(None,), dtype=float32) ...
    # Expected shape (None, 4), but input has incompatible shape (None,))
    Case(
        name="f29_pydataset_getitem_returns_one_sample",
        family=FAMILY,
        code="""
class Rows(keras.utils.PyDataset):
    def __init__(self, x, y, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y = x, y
    def __len__(self):
        return len(self.x)
    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]

x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(Rows(x, y), epochs=1, verbose=0)
""",
        expect="S12",
        must=("batch",),
        must_not=("reshape",),
        fix="__getitem__ returns x[idx*bs:(idx+1)*bs], y[...]; __len__ = ceil(len(x) / bs)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape for input Tensor("data:0", shape=(6,), dtype=float32) ...
    # Expected shape (None, 6), but input has incompatible shape (6,))
    Case(
        name="f29_unbatch_then_fit_without_batch",
        family=FAMILY,
        code="""
windows = np.random.rand(4, 8, 6).astype("float32")     # 4 windows of 8 time steps
targets = np.random.rand(4, 8, 1).astype("float32")
steps = tf.data.Dataset.from_tensor_slices((windows, targets)).unbatch()   # one row per step
model = keras.Sequential([keras.Input(shape=(6,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(steps, epochs=1, verbose=0)
""",
        expect="S01",
        must=("batch",),
        must_not=("reshape", "expand_dims"),
        fix="steps.batch(32) before fit",
    ),
    # TypeError: Invalid input to `zip`. Inputs are expected to be (nested) structures of
    # `tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple`
    # instead.
    Case(
        name="f29_dataset_zip_given_a_list",
        family=FAMILY,
        code="""
x_ds = tf.data.Dataset.from_tensor_slices(np.random.rand(16, 4).astype("float32"))
y_ds = tf.data.Dataset.from_tensor_slices(np.random.rand(16, 1).astype("float32"))
ds = tf.data.Dataset.zip([x_ds, y_ds]).batch(8)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect=None,
        must_not=("pad",),
        unexplained="the message says a Python list is not supported and to use a tuple",
        fix="tf.data.Dataset.zip((x_ds, y_ds))",
    ),
]
