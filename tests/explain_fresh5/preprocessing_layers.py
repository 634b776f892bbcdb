"""Preprocessing layers: the ``adapt`` and call contracts of Keras' preprocessing layers.

API: ``keras.layers.Normalization``, ``TextVectorization``, ``StringLookup``,
``Discretization``, ``Resizing`` (and what they feed: ``Embedding``, ``Conv2D``, ``Dense``,
``tf.data`` ``batch``).

Documented contract (Keras 3 docstrings):

* ``Normalization(axis=-1)``: "The axis or axes that should have a separate mean and variance
  for each index in the shape ... When ``-1``, the last axis of the input is assumed to be a
  feature dimension"; "in the specific case of batched scalar inputs where the only axis is
  the batch axis, the default will normalize each index in the batch separately. In this
  case, consider passing ``axis=None``". ``adapt()`` stores a mean and variance shaped by the
  kept axes of the data it saw; later inputs must match those axes (or broadcast with them);
* ``TextVectorization.adapt(data)``: "a batched ``tf.data.Dataset``, ... a list of strings, ...
  a NumPy array" of STRINGS (a dataset of ``(text, label)`` pairs is not one);
  ``output_sequence_length``: "Only valid in INT mode. If set, the output will have its time
  dimension padded or truncated to exactly ``output_sequence_length`` values" (without it,
  each text keeps its own length, and per-example outputs cannot be batched);
* ``StringLookup`` "maps strings to (possibly encoded) indices"; integer ids need
  ``IntegerLookup``;
* ``Discretization``: ``bin_boundaries=[0., 1., 2.]`` "generates bins (-inf, 0.), [0., 1.),
  [1., 2.), and [2., +inf)", i.e. ``len(bin_boundaries) + 1`` ids; without boundaries it must
  be adapted;
* ``Resizing``: input "3D (unbatched) or 4D (batched) tensor with shape
  ``(..., height, width, channels)``": a batch of channel-less images is taken as one image.

Evidence a diagnosis needs: the adapted state (the shape of ``mean``/``variance`` and which
axis of the adapted data it kept, the vocabulary or bin count), the dtype, rank and width of
the data given to ``adapt`` and of the data the layer later receives, and what the layer's
output feeds.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected axis -1
    #   of input shape to have value 1, but received input with shape (None, 100)
    Case(
        name="normalization_adapted_on_a_one_dimensional_column",
        family="preprocessing_layers",
        code="""
