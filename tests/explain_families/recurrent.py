"""Family: recurrent and sequence models (LSTM, GRU, SimpleRNN and their wrappers).

API: ``keras.layers.LSTM``/``GRU``/``SimpleRNN`` (``units``, ``return_sequences``,
``return_state``, ``stateful``, ``unroll``; called with ``initial_state=``),
``Bidirectional`` (``merge_mode`` "concat"/"sum"/"mul"/"ave"/None, and with
``return_state=True`` the forward and backward states), stacked RNNs,
``TimeDistributed(Dense)``, ``Masking(mask_value=)``, ``Embedding(mask_zero=True)``
feeding an RNN, ``keras.layers.RNN(cell)`` with a custom cell, encoder/decoder models
that hand the encoder's states to the decoder, ``ConvLSTM2D``, and time-series windows
(``(batch, steps, features)`` arrays or ``timeseries_dataset_from_array``).  Contract:
an RNN layer takes a 3-D ``(batch, timesteps, features)`` float tensor (``ConvLSTM2D``
a 5-D ``(batch, time, rows, cols, channels)`` one); it returns ``(batch, units)`` unless
``return_sequences=True`` gives ``(batch, timesteps, units)``, so a second RNN stacked
on it needs ``return_sequences=True`` on the first, and the labels must be per step
``(batch, timesteps, ...)`` for a sequence output and per sequence ``(batch, ...)``
otherwise; ``Bidirectional`` doubles the feature width with "concat" and returns a
list ``[forward, backward]`` with ``merge_mode=None``; ``initial_state`` must be one
tensor of shape ``(batch, units)`` per state of the layer's cell (``[h, c]`` for an
LSTM, ``[h]`` for a GRU/SimpleRNN), so a decoder initialised from concatenated
bidirectional states needs twice the encoder's units; a custom cell's ``state_size``
lists one size per state its ``call`` receives and returns; ``stateful=True`` fixes the
batch size (``keras.Input(..., batch_size=B)``) and every batch, the last one included,
must have exactly B sequences; ``Embedding(mask_zero=True)`` reserves id 0 for padding,
so ``input_dim`` must be the vocabulary size + 1.  Evidence a diagnosis could read at
the failure: each RNN layer's config (units, return_sequences, return_state, stateful,
merge_mode, the cell's state_size), the shapes through the model and the layer that
produced each input, the data's shape (rank, number of samples against the fixed batch
size), the states passed to ``initial_state`` and their widths, the loss and the label
shape against the output shape, an Embedding's ``input_dim`` against the largest id.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "recurrent"

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'lstm_1' is incompatible with the
    # layer: expected ndim=3, found ndim=2. Full shape received: (None, 64)
    # (stacked LSTMs: the first one lacks return_sequences=True; a Dropout sits between)
    Case(
        "rn_stacked_lstm_without_return_sequences",
        FAMILY,
        """
