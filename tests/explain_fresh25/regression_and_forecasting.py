"""Regression and time-series forecasting.

The family
----------
A regression model ends in a linear ``Dense(n)`` head, one unit per target (``Dense(1)``
for one value, ``Dense(horizon)`` for a multi-step forecast), trained with ``mse`` /
``mae`` / ``Huber`` and watched with ``mae`` or ``RootMeanSquaredError``.  Keras losses take
``y_true`` and ``y_pred``; targets of shape ``(N,)`` against a ``(N, 1)`` output are
accepted (Keras squeezes or expands a rank difference of one), but any other difference
fails inside the loss ("Dimensions must be equal") -- or, in a hand-written loss, may
broadcast silently.

* Windows: a recurrent or ``Conv1D`` model takes ``(batch, timesteps, features)``; a
  univariate series cut into ``(N, timesteps)`` windows needs a feature axis
  (``X[..., None]``).  ``LSTM(return_sequences=True)`` returns ``(batch, timesteps, units)``;
  the last recurrent layer before a ``Dense(horizon)`` head returns only its last state
  (``return_sequences=False``, the default).  A ``Conv1D(kernel_size=k)`` with ``valid``
  padding shortens the sequence by ``k - 1``; a window shorter than the kernel leaves no
  output ("Computed output size would be zero or negative").
* ``keras.utils.timeseries_dataset_from_array(data, targets, sequence_length, ...,
  start_index, end_index)``: ``targets[i]`` is the target of the window starting at ``i``;
  ``targets=None`` makes a dataset that yields only the windows (no ``y``: ``fit`` then has
  nothing to compare the predictions with); ``end_index`` must be lower than ``len(data)``.
* ``tf.data``: ``dataset.window(size, shift, drop_remainder=True)`` yields *datasets* (one
  per window), not tensors; ``flat_map(lambda w: w.batch(size))`` turns them into tensors
  before any split into inputs and targets.
* A multi-output model (``keras.Model(inp, [price, volume])`` with a loss per named output)
  needs ``y`` with the same structure: a list of two arrays or a dict keyed by output name,
  not one ``(N, 2)`` array.
* dtypes: NumPy arrays default to float64; ``from_tensor_slices`` keeps float64 while Keras
  models compute in float32, so a hand-written loss ``y - pred`` mixes float64 with float32
  and TensorFlow refuses (no implicit promotion).  Cast the targets (``astype("float32")``
  or ``tf.cast``).

Evidence a diagnosis needs
--------------------------
The output shape of the head against the target shape (and where the extra axis came from:
``return_sequences=True``, a missing feature axis, a short window), the structure of what
the dataset yields (windows as nested datasets, inputs without targets, one array for two
outputs), and the dtypes of the tensors an op combined.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "regression_and_forecasting"

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 20)
    Case(
        name="f25_lstm_on_univariate_windows_without_feature_axis",
        family=FAMILY,
        code="""
