"""Family: regression and time-series forecasting with windows over a series.

API: ``keras.utils.timeseries_dataset_from_array(data, targets, sequence_length,
sequence_stride=1, sampling_rate=1, batch_size=128, ...)`` (axis 0 of ``data`` is time;
``targets[i]`` is the target of the window that starts at ``i``; it yields batches of
``(batch, sequence_length, features)``, or unbatched samples with ``batch_size=None``);
windows cut by hand with NumPy (``np.stack([x[i:i + n] for i in ...])``) or with
``tf.data`` (``window(size, shift, drop_remainder)``, ``flat_map(lambda w:
w.batch(size))``, ``map`` into ``(inputs, target)``, ``batch``); recurrent and
convolutional layers (``LSTM``/``GRU``/``SimpleRNN``/``Conv1D``) that take
``(batch, steps, features)`` and, for RNNs, return ``(batch, units)`` unless
``return_sequences=True``; a multi-step head ``Dense(k)`` for a horizon of ``k`` values;
regression losses and metrics (``mse``, ``mae``); ``model.predict``, whose first axis is
always the batch; scikit-learn scalers whose ``inverse_transform`` takes an array of the
width they were fitted on (``n_features_in_``); ``fit(validation_split=...)``, which only
slices arrays.  Contract: the window length equals the model's ``Input`` steps, a
univariate series keeps a feature axis of 1, stacked RNNs pass sequences
(``return_sequences=True`` on all but the last), the head has as many units as the
horizon has targets, x and y hold one sample per window (no off-by-one in the target
slice), ``tf.data`` windows are dropped when short (``drop_remainder=True``) before they
are batched, features are numeric (no date column left in), and a single window is
predicted as a batch of one.  Evidence a diagnosis can read at the failure: the
arguments of the call (``sequence_length``, ``batch_size``, the ``window``'s size and
``drop_remainder``), the shapes and dtypes of x, y and the dataset's ``element_spec``,
the model's layers (their names, ``units``, ``return_sequences``, ``kernel_size``,
``padding``) and its ``Input`` shape, the loss, the scaler's ``n_features_in_`` against
the width of the array given to it, and the frame's column dtypes.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "forecasting"

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the
    # layer: expected ndim=3, found ndim=2. Full shape received: (None, 12)
    # (univariate windows stacked with NumPy, the feature axis of 1 never added)
    Case(
        "fc_lstm_univariate_no_feature_axis",
        FAMILY,
        """
