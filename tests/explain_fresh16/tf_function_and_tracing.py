"""Family ``tf_function_and_tracing``: code traced by ``tf.function`` (and by Keras' compiled train step) against graph-mode rules.

APIs: ``tf.function`` traces the Python function once per input signature into a graph;
during tracing tensors are symbolic, so ``.numpy()``, ``float(t)``, NumPy functions on
tensors and Python ``if``/``bool`` on tensor values fail (AutoGraph converts only the user
function's own ``if``/``for``/``while`` statements on tensors into ``tf.cond``/``tf.while_loop``,
not code reached through Keras' ``__call__``); Python side effects (``print``, appending
to a list) run once, at trace time, and what they keep are graph tensors that cannot be
read afterwards.  ``tf.Variable``s (and Keras layers and optimizers, which create
variables) may be created only on the first trace, so they belong outside the function
or in ``__init__``/``build``.  ``input_signature`` fixes the shapes and dtypes a function
accepts: calls with other shapes or dtypes are rejected, not retraced.
``tf.py_function``/``tf.numpy_function`` run Python inside the graph: their outputs have
unknown shape (``set_shape``/``tf.ensure_shape`` restores it) and must have exactly the
dtypes of ``Tout``.  ``jit_compile=True`` compiles with XLA, which rejects ops with
data-dependent output shapes.  Keras compiles ``train_step`` into a ``tf.function``
unless ``compile(run_eagerly=True)``.

Evidence a diagnosis needs: whether the failing line ran while tracing (symbolic
tensors) and which user line asked for a concrete value, the function and how many
times it was traced when a variable was created in it, the signature against the
shapes and dtypes passed, the declared ``Tout`` against the dtype the Python code
returned, and the dataset step whose shape became unknown.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(2, 3), dtype=tf.int64, name=None) ...
    Case(
        name="f16_int32_input_signature_called_with_int64_hashed_ids",
        family="tf_function_and_tracing",
        code="""
@tf.function(input_signature=[tf.TensorSpec(shape=[None, None], dtype=tf.int32)])
def count_tokens(token_ids):
    return tf.reduce_sum(tf.cast(token_ids > 0, tf.int32), axis=1)
words = tf.constant([["the", "cat", "sat"], ["a", "dog", "ran"]])
ids = tf.strings.to_hash_bucket_fast(words, 1000)
count_tokens(ids)
""",
        expect="S11",
        must=("int64",),
        must_not=('astype("float32")', "float64"),
        fix="tf.cast(ids, tf.int32) before the call, or a tf.int64 TensorSpec",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only ...
    Case(
        name="f16_dense_layer_built_inside_tf_function",
        family="tf_function_and_tracing",
        code="""
@tf.function
def project(features):
    head = keras.layers.Dense(2, name="projection")
    return head(features)
project(tf.ones((3, 5)))
project(tf.ones((3, 5)))
""",
        expect="T03",
        must=("projection",),
        must_not=("run_eagerly", "tf.cond"),
        fix="create the Dense layer once outside the tf.function and call it inside",
    ),
    # TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(8, 28, 28, 1), dtype=tf.float32, n ...
    Case(
        name="f16_input_signature_rank_three_called_with_channel_axis",
        family="tf_function_and_tracing",
        code="""
@tf.function(input_signature=[tf.TensorSpec(shape=[None, 28, 28], dtype=tf.float32)])
def brightness(images):
    return tf.reduce_mean(images, axis=[1, 2])
batch = np.random.rand(8, 28, 28, 1).astype("float32")
brightness(batch)
""",
        expect="S12",
        must=("input_signature",),
        must_not=("float64", "astype"),
        fix="TensorSpec([None, 28, 28, 1]) or squeeze the channel axis before calling",
    ),
    # ValueError: as_list() is not defined on an unknown TensorShape.
    Case(
        name="f16_py_function_map_loses_shape_before_fit",
        family="tf_function_and_tracing",
        code="""
