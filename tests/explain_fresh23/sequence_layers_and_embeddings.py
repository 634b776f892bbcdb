"""Family: sequence layers, embeddings and text preprocessing.

The APIs and their documented contract:

- ``keras.layers.Embedding(input_dim, output_dim, mask_zero=False)``: a lookup table of
  ``input_dim`` rows; it takes integer ids in ``[0, input_dim)`` of any shape and returns
  that shape plus ``output_dim``: ``(batch, seq_len)`` -> ``(batch, seq_len, output_dim)``.
  ``input_dim`` is the vocabulary size INCLUDING reserved ids: a tokenizer whose ids start at
  1 (0 kept for padding) needs ``input_dim = max_id + 1 = len(word_index) + 1``; a
  ``TextVectorization`` layer needs ``input_dim = vectorizer.vocabulary_size()``.  On CPU an
  id outside the range raises ``indices[i,j] = N is not in [0, N)`` from ``GatherV2``.
- ``LSTM`` / ``GRU`` / ``SimpleRNN(units, return_sequences=False, return_state=False)``:
  input is rank 3 ``(batch, timesteps, features)``.  The output is ``(batch, units)`` (the
  last step), or ``(batch, timesteps, units)`` with ``return_sequences=True`` (needed to feed
  another RNN, and only wanted at the head for per-step targets).  With
  ``return_state=True`` the layer returns a LIST ``[output, state_h(, state_c)]`` that must be
  unpacked before the next layer.  Token ids ``(batch, seq_len)`` go through an
  ``Embedding`` first; a univariate series ``(batch, timesteps)`` gets a features axis.
- ``Bidirectional(rnn)``, ``TimeDistributed(layer)`` (applies ``layer`` to every step of a
  ``(batch, time, ...)`` input), ``Masking`` / ``mask_zero``, ``GlobalAveragePooling1D``
  (``(batch, steps, features)`` -> ``(batch, features)``).
- ``keras.layers.TextVectorization(max_tokens, output_mode="int",
  output_sequence_length=None)``: takes STRINGS (``Input(shape=(1,), dtype="string")`` or
  ``shape=()``), learns its vocabulary with ``adapt(texts)``; without
  ``output_sequence_length`` its output length is unknown (``None``) and is padded per batch,
  so a following ``Flatten`` + ``Dense`` cannot build; set ``output_sequence_length`` for a
  fixed length.  A model without a vectorization step cannot take raw strings: the string
  array has no numeric dtype.
- ``keras.utils.pad_sequences(seqs, maxlen, padding, truncating)`` makes a rectangular int
  array from lists of different lengths; in ``tf.data``, ``batch()`` needs equal shapes, so
  variable-length elements need ``padded_batch()`` (or ``ragged_batch``).

Evidence a diagnosis needs to name the cause: the largest (and smallest) id vs the
Embedding's ``input_dim``; the rank and dtype of what reached the RNN and where it came from
(an RNN without ``return_sequences``, raw integer ids, a float series); the list returned
under ``return_state``; the unknown sequence length coming out of ``TextVectorization``; the
two differing element shapes that ``batch()`` refused; the string dtype of the inputs.
"""

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: Graph execution error: (... indices[..] = 50 is not in [0, 50) ... node sequential/embedding/GatherV2)
    Case(
        name="f23_embedding_sized_to_word_index_length",
        family="sequence_layers_and_embeddings",
        code="""
rng = np.random.default_rng(0)
word_index = {f"word{i}": i for i in range(1, 51)}
vocab_size = len(word_index)
x = rng.integers(1, vocab_size + 1, (32, 12))
y = rng.integers(0, 2, 32)
model = keras.Sequential([
    keras.Input(shape=(12,)),
    keras.layers.Embedding(vocab_size, 8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=32, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("astype", "batch size"),
        fix="Embedding(len(word_index) + 1, 8)",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm_1' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 32)
    Case(
        name="f23_second_lstm_gets_last_step_only",
        family="sequence_layers_and_embeddings",
        code="""
x = np.random.rand(32, 10, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([
    keras.Input(shape=(10, 4)),
    keras.layers.LSTM(32),
    keras.layers.LSTM(16),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape"),
        fix="LSTM(32, return_sequences=True) for the first LSTM",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 20)
    Case(
        name="f23_token_ids_straight_into_lstm",
        family="sequence_layers_and_embeddings",
        code="""
x = np.random.randint(1, 500, (32, 20))
y = np.random.randint(0, 2, 32)
model = keras.Sequential([
    keras.Input(shape=(20,), dtype="int32"),
    keras.layers.LSTM(32),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("embedding",),
        must_not=("expand_dims", "return_sequences"),
        fix="insert keras.layers.Embedding(500, 32) before the LSTM",
    ),
    # ValueError: Layer "dense" expects 1 input(s), but it received 3 input tensors. Inputs received: [<KerasTensor shape=(None, 16), ...
    Case(
        name="f23_lstm_return_state_list_into_dense",
        family="sequence_layers_and_embeddings",
        code="""
inputs = keras.Input(shape=(10, 4))
encoded = keras.layers.LSTM(16, return_state=True)(inputs)
outputs = keras.layers.Dense(1, activation="sigmoid")(encoded)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="binary_crossentropy")
""",
        expect="S01",
        must=("return_state",),
        must_not=("return_sequences",),
        fix="unpack: encoded, state_h, state_c = LSTM(16, return_state=True)(inputs)",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None` dimensions). Received: shape=(None, 1) for variable path='dense/kernel'
    Case(
        name="f23_text_vectorization_unfixed_length_then_flatten",
        family="sequence_layers_and_embeddings",
        code="""
texts = np.array(["the cat sat", "a dog ran far away today", "hello", "good movie"])
labels = np.array([0, 1, 0, 1])
vectorize = keras.layers.TextVectorization(max_tokens=100)
vectorize.adapt(texts)
inp = keras.Input(shape=(1,), dtype="string")
h = keras.layers.Embedding(100, 8)(vectorize(inp))
h = keras.layers.Flatten()(h)
out = keras.layers.Dense(1, activation="sigmoid")(h)
model = keras.Model(inp, out)
""",
        expect="S01",
        must=("output_sequence_length",),
        must_not=("set_shape", "output_signature"),
        fix="TextVectorization(max_tokens=100, output_sequence_length=N) (or GlobalAveragePooling1D)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(16,), output.shape=(16, 15, 3)
    Case(
        name="f23_gru_full_sequence_into_classifier_head",
        family="sequence_layers_and_embeddings",
        code="""
x = np.random.randint(1, 100, (32, 15))
y = np.random.randint(0, 3, 32)
model = keras.Sequential([
    keras.Input(shape=(15,)),
    keras.layers.Embedding(100, 8),
    keras.layers.GRU(16, return_sequences=True),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=16, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("to_categorical", "one-hot"),
        fix="GRU(16) without return_sequences (or pool over time) for one label per sequence",
    ),
    # InvalidArgumentError: Graph execution error: (... Cannot batch tensors with different shapes in component 0. First element had shape [3] and element 1 had shape [5].)
    Case(
        name="f23_variable_length_sequences_plain_batch",
        family="sequence_layers_and_embeddings",
        code="""
sequences = [[3, 7, 2], [5, 1, 9, 4, 8], [6, 2], [7, 7, 7, 1]]
labels = [0, 1, 0, 1]
seq_ds = tf.data.Dataset.from_generator(
    lambda: iter(sequences), output_signature=tf.TensorSpec(shape=(None,), dtype=tf.int32))
ds = tf.data.Dataset.zip((seq_ds, tf.data.Dataset.from_tensor_slices(labels))).batch(2)
model = keras.Sequential([
    keras.layers.Embedding(10, 4, mask_zero=True),
    keras.layers.LSTM(8),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S13",
        must=("padded_batch",),
        must_not=("output_signature", "set_shape"),
        fix="ds.padded_batch(2) (or pad_sequences before building the dataset)",
    ),
    # ValueError: Invalid dtype: str608
    Case(
        name="f23_raw_review_strings_into_embedding_model",
        family="sequence_layers_and_embeddings",
        code="""
reviews = np.array(["loved every minute", "utterly boring plot", "great acting", "waste of time"])
sentiment = np.array([1, 0, 1, 0])
model = keras.Sequential([
    keras.Input(shape=(1,)),
    keras.layers.Embedding(1000, 16),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(reviews, sentiment, epochs=1, verbose=0)
""",
        expect="S11",
        must=("textvectorization",),
        must_not=("tf.cast", "astype"),
        fix="vectorize the text: TextVectorization adapted on the reviews, Input(dtype='string')",
    ),
]
