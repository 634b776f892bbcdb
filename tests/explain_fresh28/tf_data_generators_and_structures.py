"""Family: ``tf.data`` from generators, element structures, padding/batching, and PyDataset.

The APIs and their documented contract:

- ``tf.data.Dataset.from_generator(generator, output_signature=...)``: ``generator`` is a
  callable (the function, not ``gen()``); ``output_signature`` is a nested structure of
  ``tf.TensorSpec(shape, dtype)`` that every yielded element must match in STRUCTURE (a tuple
  signature needs tuples: Python lists are not nested structures for ``tf.data``), shape (``None``
  for a varying dimension) and dtype.  The deprecated ``output_types`` without ``output_shapes``
  gives components of UNKNOWN shape and rank, which layers cannot build from (a ``Dense``
  needs a known last axis); ``output_signature`` (or ``output_shapes``) fixes that.
- Element structures: ``fit`` reads a dataset element as ``x``, ``(x,)``, ``(x, y)`` or
  ``(x, y, sample_weight)``.  A model with several inputs needs them nested:
  ``((x1, x2), y)`` or ``({"name1": x1, "name2": x2}, y)``; a flat ``(x1, x2, y)`` is read as
  ``x=x1, y=x2, sample_weight=y``.  ``Dataset.from_tensor_slices`` converts Python LISTS to one
  tensor (so ``[a, b]`` with different widths fails as "non-rectangular"); tuples and dicts
  are nested structures.  ``Dataset.zip(datasets)`` takes a tuple (or ``*args``), not a list.
  ``element_spec`` shows the structure.
- Batching: ``batch`` stacks equal shapes; ``padded_batch(batch_size, padded_shapes=None,
  padding_values=None)`` pads each component: an unknown dimension is padded to the longest
  element OF THAT BATCH (so the length changes from batch to batch), a constant in
  ``padded_shapes`` pads to that length and must be at least the longest element ("Attempted to
  pad to a smaller size than the input element"); ``padding_values`` must have each component's
  dtype.  ``unbatch`` splits batches back into single elements; a pipeline that ends with it
  must be batched again before ``fit``.  ``bucket_by_sequence_length`` needs
  ``len(bucket_batch_sizes) == len(bucket_boundaries) + 1``.
- ``keras.utils.PyDataset``: ``__len__`` returns the number of BATCHES, ``__getitem__(i)``
  returns one complete batch in the same structures ``fit`` accepts (``(x, y)``, or ``x`` only
  for ``predict``); subclasses call ``super().__init__(**kwargs)``.

Evidence a diagnosis needs: the dataset's ``element_spec`` (structure, shapes, dtypes, unknown
rank) and the transformation that produced it (``from_generator`` without a signature,
``unbatch``, ``padded_batch`` without fixed shapes), what the generator or ``__getitem__``
actually returns versus what the signature or ``fit`` expects, the longest element versus
``padded_shapes``, the model's input names/count/shapes versus the element's parts.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "tf_data_generators_and_structures"

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().  (Invalid input shape ... Expected shape (None, 8, 8, 3), but input has incompatible shape (8, 8, 3))
    Case(
        name="f28_unbatch_after_augmentation_then_fit",
        family=FAMILY,
        code="""
images = np.random.rand(16, 8, 8, 3).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((images, np.random.randint(0, 2, 16))).batch(4)
ds = ds.map(lambda x, y: (tf.image.flip_left_right(x), y)).unbatch()
model = keras.Sequential([
    keras.Input(shape=(8, 8, 3)),
    keras.layers.Conv2D(4, 3),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(2),
])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("unbatch",),
        must_not=("expand_dims",),
        fix="batch again after unbatch(): ds.unbatch().batch(4)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (Cannot take the length of shape with unknown rank.)
    Case(
        name="f28_from_generator_output_types_without_shapes",
        family=FAMILY,
        code="""
def rows():
    for _ in range(8):
        yield np.random.rand(4).astype("float32"), np.float32(1.0)
ds = tf.data.Dataset.from_generator(rows, output_types=(tf.float32, tf.float32)).batch(4)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S10",
        must=("output_signature",),
        must_not=("batch the dataset",),
        fix="output_signature=(tf.TensorSpec((4,), tf.float32), tf.TensorSpec((), tf.float32))",
    ),
    # TypeError: Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` instead.
    Case(
        name="f28_dataset_zip_given_a_list",
        family=FAMILY,
        code="""
features = tf.data.Dataset.from_tensor_slices(np.random.rand(8, 4).astype("float32"))
targets = tf.data.Dataset.from_tensor_slices(np.random.rand(8, 1).astype("float32"))
ds = tf.data.Dataset.zip([features, targets]).batch(4)
""",
        expect=None,
        unexplained="the message says a Python list is not supported and to use a tuple instead",
        fix="tf.data.Dataset.zip((features, targets))",
    ),
    # DataLossError: {{function_node __wrapped__IteratorGetNext_...}} Attempted to pad to a smaller size than the input element. [Op:IteratorGetNext] name:
    Case(
        name="f28_padded_shapes_shorter_than_longest_sequence",
        family=FAMILY,
        code="""
def sentences():
    for n in [3, 7, 5, 2]:
        yield np.arange(1, n + 1, dtype="int32"), n % 2
sig = (tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.int32))
ds = tf.data.Dataset.from_generator(sentences, output_signature=sig)
ds = ds.padded_batch(2, padded_shapes=([5], []))
for tokens, label in ds:
    pass
