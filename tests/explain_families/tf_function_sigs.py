"""Family: ``tf.function`` and what tracing does to the Python code inside it.

API: ``tf.function(func, input_signature=None, autograph=True, jit_compile=None,
reduce_retracing=False)``; ``Function.get_concrete_function(*specs)``;
``tf.py_function(func, inp, Tout)`` and ``tf.numpy_function(func, inp, Tout)``, alone or
inside ``Dataset.map``.  Contract: ``input_signature`` is a list (or tuple) with one
``tf.TensorSpec(shape, dtype)`` per positional parameter; a ``None`` in a spec's shape
accepts any size on that axis, every other axis and the dtype must match what is passed
(Python scalars are converted to the spec's dtype, and a float cannot become an int32);
a concrete function accepts only its traced shapes.  While a function is traced its
arguments are symbolic: their static shape may hold ``None`` (an unknown batch size
that NumPy, ``int()`` and ``range()`` cannot use), they have no ``.numpy()``, cannot be
iterated or unpacked, and Python side effects (a list appended in a ``tf.range`` loop)
only record graph tensors that are not usable outside the loop.  A ``tf.Variable`` (also
the ones a Keras optimizer creates in its constructor) may be created only on the first
trace.  ``Tout`` is the dtype (or list of dtypes) the Python function returns, and the
output has an unknown shape until ``set_shape``/``tf.ensure_shape`` restores it.
``jit_compile=True`` compiles with XLA, which has no kernel for ``PyFunc``.  Evidence
a diagnosis can read at the failure: the function's name and parameters, its
``input_signature`` specs (shapes with ``None``, dtypes), the arguments given (shapes,
dtypes, Python types and values), the traced line that raised (AutoGraph's
"in user code" frame), ``Tout`` against what the Python function returned, the
dataset's ``element_spec`` (unknown shapes), and the model the data reaches.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "tf_function_sigs"

CASES = [
    # TypeError: Binding inputs to tf.function failed due to `Can not cast
    # TensorSpec(shape=(16, 28, 28), dtype=tf.float32, name=None) to
    # TensorSpec(shape=(None, 28, 28, 1), dtype=tf.float32, name=None)`. Received args: ...
    # (the signature wants a channel axis; the grayscale digits have none)
    Case(
        "tfs_signature_rank4_images_get_rank3_digits",
        FAMILY,
        """
@tf.function(input_signature=[tf.TensorSpec([None, 28, 28, 1], tf.float32)])
def normalize(images):
    return (images - 0.5) / 0.5
digits = np.random.rand(16, 28, 28).astype("float32")
normalize(digits)
""",
        "S12",
        must=("normalize", "images"),
        must_not=("float64", "batch_size"),
        fix="add the channel axis: digits[..., None]",
    ),
    # TypeError: Binding inputs to tf.function failed due to `Cannot convert 2.0 to
    # EagerTensor of dtype int32`. Received args: ...
    # (a Python float, len(x) * 0.2, where the spec of num_keep is a scalar int32)
    Case(
        "tfs_python_float_for_int32_spec",
        FAMILY,
        """
@tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32),
                              tf.TensorSpec([], tf.int32)])
def top_rows(scores, num_keep):
    return tf.math.top_k(tf.reduce_sum(scores, axis=1), k=num_keep).values
x = np.random.rand(10, 4).astype("float32")
top_rows(x, len(x) * 0.2)
""",
        "S11",
        must=("num_keep", "int32"),
        must_not=("reshape", "batch_size"),
        fix="pass int(len(x) * 0.2)",
    ),
    # TypeError: Binding inputs to tf.function failed due to `Can not cast
    # TensorSpec(shape=(4, 10), dtype=tf.float32, name=None) to
    # TensorSpec(shape=(32, 10), dtype=tf.float32, name=None)`. Received args: ...
    # (concrete function traced for a fixed batch of 32; the last batch has 4 rows)
    Case(
        "tfs_concrete_function_fixed_batch_last_batch",
        FAMILY,
        """
@tf.function
def predict_step(x):
    return tf.nn.softmax(x @ tf.ones((10, 3)))
infer = predict_step.get_concrete_function(tf.TensorSpec([32, 10], tf.float32))
data = np.random.rand(100, 10).astype("float32")
for start in range(0, 100, 32):
    infer(data[start:start + 32])
""",
        "S12",
        must=("predict_step", "32"),
        must_not=("float64", "channel"),
        fix="trace with TensorSpec([None, 10])",
    ),
    # TypeError: 'NoneType' object cannot be interpreted as an integer
    # (IPython/AutoGraph: "in user code:" pointing at the np.random.normal line in add_noise)
    Case(
        "tfs_numpy_noise_sized_by_unknown_batch",
        FAMILY,
        """
@tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
def add_noise(x):
    noise = np.random.normal(0.0, 0.1, size=(x.shape[0], 4)).astype("float32")
    return x + noise