def jitter(x):
    return x + np.random.normal(0, 0.01, size=x.shape).astype("float32")
features = np.random.rand(32, 6).astype("float32")
labels = np.random.randint(0, 2, size=(32, 1)).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((features, labels))
ds = ds.map(lambda x, y: (tf.py_function(jitter, [x], tf.float32), y)).batch(8)
model = keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S10",
        must=("py_function",),
        must_not=("astype", "expand_dims"),
        fix="set the shape in the map: tf.ensure_shape(out, [6]) (or x.set_shape([6]))",
    ),
    # InvalidArgumentError: {{function_node ...}} Error in user-defined function passed to MapDataset:N ...
    #   ... 0-th value returned by pyfunc_N is double, but expects float
    Case(
        name="f16_numpy_function_returns_float64_for_float32_tout",
        family="tf_function_and_tracing",
        code="""
def smooth(signal):
    return np.convolve(signal, np.ones(3) / 3, mode="same")
signals = tf.data.Dataset.from_tensor_slices(np.random.rand(10, 50).astype("float32"))
smoothed = signals.map(lambda s: tf.numpy_function(smooth, [s], tf.float32))
first = next(iter(smoothed))
""",
        expect="S11",
        must=("float64",),
        must_not=("reshape", "set_shape"),
        fix='return np.convolve(...).astype("float32") (np.ones is float64)',
    ),
    # OperatorNotAllowedInGraphError: Exception encountered when calling ClipIfLarge.call().
    #   Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following resolutions to the problem: If you are running in Graph ...
    Case(
        name="f16_python_if_on_tensor_in_custom_layer_of_subclassed_model",
        family="tf_function_and_tracing",
        code="""
class ClipIfLarge(keras.layers.Layer):
    def call(self, x):
        if tf.reduce_max(tf.abs(x)) > 3.0:
            x = tf.clip_by_value(x, -3.0, 3.0)
        return x
class Regressor(keras.Model):
    def __init__(self):
        super().__init__()
        self.clip = ClipIfLarge(name="clip_if_large")
        self.out = keras.layers.Dense(1)
    def call(self, x):
        return self.out(self.clip(x))
model = Regressor()
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.randn(16, 3).astype("float32") * 4, np.random.rand(16, 1).astype("float32"), epochs=1, verbose=0)
""",
        expect="T02",
        must=("clip_if_large",),
        must_not=(".numpy()", "float64"),
        fix="x = tf.where(max_abs > 3.0, tf.clip_by_value(x, -3.0, 3.0), x) (or just clip: it is a no-op below 3)",
    ),
    # TypeError: float() argument must be a string or a real number, not 'SymbolicTensor'
    Case(
        name="f16_train_step_formats_loss_with_python_float",
        family="tf_function_and_tracing",
        code="""
class LoggingModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        print(f"step loss = {float(loss):.4f}")
        return {"loss": loss}
inputs = keras.Input((4,))
model = LoggingModel(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(16, 4).astype("float32"), np.random.rand(16, 1).astype("float32"), epochs=1, verbose=0)
""",
        expect="T02",
        must=("train_step",),
        must_not=("tf.cond", "tf.where"),
        fix='tf.print("step loss =", loss), or compile(run_eagerly=True) while debugging',
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    Case(
        name="f16_losses_appended_to_python_list_inside_tf_function",
        family="tf_function_and_tracing",
        code="""
w = tf.Variable(tf.zeros((3, 1)))
opt = keras.optimizers.SGD(0.1)
loss_history = []
@tf.function
def train_one(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ w - y))
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    loss_history.append(loss)
    return loss
for _ in range(3):
    train_one(tf.random.normal((8, 3)), tf.random.normal((8, 1)))
print([l.numpy() for l in loss_history])
""",
        expect="T02",
        must=("loss_history",),
        must_not=("tf.cond", "tf.where"),
        fix="append the returned value outside: loss_history.append(train_one(x, y).numpy())",
    ),
]
