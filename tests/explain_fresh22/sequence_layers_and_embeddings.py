"""Family ``sequence_layers_and_embeddings``: token ids, embeddings and recurrent layers.

The APIs and their documented contract (Keras 3):

- ``Embedding(input_dim, output_dim, mask_zero=False)`` maps integer ids of shape
  ``(batch, timesteps)`` to ``(batch, timesteps, output_dim)``; every id must lie in
  ``[0, input_dim)``: ``input_dim`` is the vocabulary size + 1 when ids start at 1 (0 kept
  for padding), and at least ``TextVectorization.vocabulary_size()``.  On CPU TensorFlow
  raises ``indices[i,j] = N is not in [0, N)``.
- ``LSTM``/``GRU``/``SimpleRNN(units, return_sequences=False, return_state=False)`` take
  3-D input ``(batch, timesteps, features)``; a univariate series ``(batch, timesteps)``
  needs a feature axis (``x[..., None]``), or an ``Embedding`` first for ids.  With
  ``return_sequences=False`` the output is ``(batch, units)`` (last step only), so a
  stacked RNN, a ``TimeDistributed`` head or per-token labels ``(batch, timesteps)`` need
  ``return_sequences=True`` on the layer before.  With ``return_state=True`` the layer
  returns a LIST ``[output, state_h(, state_c)]`` that must be unpacked.
- ``Bidirectional(rnn)``, ``TimeDistributed(layer)`` (input at least 3-D),
  ``Masking(mask_value)``, ``GlobalAveragePooling1D`` over ``(batch, steps, features)``.
- ``TextVectorization(max_tokens, output_mode="int", output_sequence_length=None)``:
  ``adapt(texts)`` builds the vocabulary; it takes STRING input (a model input declared
  with ``keras.Input(shape=(1,), dtype="string")``); without ``output_sequence_length``
  the output length is the longest text of the batch (``None`` in the static shape), so a
  ``Flatten`` + ``Dense`` after it cannot be built.
- ``keras.utils.pad_sequences(seqs, maxlen, padding, truncating)`` turns a list of
  variable-length id lists into one ``(n, maxlen)`` int array; ``fit`` does not take a
  ragged Python list of lists.

What the framework raises, and the evidence a diagnosis needs to name the cause:

- ``indices[..] = 100 is not in [0, 100)`` at an Embedding's gather: the layer, its
  ``input_dim`` and the id range of the data -> S09 (``input_dim = max id + 1``);
- ``expected ndim=3, found ndim=2`` at an RNN: where the rank-2 tensor came from -- an
  RNN with ``return_sequences=False`` (-> ``return_sequences=True``), or the raw data with
  no feature axis (-> add the axis) -> S01;
- ``Layer "dense" expects 1 input(s), but it received 3 input tensors`` after an RNN with
  ``return_state=True`` -> S01 (unpack the list);
- ``Argument output must have rank target.ndim - 1`` in the sparse loss with per-token
  labels against a last-step output -> S07, the cause is the missing
  ``return_sequences=True``;
- ``Shapes used to initialize variables must be fully-defined ... (None, 1)`` for a Dense
  kernel behind ``TextVectorization`` + ``Flatten`` -> S01 (``output_sequence_length``);
- a ``Cast`` from string to float inside the model: a string feature entering a float
  ``Input`` -> S11 (``dtype="string"``);
- ``Unrecognized data type: x=[[...], [...]]`` for a list of lists of different lengths
  -> S13 (pad the sequences).
"""

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: Graph execution error:
    Case(
        name="f22_embedding_ids_start_at_one_input_dim_vocab",
        family="sequence_layers_and_embeddings",
        code="""
vocab_size = 100
# word ids 1..vocab_size, 0 reserved for padding
x = np.random.randint(1, vocab_size + 1, (64, 12))
x[:, -2:] = 0
x[0, 0] = vocab_size   # the last word of the vocabulary
y = np.random.randint(0, 2, 64)

model = keras.Sequential([
    keras.Input((12,)),
    keras.layers.Embedding(vocab_size, 16),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=64, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("reshape", "batch size"),
        fix="Embedding(vocab_size + 1, 16)",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 30)
    Case(
        name="f22_lstm_on_univariate_series_without_feature_axis",
        family="sequence_layers_and_embeddings",
        code="""
series = np.sin(np.linspace(0, 40, 1000)).astype("float32")
window = 30
x = np.stack([series[i:i + window] for i in range(500)])   # (500, 30)
y = series[window:window + 500]

model = keras.Sequential([
    keras.Input(shape=(window,)),
    keras.layers.LSTM(32),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=1, batch_size=50, verbose=0)
""",
        expect="S01",
        must=("feature",),
        must_not=("return_sequences",),
        fix="x[..., None] and Input(shape=(window, 1))",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm_1' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 64)
    Case(
        name="f22_stacked_lstm_first_layer_returns_last_step",
        family="sequence_layers_and_embeddings",
        code="""
x = np.random.rand(64, 20, 5).astype("float32")
y = np.random.randint(0, 2, 64)

model = keras.Sequential([
    keras.Input(shape=(20, 5)),
    keras.layers.LSTM(64),
    keras.layers.Dropout(0.2),
    keras.layers.LSTM(32),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=16, verbose=0)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "feature axis"),
        fix="return_sequences=True on the first LSTM",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(32, 15), output.shape=(32, 6)
    Case(
        name="f22_pos_tagger_per_token_labels_last_step_output",
        family="sequence_layers_and_embeddings",
        code="""
n_words, n_tags, seq_len = 200, 6, 15
x = np.random.randint(1, n_words, (96, seq_len))
y = np.random.randint(0, n_tags, (96, seq_len))   # one tag per token

model = keras.Sequential([
    keras.Input(shape=(seq_len,)),
    keras.layers.Embedding(n_words, 32, mask_zero=True),
    keras.layers.Bidirectional(keras.layers.LSTM(32)),
    keras.layers.Dense(n_tags, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=32, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("to_categorical", "one-hot"),
        fix="LSTM(32, return_sequences=True) so the output is (batch, 15, 6)",
    ),
    # ValueError: Layer "dense" expects 1 input(s), but it received 3 input tensors. Inputs received: [...]
    Case(
        name="f22_lstm_return_state_list_fed_to_dense",
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
        must_not=("concatenate",),
        fix="encoded, state_h, state_c = LSTM(16, return_state=True)(inputs)",
    ),
    # UnimplementedError: Graph execution error:
    Case(
        name="f22_textvectorization_behind_float_input",
        family="sequence_layers_and_embeddings",
        code="""
texts = ["good movie", "bad film", "great plot", "awful acting", "fine cast", "dull story"]
labels = [1, 0, 1, 0, 1, 0]
vectorize = keras.layers.TextVectorization(max_tokens=50, output_sequence_length=5)
vectorize.adapt(texts)

inputs = keras.Input(shape=(1,))
x = keras.layers.Embedding(50, 8)(vectorize(inputs))
x = keras.layers.GlobalAveragePooling1D()(x)
model = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(x))
model.compile(optimizer="adam", loss="binary_crossentropy")
ds = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(2)
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("string",),
        must_not=('astype("float32")', "astype('float32')"),
        fix="keras.Input(shape=(1,), dtype='string')",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None` dimensions). Received: shape=(None, 1) for variable path='sequential/dense/kernel'
    Case(
        name="f22_textvectorization_without_sequence_length_then_flatten",
        family="sequence_layers_and_embeddings",
        code="""
texts = np.array(["a truly great film", "not good", "the plot was thin and slow", "loved it"])
vectorize = keras.layers.TextVectorization(max_tokens=100)
vectorize.adapt(texts)

model = keras.Sequential([
    keras.Input(shape=(1,), dtype="string"),
    vectorize,
    keras.layers.Embedding(100, 8),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
""",
        expect="S01",
        must=("output_sequence_length",),
        must_not=("dtype",),
        fix="TextVectorization(..., output_sequence_length=N) or GlobalAveragePooling1D",
    ),
    # ValueError: Unrecognized data type: x=[[12, 5, 33], [4, 8], [7, 19, 2, 41, 3], [9]] (of type <class 'list'>)
    Case(
        name="f22_token_id_lists_passed_to_fit_unpadded",
        family="sequence_layers_and_embeddings",
        code="""
# token ids from a tokenizer: one list per review, different lengths
sequences = [[12, 5, 33], [4, 8], [7, 19, 2, 41, 3], [9]]
labels = np.array([1, 0, 1, 0])

model = keras.Sequential([
    keras.layers.Embedding(50, 8),
    keras.layers.LSTM(8),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(sequences, labels, epochs=1, verbose=0)
""",
        expect="S13",
        must=("pad",),
        must_not=('astype("float32")', "input_dim"),
        fix="keras.utils.pad_sequences(sequences, maxlen=...)",
    ),
]
