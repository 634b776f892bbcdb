"""Family: text models, from raw strings through ``TextVectorization`` and ``Embedding`` to a head.

API: ``keras.layers.TextVectorization`` (``max_tokens``, ``output_mode`` ``"int"`` |
``"multi_hot"`` | ``"count"`` | ``"tf_idf"``, ``output_sequence_length``, ``standardize``,
``split``, ``ngrams``, ``vocabulary=``, ``adapt``, ``vocabulary_size()``), the
``Embedding(input_dim, output_dim, mask_zero)`` sized from it, the sequence heads that
read the embedded tokens (``GlobalAveragePooling1D``, ``LSTM``, ``Conv1D``), a model
whose first layer is ``keras.Input(shape=(1,), dtype="string")`` (the vectorizer squeezes
the trailing 1), and ``fit``/``predict`` given texts as a NumPy array, a list, a tensor or
a ``tf.data`` dataset of ``(text, label)`` pairs.

Contract: ``TextVectorization`` takes a batch of strings, shape ``(batch,)`` or
``(batch, 1)`` (never a scalar, never token ids, never a rank-2 array of several texts
per row); ``adapt`` takes the texts alone and must come before anything reads the
vocabulary: before it, ``vocabulary_size()`` is 2 (the padding ``""`` and ``[UNK]``) and a
``tf_idf``/``multi_hot``/``count`` output has no known width.  In ``"int"`` mode the output
is ``(batch, output_sequence_length)`` int64 ids in ``[0, vocabulary_size())``, so the
``Embedding`` needs ``input_dim >= vectorizer.vocabulary_size()`` read after ``adapt``;
``output_sequence_length`` is only allowed in ``"int"`` mode.  ``Embedding`` turns
``(batch, L)`` ids into ``(batch, L, output_dim)``; an ``LSTM``/``Conv1D`` needs that rank-3
input (ids alone are rank 2), and a per-example classifier must reduce the token axis
(``GlobalAveragePooling1D``, ``Flatten``, an LSTM without ``return_sequences``) before
the loss compares it with ``(batch,)`` labels.  A model trained on ids takes ids at
``predict``; one that contains the vectorizer takes strings, and must not be fed a
dataset that was already vectorized.  Keras 3's array adapter does not take NumPy's
fixed-width unicode arrays (``dtype='<U..'``): strings go in as ``tf.constant``, an
``object`` array, or a ``tf.data`` dataset.  Labels are numbers; string class names
must be mapped to ids.  A ``tf.data`` dataset is batched before ``fit``.

Evidence a diagnosis could read: the vectorizer's config (``output_mode``,
``max_tokens``, ``output_sequence_length``, ``pad_to_max_tokens``) and whether it has a
vocabulary (``vocabulary_size()``, now and when the model was built), each
``Embedding``'s ``input_dim`` against the largest id the vectorizer emits, the shapes
and dtypes along the model (the input's ``dtype="string"`` or ``int64``, rank 2 ids
entering an ``LSTM``, a ``(batch, L, 1)`` output against ``(batch,)`` labels), the
dtype of what was passed to ``fit``/``predict`` (``<U..``, ``object``, a tensor), and a
dataset's ``element_spec`` (scalar strings without a batch axis, int64 ids where the
model wants strings, a string label component).

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "text_embeddings"

CASES = [
    # The Embedding is sized from vectorizer.vocabulary_size() while the Sequential is
    # written, before vectorizer.adapt(): at that point the size is 2 (padding + OOV),
    # so every real word id is out of range.  Docs: TextVectorization "The vocabulary
    # for the layer must be either supplied on construction or learned via adapt()".
    # Report: keras-team/keras#20479 (Embedding sized from a constant, not the
    # adapted vocabulary).
    # InvalidArgumentError: Graph execution error: ... indices[0,0] = 12 is not in
    #   [0, 2)  [[{{node sequential_1/embedding_1/GatherV2}}]]
    Case(
        "tx_embedding_sized_before_adapt",
        FAMILY,
        """
reviews = tf.constant(["great acting and a great plot", "dull and slow", "loved the music",
                       "the plot made no sense"] * 8)