""",
        expect="S13",
        must=("padded_shapes",),
        must_not=("drop_remainder",),
        fix="padded_shapes=([7], []) (or truncate the sequences to 5 in a map first)",
    ),
    # ValueError: Layer "functional" expects 2 named input(s) with keys ['input_layer', 'input_layer_1'], but it received 1 input tensors. ...
    Case(
        name="f28_two_inputs_and_label_in_flat_tuple",
        family=FAMILY,
        code="""
a = np.random.rand(16, 4).astype("float32")
b = np.random.rand(16, 2).astype("float32")
y = np.random.rand(16, 1).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((a, b, y)).batch(4)
in_a, in_b = keras.Input(shape=(4,)), keras.Input(shape=(2,))
out = keras.layers.Dense(1)(keras.layers.Concatenate()([in_a, in_b]))
model = keras.Model([in_a, in_b], out)
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("pass inputs as a dict",),
        fix="nest the inputs: from_tensor_slices(((a, b), y))",
    ),
    # ValueError: None values not supported.
    Case(
        name="f28_pydataset_getitem_returns_only_features",
        family=FAMILY,
        code="""
class Batches(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size
    def __len__(self):
        return len(self.x) // self.batch_size
    def __getitem__(self, i):
        return self.x[i * self.batch_size:(i + 1) * self.batch_size]
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(Batches(np.random.rand(16, 4), np.random.rand(16, 1), 4), epochs=1, verbose=0)
""",
        expect="S12",
        must=("__getitem__",),
        must_not=("dropna", "missing values"),
        fix="__getitem__ returns (x_batch, y_batch)",
    ),
    # ValueError: Can't convert non-rectangular Python sequence to Tensor.
    Case(
        name="f28_from_tensor_slices_list_of_two_inputs",
        family=FAMILY,
        code="""
a = np.random.rand(16, 4).astype("float32")
b = np.random.rand(16, 2).astype("float32")
y = np.random.rand(16, 1).astype("float32")
ds = tf.data.Dataset.from_tensor_slices(([a, b], y)).batch(4)
in_a, in_b = keras.Input(shape=(4,)), keras.Input(shape=(2,))
out = keras.layers.Dense(1)(keras.layers.Concatenate()([in_a, in_b]))
model = keras.Model([in_a, in_b], out)
""",
        expect="S12",
        must=("tuple",),
        must_not=("pad",),
        fix="from_tensor_slices(((a, b), y)): a tuple, not a list",
    ),
    # InvalidArgumentError: Graph execution error:  (Matrix size-incompatible: In[0]: [2,5], In[1]: [6,1])
    Case(
        name="f28_padded_batch_to_batch_longest_then_dense",
        family=FAMILY,
        code="""
def readings():
    for n in [3, 5, 4, 6]:
        yield np.random.rand(n).astype("float32"), np.float32(1.0)
sig = (tf.TensorSpec((None,), tf.float32), tf.TensorSpec((), tf.float32))
ds = tf.data.Dataset.from_generator(readings, output_signature=sig).padded_batch(2)
model = keras.Sequential([keras.Input(shape=(6,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("padded_shapes",),
        must_not=("flatten",),
        fix="padded_batch(2, padded_shapes=([6], []))",
    ),
]
