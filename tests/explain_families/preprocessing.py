"""Family: Keras preprocessing layers used against their contract.

API: ``keras.layers.StringLookup`` / ``IntegerLookup`` (``vocabulary=``, ``adapt``,
``mask_token``, ``num_oov_indices``, ``output_mode``), ``CategoryEncoding``
(``num_tokens``, ``output_mode``), ``TextVectorization`` (``adapt``,
``output_sequence_length``), ``Normalization`` (``axis``, ``mean``/``variance``,
``adapt``), and the ``Embedding`` or model that consumes their output.

Contract: a lookup layer's vocabulary is a list of distinct terms of the layer's own
kind (strings for ``StringLookup``/``TextVectorization``, integers for
``IntegerLookup``) and its output ids lie in ``[0, vocabulary_size())``, where the
OOV index (and the mask index, if any) come first, so a following ``Embedding``
needs ``input_dim = lookup.vocabulary_size()``, not ``len(vocab)``;
``CategoryEncoding`` takes integer ids in ``[0, num_tokens)`` (never raw strings,
never a ``-1`` padding value); ``adapt`` takes the features alone, batched (a
``tf.data`` dataset of ``(x, y)`` pairs or of unbatched scalars breaks it);
``Normalization`` keeps the axes named by ``axis`` (default ``-1``, the feature
axis: ``axis=0`` keeps the sample axis and ties the statistics to the adapt data's
row count), and a ``mean``/``variance`` given by hand must broadcast to the kept
axes; ``TextVectorization(output_sequence_length=L)`` produces ``(batch, L)``, which
must equal the width the next ``Input``/layer was built for.

Evidence a diagnosis could read: the layer's configuration (``num_tokens``,
``vocabulary`` and its repeats, ``vocabulary_size()``, ``axis``, the shapes of
``mean``/``variance``, ``output_sequence_length``), the dtype of what was fed or
adapted (int64 into a string layer, strings into ``CategoryEncoding``), the
dataset's ``element_spec`` (a tuple, or a scalar without a batch axis), and the
smallest/largest id the data holds against the range the consumer accepts.

Written from the Keras/TensorFlow documentation (the ``StringLookup``,
``CategoryEncoding``, ``Normalization`` and ``TextVectorization`` API pages, the
"Classify structured data using Keras preprocessing layers" and "Basic text
classification" tutorials) and from user reports (GitHub issues and Stack Overflow
questions cited on each case), before the rules of the diagnosis were read.  Every
case was run with TensorFlow 2.21 / Keras 3 on CPU; the comment above it records the
exception type and the first line of its message.  Two mistakes from the brief are
left out because Keras 3 does NOT raise on them: ids >= ``num_tokens`` in
``CategoryEncoding`` (silently dropped) and ``invert=True`` on out-of-range ids
(they map to the OOV token); likewise a ``multi_hot`` output fed to ``Embedding``
(cast to int, runs), ``Hashing`` on floats, and ``Normalization.adapt`` on an empty
array (NaN statistics, no exception).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "preprocessing"

CASES = [
    # Multi-valued "tags" padded with -1 (keras.utils.pad_sequences(value=-1)) and
    # multi-hot encoded.  Docs: CategoryEncoding takes ids in [0, num_tokens).
    # Reports: tensorflow/tensorflow#50512 (a -1 id from a lookup reaching an index
    # op), oonisim notes on CategoryEncoding (petfinder tutorial).
    # InvalidArgumentError: Exception encountered when calling CategoryEncoding.call().
    #   ... Input 'in' must be non-negative! Negative input value found: -1 [Op:DenseBincount]
    Case(
        "category_encoding_negative_padding_id",
        FAMILY,
        """
