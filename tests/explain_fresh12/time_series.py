"""Family ``time_series``: windows of a series fed to recurrent and convolutional models.

APIs: ``keras.utils.timeseries_dataset_from_array(data, targets, sequence_length, ...)``
(yields ``(batch, sequence_length, features)`` windows of ``data``, paired with
``targets[i]`` for the window starting at ``i``; with ``targets=None`` it yields the
windows alone, with no labels for ``fit``), ``tf.data.Dataset.window`` (yields a dataset of
*datasets*; ``flat_map(lambda w: w.batch(size))`` turns each window into a tensor before any
indexing), the sequence layers (``LSTM``/``GRU``/``SimpleRNN``/``Conv1D`` take rank-3
``(batch, steps, features)`` input; an RNN without ``return_sequences=True`` returns
``(batch, units)``, which a second RNN or ``TimeDistributed`` cannot take; the features of
the data must match the last axis of ``keras.Input``; each ``valid`` ``Conv1D`` shortens the
steps by ``kernel_size - 1`` and pooling halves them, so a short window can run out of
steps), multi-step forecasts (the output layer's units are the horizon, and the targets
must have the same number of steps), stateful RNNs (``Input(batch_shape=(B, ...))`` fixes
the batch size, so every batch, the last one included, must have exactly ``B`` windows),
and ``TimeDistributed(layer)`` (applies ``layer`` to every step of a rank >= 3 input).

Evidence a diagnosis needs: the shape of the windows the model receives (steps and
features) against the model's ``Input``, the layer that produced a rank-2 tensor
(an RNN without ``return_sequences``) or a too short axis (kernel sizes, pooling), the
horizon of the targets against the output units, the dataset's element structure (windows
without targets; windows still datasets), and for a stateful model its fixed batch size
against the number of samples.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'lstm_...' is incompatible with the layer:
    #   expected ndim=3, found ndim=2. Full shape received: (None, 32)
    Case(
        name="f12_second_lstm_stacked_on_last_state_only",
        family="time_series",
        code="""
model = keras.Sequential([
    keras.Input((30, 2)),
    keras.layers.LSTM(32),
    keras.layers.LSTM(16),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims",),
        fix="LSTM(32, return_sequences=True) for the first LSTM",
    ),
    # ValueError: Exception encountered when calling GRUCell.call().
    #   Dimensions must be equal, but are 3 and 1 for '{{node .../gru_cell_.../MatMul}} = MatMul[...]'
    #   with input shapes: [?,3], [1,24].
    Case(
        name="f12_three_sensor_windows_into_gru_declared_with_one_feature",
        family="time_series",
        code="""
sensors = np.random.rand(100, 3).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(
    sensors[:-1], targets=sensors[1:, 0], sequence_length=12, batch_size=8
)
model = keras.Sequential([keras.Input((12, 1)), keras.layers.GRU(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("gru",),
        must_not=("return_sequences",),
        fix="keras.Input((12, 3)) (the series has 3 features)",
    ),
    # ValueError: Dimensions must be equal, but are 12 and 6 for '{{node compile_loss/mse/sub}} = Sub[T=DT_FLOAT](...)'
    #   with input shapes: [?,12], [?,6].
    Case(
        name="f12_six_step_dense_head_for_twelve_step_forecast_targets",
        family="time_series",
        code="""
series = np.sin(np.arange(300, dtype="float32") / 10)
horizon = 12
X = np.stack([series[i:i + 48] for i in range(200)])[..., None]
Y = np.stack([series[i + 48:i + 48 + horizon] for i in range(200)])
model = keras.Sequential([keras.Input((48, 1)), keras.layers.GRU(16), keras.layers.Dense(6)])
model.compile("adam", "mse")
model.fit(X, Y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("dense",),
        must_not=("return_sequences",),
        fix="Dense(horizon) (12 units)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Incompatible shapes: [2,1] vs. [8,1]  [[{{node gradient_tape/compile_loss/mse/sub/BroadcastGradientArgs}}]]
    #   (the failing node varies between runs: in other runs the LSTM cell's gradient, [2,32] vs. [8,32])
    Case(
        name="f12_stateful_lstm_batch_of_8_fit_on_50_windows",
        family="time_series",
        code="""
windows = np.random.rand(50, 10, 1).astype("float32")
targets = np.random.rand(50, 1).astype("float32")
model = keras.Sequential([
    keras.Input(batch_shape=(8, 10, 1)),
    keras.layers.LSTM(8, stateful=True),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(windows, targets, batch_size=8, epochs=1, shuffle=False, verbose=0)
""",
        expect="S12",
        must=("batch_shape",),
        must_not=("reshape",),
        fix="use a multiple of 8 windows (windows[:48], targets[:48])",
    ),
    # ValueError: `TimeDistributed` Layer should be passed an `input_shape` with at least 3
    #   dimensions, received: (None, 24)
    Case(
        name="f12_timedistributed_dense_on_flat_24_hour_input",
        family="time_series",
        code="""
hours = keras.Input((24,))
per_hour = keras.layers.TimeDistributed(keras.layers.Dense(4))(hours)
model = keras.Model(hours, keras.layers.Dense(1)(keras.layers.Flatten()(per_hour)))
""",
        expect="S01",
        must=("timedistributed",),
        must_not=("return_sequences",),
        fix="keras.Input((24, 1)) (one feature per hour)",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs shape=(None, 1, 16)`,
    #   `kernel shape=(3, 16, 16)`, `dilation_rate=[1]`, `strides=(1,)`, `padding=valid`.
    Case(
        name="f12_conv1d_stack_runs_out_of_steps_on_weekly_window",
        family="time_series",
        code="""
model = keras.Sequential([
    keras.Input((7, 3)),
    keras.layers.Conv1D(16, 5, activation="relu"),
    keras.layers.MaxPooling1D(2),
    keras.layers.Conv1D(16, 3),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("conv1d",),
        must_not=("expand_dims",),
        fix='padding="same" (or smaller kernels / longer windows)',
    ),
    # TypeError: '_NestedVariant' object is not subscriptable
    Case(
        name="f12_batched_windows_sliced_without_flat_map",
        family="time_series",
        code="""
series = np.arange(100, dtype="float32")
ds = tf.data.Dataset.from_tensor_slices(series).window(11, shift=1, drop_remainder=True)
ds = ds.batch(32)
ds = ds.map(lambda w: (w[:, :-1, None], w[:, -1]))
""",
        expect="S12",
        must=("flat_map",),
        must_not=("numpy",),
        fix="ds.flat_map(lambda w: w.batch(11)) before batching and slicing",
    ),
    # ValueError: None values not supported.
    Case(
        name="f12_fit_on_windows_made_with_targets_none",
        family="time_series",
        code="""
load = np.random.rand(100, 1).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(load, targets=None, sequence_length=10, batch_size=8)
model = keras.Sequential([keras.Input((10, 1)), keras.layers.GRU(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("targets",),
        must_not=("fillna",),
        fix="targets=load[10:] with data=load[:-10]",
    ),
]
