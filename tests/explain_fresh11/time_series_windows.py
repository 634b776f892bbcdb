"""Family ``time_series_windows``: windows cut from a series and the forecasting models fed with them.

APIs: ``keras.utils.timeseries_dataset_from_array(data, targets, sequence_length,
sampling_rate=1, sequence_stride=1, batch_size=128)`` (each batch is
``(batch, sequence_length, *data.shape[1:])``: a 1-D series gives 2-D windows with no
features axis; ``targets[i]`` is the target of the window that STARTS at ``i``, so
``data`` and ``targets`` must have the same length, and the documented forecasting
recipe passes ``data[:-horizon]`` with ``targets=data[horizon:]``; ``sampling_rate``
keeps every n-th step but a window still has ``sequence_length`` steps),
``tf.data.Dataset.window(size, shift, drop_remainder=False)`` + ``flat_map(lambda w:
w.batch(size))`` (the last windows are shorter unless ``drop_remainder=True``), recurrent
and convolutional layers (``LSTM``/``GRU``/``SimpleRNN``/``Conv1D`` need
``(batch, steps, features)``; ``return_sequences=False`` returns ``(batch, units)``;
``Conv1D``/``MaxPooling1D`` with ``valid`` padding shrink the steps), ``TimeDistributed``
(applies a layer to every step of a ``(batch, steps, ...)`` input) and stateful RNNs
(``stateful=True`` needs a fixed batch size, given by ``keras.Input(batch_size=...)``, and
every batch must have it).

Evidence a diagnosis needs: where the window's shape came from (a 1-D series, the
``window``/``flat_map`` step, ``sequence_length`` against the model's ``Input``), the
number of target steps against the number of output units (a horizon of k against
``Dense(1)``), the rank a recurrent/``TimeDistributed`` layer received and the layer that
produced it (an ``LSTM`` without ``return_sequences=True``), and for a stateful RNN the
fixed batch size against the batch that arrived (the last, partial batch).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the layer: expected ndim=3, found ndim=2. ...
    Case(
        name="f11_lstm_fed_windows_of_a_one_dimensional_series",
        family="time_series_windows",
        code="""
temperature = np.sin(np.arange(200) / 8.0).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(
    temperature[:-1], targets=temperature[1:], sequence_length=12, batch_size=16)
model = keras.Sequential([keras.layers.LSTM(16), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("lstm",),
        must_not=("return_sequences",),
        fix="temperature.reshape(-1, 1) (add the features axis)",
    ),
    # ValueError: None values not supported.
    Case(
        name="f11_windows_built_with_targets_none_then_fit",
        family="time_series_windows",
        code="""
series = np.random.rand(300, 3).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(series[:-1], targets=None, sequence_length=48, batch_size=32)
model = keras.Sequential([keras.Input((48, 3)), keras.layers.LSTM(8), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("targets",),
        must_not=("fillna", "dropna"),
        fix="targets=series[48:, 0] in timeseries_dataset_from_array",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: [6,1], [batch]: [7,1]
    Case(
        name="f11_window_flat_map_without_drop_remainder_then_batch",
        family="time_series_windows",
        code="""
sales = tf.data.Dataset.range(40).map(lambda v: tf.cast(v, tf.float32))
windows = sales.window(8, shift=1).flat_map(lambda w: w.batch(8))
pairs = windows.map(lambda w: (w[:-1, tf.newaxis], w[-1:]))
train = pairs.batch(16)
model = keras.Sequential([keras.Input((7, 1)), keras.layers.GRU(8), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(train, epochs=1, verbose=0)
""",
        expect="S13",
        must=("drop_remainder",),
        must_not=("padded_batch",),
        fix="window(8, shift=1, drop_remainder=True)",
    ),
    # ValueError: Dimensions must be equal, but are 24 and 12 for '{{node compile_loss/mae/sub}} = Sub[T=DT_FLOAT](...)' ...
    Case(
        name="f11_dense_head_of_12_steps_against_24_step_targets",
        family="time_series_windows",
        code="""
x = np.random.rand(32, 48, 2).astype("float32")
y = np.random.rand(32, 24).astype("float32")
model = keras.Sequential([
    keras.Input((48, 2)),
    keras.layers.Conv1D(16, 3, activation="relu"),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(12),
])
model.compile(optimizer="adam", loss="mae")
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        expect="S07",
        must=("24",),
        must_not=("sparse", "return_sequences"),
        fix="Dense(24) (one unit per forecast step)",
    ),
    # ValueError: `TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, received: (None, 32)
    Case(
        name="f11_time_distributed_head_after_lstm_without_return_sequences",
        family="time_series_windows",
        code="""
inputs = keras.Input((30, 4))
h = keras.layers.LSTM(32)(inputs)
outputs = keras.layers.TimeDistributed(keras.layers.Dense(1))(h)
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape the data"),
        fix="LSTM(32, return_sequences=True)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Incompatible shapes: [2,1] vs. [8,1] (node gradient_tape/compile_loss/mse/sub/BroadcastGradientArgs)
    Case(
        name="f11_stateful_gru_with_a_partial_last_batch",
        family="time_series_windows",
        code="""
x = np.random.rand(50, 10, 1).astype("float32")
y = np.random.rand(50, 1).astype("float32")
model = keras.Sequential([
    keras.Input((10, 1), batch_size=8),
    keras.layers.GRU(16, stateful=True),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
""",
        expect="S07",
        must=("stateful",),
        must_not=("return_sequences", "reshape the labels"),
        fix="use a number of samples divisible by 8 (x[:48]) or drop_remainder=True",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Matrix size-incompatible: In[0]: [32,48], In[1]: [8,1] (node .../dense_.../Add)
    Case(
        name="f11_sampling_rate_assumed_to_shorten_the_window",
        family="time_series_windows",
        code="""
readings = np.random.rand(1000, 2).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(
    readings[:-6], targets=readings[6:, 0], sequence_length=24, sampling_rate=6, batch_size=32)
model = keras.Sequential([
    keras.Input((4, 2)),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("24",),
        must_not=("return_sequences", "batch axis"),
        fix="keras.Input((24, 2)): sequence_length counts sampled steps",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs shape=(None, 3, 16)`, `kernel shape=(5, 16, 16)`, ...
    Case(
        name="f11_conv1d_kernel_longer_than_the_pooled_window",
        family="time_series_windows",
        code="""
prices = np.random.rand(400, 1).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(
    prices[:-1], targets=prices[1:], sequence_length=10, batch_size=32)
model = keras.Sequential([
    keras.Input((10, 1)),
    keras.layers.Conv1D(16, 5, activation="relu"),
    keras.layers.MaxPooling1D(2),
    keras.layers.Conv1D(16, 5, activation="relu"),
    keras.layers.GlobalMaxPooling1D(),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("conv1d",),
        must_not=("batch axis", "return_sequences"),
        fix="padding='same' or a longer sequence_length",
    ),
]