tags = [np.random.choice(6, size=np.random.randint(1, 4), replace=False) for _ in range(32)]
padded = keras.utils.pad_sequences(tags, maxlen=3, value=-1)
encode = keras.layers.CategoryEncoding(num_tokens=6, output_mode="multi_hot")
encode(padded)
""",
        "S09",
        must=("num_tokens", "-1"),
        must_not=("batch",),
        fix="pad with an id inside [0, num_tokens) (shift ids by 1, num_tokens=7)",
    ),
    # Embedding sized with len(vocab), forgetting the OOV index 0 that StringLookup
    # prepends, so the last term's id == len(vocab).  Docs: StringLookup "the
    # vocabulary will begin with ... OOV indices"; vocabulary_size().  Reports:
    # TannerGilbert/Tutorials#1, keras-team/keras#11819 ("indices = N is not in [0, N)").
    # InvalidArgumentError: Graph execution error:
    #   ... indices[6,0] = 5 is not in [0, 5)  [[{{node sequential_1/embedding_1/GatherV2}}]]
    Case(
        "string_lookup_embedding_without_oov_slot",
        FAMILY,
        """
vocab = ["red", "green", "blue", "black", "white"]
lookup = keras.layers.StringLookup(vocabulary=vocab)
model = keras.Sequential([keras.Input((1,), dtype="string"), lookup,
                          keras.layers.Embedding(input_dim=len(vocab), output_dim=4),
                          keras.layers.Flatten(), keras.layers.Dense(1)])
model.compile("adam", "mse")
x = tf.constant(np.random.choice(vocab, size=(32, 1)))
model.fit(x, np.random.rand(32), epochs=1, verbose=0)
""",
        "S09",
        must=("input_dim",),
        must_not=("batch",),
        fix="Embedding(input_dim=lookup.vocabulary_size())",
    ),
    # The structured-data tutorial's get_category_encoding_layer with
    # dtype="string" on an integer column: StringLookup adapted on int64 ids.
    # Docs: "Classify structured data using Keras preprocessing layers" (StringLookup
    # for string columns, IntegerLookup for integer ones).  Report:
    # tensorflow/tensorflow#21192 ("Cast int64 to string is not supported").
    # UnimplementedError: {{function_node __wrapped__Cast_device_...}} Cast int64 to
    #   string is not supported [Op:Cast] name:
    Case(
        "string_lookup_adapted_on_int_column",
        FAMILY,
        """
features = {"age_bucket": np.random.randint(0, 5, 64), "fare": np.random.rand(64).astype("float32")}
ds = tf.data.Dataset.from_tensor_slices((features, np.random.randint(0, 2, 64))).batch(16)
age_ds = ds.map(lambda x, y: x["age_bucket"])
lookup = keras.layers.StringLookup(output_mode="one_hot")
lookup.adapt(age_ds)
""",
        "S11",
        must=("int64", "string"),
        must_not=("float32",),
        fix="use IntegerLookup for the integer column (or cast it to string)",
    ),
    # Raw category strings straight into CategoryEncoding, skipping the lookup step.
    # Docs: CategoryEncoding "inputs ... integer"; the preprocessing guide chains
    # StringLookup -> CategoryEncoding.  Report: oonisim notes "CategoryEncoding ...
    # can NOT accept string, hence string columns ... need to be converted ... via
    # StringLookup".
    # UnimplementedError: Exception encountered when calling CategoryEncoding.call().
    #   ... Cast string to int64 is not supported [Op:Cast]
    Case(
        "category_encoding_fed_raw_strings",
        FAMILY,
        """
colors = np.random.choice(["red", "green", "blue"], size=(32, 1))
onehot = keras.layers.CategoryEncoding(num_tokens=3, output_mode="one_hot")
onehot(colors)
""",
        "S11",
        must=("string", "lookup"),
        must_not=("astype",),
        fix="StringLookup(vocabulary=..., output_mode='one_hot') instead",
    ),
    # Vocabulary taken from the raw column (list(col)) instead of its unique values.
    # Docs: StringLookup vocabulary "an array of strings" (one index per term).
    # ValueError: The passed vocabulary has at least one repeated term. Please
    #   uniquify your dataset. The repeated terms are: [...]
    Case(
        "string_lookup_vocabulary_with_repeats",
        FAMILY,
        """
