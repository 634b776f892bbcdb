"""Family: regression targets and the losses that compare them with the model's output.

API: the regression losses ``keras.losses.MeanSquaredError`` / ``MeanAbsoluteError`` /
``Huber(delta=1.0)`` / ``LogCosh`` / ``MeanSquaredLogarithmicError`` (and their string
names ``"mse"``, ``"mae"``, ``"huber"``, ``"log_cosh"``, ``"msle"``), each taking
``reduction=`` one of ``"sum_over_batch_size"`` (default), ``"sum"``, ``"mean"``,
``"mean_with_sample_weight"``, ``"none"`` or ``None`` (Keras 2's ``"auto"`` is gone);
a loss object called directly as ``loss(y_true, y_pred, sample_weight=None)``, which
squeezes or expands a trailing axis of 1 so that ``(B,)`` meets ``(B, 1)`` but otherwise
needs both to have the same shape; a custom loss ``fn(y_true, y_pred)`` passed to
``compile``, which runs traced (symbolic tensors: TensorFlow / ``keras.ops`` only, no
NumPy) on float32 ``y_true`` and ``y_pred`` and returns one value per sample;
multi-target regression, where ``y`` of shape ``(N, k)`` meets an output head
``Dense(k)`` element by element; ``fit(x, y, sample_weight=w)``, where ``w`` holds one
weight per sample (shape ``(N,)``, the same N as x and y); targets given as a pandas
DataFrame (every column is a target); targets scaled by hand with NumPy (statistics
over the sample axis, ``axis=0``, one per target column) and un-scaled with
``keras.layers.Normalization(mean=..., variance=..., invert=True)``, whose ``mean`` and
``variance`` must fit the feature axis of its input; ``Normalization.adapt(data)``,
which fixes the layer's width to the width of ``data``; log-transformed targets
(``np.log`` of 0 is ``-inf``, ``np.log1p`` is finite for counts).  Evidence a diagnosis
could read at the failure: the shapes, dtypes and value ranges of the target arrays
(``-inf`` in a log target, an id-like integer column in a target frame, the frame's
column names), the lengths of x, y and ``sample_weight``, the model's layers (the
output head's name, ``units`` and activation; a Normalization layer's adapted width or
its ``mean``/``variance`` shapes), the loss's config (``reduction``, ``delta``), the
user's loss function's source (NumPy calls, a ``tf.constant`` of a float64 array, the
length of a ``quantiles`` list), and the name scope of the failing op
(``compile_loss/<loss>/...``).

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "regression_losses"

CASES = [
    # ValueError: Dimensions must be equal, but are 3 and 2 for '{{node
    # compile_loss/mean_squared_error/sub}} = Sub[T=DT_FLOAT](data_1,
    # sequential_1/coords_1/BiasAdd)' with input shapes: [8,3], [8,2].
    # (targets taken as "every column but the features": the station_id column stays in)
    Case(
        "rg_target_frame_keeps_id_column",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"station_id": np.arange(40),
                   "temp": np.random.rand(40), "humidity": np.random.rand(40),
                   "wind": np.random.rand(40),
                   "lat": np.random.rand(40) * 10 + 45, "lon": np.random.rand(40) * 10})
features = ["temp", "humidity", "wind"]
X = df[features].astype("float32")
Y = df.drop(columns=features)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(2, name="coords")])
model.compile("adam", keras.losses.MeanSquaredError())
model.fit(X, Y, epochs=1, batch_size=8, verbose=0)
""",
        "S07",
        must=("station_id",),
        must_not=("sparse", "batch axis"),
        fix="Y = df[['lat', 'lon']]",
    ),
    # ValueError: Dimensions must be equal, but are 5 and 3 for '{{node
    # compile_loss/pinball_loss/mul}} = Mul[T=DT_FLOAT](compile_loss/pinball_loss/Const,
    # compile_loss/pinball_loss/sub)' with input shapes: [5], [8,3].
    # (two quantiles added to the list, the head left at Dense(3))
    Case(
        "rg_pinball_quantiles_vs_head_units",
        FAMILY,
        """
quantiles = [0.05, 0.25, 0.5, 0.75, 0.95]
def pinball_loss(y_true, y_pred):
    q = tf.constant(quantiles)
    err = y_true - y_pred
    return tf.reduce_mean(tf.maximum(q * err, (q - 1.0) * err), axis=-1)
x = np.random.rand(48, 6).astype("float32")
demand = np.random.rand(48, 1).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, name="quantile_head")])
model.compile("adam", pinball_loss)
model.fit(x, demand, epochs=1, batch_size=8, verbose=0)
""",
        "S07",
        must=("pinball_loss", "quantile_head"),
        must_not=("sparse", "sample_weight"),
        fix="Dense(len(quantiles)) for the head",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Sub_device_/job:localhost/replica:0/
    # task:0/device:CPU:0}} Incompatible shapes: [48,1] vs. [12,1] [Op:Sub] name:
    # (test predictions scored against the training targets)
    Case(
        "rg_mae_direct_call_train_targets_test_preds",
        FAMILY,
        """
x = np.random.rand(60, 5).astype("float32")
y = (x @ np.arange(1, 6, dtype="float32")).reshape(-1, 1)
x_train, x_test, y_train, y_test = x[:48], x[48:], y[:48], y[48:]
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
model.compile("adam", "mae")
model.fit(x_train, y_train, epochs=1, verbose=0)
mae = keras.losses.MeanAbsoluteError()
preds = model.predict(x_test, verbose=0)
test_mae = float(mae(y_train, preds))
""",
        "S07",
        must=("48", "12"),
        must_not=("units", "sparse"),
        fix="mae(y_test, preds)",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 40
    # (then: 'y' sizes: 40, 'sample_weight' sizes: 50; the weights were read from the
    # frame before the rows without a price were dropped)
    Case(
        "rg_sample_weight_before_dropna",
        FAMILY,
        """
import pandas as pd
df = pd.DataFrame({"area": np.random.rand(50) * 100, "rooms": np.random.randint(1, 6, 50),
                   "reliability": np.random.rand(50), "price": np.random.rand(50) * 5e5})
df.loc[df.index[::5], "price"] = np.nan
weights = df["reliability"].to_numpy()
clean = df.dropna(subset=["price"])
x = clean[["area", "rooms"]].to_numpy("float32")
y = clean["price"].to_numpy("float32")
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", keras.losses.MeanSquaredLogarithmicError())
model.fit(x, y, sample_weight=weights, epochs=1, batch_size=8, verbose=0)
""",
        "S12",
        must=("sample_weight", "50"),
        must_not=("batch_size", "drop_remainder"),
        fix="weights = clean['reliability']",
    ),
    # ValueError: Input contains infinity or a value too large for dtype('float32').
    # (np.log of daily sales that are 0 on some days: -inf targets, the fitted model
    # predicts NaN, sklearn refuses the -inf y_true)
    Case(
        "rg_log_target_of_zero_sales",
        FAMILY,
        """
from sklearn.metrics import mean_absolute_error
x = np.random.rand(40, 4).astype("float32")
sales = np.random.poisson(2.0, 40).astype("float32")
sales[:4] = 0.0
y_log = np.log(sales)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse", metrics=["mae", "mape"])
model.fit(x, y_log, epochs=1, batch_size=8, verbose=0)
score = mean_absolute_error(y_log, model.predict(x, verbose=0))
""",
        "N05",
        must=("y_log",),
        must_not=("learning rate", "clipnorm"),
        fix="np.log1p(sales), np.expm1 to invert",
    ),
    # NotImplementedError: Cannot convert a symbolic tf.Tensor (compile_loss/rmse/pow:0) to
    # a numpy array. This error may indicate that you're trying to pass a Tensor to a
    # NumPy call, which is not supported.
    # (an RMSE loss written with NumPy functions)
    Case(
        "rg_numpy_rmse_custom_loss",
        FAMILY,
        """
def rmse(y_true, y_pred):
    return np.sqrt(np.mean((y_true - y_pred) ** 2))
x = np.random.rand(40, 4).astype("float32")
y = np.random.rand(40, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", loss=rmse)
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        "T02",
        must=("rmse",),
        must_not=("run_eagerly", "tf.cond"),
        fix="keras.ops.sqrt(keras.ops.mean(...)) in the loss",
    ),
    # ValueError: Exception encountered when calling Normalization.call().
    # (next line: Dimensions must be equal, but are 8 and 3 for '{{node
    # sequential_6_1/feature_norm_1/Sub}} ...' with input shapes: [8,8], [1,3].)
    # (the feature normalizer adapted on the 3 target columns instead of the 8 features)
    Case(
        "rg_normalization_adapted_on_targets",
        FAMILY,
        """
x_train = np.random.rand(40, 8).astype("float32") * 50
y_train = np.random.rand(40, 3).astype("float32")
feature_norm = keras.layers.Normalization(name="feature_norm")
feature_norm.adapt(y_train)
model = keras.Sequential([keras.Input((8,)), feature_norm,
                          keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)])
model.compile("adam", keras.losses.LogCosh())
model.fit(x_train, y_train, epochs=1, batch_size=8, verbose=0)
""",
        "S01",
        must=("feature_norm", "adapt"),
        must_not=("input((3", "batch axis"),
        fix="feature_norm.adapt(x_train)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__BroadcastTo_device_/job:localhost/
    # replica:0/task:0/device:CPU:0}} Incompatible shapes: [1,48] vs. [1,3] [Op:BroadcastTo]
    # (target statistics taken over axis=1, one per row, fed to an inverting Normalization)
    Case(
        "rg_denormalize_stats_over_rows",
        FAMILY,
        """
X = np.random.rand(48, 5).astype("float32")
Y = np.random.rand(48, 3).astype("float32") * [100.0, 5.0, 2000.0]
y_mean = Y.mean(axis=1)
y_var = Y.var(axis=1)
Y_scaled = (Y - Y.mean(axis=0)) / Y.std(axis=0)
model = keras.Sequential([
    keras.Input((5,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(3),
    keras.layers.Normalization(mean=y_mean, variance=y_var, invert=True, name="denorm"),
])
""",
        "S01",
        must=("denorm", "axis"),
        must_not=("dense(48", "batch axis"),
        fix="y_mean = Y.mean(axis=0), y_var = Y.var(axis=0)",
    ),
    # ValueError: Invalid value for argument `reduction`. Expected one of
    # {'mean_with_sample_weight', 'sum', 'mean', 'sum_over_batch_size', 'none', None}.
    # Received: reduction=auto
    # (Keras 2 notebook code: Reduction.AUTO is gone in Keras 3)
    Case(
        "rg_huber_reduction_auto_keras2",
        FAMILY,
        """
x = np.random.rand(40, 4).astype("float32")
y = np.random.rand(40, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", loss=keras.losses.Huber(delta=2.0, reduction="auto"))
model.fit(x, y, epochs=1, verbose=0)
""",
        None,
        unexplained="Keras' message lists the valid reduction values and echoes 'auto': "
        "use the default 'sum_over_batch_size'",
        fix="drop reduction='auto'",
    ),
    # TypeError: Input 'y' of 'Mul' Op has type float32 that does not match type float64
    # of argument 'x'.
    # (per-target weights made a tf.constant from a float64 NumPy array)
    Case(
        "rg_weighted_mse_float64_target_weights",
        FAMILY,
        """
target_weights = np.array([1.0, 0.5, 2.0])
def weighted_mse(y_true, y_pred):
    w = tf.constant(target_weights)
    return tf.reduce_mean(w * tf.square(y_true - y_pred), axis=-1)
x = np.random.rand(40, 6).astype("float32")
Y = np.random.rand(40, 3).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, name="targets")])
model.compile("adam", weighted_mse)
model.fit(x, Y, epochs=1, batch_size=8, verbose=0)
""",
        "S11",
        must=("target_weights",),
        must_not=("y.astype", "mixed_float16"),
        fix="tf.constant(target_weights, dtype=tf.float32)",
    ),
]
