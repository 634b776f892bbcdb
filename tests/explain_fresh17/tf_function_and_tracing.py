"""Family ``tf_function_and_tracing``: code traced by ``tf.function`` (or by Keras) that treats symbolic tensors as values.

APIs: ``tf.function`` traces the Python function once per input signature into a graph;
inside it tensors are symbolic: no ``.numpy()``, no ``len()`` of an axis whose size is
unknown, no Python ``float()`` or f-string formatting of a tensor (``tf.print`` prints at run
time), and with ``input_signature=[tf.TensorSpec([None, ...])]`` the ``None`` axis has no
Python value (``tf.shape(x)[0]``, ``tf.size``).  ``input_signature`` also fixes the rank and
dtype the function accepts; an argument that does not fit raises "Binding inputs to
tf.function failed".  ``tf.Variable``\\ s may be created only on the first trace: a function
or a Keras layer's ``call`` that creates one on every call must create it once (outside,
in ``__init__``/``build`` with ``add_weight``).  Keras builds a functional model by calling
each layer on symbolic ``KerasTensor``\\ s (no AutoGraph there: Python ``if`` on a tensor
fails; ``tf.cond``/``tf.where``/``keras.ops.where``), and traces ``train_step`` in a
``tf.function`` unless ``compile(run_eagerly=True)``.  ``tf.py_function`` and
``tf.numpy_function`` return tensors of unknown shape (``set_shape``/``tf.ensure_shape``
after them), and the NumPy function must return exactly the declared ``Tout`` dtype
(NumPy computes in float64).

Evidence a diagnosis needs: the traced function (a user's ``tf.function``, a Keras layer's
``call``, ``train_step``, a ``Dataset.map`` function) and the user's line in it that asked
a symbolic tensor for a value; the unknown dimension and where it came from
(``input_signature``'s ``None``); the variable created on a retrace; the shape/dtype of the
argument against the ``input_signature``; the shape lost after ``py_function``; the dtype
the NumPy function returned against ``Tout``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: len is not well defined for a symbolic Tensor (values:0). Please call `x.shape` rather than `len(x)` for shape information.
    Case(
        name="f17_len_of_none_batch_axis_in_signature_function",
        family="tf_function_and_tracing",
        code="""
@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def average(values):
    return tf.reduce_sum(values) / len(values)

average(tf.constant([1.0, 2.0, 3.0]))
""",
        expect="T02",
        must=("len(",),
        must_not=("x.shape[0]", "values.shape[0]"),
        fix="tf.reduce_mean(values), or tf.cast(tf.size(values), tf.float32)",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.function. ...
    Case(
        name="f17_tf_function_accumulator_creates_variable_per_call",
        family="tf_function_and_tracing",
        code="""
@tf.function
def accumulate(x):
    total = tf.Variable(tf.zeros_like(x))
    total.assign_add(x)
    return total

accumulate(tf.ones((3,)))
accumulate(tf.ones((3,)))
""",
        expect="T03",
        must=("total",),
        must_not=("persistent=true",),
        fix="create total = tf.Variable(...) once outside the function",
    ),
    # TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(4, 28, 28, 1), dtype=tf.float32, name=None) to TensorSpec(shape=(None, 28, 28), dtype=tf.float32, name=None)`. ...
    Case(
        name="f17_images_with_channel_axis_against_rank3_input_signature",
        family="tf_function_and_tracing",
        code="""
@tf.function(input_signature=[tf.TensorSpec([None, 28, 28], tf.float32)])
def flatten_images(images):
    return tf.reshape(images, (-1, 784))

imgs = np.random.rand(4, 28, 28, 1).astype("float32")
flatten_images(imgs)
""",
        expect="S12",
        must=("input_signature",),
        must_not=("tf.cast", "astype"),
        fix="TensorSpec([None, 28, 28, 1]) or squeeze the channel axis",
    ),
    # ValueError: as_list() is not defined on an unknown TensorShape.
    Case(
        name="f17_py_function_in_map_loses_feature_shape_before_dense",
        family="tf_function_and_tracing",
        code="""
def shift_features(x):
    return np.roll(x.numpy(), 1).astype("float32")

x = np.random.rand(12, 4).astype("float32")
y = np.random.rand(12, 1).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((x, y))
ds = ds.map(lambda a, b: (tf.py_function(shift_features, [a], tf.float32), b)).batch(4)
model = keras.Sequential([
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S10",
        must=("py_function",),
        must_not=("padded_batch",),
        fix="out.set_shape([4]) (tf.ensure_shape) after tf.py_function",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_output_types_1_device_/job:localhost/replica:0/task:0/device:CPU:0}} Error in user-defined function passed to MapDataset:165 transformation with iterator: Iterator::Root::Prefetch::Map: 0-th value returned by pyfunc_7 is double, but expects float
    Case(
        name="f17_numpy_function_jitter_returns_float64_for_float32_tout",
        family="tf_function_and_tracing",
        code="""
def jitter(x):
    return x + np.random.normal(0, 0.1, size=x.shape)

x = np.random.rand(12, 4).astype("float32")
ds = tf.data.Dataset.from_tensor_slices(x)
ds = ds.map(lambda v: tf.numpy_function(jitter, [v], tf.float32))
next(iter(ds))
""",
        expect="S11",
        must=("float64",),
        must_not=("tf.cast",),
        fix="return (x + noise).astype(np.float32) in jitter",
    ),
    # TypeError: float() argument must be a string or a real number, not 'SymbolicTensor'
    Case(
        name="f17_train_step_formats_loss_with_python_float",
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
        print(f"loss = {float(loss):.4f}")
        return {"loss": loss}

inputs = keras.Input((4,))
model = LoggingModel(inputs, keras.layers.Dense(1)(inputs))
model.compile("adam", "mse")
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T02",
        must=("train_step",),
        must_not=("persistent",),
        fix="tf.print('loss =', loss), or compile(run_eagerly=True) while debugging",
    ),
    # ValueError: Exception encountered when calling Scale.call().
    # tf.function only supports singleton tf.Variables created on the first call. ...
    Case(
        name="f17_custom_scale_layer_creates_tf_variable_in_call",
        family="tf_function_and_tracing",
        code="""
class Scale(keras.layers.Layer):
    def call(self, x):
        self.alpha = tf.Variable(1.0)
        return x * self.alpha

model = keras.Sequential([
    keras.Input((4,)),
    keras.layers.Dense(4),
    Scale(),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T03",
        must=("build",),
        must_not=("run_eagerly",),
        fix="self.alpha = self.add_weight(shape=(), initializer='ones') in build/__init__",
    ),
    # OperatorNotAllowedInGraphError: Exception encountered when calling Clip.call().
    # Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. ...
    Case(
        name="f17_clip_layer_python_if_on_max_in_functional_build",
        family="tf_function_and_tracing",
        code="""
class Clip(keras.layers.Layer):
    def call(self, x):
        if tf.reduce_max(x) > 1.0:
            return x / tf.reduce_max(x)
        return x

inputs = keras.Input((4,))
scaled = Clip()(inputs)
outputs = keras.layers.Dense(1)(scaled)
model = keras.Model(inputs, outputs)
""",
        expect="T02",
        must=("clip",),
        must_not=("run_eagerly",),
        fix="x / tf.maximum(tf.reduce_max(x), 1.0) (or tf.cond/tf.where)",
    ),
]
