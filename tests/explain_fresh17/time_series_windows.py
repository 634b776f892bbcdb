"""Family ``time_series_windows``: sliding windows cut from a series, fed to sequence models.

APIs: recurrent and convolutional sequence layers (``LSTM``, ``GRU``, ``Conv1D``) take
``(samples, timesteps, features)``: a univariate series cut into windows of shape
``(samples, timesteps)`` needs a trailing feature axis (``x[..., None]`` and
``Input((timesteps, 1))``), and data laid out ``(samples, features, timesteps)`` must be
transposed, not reshaped.  An ``LSTM``/``GRU`` returns only its last step unless
``return_sequences=True`` (needed by a following recurrent layer; wrong before a
multi-step ``Dense(horizon)`` head, which then predicts per time step).  ``Conv1D``/
``MaxPooling1D`` with ``padding="valid"`` shorten the time axis; a window shorter than what
the stack consumes leaves nothing.  ``keras.utils.timeseries_dataset_from_array(data,
targets, sequence_length, ...)`` yields ``(inputs, targets)`` only when ``targets`` is given
(``targets=None`` yields inputs alone, for prediction).  ``Dataset.window(size, shift)``
yields shorter windows at the end unless ``drop_remainder=True``, and ``batch`` after
``flat_map`` then meets elements of different lengths.  A ``stateful=True`` RNN fixes the
batch size in ``Input(batch_shape=...)``: ``fit`` must use that ``batch_size`` and a
sample count divisible by it.

Evidence a diagnosis needs: the shape the sequence layer received against the
``(batch, timesteps, features)`` it needs and where that shape came from (the windows
array, the layer before it and its ``return_sequences``), the output's shape against the
targets' shape (a time axis too many), the lengths of the windows in a batch (the last
windows shorter), the structure of the dataset (inputs only, no targets), and the batch
size fixed by a stateful layer against the one ``fit`` used.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 20)
    Case(
        name="f17_univariate_windows_without_feature_axis_into_lstm",
        family="time_series_windows",
        code="""
series = np.sin(np.arange(200) / 10).astype("float32")
windows = np.stack([series[i:i + 20] for i in range(150)])
targets = series[20:170]
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.LSTM(16),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(windows, targets, epochs=1, verbose=0)
""",
        expect="S01",
        must=("lstm",),
        must_not=("return_sequences",),
        fix="Input((20, 1)) and windows[..., None]",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm_2' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 32)
    Case(
        name="f17_stacked_lstm_first_layer_returns_last_step_only",
        family="time_series_windows",
        code="""
x = np.random.rand(32, 24, 3).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([
    keras.Input((24, 3)),
    keras.layers.LSTM(32),
    keras.layers.LSTM(16),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape the data"),
        fix="LSTM(32, return_sequences=True)",
    ),
    # InvalidArgumentError: Graph execution error:
    # Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: [4], [batch]: [5]
    Case(
        name="f17_window_without_drop_remainder_batched_after_flat_map",
        family="time_series_windows",
        code="""
series = np.arange(50, dtype="float32")
ds = tf.data.Dataset.from_tensor_slices(series).window(6, shift=1)
ds = ds.flat_map(lambda w: w.batch(6))
ds = ds.map(lambda w: (w[:-1], w[-1])).batch(8)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S13",
        must=("drop_remainder",),
        must_not=("padded_batch",),
        fix="window(6, shift=1, drop_remainder=True)",
    ),
    # ValueError: Input 0 with name 'input_layer_23' of layer 'functional_19' is incompatible with the layer: expected shape=(None, 50, 3), found shape=(None, 3, 50)
    Case(
        name="f17_sensor_array_laid_out_channels_first_into_gru",
        family="time_series_windows",
        code="""
x = np.random.rand(16, 3, 50).astype("float32")
y = np.random.rand(16, 1).astype("float32")
inputs = keras.Input((50, 3))
h = keras.layers.GRU(8)(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(h))
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("transpose",),
        must_not=("reshape",),
        fix="np.transpose(x, (0, 2, 1))",
    ),
    # InvalidArgumentError: Graph execution error:
    # Incompatible shapes: [16,12] vs. [16,48,12]
    Case(
        name="f17_multistep_dense_head_after_return_sequences_lstm",
        family="time_series_windows",
        code="""
x = np.random.rand(16, 48, 1).astype("float32")
y = np.random.rand(16, 12).astype("float32")
model = keras.Sequential([
    keras.Input((48, 1)),
    keras.layers.LSTM(16, return_sequences=True),
    keras.layers.Dense(12),
])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("expand_dims", "batch size"),
        fix="LSTM(16) (return_sequences=False) before Dense(12)",
    ),
    # ValueError: None values not supported.
    Case(
        name="f17_timeseries_dataset_built_with_targets_none_then_fit",
        family="time_series_windows",
        code="""
data = np.random.rand(100, 3).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(
    data, targets=None, sequence_length=10, batch_size=16
)
model = keras.Sequential([
    keras.Input((10, 3)),
    keras.layers.LSTM(8),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("targets",),
        must_not=("fillna", "dropna"),
        fix="targets=data[10:, 0] with data[:-10], so the dataset yields (inputs, targets)",
    ),
    # InvalidArgumentError: Graph execution error:
    # Incompatible shapes: [32,1] vs. [8,1]
    Case(
        name="f17_stateful_lstm_batch_shape_8_fit_with_default_batch",
        family="time_series_windows",
        code="""
x = np.random.rand(40, 10, 1).astype("float32")
y = np.random.rand(40, 1).astype("float32")
model = keras.Sequential([
    keras.Input(batch_shape=(8, 10, 1)),
    keras.layers.LSTM(4, stateful=True),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0, shuffle=False)
""",
        expect="S07",
        must=("batch_size",),
        must_not=("reshape the labels", "expand_dims"),
        fix="fit(..., batch_size=8)",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs shape=(None, 2, 8)`, `kernel shape=(3, 8, 8)`, `dilation_rate=[1]`, `strides=(1,)`, `padding=valid`.
    Case(
        name="f17_conv1d_stack_consumes_short_six_step_window",
        family="time_series_windows",
        code="""
x = np.random.rand(16, 6, 2).astype("float32")
y = np.random.rand(16, 1).astype("float32")
model = keras.Sequential([
    keras.Input((6, 2)),
    keras.layers.Conv1D(8, 3, activation="relu"),
    keras.layers.MaxPooling1D(2),
    keras.layers.Conv1D(8, 3),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("padding",),
        must_not=("expand_dims", "batch axis"),
        fix="padding='same' on the Conv1D layers, or longer windows",
    ),
]
