"""Family ``time_series_windows``: windows cut from a series and fed to recurrent and convolutional models.

APIs: recurrent and ``Conv1D`` layers take ``(samples, timesteps, features)``: a univariate
series needs a feature axis of size 1 (``x[..., None]``); an ``LSTM``/``GRU`` returns only its last
step ``(samples, units)`` unless ``return_sequences=True``, which a following recurrent
layer needs and a per-window head must not have.  ``Conv1D`` with ``padding="valid"``
needs at least ``kernel_size`` timesteps (and pooling shrinks them further).
``keras.utils.timeseries_dataset_from_array(data, targets, sequence_length, ...)`` yields
batches of windows ``(batch, sequence_length, features)``; ``targets[i]`` is the target
of the window starting at ``i`` (for forecasting: ``data[:-k]`` and ``targets=data[k:]``).
``tf.data.Dataset.window(size, shift, drop_remainder)`` yields sub-datasets, turned into
tensors with ``flat_map(lambda w: w.batch(size))``; without ``drop_remainder=True`` the
last windows are shorter.  Windows built by hand in NumPy must all have the same length.
A multi-step head ``Dense(h)`` must match the horizon ``h`` of the targets.  A stateful
RNN fixes the batch size in ``batch_shape``, so every batch, the last one included,
must have exactly that many samples.

Evidence a diagnosis needs: the window shapes that reached the failing layer or loss and
the layer that produced them (an RNN without ``return_sequences``, data without a
feature axis), the window length against a kernel size, the horizon of the targets
against the head's units, the lengths of windows built by hand or by ``window``, and a
stateful layer's fixed batch size against the number of samples.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'decoder_lstm' is incompatible with the layer: expected ndim=3, found ndim=2 ...
    Case(
        name="f16_stacked_lstm_first_layer_returns_last_step_only",
        family="time_series_windows",
        code="""
series = np.sin(np.arange(200, dtype="float32") / 8)
x = np.stack([series[i:i + 20] for i in range(150)])[..., None]
y = series[20:170]
model = keras.Sequential([
    keras.Input((20, 1)),
    keras.layers.LSTM(16, name="encoder_lstm"),
    keras.layers.LSTM(8, name="decoder_lstm"),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=1, batch_size=32, verbose=0)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape the data"),
        fix='LSTM(16, return_sequences=True, name="encoder_lstm")',
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs shape=(None, 1, 16)`, `kernel shape=(4, 16, 1 ...
    Case(
        name="f16_conv1d_kernel_longer_than_the_window",
        family="time_series_windows",
        code="""
load = np.random.rand(500).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(
    load[:-1], targets=load[6:], sequence_length=6, batch_size=32)
ds = ds.map(lambda w, t: (w[..., None], t))
model = keras.Sequential([
    keras.Input((6, 1)),
    keras.layers.Conv1D(16, kernel_size=4, activation="relu", name="conv_a"),
    keras.layers.MaxPooling1D(2),
    keras.layers.Conv1D(16, kernel_size=4, activation="relu", name="conv_b"),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("conv_b",),
        must_not=("batch axis", "expand_dims"),
        fix='a longer sequence_length, a smaller kernel_size, or padding="same"',
    ),
    # ValueError: Dimensions must be equal, but are 7 and 5 for '{{node compile_loss/mse/sub}} = Sub[T=DT_FLOAT](data_1, sequent ...
    Case(
        name="f16_multi_step_targets_longer_than_dense_head",
        family="time_series_windows",
        code="""
series = np.random.rand(400).astype("float32")
lookback, horizon = 30, 7
starts = range(len(series) - lookback - horizon)
x = np.stack([series[s:s + lookback] for s in starts])[..., None]
y = np.stack([series[s + lookback:s + lookback + horizon] for s in starts])
model = keras.Sequential([
    keras.Input((lookback, 1)),
    keras.layers.LSTM(32),
    keras.layers.Dense(5, name="forecast_head"),
])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=1, batch_size=64, verbose=0)
""",
        expect="S07",
        must=("forecast_head",),
        must_not=("sparse", "to_categorical"),
        fix="Dense(horizon) = Dense(7) for 7-step targets",
    ),
    # InvalidArgumentError: {{function_node ...}} Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: ...
    Case(
        name="f16_window_flat_map_without_drop_remainder_then_batch",
        family="time_series_windows",
        code="""
readings = tf.data.Dataset.range(50).map(lambda v: tf.cast(v, tf.float32))
windows = readings.window(10, shift=1)
windows = windows.flat_map(lambda w: w.batch(10))
pairs = windows.map(lambda w: (w[:-1], w[-1:])).batch(16)
for features, target in pairs:
    pass
""",
        expect="S13",
        must=("drop_remainder",),
        must_not=("ragged_batch",),
        fix="readings.window(10, shift=1, drop_remainder=True)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   Incompatible shapes: [2,...] vs. [4,...]
    Case(
        name="f16_stateful_lstm_batch_shape_and_a_partial_last_batch",
        family="time_series_windows",
        code="""
x = np.random.rand(18, 12, 2).astype("float32")
y = np.random.rand(18, 1).astype("float32")
inputs = keras.Input(batch_shape=(4, 12, 2))
h = keras.layers.LSTM(8, stateful=True, name="stateful_lstm")(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(h))
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
""",
        expect="S07",
        must=("stateful",),
        must_not=("reshape the labels", "return_sequences"),
        fix="trim the data to a multiple of 4 samples (x[:16]) or drop the last partial batch",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(8,), output.shape=(8, 25, 4 ...
    Case(
        name="f16_classifier_after_gru_with_return_sequences",
        family="time_series_windows",
        code="""
signals = np.random.rand(40, 25, 3).astype("float32")
activity = np.random.randint(0, 4, size=(40,))
model = keras.Sequential([
    keras.Input((25, 3)),
    keras.layers.GRU(16, return_sequences=True, name="gru"),
    keras.layers.Dense(4, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(signals, activity, epochs=1, batch_size=8, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("to_categorical", "one-hot"),
        fix="GRU(16) without return_sequences (or a pooling layer) before the classifier",
    ),
    # ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. T ...
    Case(
        name="f16_hand_windows_loop_runs_past_the_series_end",
        family="time_series_windows",
        code="""
temps = np.random.rand(100).astype("float32")
size = 12
windows = [temps[i:i + size] for i in range(len(temps) - 5)]
x = np.array(windows)[..., None]
""",
        expect="S13",
        must=("range",),
        must_not=("padded_batch", "ragged_batch"),
        fix="range(len(temps) - size + 1) so every window has 12 values",
    ),
    # ValueError: `sampling_rate` must be higher than 0. Received: sampling_rate=0
    Case(
        name="f16_timeseries_dataset_sampling_rate_zero",
        family="time_series_windows",
        code="""
hourly = np.random.rand(240, 3).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(
    hourly, targets=None, sequence_length=24, sampling_rate=0, batch_size=16)
""",
        expect=None,
        unexplained="the message says `sampling_rate` must be higher than 0 and shows the value received",
        fix="sampling_rate=1 (every step) or 6 (one sample per 6 hours)",
    ),
]
