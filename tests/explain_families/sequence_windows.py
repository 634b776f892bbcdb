"""Family: time-series and sequence windows cut for RNN/Conv1D models.

API: ``keras.utils.timeseries_dataset_from_array(data, targets, sequence_length,
sequence_stride=1, sampling_rate=1, batch_size=128, shuffle=False, ...)``: axis 0 of
``data`` is time and every other axis is kept, so a 1-D series yields windows of
``(batch, sequence_length)`` with no feature axis; each window holds ``sequence_length``
samples taken every ``sampling_rate`` steps (it spans ``(sequence_length - 1) *
sampling_rate + 1`` steps); ``targets[i]`` belongs to the window that starts at ``i``
(the number of windows is cut to ``len(targets)``); ``batch_size=None`` yields single,
unbatched windows; the last batch may be smaller, and there is no ``drop_remainder``.
``tf.data.Dataset.window(size, shift, stride, drop_remainder)`` yields a dataset of
*datasets* (for tuple elements, a tuple of datasets), which ``flat_map(lambda w:
w.batch(size))`` (``Dataset.zip`` of the parts for tuples) turns back into tensors.
``numpy.lib.stride_tricks.sliding_window_view(x, window_shape, axis)`` slides along
``axis`` only, appends the window axis LAST (a ``(T, F)`` array windowed on axis 0 gives
``(T - n + 1, F, n)``), and includes the final window, so it yields ``T - n + 1``
windows. Recurrent and convolutional layers take ``(batch, steps, features)``; an RNN
returns ``(batch, units)`` unless ``return_sequences=True`` (needed for one output per
step); ``stateful=True`` fixes the batch size (``Input(batch_shape=...)``) and every
batch must have exactly that size. Evidence a diagnosis can read at the failure: the
window function's arguments (``sequence_length``, ``sampling_rate``, ``batch_size``,
``window``'s size/shift/``drop_remainder``, ``sliding_window_view``'s ``window_shape``
and ``axis``), the shapes and dtypes of the arrays, the dataset's ``element_spec``
(including ``DatasetSpec`` components where a ``flat_map`` is missing), the dataset's
cardinality and batch size, the model's ``Input`` shape, its layers (names, ``units``,
``return_sequences``, ``stateful``, ``kernel_size``, ``padding``) and last layer, and
the loss.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "sequence_windows"

CASES = [
    # ValueError: Only input tensors may be passed as positional arguments. The following
    # argument value should be passed as a keyword argument:
    # <tensorflow.python.data.ops.dataset_ops._NestedVariant object at 0x...>
    # (window() output zipped with targets and batched: each x is a dataset, no flat_map)
    Case(
        "sw_window_zip_without_flat_map",
        FAMILY,
        """