city = np.random.choice(["paris", "lyon", "nice", "lille"], size=40)
lookup = keras.layers.StringLookup(vocabulary=list(city))
""",
        None,
        unexplained="Keras' ValueError names the repeated terms and says to uniquify the vocabulary",
        fix="vocabulary=np.unique(city) (or adapt on the column)",
    ),
    # Hand-computed statistics for 3 columns given to a 4-feature input.
    # Docs: Normalization mean/variance "will be broadcast to the shape of the kept
    # axes ... if the value(s) cannot be broadcast, an error will be raised when
    # this layer's build() method is called".  Report: tensorflow/tensorflow#64814.
    # InvalidArgumentError: {{function_node __wrapped__BroadcastTo_device_...}}
    #   Incompatible shapes: [1,3] vs. [1,4] [Op:BroadcastTo]
    Case(
        "normalization_mean_variance_wrong_length",
        FAMILY,
        """
x = np.random.rand(64, 4).astype("float32")
stats = x[:, :3]
norm = keras.layers.Normalization(mean=stats.mean(axis=0), variance=stats.var(axis=0))
norm(x)
""",
        "S01",
        must=("mean",),
        must_not=("batch",),
        fix="compute mean/variance over all 4 columns (or adapt on x)",
    ),
    # axis=0 taken to mean "per column" as in np.mean(axis=0)/StandardScaler: it
    # keeps the sample axis, so the statistics have one entry per adapt row.
    # Docs: Normalization axis "The axis or axes that should have a separate mean and
    # variance ... Defaults to -1".  Report: Stack Overflow 47538391 ("Keras
    # BatchNormalization axis clarification", axis=0 vs axis=-1 confusion).
    # InvalidArgumentError: Exception encountered when calling Normalization.call().
    #   ... Incompatible shapes: [8,3] vs. [64,1] [Op:Sub]
    Case(
        "normalization_axis_zero_keeps_samples",
        FAMILY,
        """
x_train = np.random.rand(64, 3).astype("float32")
norm = keras.layers.Normalization(axis=0)
norm.adapt(x_train)
norm(np.random.rand(8, 3).astype("float32"))
""",
        "S01",
        must=("axis",),
        must_not=("hard-code",),
        fix="Normalization() (axis=-1, the feature axis)",
    ),
    # Vectorizer pads/truncates to 20 tokens, the model was built for 10.
    # Docs: TextVectorization output_sequence_length "the output will have its time
    # dimension padded or truncated to exactly output_sequence_length values".
    # Reports: tensorflow/tensorflow#61453 ("expected shape=(None, 15), found shape=
    # (1, 14)"), tensorflow/tensorflow#46478.
    # ValueError: Input 0 with name 'input_layer' of layer 'functional' is
    #   incompatible with the layer: expected shape=(None, 10), found shape=(None, 20)
    Case(
        "text_vectorization_sequence_length_vs_input",
        FAMILY,
        """
texts = np.array(["the cat sat on the mat", "a dog ran", "birds fly south in winter"] * 10)
vec = keras.layers.TextVectorization(max_tokens=200, output_sequence_length=20)
vec.adapt(texts)
inp = keras.Input(shape=(10,), dtype="int64")
h = keras.layers.Embedding(200, 8)(inp)
out = keras.layers.Dense(1)(keras.layers.Flatten()(h))
model = keras.Model(inp, out)
model.compile("adam", "mse")
model.fit(vec(texts), np.random.rand(30), epochs=1, verbose=0)
""",
        "S01",
        must=("output_sequence_length",),
        must_not=("batch",),
        fix="output_sequence_length=10, or Input(shape=(20,))",
    ),
    # adapt() on the labelled training dataset instead of its text part.
    # Docs: "Basic text classification" tutorial: train_text = raw_train_ds.map(
    # lambda x, y: x); vectorize_layer.adapt(train_text).  Report:
    # tensorflow/docs#1814 (the tutorial's mapping of the text dataset).
    # InvalidArgumentError: cannot compute Pack as input #1(zero-based) was expected
    #   to be a string tensor but is a int64 tensor [Op:Pack] name: packed
    Case(
        "text_vectorization_adapt_on_labelled_dataset",
        FAMILY,
        """