series = np.sin(np.arange(200) / 10).astype("float32")
X = np.array([series[i:i + 20] for i in range(150)])
y = series[20:170]
model = keras.Sequential([keras.Input(shape=X.shape[1:]), keras.layers.LSTM(16), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(X, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("lstm",),
        must_not=("return_sequences",),
        fix="X = X[..., None] (windows of shape (150, 20, 1)) and keras.Input(shape=(20, 1))",
    ),
    # ValueError: Dimensions must be equal, but are 6 and 24 for '{{node compile_loss/mse/sub}} = Sub[T=DT_FLOAT](data_1, compile_loss/mse/Squeeze)' with input shapes: [?,6], [?,24].
    Case(
        name="f25_multistep_forecast_last_lstm_returns_sequences",
        family=FAMILY,
        code="""
series = np.sin(np.arange(300) / 10).astype("float32")
X = np.stack([series[i:i + 24] for i in range(200)])[..., None]
Y = np.stack([series[i + 24:i + 30] for i in range(200)])
model = keras.Sequential([
    keras.Input(shape=(24, 1)),
    keras.layers.LSTM(32, return_sequences=True),
    keras.layers.LSTM(16, return_sequences=True),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
model.fit(X, Y, epochs=1, batch_size=32, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("reshape the labels", "sparse"),
        fix="last LSTM with return_sequences=False and a Dense(6) head",
    ),
    # InvalidArgumentError: cannot compute Sub as input #1(zero-based) was expected to be a double tensor but is a float tensor [Op:Sub] name:
    Case(
        name="f25_custom_loop_float64_targets_minus_float32_predictions",
        family=FAMILY,
        code="""
x = np.random.rand(64, 5)
y = x @ np.array([1.0, -2.0, 0.5, 3.0, 0.0]) + 0.1
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
model = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
opt = keras.optimizers.Adam(1e-3)
for xb, yb in ds:
    with tf.GradientTape() as tape:
        pred = tf.squeeze(model(xb, training=True), axis=-1)
        loss = tf.reduce_mean(tf.square(yb - pred))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="S11",
        must=("float64",),
        must_not=("mixed_float16",),
        fix="y.astype('float32') (or tf.cast(yb, pred.dtype)) before the loss",
    ),
    # ValueError: Only input tensors may be passed as positional arguments. The following argument value should be passed as a keyword argument: <tensorflow.python.data.ops.dataset_ops._NestedVariant object at 0x...> (of type <class 'tensorflow.python.data.ops.dataset_ops._NestedVariant'>)
    Case(
        name="f25_dataset_window_without_flat_map",
        family=FAMILY,
        code="""
series = np.sin(np.arange(120) / 5).astype("float32")
windows = tf.data.Dataset.from_tensor_slices(series).window(11, shift=1, drop_remainder=True)
ds = windows.map(lambda w: (w.take(10), w.skip(10))).batch(16)
model = keras.Sequential([keras.Input(shape=(10,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("flat_map",),
        must_not=("padded_batch",),
        fix="windows.flat_map(lambda w: w.batch(11)).map(lambda w: (w[:-1], w[-1:])).batch(16)",
    ),
    # ValueError: None values not supported.
    Case(
        name="f25_timeseries_dataset_without_targets_fit_mse",
        family=FAMILY,
        code="""
series = np.sin(np.arange(200) / 8).astype("float32").reshape(-1, 1)
train_ds = keras.utils.timeseries_dataset_from_array(series, None, sequence_length=16, batch_size=16)
model = keras.Sequential([keras.Input(shape=(16, 1)), keras.layers.LSTM(8), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(train_ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("targets",),
        must_not=("nonfinite",),
        fix="timeseries_dataset_from_array(series[:-16], series[16:], sequence_length=16)",
    ),
    # ValueError: y_true and y_pred have different structures.
    Case(
        name="f25_two_output_regression_one_target_array",
        family=FAMILY,
        code="""
inp = keras.Input(shape=(6,))
h = keras.layers.Dense(16, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
volume = keras.layers.Dense(1, name="volume")(h)
model = keras.Model(inp, [price, volume])
model.compile(optimizer="adam", loss={"price": "mse", "volume": "mae"})
x = np.random.rand(32, 6).astype("float32")
y = np.random.rand(32, 2).astype("float32")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("price",),
        must_not=("reshape",),
        fix="y={'price': y[:, 0], 'volume': y[:, 1]} (or [y[:, :1], y[:, 1:]])",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs shape=(None, 1, 32)`, `kernel shape=(5, 32, 32)`, `dilation_rate=[1]`, `strides=(1,)`, `padding=valid`.
    Case(
        name="f25_conv1d_forecaster_window_shorter_than_kernels",
        family=FAMILY,
        code="""
series = np.random.rand(300, 1).astype("float32")
window = 6
X = np.stack([series[i:i + window] for i in range(250)])
y = series[window:window + 250, 0]
model = keras.Sequential([
    keras.Input(shape=(window, 1)),
    keras.layers.Conv1D(32, kernel_size=5, activation="relu"),
    keras.layers.MaxPooling1D(2),
    keras.layers.Conv1D(32, kernel_size=5, activation="relu"),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("conv1d",),
        must_not=("expand_dims",),
        fix="padding='same' in the Conv1D layers, smaller kernels, or longer windows",
    ),
    # ValueError: `end_index` must be lower than the length of the data. Received: end_index=99, for data of length 99
    Case(
        name="f25_timeseries_dataset_end_index_equals_length",
        family=FAMILY,
        code="""
series = np.random.rand(100, 3).astype("float32")
split = 80
val_ds = keras.utils.timeseries_dataset_from_array(
    series[:-1], series[1:, 0], sequence_length=12, batch_size=8,
    start_index=split, end_index=len(series) - 1)
""",
        expect=None,
        unexplained="the message names end_index, its bound (lower than the data's length) and "
        "both numbers; end_index=None (or len(data) - 1) follows",
        fix="end_index=None (use the data up to its end)",
    ),
]