x = np.random.rand(40, 20, 3).astype("float32")
y = np.random.rand(40, 1).astype("float32")
model = keras.Sequential([
    keras.Input((20, 3)),
    keras.layers.LSTM(64),
    keras.layers.Dropout(0.2),
    keras.layers.LSTM(32),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S01",
        must=("return_sequences",),
        must_not=("expand_dims", "batch axis"),
        fix="return_sequences=True on the first LSTM",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(None,), output.shape=(None, 15, 3)
    # (one label per sequence, but the model ends in a per-step TimeDistributed head)
    Case(
        "rn_timedistributed_head_with_per_sequence_labels",
        FAMILY,
        """
clips = np.random.rand(40, 15, 4).astype("float32")
activity = np.random.randint(0, 3, 40)  # one activity label per clip
model = keras.Sequential([
    keras.Input((15, 4)),
    keras.layers.LSTM(16, return_sequences=True),
    keras.layers.TimeDistributed(keras.layers.Dense(3, activation="softmax")),
])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(clips, activity, epochs=1, verbose=0)
""",
        "S07",
        must=("return_sequences",),
        must_not=("to_categorical", "one-hot"),
        fix="return_sequences=False and a plain Dense head",
    ),
    # InvalidArgumentError: Graph execution error: ... Incompatible shapes: [2,64] vs.
    # [8,64] [[{{node gradient_tape/.../lstm_cell_1/Add_grad/BroadcastGradientArgs}}]]
    # (stateful LSTM with batch_size=8, 50 samples: the last batch holds 2)
    Case(
        "rn_stateful_lstm_partial_last_batch",
        FAMILY,
        """
series_x = np.random.rand(50, 10, 2).astype("float32")
series_y = np.random.rand(50, 1).astype("float32")
model = keras.Sequential([
    keras.Input((10, 2), batch_size=8),
    keras.layers.LSTM(16, stateful=True),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(series_x, series_y, batch_size=8, epochs=1, shuffle=False, verbose=0)
""",
        "S07",
        must=("stateful",),
        must_not=("return_sequences", "reshape"),
        fix="trim the data to a multiple of 8 (48 rows)",
    ),
    # ValueError: Layer "dense" expects 1 input(s), but it received 2 input tensors.
    # Inputs received: [<KerasTensor shape=(None, 16), ...>, <KerasTensor shape=(None, 16), ...>]
    # (Bidirectional with merge_mode=None returns [forward, backward])
    Case(
        "rn_bidirectional_merge_mode_none_into_dense",
        FAMILY,
        """
reviews = np.random.rand(32, 12, 5).astype("float32")
liked = np.random.randint(0, 2, 32)
model = keras.Sequential([
    keras.Input((12, 5)),
    keras.layers.Bidirectional(keras.layers.GRU(16), merge_mode=None),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(reviews, liked, epochs=1, verbose=0)
""",
        "S01",
        must=("merge_mode",),
        must_not=("return_state",),
        fix='merge_mode="concat" (the default)',
    ),
    # InvalidArgumentError: Graph execution error: ... indices[0,7] = 10 is not in
    # [0, 10) [[{{node sequential/embedding/GatherV2}}]]
    # (word ids start at 1, 0 is the padding of mask_zero=True, input_dim=len(word_index))
    Case(
        "rn_mask_zero_embedding_vocab_without_plus_one",
        FAMILY,
        """
word_index = {w: i + 1 for i, w in enumerate("the cat sat on mat a dog ran far away".split())}
sentences = ["the cat sat on the mat", "a dog ran far away", "the dog sat"] * 10
seqs = [[word_index[w] for w in s.split()] for s in sentences]
x = keras.utils.pad_sequences(seqs, maxlen=8)
y = np.random.randint(0, 2, len(x))
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Embedding(input_dim=len(word_index), output_dim=16, mask_zero=True),
    keras.layers.LSTM(8),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S09",
        must=("input_dim",),
        must_not=("re-index",),
        fix="input_dim=len(word_index) + 1",
    ),
    # ValueError: Input 0 with name 'None' of layer 'gru' is incompatible with the layer:
    # expected ndim=3, found ndim=2. Full shape received: (None, 12)
    # (padded univariate readings are (batch, steps): the feature axis is missing)
    Case(
        "rn_masking_padded_readings_without_feature_axis",
        FAMILY,
        """
readings = [np.random.rand(n).astype("float32") for n in (5, 9, 7, 12) * 8]
padded = keras.utils.pad_sequences(readings, maxlen=12, dtype="float32", padding="post", value=0.0)
faulty = np.random.randint(0, 2, len(padded))
model = keras.Sequential([
    keras.Input((12,)),
    keras.layers.Masking(mask_value=0.0),
    keras.layers.GRU(16),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(padded, faulty, epochs=1, verbose=0)
""",
        "S01",
        must=("gru",),
        must_not=("return_sequences", "batch axis"),
        fix="Input((12, 1)) and padded[..., None]",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv_lstm2d' is incompatible with the
    # layer: expected ndim=5, found ndim=4. Full shape received: (None, 6, 24, 24)
    # (grayscale frame sequences without a channel axis)
    Case(
        "rn_convlstm2d_frames_without_channel_axis",
        FAMILY,
        """
frames = np.random.rand(16, 6, 24, 24).astype("float32")  # (clips, time, rows, cols)
next_frame = np.random.rand(16, 24, 24, 1).astype("float32")
model = keras.Sequential([
    keras.layers.ConvLSTM2D(8, 3, padding="same"),
    keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(frames, next_frame, epochs=1, verbose=0)
""",
        "S01",
        must=("conv_lstm2d",),
        must_not=("batch axis", "return_sequences"),
        fix="frames[..., None] (add the channel axis)",
    ),
    # ValueError: Exception encountered when calling LSTMCell.call().
    # Dimensions must be equal, but are 128 and 64 for '{{node .../lstm_cell_1/MatMul_1}}
    # = MatMul[...]' with input shapes: [?,128], [64,256].
    # (bidirectional encoder states concatenated to 128, decoder LSTM has latent_dim=64)
    Case(
        "rn_seq2seq_bidirectional_states_into_narrow_decoder",
        FAMILY,
        """
latent_dim = 64
enc_in = keras.Input((None, 10))
dec_in = keras.Input((None, 12))
_, fh, fc, bh, bc = keras.layers.Bidirectional(keras.layers.LSTM(latent_dim, return_state=True))(enc_in)
state_h = keras.layers.Concatenate()([fh, bh])
state_c = keras.layers.Concatenate()([fc, bc])
dec_seq = keras.layers.LSTM(latent_dim, return_sequences=True)(dec_in, initial_state=[state_h, state_c])
out = keras.layers.Dense(12, activation="softmax")(dec_seq)
model = keras.Model([enc_in, dec_in], out)
model.compile("adam", "categorical_crossentropy")
src = np.random.rand(24, 9, 10).astype("float32")
tgt = np.random.rand(24, 7, 12).astype("float32")
model.fit([src, tgt], tgt, epochs=1, verbose=0)
""",
        "S01",
        must=("initial_state", "128"),
        must_not=("return_sequences", "expand_dims"),
        fix="decoder LSTM(2 * latent_dim)",
    ),
    # ValueError: Exception encountered when calling PeepholeCell.call().
    # not enough values to unpack (expected 2, got 1)
    # (custom LSTM-like cell keeps [h, c] but declares state_size = units)
    Case(
        "rn_custom_cell_state_size_single_for_two_states",
        FAMILY,
        """
class PeepholeCell(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 4 * self.units))
        self.recurrent = self.add_weight(shape=(self.units, 4 * self.units))

    def call(self, inputs, states):
        h_prev, c_prev = states
        z = inputs @ self.kernel + h_prev @ self.recurrent
        i, f, g, o = keras.ops.split(z, 4, axis=-1)
        c = keras.ops.sigmoid(f) * c_prev + keras.ops.sigmoid(i) * keras.ops.tanh(g)
        h = keras.ops.sigmoid(o) * keras.ops.tanh(c)
        return h, [h, c]

x = np.random.rand(32, 10, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input((10, 4)), keras.layers.RNN(PeepholeCell(16)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S01",
        must=("state_size",),
        must_not=("return_sequences",),
        fix="state_size = [units, units]",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 177
    # (sliding windows built with range(len - window + 1), targets series[window:])
    Case(
        "rn_window_targets_off_by_one",
        FAMILY,
        """
series = np.sin(np.arange(200) / 8.0).astype("float32")
window = 24
x_win = np.stack([series[i:i + window] for i in range(len(series) - window + 1)])[..., None]
y_next = series[window:]
model = keras.Sequential([keras.Input((window, 1)), keras.layers.SimpleRNN(16), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x_win, y_next, epochs=1, verbose=0)
""",
        "S12",
        must=("177", "176"),
        must_not=("batch axis", "return_sequences"),
        fix="range(len(series) - window) windows",
    ),
]
