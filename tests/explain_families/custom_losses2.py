"""Family: user-written losses in Keras 3 (second pass).

API: a loss function ``def my_loss(y_true, y_pred)`` given to ``compile(loss=...)``,
which Keras wraps in ``LossFunctionWrapper``: it is called with exactly two arguments,
labels first, traced inside ``fit``'s ``tf.function`` (symbolic tensors: TensorFlow or
``keras.ops`` only, no ``.numpy()``, no NumPy, a batch axis whose static size is
``None``), with ``y_true`` cast to the predictions' dtype (float32) and a trailing axis
of 1 squeezed or added so that ``(B,)`` meets ``(B, 1)``; it returns one value per
sample (or a scalar) as a tensor.  A ``keras.losses.Loss`` subclass overrides
``call(self, y_true, y_pred)`` (same order), takes ``name``/``reduction``/``dtype`` in
``__init__`` and must return every constructor argument from ``get_config`` to be
reloaded by ``keras.models.load_model`` (``register_keras_serializable`` only makes the
class findable).  Extra parameters are bound with a closure or
``functools.partial(fn, name=value)``, never given as a third positional parameter.
Called by hand in a ``tf.GradientTape`` loop the function gets the raw labels: their
dtype (int64 from ``np.random.randint``, float64 from NumPy) and their shape
(``(B,)`` against a ``(B, 1)`` head); ``tf`` ops refuse mixed dtypes, ``keras.ops``
cross-entropies refuse different ranks.  Weights per class multiply ``(B, C)`` one-hot
labels and must have shape ``(C,)``; ``tf.one_hot`` takes integer indices.  Evidence a
diagnosis could read at the failure: the loss's name and source (the line of the failing
op, ``.numpy()``, ``float(...)``, ``shape[0]``, the parameter order of ``call``), the
shapes and dtypes of ``y_true``/``y_pred`` (and of the labels and model output in a
loop), the name scope of the failing op (``compile_loss/<loss>/...``), the compile
arguments (the loss object, ``run_eagerly``), the model's output layer, the loss's
config at save and load.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "custom_losses2"

CASES = [
    # InvalidArgumentError: cannot compute Mul as input #1(zero-based) was expected to be a int64
    # tensor but is a float tensor [Op:Mul] name:
    # (int64 labels from np.random.randint reach y_true * y_pred in a hand-written loop)
    Case(
        "cl2_int_labels_times_probs_in_focal_tape",
        FAMILY,
        """
def focal_loss(y_true, y_pred, gamma=2.0):
    pt = y_true * y_pred + (1 - y_true) * (1 - y_pred)
    return -tf.reduce_mean((1 - pt) ** gamma * tf.math.log(pt + 1e-7))