texts = np.array(["the cat sat", "a dog ran far away", "birds fly"] * 10)
labels = np.random.randint(0, 2, 30)
train_ds = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(8)
vec = keras.layers.TextVectorization(max_tokens=50, output_sequence_length=8)
vec.adapt(train_ds)
""",
        "S12",
        must=("adapt", "label"),
        must_not=("tf.cast", "astype"),
        fix="vec.adapt(train_ds.map(lambda x, y: x))",
    ),
    # The structured-data tutorial's feature_ds = ds.map(lambda x, y: x[name]) on a
    # dataset that was never batched: each element is a scalar.
    # Docs: Normalization.adapt "If a dataset ... it must be batched"; the tutorial
    # batches before mapping.  Report: a Stack Overflow question on the petfinder
    # tutorial (66874101) quotes this very ``dataset.map(lambda x, y: x[name])`` +
    # ``adapt`` pattern; no report of this exact error was found.
    # ValueError: All `axis` values must be in the range [-ndim, ndim). Received
    #   inputs with ndim=0, while axis=(-1,)
    Case(
        "normalization_adapt_on_unbatched_scalars",
        FAMILY,
        """
features = {"fare": np.random.rand(64).astype("float32"), "age": np.random.rand(64).astype("float32")}
ds = tf.data.Dataset.from_tensor_slices((features, np.random.randint(0, 2, 64)))
fare_ds = ds.map(lambda x, y: x["fare"])
norm = keras.layers.Normalization()
norm.adapt(fare_ds)
""",
        "S12",
        must=("batch",),
        must_not=("astype",),
        fix="batch the dataset before adapt: ds.batch(32)",
    ),
    # Written after the mechanism (the data's axis sized by a preprocessing layer's
    # setting): the same contract reached through the model's first layer's width.
    Case(
        "text_vectorization_length_unset",
        FAMILY,
        """
texts = np.array(["the cat sat on the mat", "a dog ran", "birds fly south in winter"] * 10)
vec = keras.layers.TextVectorization(max_tokens=200)
vec.adapt(texts)
x = vec(texts)
inp = keras.Input(shape=(10,), dtype="int64")
out = keras.layers.Dense(1)(keras.layers.Flatten()(keras.layers.Embedding(200, 8)(inp)))
model = keras.Model(inp, out)
model.compile("adam", "mse")
model.fit(x, np.random.rand(30), epochs=1, verbose=0)
""",
        "S01",
        must=("output_sequence_length=10",),
        must_not=("shape=(6,)",),
        fix="output_sequence_length=10 (without it the length is each call's longest text)",
    ),
    Case(
        "one_hot_lookup_counts_oov",
        FAMILY,
        """
colors = np.random.choice(["red", "green", "blue"], 40)
look = keras.layers.StringLookup(output_mode="one_hot")
look.adapt(colors)
enc = look(colors)
m2 = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
m2.compile("adam", "mse")
m2.fit(enc, np.random.rand(40), epochs=1, verbose=0)
""",
        "S01",
        must=("oov", "shape=(4,)"),
        must_not=("label",),
        fix="Input(shape=(look.vocabulary_size(),)): the one-hot columns include the OOV one",
    ),
    Case(
        "multi_hot_width_is_the_vocabulary",
        FAMILY,
        """
texts = np.array(["the cat sat on the mat", "a dog ran", "birds fly south in winter"] * 10)
vec = keras.layers.TextVectorization(max_tokens=1000, output_mode="multi_hot")
vec.adapt(texts)
x = vec(texts)
model = keras.Sequential([keras.Input((1000,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x, np.random.rand(30), epochs=1, verbose=0)
""",
        "S01",
        must=("upper bound", "shape=(14,)"),
        must_not=("output_sequence_length",),
        fix="Input(shape=(vec.vocabulary_size(),)): max_tokens caps the vocabulary, adapt sizes it",
    ),
]