series = np.sin(np.arange(120) / 6).astype("float32")
lookback = 12
X = np.stack([series[i:i + lookback] for i in range(len(series) - lookback)])
y = series[lookback:]
model = keras.Sequential([keras.layers.LSTM(16), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X, y, epochs=1, batch_size=16, verbose=0)
""",
        "S01",
        must=("lstm",),
        must_not=("return_sequences",),
        fix="add the feature axis: X[..., None]",
    ),
    # InvalidArgumentError: Graph execution error: ... Matrix size-incompatible:
    # In[0]: [16,384], In[1]: [768,1] [[{{node .../dense_1_1/Add}}]]
    # (windows of sequence_length=24 fed to a model built for n_steps=48 windows)
    Case(
        "fc_sequence_length_vs_flatten_model",
        FAMILY,
        """
data = np.random.rand(200, 3).astype("float32")
train_ds = keras.utils.timeseries_dataset_from_array(
    data[:-24], targets=data[24:, 0], sequence_length=24, batch_size=16)
n_steps = 48
model = keras.Sequential([
    keras.Input((n_steps, 3)),
    keras.layers.Conv1D(16, 3, padding="same", activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(train_ds, epochs=1, verbose=0)
""",
        "S01",
        must=("24", "48"),
        must_not=("batch axis", "return_sequences"),
        fix="sequence_length equal to the Input's steps",
    ),
    # ValueError: Dimensions must be equal, but are 3 and 7 for '{{node
    # compile_loss/mse/sub}} = Sub[T=DT_FLOAT](data_1, sequential_2_1/forecast_1/BiasAdd)'
    # with input shapes: [16,3], [16,7].
    # (targets for a 3-step horizon, output head left at Dense(7))
    Case(
        "fc_horizon_dense_units_vs_targets",
        FAMILY,
        """
series = np.random.rand(150).astype("float32")
window, horizon = 20, 3
n = len(series) - window - horizon + 1
X = np.stack([series[i:i + window] for i in range(n)])[..., None]
Y = np.stack([series[i + window:i + window + horizon] for i in range(n)])
model = keras.Sequential([keras.Input((window, 1)), keras.layers.GRU(16),
                          keras.layers.Dense(7, name="forecast")])
model.compile("adam", "mse", metrics=["mae"])
model.fit(X, Y, epochs=1, batch_size=16, verbose=0)
""",
        "S07",
        must=("forecast",),
        must_not=("sparse", "return_sequences"),
        fix="Dense(horizon) for the output head",
    ),
    # ValueError: Input 0 with name 'None' of layer 'decoder' is incompatible with the
    # layer: expected ndim=3, found ndim=2. Full shape received: (None, 64)
    # (two stacked LSTMs, the first without return_sequences=True)
    Case(
        "fc_stacked_lstm_missing_return_sequences",
        FAMILY,
        """
prices = np.random.rand(100, 30, 4).astype("float32")
next_close = np.random.rand(100, 1).astype("float32")
model = keras.Sequential([
    keras.Input((30, 4)),
    keras.layers.LSTM(64, name="encoder"),
    keras.layers.LSTM(32, name="decoder"),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(prices, next_close, epochs=1, batch_size=32, verbose=0)
""",
        "S01",
        must=("return_sequences", "encoder"),
        must_not=("expand_dims", "newaxis"),
        fix="return_sequences=True on the first LSTM",
    ),
    # ValueError: non-broadcastable output operand with shape (5,1) doesn't match the
    # broadcast shape (5,5)
    # (MinMaxScaler fitted on 5 columns, inverse_transform on the 1-column prediction)
    Case(
        "fc_scaler_inverse_transform_one_column",
        FAMILY,
        """
from sklearn.preprocessing import MinMaxScaler
raw = np.random.rand(80, 5).astype("float32") * 100   # open, high, low, close, volume
scaler = MinMaxScaler()
scaled = scaler.fit_transform(raw)
X = np.stack([scaled[i:i + 10] for i in range(70)])
y = scaled[10:, 3]
model = keras.Sequential([keras.Input((10, 5)), keras.layers.LSTM(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X, y, epochs=1, verbose=0)
pred = model.predict(X[-5:], verbose=0)
close_pred = scaler.inverse_transform(pred)
""",
        "S12",
        must=("scaler",),
        must_not=("batch axis", "return_sequences"),
        fix="a scaler fitted on the target column alone",
    ),
    # ValueError: Exception encountered when calling Conv1D.call(). Negative dimension
    # size caused by subtracting 5 from 1 for '{{node .../conv1d_1_1/convolution}} ...'
    # with input shapes: [14,1,1,1], [1,5,1,8].
    # (one window of shape (14, 1) passed to predict: read as 14 samples of 1 step)
    Case(
        "fc_predict_single_window_no_batch_axis",
        FAMILY,
        """
series = np.random.rand(90, 1).astype("float32")
X = np.stack([series[i:i + 14] for i in range(76)])
y = series[14:]
model = keras.Sequential([keras.Input((14, 1)), keras.layers.Conv1D(8, 5, activation="relu"),
                          keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X, y, epochs=1, verbose=0)
last_window = series[-14:]
next_value = model.predict(last_window, verbose=0)
""",
        "S12",
        must=("last_window",),
        must_not=("padding=", "return_sequences"),
        fix="predict on last_window[None]",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 90 / 'y' sizes: 91
    # (target slice starts at steps - 1: one target more than there are windows)
    Case(
        "fc_targets_off_by_one",
        FAMILY,
        """
temps = np.random.rand(100, 2).astype("float32")
steps = 10
X = np.array([temps[i:i + steps] for i in range(len(temps) - steps)])
y = temps[steps - 1:, 0]
model = keras.Sequential([keras.Input((steps, 2)), keras.layers.SimpleRNN(8), keras.layers.Dense(1)])
model.compile("adam", "mae")
model.fit(X, y, epochs=1, verbose=0)
""",
        "S12",
        must=("90", "91"),
        must_not=("batch_size", "return_sequences"),
        fix="y = temps[steps:, 0]",
    ),
    # InvalidArgumentError: Graph execution error: ... Cannot add tensor to the batch:
    # number of elements does not match. Shapes are: [tensor]: [9], [batch]: [10]
    # [[{{node IteratorGetNext}}]]
    # (tf.data window() without drop_remainder=True: the last windows are short)
    Case(
        "fc_window_without_drop_remainder",
        FAMILY,
        """
series = np.random.rand(60).astype("float32")
window_size = 10
ds = tf.data.Dataset.from_tensor_slices(series)
ds = ds.window(window_size + 1, shift=1)
ds = ds.flat_map(lambda w: w.batch(window_size + 1))
ds = ds.map(lambda w: (w[:-1], w[-1:]))
ds = ds.batch(16).prefetch(1)
model = keras.Sequential([keras.Input((window_size,)), keras.layers.Dense(10, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S13",
        must=("drop_remainder",),
        must_not=("resize",),
        fix="window(..., drop_remainder=True)",
    ),
    # ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type
    # float).
    # (read_csv leaves the 'date' column as text; to_numpy() makes an object array)
    Case(
        "fc_date_column_in_timeseries_data",
        FAMILY,
        """
import io
import pandas as pd
csv = io.StringIO()
pd.DataFrame({"date": pd.date_range("2024-01-01", periods=60, freq="h"),
              "load": np.random.rand(60), "temp": np.random.rand(60)}).to_csv(csv, index=False)
csv.seek(0)
df = pd.read_csv(csv)
features = df.to_numpy()
ds = keras.utils.timeseries_dataset_from_array(features[:-6], targets=df["load"].to_numpy()[6:],
                                               sequence_length=6, batch_size=8)
""",
        "S11",
        must=("date",),
        must_not=("sequence_length", "return_sequences"),
        fix="drop the date column, cast to float32",
    ),
    # ValueError: Argument `validation_split` is only supported for tensors or NumPy
    # arrays.Found incompatible type in the input: [<class '..._BatchDataset'>]
    # (validation_split on the dataset from timeseries_dataset_from_array)
    Case(
        "fc_validation_split_on_dataset",
        FAMILY,
        """
data = np.random.rand(120, 2).astype("float32")
ds = keras.utils.timeseries_dataset_from_array(data[:-8], targets=data[8:, 1], sequence_length=8,
                                               batch_size=16)
model = keras.Sequential([keras.Input((8, 2)), keras.layers.GRU(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, validation_split=0.2, verbose=0)
""",
        None,
        unexplained="Keras' message says validation_split takes only tensors or arrays: "
        "pass validation_data (a second dataset, e.g. with start_index/end_index)",
        fix="validation_data from a held-out range",
    ),
]