stars = np.array([1, 0, 1, 0] * 8)
vectorizer = keras.layers.TextVectorization(max_tokens=5000, output_sequence_length=12)
model = keras.Sequential([
    keras.Input(shape=(1,), dtype="string"),
    vectorizer,
    keras.layers.Embedding(vectorizer.vocabulary_size(), 16),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
vectorizer.adapt(reviews)
model.compile("adam", "binary_crossentropy")
model.fit(reviews, stars, epochs=1, verbose=0)
""",
        "S09",
        must=("input_dim", "adapt"),
        must_not=("re-index", "start at 1"),
        fix="adapt first, then Embedding(vectorizer.vocabulary_size(), 16)",
    ),
    # A tf_idf bag-of-words model built around a vectorizer that was never adapted:
    # without a vocabulary (and pad_to_max_tokens=False) its output width is None, so
    # the Dense after it cannot create its kernel.  Docs: TextVectorization
    # pad_to_max_tokens ("Only valid in 'multi_hot', 'count', and 'tf_idf' modes ...
    # if False, output dimension ... is the size of the vocabulary"), adapt.
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None`
    #   dimensions). Received: shape=(None, 16) for variable path='sequential/dense/kernel'
    Case(
        "tx_tf_idf_not_adapted_dense_width",
        FAMILY,
        """
reviews = tf.constant(["great acting and a great plot", "dull and slow", "loved the music",
                       "the plot made no sense"] * 8)
stars = np.array([1, 0, 1, 0] * 8)
tfidf = keras.layers.TextVectorization(max_tokens=500, output_mode="tf_idf")
model = keras.Sequential([
    keras.Input(shape=(1,), dtype="string"),
    tfidf,
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(reviews, stars, epochs=1, verbose=0)
""",
        "S01",
        must=("adapt",),
        must_not=("output_sequence_length", "flatten"),
        fix="tfidf.adapt(reviews) before building the model (or pad_to_max_tokens=True)",
    ),
    # Token ids fed straight to an LSTM: the Embedding between them was left out, so
    # the LSTM gets (batch, 12) ids instead of (batch, 12, features).  Docs: LSTM
    # "inputs: A 3D tensor, with shape (batch, timesteps, feature)"; the "Text
    # classification with an RNN" tutorial (encoder -> Embedding -> LSTM).
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the
    #   layer: expected ndim=3, found ndim=2. Full shape received: (None, 12)
    Case(
        "tx_lstm_on_token_ids_without_embedding",
        FAMILY,
        """
reviews = tf.constant(["great acting and a great plot", "dull and slow", "loved the music",
                       "the plot made no sense"] * 8)
vectorizer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=12)
vectorizer.adapt(reviews)
model = keras.Sequential([
    keras.Input(shape=(1,), dtype="string"),
    vectorizer,
    keras.layers.LSTM(32),
    keras.layers.Dense(1, activation="sigmoid"),
])
""",
        "S01",
        must=("embedding",),
        must_not=("return_sequences", "expand_dims"),
        fix="insert Embedding(vectorizer.vocabulary_size(), 32) before the LSTM",
    ),
    # Embedding -> Dense with no pooling over the tokens: the model predicts one
    # value per token, (batch, 12, 1), against one label per review.  Docs: "Word
    # embeddings" tutorial (Embedding -> GlobalAveragePooling1D -> Dense).  Report:
    # keras-team/keras#1333 ("the Embedding layer is outputting a sequence").
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    #   Received: target.shape=(32,), output.shape=(None, 12, 1)
    Case(
        "tx_embedding_head_without_pooling",
        FAMILY,
        """
reviews = tf.constant(["great acting and a great plot", "dull and slow", "loved the music",
                       "the plot made no sense"] * 8)
stars = np.array([1, 0, 1, 0] * 8)
vectorizer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=12)
vectorizer.adapt(reviews)
model = keras.Sequential([
    keras.Input(shape=(1,), dtype="string"),
    vectorizer,
    keras.layers.Embedding(vectorizer.vocabulary_size(), 16),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(reviews, stars, epochs=1, verbose=0)
""",
        "S07",
        must=("binary_crossentropy", "pool"),
        must_not=("sparse", "one-hot"),
        fix="GlobalAveragePooling1D() after the Embedding",
    ),
    # A (text, label) dataset built with from_tensor_slices and passed to fit without
    # .batch(): each element is a scalar string.  Docs: Model.fit "x ... A tf.data.Dataset
    # ... should return a tuple of (inputs, targets)"; the text tutorials batch
    # (text_dataset_from_directory batches itself, from_tensor_slices does not).
    # ValueError: Exception encountered when calling Functional.call(). Invalid input
    #   shape for input Tensor("data:0", shape=(), dtype=string) with name 'keras_tensor'
    #   and path ''. Expected shape (None, 1), but input has incompatible shape ()
    Case(
        "tx_unbatched_text_dataset",
        FAMILY,
        """
reviews = np.array(["great acting and a great plot", "dull and slow", "loved the music",
                    "the plot made no sense"] * 8, dtype=object)
stars = np.array([1, 0, 1, 0] * 8)
vectorizer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=12)
vectorizer.adapt(reviews)
inp = keras.Input(shape=(1,), dtype="string")
x = keras.layers.Embedding(vectorizer.vocabulary_size(), 16)(vectorizer(inp))
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.GlobalAveragePooling1D()(x))
model = keras.Model(inp, out)
model.compile("adam", "binary_crossentropy")
train_ds = tf.data.Dataset.from_tensor_slices((reviews, stars))
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("batch",),
        must_not=("expand_dims", "input(shape=()"),
        fix="train_ds.batch(8) before fit",
    ),
    # Two tutorial patterns mixed: the dataset is vectorized in a map (the "Basic text
    # classification" way) AND the model starts with the same vectorizer (the
    # "export_model" way), so the vectorizer receives (batch, 12) ids.  Docs: "Basic
    # text classification" (vectorize_text map; export_model wraps the vectorizer
    # around the trained model).
    # ValueError: Exception encountered when calling TextVectorization.call(). When
    #   using `TextVectorization` to tokenize strings, the input rank must be 1 or the
    #   last shape dimension must be 1. Received: inputs.shape=(None, 12) with rank=2
    Case(
        "tx_dataset_vectorized_twice",
        FAMILY,
        """
reviews = np.array(["great acting and a great plot", "dull and slow", "loved the music",
                    "the plot made no sense"] * 8, dtype=object)
stars = np.array([1, 0, 1, 0] * 8)
vectorizer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=12)
vectorizer.adapt(reviews)
train_ds = tf.data.Dataset.from_tensor_slices((reviews, stars)).batch(8)
train_ds = train_ds.map(lambda text, label: (vectorizer(text), label))
inp = keras.Input(shape=(1,), dtype="string")
x = keras.layers.Embedding(vectorizer.vocabulary_size(), 16)(vectorizer(inp))
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.GlobalAveragePooling1D()(x))
model = keras.Model(inp, out)
model.compile("adam", "binary_crossentropy")
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("int64",),
        must_not=("expand_dims", "reshape"),
        fix="drop the map (feed raw text) or build the model on int64 ids without the vectorizer",
    ),
    # An end-to-end model (string Input + vectorizer inside) fitted on a plain NumPy
    # array of texts: np.array of str has dtype '<U29', which Keras 3's array adapter
    # rejects, though the model takes strings.  Reports: tensorflow/tensorflow#65237
    # ("ValueError: Invalid dtype: str768", np.array([[pred_text]])),
    # keras-team/keras#20479 (TextVectorization + Sequential, "Invalid dtype").
    # ValueError: Invalid dtype: str928
    Case(
        "tx_numpy_unicode_texts_to_fit",
        FAMILY,
        """
reviews = np.array(["great acting and a great plot", "dull and slow", "loved the music",
                    "the plot made no sense"] * 8)
stars = np.array([1, 0, 1, 0] * 8)
vectorizer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=12)
vectorizer.adapt(reviews)
inp = keras.Input(shape=(1,), dtype="string")
x = keras.layers.Embedding(vectorizer.vocabulary_size(), 16)(vectorizer(inp))
out = keras.layers.Dense(1, activation="sigmoid")(keras.layers.GlobalAveragePooling1D()(x))
model = keras.Model(inp, out)
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(reviews, stars, epochs=1, verbose=0)
""",
        "S11",
        must=("reviews",),
        must_not=("float32", "encode the text"),
        fix="fit(tf.constant(reviews), ...) or reviews.astype(object)",
    ),
    # The model was trained on vectorize_layer(texts) (int64 ids), then predict() is
    # given new raw reviews without vectorizing them.  Docs: "Basic text
    # classification" (export_model = Sequential([vectorize_layer, model, ...]) "to
    # process raw strings").  Reports: tensorflow/tensorflow#37261 and
    # raghakot/keras-text#7 (how to predict on new text).
    # ValueError: Invalid dtype: str576
    Case(
        "tx_predict_raw_text_on_id_model",
        FAMILY,
        """
texts = tf.constant(["great acting and a great plot", "dull and slow", "loved the music",
                     "the plot made no sense"] * 8)
labels = np.array([1, 0, 1, 0] * 8)
vectorize_layer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=12)
vectorize_layer.adapt(texts)
model = keras.Sequential([
    keras.Input(shape=(12,), dtype="int64"),
    keras.layers.Embedding(1000, 16),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(vectorize_layer(texts), labels, epochs=1, verbose=0)
new_reviews = np.array(["what a lovely film", "the plot was dull"])
model.predict(new_reviews, verbose=0)
""",
        "S11",
        must=("int64",),
        must_not=("tf.constant", "astype(object)"),
        fix="model.predict(vectorize_layer(new_reviews)) (or export a model with the vectorizer)",
    ),
    # Labels kept as the CSV's class names ("positive"/"negative") in the (text,
    # label) dataset; the text component is fine (the model vectorizes it), the
    # label component reaches binary_crossentropy as strings.  Report:
    # tensorflow/tensorflow#28367 ("tf keras model.fit does not work with strings
    # as labels", UnimplementedError in the loss's Cast).
    # UnimplementedError: Graph execution error: Detected at node
    #   compile_loss/binary_crossentropy/Cast ... Cast string to float is not supported
    Case(
        "tx_string_sentiment_labels_in_dataset",
        FAMILY,
        """
reviews = np.array(["great acting and a great plot", "dull and slow", "loved the music",
                    "the plot made no sense"] * 8, dtype=object)
sentiment = np.array(["positive", "negative", "positive", "negative"] * 8)
vectorizer = keras.layers.TextVectorization(max_tokens=1000, output_sequence_length=12)
vectorizer.adapt(reviews)
model = keras.Sequential([
    keras.Input(shape=(1,), dtype="string"),
    vectorizer,
    keras.layers.Embedding(vectorizer.vocabulary_size(), 16),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
train_ds = tf.data.Dataset.from_tensor_slices((reviews, sentiment)).batch(8)
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S11",
        must=("label", "string"),
        must_not=("encode the text", "float64"),
        fix="map the class names to 0/1 (sentiment == 'positive').astype('int32')",
    ),
    # Switching a sequence model to bag-of-words by changing output_mode to
    # "multi_hot" while keeping output_sequence_length.  Docs: TextVectorization
    # output_sequence_length "Only valid in INT mode".
    # ValueError: `output_sequence_length` must not be set if `output_mode` is not
    #   'int'. Received output_sequence_length=40.
    Case(
        "tx_multi_hot_with_sequence_length",
        FAMILY,
        """
reviews = tf.constant(["great acting and a great plot", "dull and slow", "loved the music",
                       "the plot made no sense"] * 8)
bow = keras.layers.TextVectorization(max_tokens=2000, output_mode="multi_hot",
                                     output_sequence_length=40)
bow.adapt(reviews)
""",
        None,
        unexplained="Keras' ValueError names output_sequence_length and says it is only for output_mode='int'",
        fix="drop output_sequence_length for multi_hot",
    ),
]