add_noise(np.ones((8, 4), "float32"))
""",
        "T02",
        must=("add_noise", "none"),
        must_not=("tf.cond", "float64"),
        fix="tf.random.normal(tf.shape(x), stddev=0.1)",
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    # (IPython/AutoGraph: "in user code:" pointing at history.append(loss.numpy()))
    Case(
        "tfs_loss_numpy_logged_inside_train_step",
        FAMILY,
        """
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
opt = keras.optimizers.Adam()
history = []
@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    history.append(loss.numpy())
    return loss
train_step(np.random.rand(16, 4).astype("float32"), np.random.rand(16, 1).astype("float32"))
""",
        "T02",
        must=("train_step", "numpy"),
        must_not=("tf.cond", "tf.where"),
        fix="return loss; append loss.numpy() outside",
    ),
    # OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed.
    # (plain exec, AutoGraph off: at `for i in tf.range`); in IPython with AutoGraph on:
    # InaccessibleTensorError: <tf.Tensor 'while/add_1:0' ...> is out of scope and cannot
    # be used here. (at tf.stack(sums): the list kept tensors of the while loop's body)
    Case(
        "tfs_python_list_appended_in_tf_range_loop",
        FAMILY,
        """
@tf.function
def cumulative(x):
    sums = []
    total = tf.constant(0.0)
    for i in tf.range(tf.shape(x)[0]):
        total += x[i]
        sums.append(total)
    return tf.stack(sums)
cumulative(tf.constant([1.0, 2.0, 3.0]))
""",
        "T02",
        must=("sums",),
        must_not=("tf.cond", ".numpy()"),
        fix="collect in a tf.TensorArray (or tf.cumsum)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_...}} Error in
    # user-defined function passed to MapDataset:3 transformation with iterator:
    # Iterator::Root::Prefetch::Map: ValueError: Tensor conversion requested dtype float32
    # for Tensor with dtype int32 ...
    Case(
        "tfs_py_function_returns_int32_tout_float32",
        FAMILY,
        """
def token_count(text):
    return tf.strings.length(text)
ds = tf.data.Dataset.from_tensor_slices(["a b c", "hello world", "x"])
ds = ds.map(lambda s: tf.py_function(token_count, [s], Tout=tf.float32))
list(ds)
""",
        "S11",
        must=("token_count", "int32"),
        must_not=("float64",),
        fix="Tout=tf.int32, or tf.cast in token_count",
    ),
    # ValueError: as_list() is not defined on an unknown TensorShape.
    # (the numpy_function output in the map has unknown shape; Flatten/Dense cannot build)
    Case(
        "tfs_numpy_function_map_loses_shape_before_fit",
        FAMILY,
        """
def load_pixels(i):
    return np.random.rand(8, 8).astype("float32") * i
ids = tf.data.Dataset.range(32)
ds = ids.map(lambda i: (tf.numpy_function(load_pixels, [tf.cast(i, tf.float32)], tf.float32),
                        tf.cast(i % 2, tf.float32)))
ds = ds.batch(8)
model = keras.Sequential([keras.layers.Flatten(), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        "S10",
        must=("load_pixels",),
        must_not=("keras.input", "float64"),
        fix="tf.ensure_shape(..., (8, 8)) in the map",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first
    # call. Make sure the tf.Variable is only created once or created outside tf.function.
    # (IPython/AutoGraph: "in user code:" pointing at the keras.optimizers.Adam line)
    Case(
        "tfs_optimizer_constructed_inside_train_step",
        FAMILY,
        """
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
@tf.function
def train_step(x, y):
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
train_step(np.random.rand(16, 4).astype("float32"), np.random.rand(16, 1).astype("float32"))
""",
        "T03",
        must=("optimizer", "train_step"),
        must_not=("persistent",),
        fix="create the optimizer once, outside train_step",
    ),
    # InvalidArgumentError: Detected unsupported operations when trying to compile graph
    # __inference_robust_loss_...[_XlaMustCompile=true,...] on XLA_CPU_JIT: PyFunc
    # (No registered 'PyFunc' OpKernel for XLA_CPU_JIT devices ...)
    Case(
        "tfs_jit_compile_with_numpy_function_median",
        FAMILY,
        """
@tf.function(jit_compile=True)
def robust_loss(y_true, y_pred):
    err = tf.abs(y_true - y_pred)
    med = tf.numpy_function(np.median, [err], tf.float32)
    return tf.reduce_mean(tf.minimum(err, 3.0 * med))
robust_loss(tf.random.uniform((16,)), tf.random.uniform((16,)))
""",
        None,
        unexplained=(
            "TensorFlow's message already says XLA (jit_compile=True) cannot compile the "
            "PyFunc op of the tf.numpy_function: drop jit_compile or use TF ops"
        ),
        fix="drop jit_compile=True or use TF ops",
    ),
]