series = np.sin(np.arange(80) / 5).astype("float32")
x = tf.data.Dataset.from_tensor_slices(series[:-1]).window(10, shift=1, drop_remainder=True)
y = tf.data.Dataset.from_tensor_slices(series[10:])
ds = tf.data.Dataset.zip((x, y)).batch(8)
model = keras.Sequential([keras.Input((10, 1)), keras.layers.LSTM(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S12",
        must=("flat_map",),
        must_not=("keyword", "output_signature"),
        fix="x.flat_map(lambda w: w.batch(10))",
    ),
    # TypeError: <lambda>() takes 1 positional argument but 2 were given
    # (window() over (features, labels) pairs gives a pair of datasets per window)
    Case(
        "sw_window_tuple_flat_map_one_argument",
        FAMILY,
        """
feats = np.random.rand(60, 3).astype("float32")
labels = np.random.rand(60).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((feats, labels))
ds = ds.window(12, shift=1, drop_remainder=True)
ds = ds.flat_map(lambda w: w.batch(12))
""",
        "S12",
        must=("flat_map",),
        must_not=("padded_batch", "ragged"),
        fix="flat_map(lambda x, y: Dataset.zip((x.batch(12), y.batch(12))))",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv1d' is incompatible with the
    # layer: expected min_ndim=3, found ndim=2. Full shape received: (None, None)
    # (a 1-D series into timeseries_dataset_from_array: windows have no feature axis)
    Case(
        "sw_tsdfa_univariate_series_conv1d",
        FAMILY,
        """
load = np.random.rand(150).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(load[:-12], targets=load[12:], sequence_length=12,
                                               batch_size=16)
model = keras.Sequential([keras.layers.Conv1D(16, 3, activation="relu"),
                          keras.layers.GlobalMaxPooling1D(), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S01",
        must=("conv1d",),
        must_not=("return_sequences", "ensure_shape", "set_shape"),
        fix="load[:, None] (a feature axis of 1)",
    ),
    # InvalidArgumentError: Graph execution error: ... Matrix size-incompatible:
    # In[0]: [16,180], In[1]: [30,16] [[{{node .../dense_1/Relu}}]]
    # (sequence_length given as the span in raw steps; with sampling_rate=6 the window
    # holds 36 samples, the model was built for past // step = 6)
    Case(
        "sw_tsdfa_sequence_length_is_span_not_samples",
        FAMILY,
        """
weather = np.random.rand(300, 5).astype("float32")
past, step = 36, 6
ds = keras.utils.timeseries_dataset_from_array(weather[:-past], targets=weather[past:, 1],
                                               sequence_length=past, sampling_rate=step,
                                               batch_size=16)
model = keras.Sequential([keras.Input((past // step, 5)), keras.layers.Flatten(),
                          keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S01",
        must=("sequence_length",),
        must_not=("batch axis", "return_sequences"),
        fix="sequence_length=past // step",
    ),
    # InvalidArgumentError: Graph execution error: ... Incompatible shapes: [11,32] vs.
    # [16,32] [[{{node gradient_tape/.../lstm_1/while/.../lstm_cell_1/Add_grad/...}}]]
    # (stateful LSTM with batch_shape=(16, ...); the dataset's last batch has 11 windows)
    Case(
        "sw_stateful_lstm_partial_last_batch",
        FAMILY,
        """
series = np.random.rand(110, 1).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(series[:-10], targets=series[10:], sequence_length=10,
                                               batch_size=16, shuffle=False)
model = keras.Sequential([keras.Input(batch_shape=(16, 10, 1)),
                          keras.layers.LSTM(8, stateful=True), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S07",
        must=("stateful", "16"),
        must_not=("return_sequences", "sparse"),
        fix="drop the partial batch: unbatch().batch(16, drop_remainder=True)",
    ),
    # ValueError: Exception encountered when calling Sequential.call(). Invalid input shape
    # for input Tensor("data:0", shape=(None, 2), dtype=float32) ... Expected shape
    # (None, 10, 2), but input has incompatible shape (None, 2)
    # (batch_size=None to split with take/skip, the splits never batched)
    Case(
        "sw_tsdfa_batch_size_none_never_batched",
        FAMILY,
        """
data = np.random.rand(120, 2).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(data[:-10], targets=data[10:, 0], sequence_length=10,
                                               batch_size=None, shuffle=True, seed=0)
train_ds, val_ds = ds.take(80), ds.skip(80)
model = keras.Sequential([keras.Input((10, 2)), keras.layers.LSTM(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(train_ds, validation_data=val_ds, epochs=1, verbose=0)
""",
        "S01",
        must=("batch_size",),
        must_not=("return_sequences", "expand_dims"),
        fix="train_ds.batch(16), val_ds.batch(16)",
    ),
    # ValueError: Exception encountered when calling Sequential.call(). Input 0 with name
    # 'None' of layer 'conv1d' is incompatible with the layer: expected axis -1 of input
    # shape to have value 3, but received input with shape (32, 3, 24)
    # (sliding_window_view appends the window axis last: (96, 3, 24), not (96, 24, 3))
    Case(
        "sw_sliding_window_view_window_axis_last",
        FAMILY,
        """
from numpy.lib.stride_tricks import sliding_window_view
sensors = np.random.rand(120, 3).astype("float32")
lookback = 24
windows = sliding_window_view(sensors[:-1], lookback, axis=0)
target = sensors[lookback:, 0]
model = keras.Sequential([keras.Input((lookback, 3)),
                          keras.layers.Conv1D(16, 5, padding="causal", activation="relu"),
                          keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(windows, target, epochs=1, verbose=0)
""",
        "S01",
        must=("windows",),
        must_not=("padding", "return_sequences", "batch axis"),
        fix="windows.transpose(0, 2, 1)",
    ),
    # ValueError: Exception encountered when calling LSTMCell.call(). Dimensions must be
    # equal, but are 8 and 30 for '{{node .../lstm_cell_1/MatMul}} = MatMul[...]' with
    # input shapes: [?,8], [30,64].
    # (sliding_window_view along axis=1, the 30 stock columns, instead of axis=0, time)
    Case(
        "sw_sliding_window_view_over_feature_axis",
        FAMILY,
        """
from numpy.lib.stride_tricks import sliding_window_view
prices = np.random.rand(200, 30).astype("float32")   # 200 days x 30 stocks
lookback = 8
X = sliding_window_view(prices, lookback, axis=1)
y = prices[:, 0]
model = keras.Sequential([keras.Input((lookback, 30)), keras.layers.LSTM(16), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X, y, epochs=1, verbose=0)
""",
        "S01",
        must=("axis",),
        must_not=("return_sequences", "batch axis", "expand_dims"),
        fix="slide along axis=0 (time), then transpose(0, 2, 1)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(16, 20), output.shape=(16, 3)
    # (one tag per step, but the LSTM returns only its last state)
    Case(
        "sw_per_step_tags_without_return_sequences",
        FAMILY,
        """
frames = np.random.rand(64, 20, 6).astype("float32")
tags = np.random.randint(0, 3, (64, 20))
model = keras.Sequential([keras.Input((20, 6)), keras.layers.LSTM(16, name="tagger"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(frames, tags, epochs=1, batch_size=16, verbose=0)
""",
        "S07",
        must=("return_sequences", "tagger"),
        must_not=("one-hot",),
        fix="LSTM(16, return_sequences=True)",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 65 / 'y' sizes: 64
    # (sliding_window_view keeps the final window, which has no next value to predict)
    Case(
        "sw_sliding_window_view_extra_last_window",
        FAMILY,
        """
from numpy.lib.stride_tricks import sliding_window_view
demand = np.random.rand(80).astype("float32")
n_steps = 16
X = sliding_window_view(demand, n_steps)[..., None]
y = demand[n_steps:]
model = keras.Sequential([keras.Input((n_steps, 1)), keras.layers.SimpleRNN(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X, y, epochs=1, batch_size=16, verbose=0)
""",
        "S12",
        must=("65", "64"),
        must_not=("batch_size", "return_sequences"),
        fix="X = X[:-1] (or window demand[:-1])",
    ),
]