age = (np.random.rand(100) * 80).astype("float32")
price = np.random.rand(100, 1).astype("float32")
age_norm = keras.layers.Normalization()
age_norm.adapt(age)
model = keras.Sequential([keras.Input((1,)), age_norm, keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(age[:, None], price, epochs=1, verbose=0)
""",
        expect="S01",
        must=("axis=none",),
        must_not=("flatten", "input((100"),
        fix="Normalization(axis=None) (or adapt on age[:, None]): a 1-D array keeps 100 means",
    ),
    # tensorflow.python.framework.errors_impl.InvalidArgumentError: cannot compute Pack as input
    #   #1(zero-based) was expected to be a string tensor but is a int64 tensor [Op:Pack]
    Case(
        name="text_vectorization_adapted_on_text_label_pairs",
        family="preprocessing_layers",
        code="""
texts = np.array(["a good movie", "bad", "not a good movie at all", "great"])
labels = np.array([1, 0, 0, 1])
train_ds = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(2)
vectorizer = keras.layers.TextVectorization(max_tokens=100, output_sequence_length=6)
vectorizer.adapt(train_ds)
""",
        expect="S12",
        must=("map(",),
        must_not=("tf.cast", "as_string"),
        fix="vectorizer.adapt(train_ds.map(lambda text, label: text))",
    ),
    # tensorflow.python.framework.errors_impl.UnimplementedError: Exception encountered when
    #   calling StringLookup.call(). {{function_node __wrapped__Cast_device_...}} Cast int64 to
    #   string is not supported [Op:Cast]
    Case(
        name="string_lookup_given_integer_category_codes",
        family="preprocessing_layers",
        code="""
lookup = keras.layers.StringLookup(vocabulary=["red", "green", "blue"], output_mode="one_hot")
color_codes = np.array([[0], [2], [1], [2]])
encoded = lookup(color_codes)
""",
        expect="S11",
        must=("integerlookup",),
        must_not=("tf.cast",),
        fix="IntegerLookup for integer codes (or map the codes to the color strings first)",
    ),
    # tensorflow.python.framework.errors_impl.InvalidArgumentError: {{function_node
    #   __wrapped__IteratorGetNext_...}} Cannot add tensor to the batch: number of elements does
    #   not match. Shapes are: [tensor]: [1], [batch]: [3] [Op:IteratorGetNext]
    Case(
        name="text_vectorization_mapped_per_example_without_sequence_length",
        family="preprocessing_layers",
        code="""
texts = np.array(["a good movie", "bad", "not a good movie at all", "great"])
labels = np.array([1, 0, 0, 1])
vectorizer = keras.layers.TextVectorization(max_tokens=100)
vectorizer.adapt(texts)
train_ds = (
    tf.data.Dataset.from_tensor_slices((texts, labels))
    .map(lambda text, label: (vectorizer(text), label))
    .batch(2)
)
token_ids, y = next(iter(train_ds))
""",
        expect="S13",
        must=("output_sequence_length",),
        must_not=("drop_remainder",),
        fix="TextVectorization(output_sequence_length=N), or batch before the map",
    ),
    # ValueError: Exception encountered when calling Discretization.call().
    #   You need to either pass the `bin_boundaries` argument at construction time or call
    #   `adapt(dataset)` before you can start using the `Discretization` layer.
    Case(
        name="discretization_with_num_bins_never_adapted",
        family="preprocessing_layers",
        code="""
income = (np.random.rand(64, 1) * 1e5).astype("float32")
bucketizer = keras.layers.Discretization(num_bins=4)
buckets = bucketizer(income)
""",
        expect=None,
        unexplained=(
            "the message says to pass `bin_boundaries` at construction time or call "
            "`adapt(dataset)` first: the fix is in the message"
        ),
        fix="bucketizer.adapt(income) before calling it",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer:
    #   expected min_ndim=4, found ndim=3. Full shape received: (32, 32, 28)
    Case(
        name="resizing_layer_on_grayscale_batches_without_channels",
        family="preprocessing_layers",
        code="""
digits = np.random.randint(0, 256, (16, 28, 28)).astype("float32")
model = keras.Sequential([
    keras.Input((28, 28)),
    keras.layers.Resizing(32, 32),
    keras.layers.Rescaling(1 / 255),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10),
])
""",
        expect="S01",
        must=("channel",),
        must_not=("add a batch", "expand_dims(x, 0)"),
        fix="add the channel axis: Input((28, 28, 1)) and digits[..., None]",
    ),
    # tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:
    #   ... Detected at node sequential_1/embedding_1/GatherV2 ... indices[..] = 4 is not in [0, 4)
    Case(
        name="discretization_boundaries_feed_an_embedding_one_bucket_short",
        family="preprocessing_layers",
        code="""
ages = np.array([[12], [25], [33], [47], [61], [78]], dtype="float32")
price = np.random.rand(6, 1).astype("float32")
age_boundaries = [18, 30, 45, 60]
model = keras.Sequential([
    keras.Input((1,)),
    keras.layers.Discretization(bin_boundaries=age_boundaries),
    keras.layers.Embedding(len(age_boundaries), 3),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
model.fit(ages, price, epochs=1, verbose=0)
""",
        expect="S09",
        must=("bin",),
        must_not=("start at 1", "starts at 1"),
        fix="Embedding(len(age_boundaries) + 1, 3): 4 boundaries make 5 buckets",
    ),
    # tensorflow.python.framework.errors_impl.InvalidArgumentError: Exception encountered when
    #   calling Normalization.call(). {{function_node __wrapped__Sub_device_...}} Incompatible
    #   shapes: [2,32,32,3] vs. [1,40,1,1] [Op:Sub]
    Case(
        name="normalization_axis_1_as_the_channel_axis",
        family="preprocessing_layers",
        code="""
images = np.random.rand(16, 40, 40, 3).astype("float32")
pixel_norm = keras.layers.Normalization(axis=1)
pixel_norm.adapt(images)
model = keras.Sequential([
    keras.Input((40, 40, 3)),
    keras.layers.Resizing(32, 32),
    pixel_norm,
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(2),
])
preds = model(images[:2])
""",
        expect="S01",
        must=("axis=-1",),
        must_not=("resize the", "batch size"),
        fix="Normalization(axis=-1): channels are the last axis (axis=1 kept the 40 image rows)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer: expected axis
    #   -1 of input shape to have value 1, but received input with shape (32, 28, 28, 28)
    Case(
        name="normalization_adapted_on_mnist_before_adding_the_channel_axis",
        family="preprocessing_layers",
        code="""
x_train = np.random.randint(0, 256, (64, 28, 28)).astype("float32")
y_train = np.random.randint(0, 10, (64,))
norm = keras.layers.Normalization()
norm.adapt(x_train)
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    norm,
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(10),
])
model.compile(
    optimizer="adam",
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)
model.fit(x_train[..., None], y_train, epochs=1, verbose=0)
""",
        expect="S01",
        must=("adapt",),
        must_not=("channels_first", "transpose"),
        fix="norm.adapt(x_train[..., None]): adapted on (N, 28, 28) it keeps 28 column means",
    ),
    # ValueError: `output_sequence_length` must not be set if `output_mode` is not 'int'.
    #   Received output_sequence_length=20.
    Case(
        name="text_vectorization_multi_hot_with_a_sequence_length",
        family="preprocessing_layers",
        code="""
vectorizer = keras.layers.TextVectorization(
    max_tokens=1000,
    output_mode="multi_hot",
    output_sequence_length=20,
)
""",
        expect=None,
        unexplained=(
            "the message says `output_sequence_length` must not be set if `output_mode` is "
            "not 'int': the fix is in the message"
        ),
        fix="drop output_sequence_length (multi_hot gives one vector of max_tokens per text)",
    ),
]
