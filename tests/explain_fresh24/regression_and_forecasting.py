"""Regression and time-series forecasting.

The family
----------
A regression head is a linear ``Dense(n)`` whose ``n`` is the number of values predicted
per example: ``Dense(1)`` for one target, ``Dense(horizon)`` for a multi-step forecast,
``Dense(k)`` for ``k`` targets stacked as columns ``(N, k)``.  The losses ``"mse"``,
``"mae"``, ``"huber"`` (``keras.losses.Huber(delta)``) compare ``y_true`` and ``y_pred``
element-wise and average over the last axis; Keras squeezes or expands ONE trailing axis
of size 1 (``(N,)`` against ``(N, 1)`` is accepted), otherwise the shapes must be equal or
broadcast (and a broadcast is silently wrong).  Regression metrics: ``"mae"``,
``"mse"``, ``keras.metrics.RootMeanSquaredError()``, ``R2Score()``.  ``fit(x, y)`` needs
the same number of samples in ``x`` and ``y`` ("Data cardinality is ambiguous");
a single-output model takes one target array, not a list of arrays (a list means one
target per output).

Recurrent and convolutional sequence layers take ``(batch, timesteps, features)``:
``LSTM``/``GRU``/``SimpleRNN`` return ``(batch, units)`` unless
``return_sequences=True`` (then ``(batch, timesteps, units)``): every recurrent layer
that feeds another one needs ``return_sequences=True``, and the last one before a
``Dense(horizon)`` head must NOT return sequences (else the head predicts per time step).
``Conv1D(kernel_size=k)`` with ``padding="valid"`` needs ``timesteps >= k``.

Windowing:

* ``keras.utils.timeseries_dataset_from_array(data, targets, sequence_length, ...)``:
  axis 0 of ``data`` is time; each window is ``data[i : i + sequence_length]``, so a
  1-D series gives windows of shape ``(batch, sequence_length)``, with no feature axis: a
  univariate series must be ``data[:, None]`` (shape ``(T, 1)``) for an RNN.
* NumPy windowing: ``range(len(series) - window)`` windows when the target is the next
  value ``series[i + window]``; ``range(len - window + 1)`` makes one window too many.
* ``tf.data``: ``Dataset.window(size, shift, drop_remainder=False)`` yields datasets;
  ``flat_map(lambda w: w.batch(size))`` turns them into tensors; without
  ``drop_remainder=True`` the last windows are SHORTER, and a later ``batch`` fails (the
  fix is ``drop_remainder=True``; padding partial windows would invent data).

Scaling: inputs via ``Normalization`` (``adapt`` on training data) and targets by
hand; predictions are compared with targets after inverting the target scaling.

Evidence a diagnosis needs: the target shape vs the head's output shape (which axis differs
and by how much: horizon vs units, an extra time axis), the rank a sequence layer received
and where the rank came from (a 1-D series, an RNN without ``return_sequences``), the
sample counts of ``x`` and ``y``, the window lengths in a batch, and the kernel size vs the
window length.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, None)
    Case(
        name="f24_univariate_windows_without_feature_axis",
        family="regression_and_forecasting",
        code="""
series = np.sin(np.arange(300) / 10.0).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(
    series[:-10], series[10:], sequence_length=10, batch_size=32)