x = np.random.rand(32, 4).astype("float32")
labels = np.random.randint(0, 2, (32, 1))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
opt = keras.optimizers.Adam()
ds = tf.data.Dataset.from_tensor_slices((x, labels)).batch(8)
for xb, yb in ds:
    with tf.GradientTape() as tape:
        loss = focal_loss(yb, model(xb, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        "S11",
        must=("focal_loss", "int64"),
        must_not=("float64", "mixed_float16"),
        fix="tf.cast(yb, tf.float32) before the loss",
    ),
    # TypeError: weighted_bce() missing 1 required positional argument: 'pos_weight'
    Case(
        "cl2_three_param_loss_given_to_compile",
        FAMILY,
        """
def weighted_bce(y_true, y_pred, pos_weight):
    bce = keras.losses.binary_crossentropy(y_true, y_pred)
    return bce * (1.0 + (pos_weight - 1.0) * tf.squeeze(y_true, -1))
x = np.random.rand(40, 5).astype("float32")
y = (np.random.rand(40, 1) < 0.1).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", loss=weighted_bce)
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        None,
        unexplained="Python's TypeError names weighted_bce and the missing pos_weight: "
        "compile calls a loss with (y_true, y_pred) only; bind pos_weight with a closure or partial",
        fix="functools.partial(weighted_bce, pos_weight=10.0)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received:
    # target.shape=(8, 4, 8), output.shape=(8,)
    # (call(self, y_pred, y_true): Keras passes labels first, so the names are swapped)
    Case(
        "cl2_loss_subclass_call_pred_first",
        FAMILY,
        """
class LabelSmoothedSCE(keras.losses.Loss):
    def __init__(self, smoothing=0.1, **kwargs):
        super().__init__(**kwargs)
        self.smoothing = smoothing
    def call(self, y_pred, y_true):
        n = keras.ops.shape(y_pred)[-1]
        onehot = keras.ops.one_hot(keras.ops.cast(y_true, "int32"), n)
        soft = onehot * (1.0 - self.smoothing) + self.smoothing / keras.ops.cast(n, "float32")
        return keras.losses.categorical_crossentropy(soft, y_pred)
x = np.random.rand(48, 6).astype("float32")
y = np.random.randint(0, 4, 48)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4, activation="softmax")])
model.compile("adam", loss=LabelSmoothedSCE(0.1))
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        "S07",
        must=("labelsmoothedsce",),
        must_not=("to_categorical", "units"),
        fix="def call(self, y_true, y_pred)",
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    Case(
        "cl2_dice_loss_numpy_under_fit",
        FAMILY,
        """
class DiceLoss(keras.losses.Loss):
    def call(self, y_true, y_pred):
        inter = tf.reduce_sum(y_true * y_pred, axis=[1, 2, 3]).numpy()
        total = tf.reduce_sum(y_true + y_pred, axis=[1, 2, 3]).numpy()
        return 1.0 - (2.0 * inter + 1.0) / (total + 1.0)
x = np.random.rand(16, 16, 16, 1).astype("float32")
masks = (np.random.rand(16, 16, 16, 1) > 0.5).astype("float32")
model = keras.Sequential([keras.Input((16, 16, 1)),
                          keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
                          keras.layers.Conv2D(1, 1, activation="sigmoid")])
model.compile("adam", loss=DiceLoss())
model.fit(x, masks, epochs=1, batch_size=4, verbose=0)
""",
        "T02",
        must=("diceloss", "numpy"),
        must_not=("run_eagerly", "tf.cond"),
        fix="drop .numpy(), keep the tensors",
    ),
    # ValueError: No gradients provided for any variable.
    # (the loss goes through NumPy and returns float(...): run_eagerly=True lets it run, but
    # the value is a constant)
    Case(
        "cl2_loss_returns_python_float_eager",
        FAMILY,
        """
def rmsle(y_true, y_pred):
    diff = np.log1p(np.asarray(y_pred)) - np.log1p(np.asarray(y_true))
    return float(np.sqrt(np.mean(diff ** 2)))
x = np.random.rand(40, 3).astype("float32")
y = np.random.rand(40, 1).astype("float32") * 10
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="relu")])
model.compile("adam", loss=rmsle, run_eagerly=True)
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        "G04",
        must=("rmsle",),
        must_not=("learning rate", "trainable=false"),
        fix="keras.ops.log1p / sqrt / mean in the loss",
    ),
    # ValueError: Dimensions must be equal, but are 3 and 16 for '{{node
    # compile_loss/weighted_cce/mul}} = Mul[T=DT_FLOAT](compile_loss/weighted_cce/mul/x,
    # data_1)' with input shapes: [3,1], [16,3].
    Case(
        "cl2_class_weights_column_vector",
        FAMILY,
        """
class_w = tf.constant([[1.0], [4.0], [10.0]])
def weighted_cce(y_true, y_pred):
    y_pred = tf.clip_by_value(y_pred, 1e-7, 1.0)
    return -tf.reduce_sum(class_w * y_true * tf.math.log(y_pred), axis=-1)
x = np.random.rand(48, 8).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 3, 48), 3)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", loss=weighted_cce)
model.fit(x, y, epochs=1, batch_size=16, verbose=0)
""",
        "S07",
        must=("class_w", "weighted_cce"),
        must_not=("batch_size", "units"),
        fix="class_w = tf.constant([1.0, 4.0, 10.0])",
    ),
    # TypeError: Value passed to parameter 'indices' has DataType float32 not in list of allowed
    # values: uint8, int8, int32, int64
    # (compile casts y_true to float32, whatever the labels' dtype)
    Case(
        "cl2_one_hot_of_float_y_true",
        FAMILY,
        """
NUM_CLASSES = 5
def smooth_cce(y_true, y_pred):
    target = tf.one_hot(tf.squeeze(y_true, -1), NUM_CLASSES)
    return keras.losses.categorical_crossentropy(target, y_pred, label_smoothing=0.1)
x = np.random.rand(40, 10).astype("float32")
y = np.random.randint(0, NUM_CLASSES, (40, 1))
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(NUM_CLASSES, activation="softmax")])
model.compile("adam", loss=smooth_cce)
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        "S11",
        must=("smooth_cce",),
        must_not=("astype", "float64"),
        fix="tf.one_hot(tf.cast(..., tf.int32), NUM_CLASSES)",
    ),
    # ValueError: None values not supported.
    # (y_pred.shape[0] is None while fit traces the loss; tf.range(None) fails)
    Case(
        "cl2_static_batch_size_in_contrastive_loss",
        FAMILY,
        """
def contrastive_loss(y_true, y_pred):
    batch = y_pred.shape[0]
    emb = tf.math.l2_normalize(y_pred, axis=1)
    sim = tf.matmul(emb, emb, transpose_b=True) / 0.1
    targets = tf.range(batch)
    return keras.losses.sparse_categorical_crossentropy(targets, sim, from_logits=True)
x = np.random.rand(40, 12).astype("float32")
y = np.zeros((40, 1), "float32")
model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(16)])
model.compile("adam", loss=contrastive_loss)
model.fit(x, y, epochs=1, batch_size=16, verbose=0)
""",
        "T02",
        must=("contrastive_loss", "shape[0]"),
        must_not=("float64", "units"),
        fix="batch = tf.shape(y_pred)[0]",
    ),
    # TypeError: <class 'TverskyLoss'> could not be deserialized properly. Please ensure that
    # components that are Python object instances (layers, models, etc.) returned by
    # `get_config()` are explicitly deserialized in the model's `from_config()` method.
    # (__init__ needs alpha and beta, the base get_config saves only name/reduction/dtype)
    Case(
        "cl2_tversky_loss_without_get_config",
        FAMILY,
        """
import os, tempfile
@keras.saving.register_keras_serializable()
class TverskyLoss(keras.losses.Loss):
    def __init__(self, alpha, beta, name="tversky"):
        super().__init__(name=name)
        self.alpha = alpha
        self.beta = beta
    def call(self, y_true, y_pred):
        tp = keras.ops.sum(y_true * y_pred, axis=-1)
        fp = keras.ops.sum((1 - y_true) * y_pred, axis=-1)
        fn = keras.ops.sum(y_true * (1 - y_pred), axis=-1)
        return 1.0 - tp / (tp + self.alpha * fp + self.beta * fn + 1e-7)
x = np.random.rand(32, 8).astype("float32")
y = (np.random.rand(32, 4) > 0.5).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, activation="sigmoid")])
model.compile("adam", loss=TverskyLoss(alpha=0.3, beta=0.7))
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "seg.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        "C05",
        must=("tverskyloss", "alpha"),
        must_not=("custom_objects",),
        fix="get_config returning alpha and beta",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received:
    # target.shape=(8,), output.shape=(8, 1)
    # (keras.ops.binary_crossentropy called in a loop: no squeeze as under compile)
    Case(
        "cl2_flat_labels_against_sigmoid_column_in_tape",
        FAMILY,
        """
def churn_loss(y_true, y_pred):
    return keras.ops.mean(keras.ops.binary_crossentropy(y_true, y_pred))
x = np.random.rand(32, 7).astype("float32")
churned = np.random.randint(0, 2, 32).astype("float32")
model = keras.Sequential([keras.Input((7,)), keras.layers.Dense(1, activation="sigmoid")])
opt = keras.optimizers.SGD(0.1)
for xb, yb in tf.data.Dataset.from_tensor_slices((x, churned)).batch(8):
    with tf.GradientTape() as tape:
        loss = churn_loss(yb, model(xb, training=True))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
""",
        "S07",
        must=("churn_loss", "churned"),
        must_not=("units", "sparse"),
        fix="churned.reshape(-1, 1) or keras.losses.BinaryCrossentropy()",
    ),
]