model = keras.Sequential([keras.layers.LSTM(16), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("feature",),
        must_not=("return_sequences",),
        fix="pass series[:, None] (shape (T, 1)) so windows are (batch, 10, 1)",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm_2' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 32)
    Case(
        name="f24_stacked_lstm_without_return_sequences",
        family="regression_and_forecasting",
        code="""
x = np.random.rand(64, 20, 3).astype("float32")
y = np.random.rand(64, 1).astype("float32")
model = keras.Sequential([keras.Input((20, 3)), keras.layers.LSTM(32), keras.layers.LSTM(16),
                          keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims",),
        fix="return_sequences=True on the first LSTM",
    ),
    # ValueError: Dimensions must be equal, but are 6 and 4 for '{{node compile_loss/mse/sub}} = Sub[T=DT_FLOAT](data_1, sequential_2_1/dense_3_1/BiasAdd)' with input shapes: [?,6], [?,4].
    Case(
        name="f24_forecast_head_units_differ_from_horizon",
        family="regression_and_forecasting",
        code="""
series = np.random.rand(200).astype("float32")
window, horizon = 24, 6
n = len(series) - window - horizon
X = np.stack([series[i:i + window] for i in range(n)])
Y = np.stack([series[i + window:i + window + horizon] for i in range(n)])
model = keras.Sequential([keras.Input((window,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(4)])
model.compile(optimizer="adam", loss="mse")
model.fit(X, Y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("6",),
        must_not=("reshape",),
        fix="Dense(horizon) = Dense(6) as the head",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same number of samples.'x' sizes: 91
    Case(
        name="f24_numpy_windows_one_more_than_targets",
        family="regression_and_forecasting",
        code="""
series = np.random.rand(100).astype("float32")
window = 10
X = np.array([series[i:i + window] for i in range(len(series) - window + 1)])
y = series[window:]
model = keras.Sequential([keras.Input((window,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(X, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("91", "90"),
        must_not=("drop_remainder",),
        fix="range(len(series) - window): one window per target",
    ),
    # InvalidArgumentError: Graph execution error:
    # (Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: [9,1], [batch]: [10,1])
    Case(
        name="f24_dataset_window_keeps_short_tail_windows",
        family="regression_and_forecasting",
        code="""
series = np.arange(50, dtype="float32")
ds = tf.data.Dataset.from_tensor_slices(series).window(11, shift=1)
ds = ds.flat_map(lambda w: w.batch(11))
ds = ds.map(lambda w: (w[:-1, tf.newaxis], w[-1:]))
ds = ds.batch(16)
model = keras.Sequential([keras.Input((10, 1)), keras.layers.SimpleRNN(8), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mae")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S13",
        must=("drop_remainder",),
        must_not=("padded_batch",),
        fix="window(11, shift=1, drop_remainder=True)",
    ),
    # ValueError: y_true and y_pred have different structures.
    Case(
        name="f24_two_targets_as_list_to_single_output",
        family="regression_and_forecasting",
        code="""
x = np.random.rand(64, 5).astype("float32")
price = np.random.rand(64).astype("float32")
volume = np.random.rand(64).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, [price, volume], epochs=1, verbose=0)
""",
        expect="S12",
        must=("stack",),
        must_not=("dict",),
        fix="np.stack([price, volume], axis=1) with a Dense(2) head (or a two-output model)",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs shape=(None, 5, 1)`, `kernel shape=(7, 1, 16)`, `dilation_rate=[1]`, `strides=(1,)`, `padding=valid`.
    Case(
        name="f24_conv1d_kernel_longer_than_window",
        family="regression_and_forecasting",
        code="""
series = np.random.rand(300, 1).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(series[:-5], series[5:], sequence_length=5,
                                               batch_size=32)
model = keras.Sequential([keras.Input((5, 1)),
                          keras.layers.Conv1D(16, kernel_size=7, activation="relu"),
                          keras.layers.Flatten(), keras.layers.Dense(1)])
""",
        expect="S01",
        must=("kernel",),
        must_not=("batch axis",),
        fix="kernel_size <= 5, padding='same', or a longer sequence_length",
    ),
    # InvalidArgumentError: Graph execution error:
    # (Incompatible shapes: [32,30,5] vs. [32,5] at node compile_loss/huber/Sub)
    Case(
        name="f24_last_lstm_returns_sequences_before_head",
        family="regression_and_forecasting",
        code="""
series = np.random.rand(400, 2).astype("float32")
X = np.stack([series[i:i + 30] for i in range(300)])
Y = np.stack([series[i + 30:i + 35, 0] for i in range(300)])
model = keras.Sequential([keras.Input((30, 2)), keras.layers.LSTM(16, return_sequences=True),
                          keras.layers.Dense(5)])
model.compile(optimizer="adam", loss="huber")
model.fit(X, Y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("expand_dims",),
        fix="return_sequences=False on the last LSTM so the head sees (batch, 16)",
    ),
]
