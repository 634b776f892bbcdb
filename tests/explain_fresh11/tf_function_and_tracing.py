"""Family ``tf_function_and_tracing``: ``tf.function`` and the contract of graph tracing.

APIs: ``tf.function(func, input_signature=None, jit_compile=None, autograph=True)``
(the Python body runs once per trace with symbolic tensors: they have no ``.numpy()``,
cannot be a Python ``bool`` and have no concrete value; AutoGraph turns ``if``/``for``/
``while`` on tensors into ``tf.cond``/``tf.while_loop``, but a Python list appended inside
such a loop holds tensors of the loop's own graph, which cannot leave it, so
``tf.TensorArray`` is the documented way to collect them; ``tf.Variable``s may only be
created on the first trace and never on later calls; ``input_signature`` fixes one
``tf.TensorSpec`` per positional argument, with its dtype and shape, and a call whose
tensors do not fit, or a parameter without a spec, is refused; ``jit_compile=True``
compiles the whole function with XLA, which has no kernel for ops such as ``PyFunc``
(``tf.numpy_function``/``tf.py_function``) or string ops), Keras layers (``call`` is
traced symbolically to infer output shapes when the layer is applied to a
``keras.Input``) and ``tf.py_function(func, inp, Tout)`` (``Tout`` gives the dtype of each
value ``func`` returns; the values are converted to it, and a value that cannot be
converted fails when the element is produced).

Evidence a diagnosis needs: the user's line inside the traced function (an ``if`` on a
tensor, ``.numpy()``, ``tf.Variable(...)``, ``list.append`` in a ``tf.range`` loop), the
function's ``input_signature`` against the dtypes and arguments of the call, whether
``jit_compile`` is on and which op XLA refused, and for ``tf.py_function`` the declared
``Tout`` against the Python type the function returns.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(10, 3), dtype=tf.float64, name=None)
    #   to TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)`. ...
    Case(
        name="f11_input_signature_float32_called_with_a_float64_tensor",
        family="tf_function_and_tracing",
        code="""
@tf.function(input_signature=[tf.TensorSpec(shape=(None, 3), dtype=tf.float32)])
def standardize(batch):
    return (batch - tf.reduce_mean(batch, axis=0)) / (tf.math.reduce_std(batch, axis=0) + 1e-6)

readings = tf.constant(np.random.rand(10, 3))
scaled = standardize(readings)
""",
        expect="S11",
        must=("float64",),
        must_not=("batch axis", "retrac"),
        fix="tf.constant(..., dtype=tf.float32) / tf.cast(readings, tf.float32)",
    ),
    # TypeError: input_signature missing type constraint for y
    Case(
        name="f11_input_signature_lists_one_spec_for_a_two_argument_step",
        family="tf_function_and_tracing",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])

@tf.function(input_signature=[tf.TensorSpec(shape=(None, 4), dtype=tf.float32)])
def eval_step(x, y):
    return tf.reduce_mean(tf.square(model(x) - y))

eval_step(tf.random.normal((8, 4)), tf.random.normal((8, 2)))
""",
        expect=None,
        must_not=("float64",),
        unexplained="the error names the parameter (y) that has no TensorSpec in input_signature",
        fix="input_signature=[TensorSpec((None, 4)), TensorSpec((None, 2))]",
    ),
    # InaccessibleTensorError: in user code:
    #   ... InaccessibleTensorError: <tf.Tensor 'while/add:0' shape=(2,) dtype=float32> is out of scope and cannot be used here. ...
    Case(
        name="f11_rollout_appends_loop_states_to_a_python_list",
        family="tf_function_and_tracing",
        code="""
@tf.function
def rollout(state, steps):
    trajectory = []
    for t in tf.range(steps):
        state = state * 0.9 + 1.0
        trajectory.append(state)
    return tf.stack(trajectory)

path = rollout(tf.constant([1.0, 2.0]), tf.constant(5))
""",
        expect="T03",
        must=("tensorarray",),
        must_not=("numpy", "float64"),
        fix="collect with tf.TensorArray (ta = ta.write(t, state); ta.stack())",
    ),
    # ValueError: in user code:
    #   ... ValueError: tf.function only supports singleton tf.Variables created on the first call. ...
    Case(
        name="f11_tf_variable_created_inside_the_traced_function",
        family="tf_function_and_tracing",
        code="""
@tf.function
def scaled_sum(x):
    scale = tf.Variable(2.0)
    return tf.reduce_sum(x) * scale

total = scaled_sum(tf.ones(3))
""",
        expect="T03",
        must=("scale",),
        must_not=("persistent",),
        fix="create scale = tf.Variable(2.0) once, outside the function",
    ),
    # OperatorNotAllowedInGraphError: Exception encountered when calling ClipLarge.call().
    #   ... Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. ...
    Case(
        name="f11_python_if_on_a_tensor_in_a_layer_call",
        family="tf_function_and_tracing",
        code="""
class ClipLarge(keras.layers.Layer):
    def call(self, x):
        if tf.reduce_max(x) > 10.0:
            return x / tf.reduce_max(x)
        return x

inputs = keras.Input((5,))
h = ClipLarge()(inputs)
outputs = keras.layers.Dense(1)(h)
model = keras.Model(inputs, outputs)
""",
        expect="T02",
        must=("tf.cond",),
        must_not=("compute_output_shape",),
        fix="tf.cond(tf.reduce_max(x) > 10.0, lambda: x / tf.reduce_max(x), lambda: x)",
    ),
    # AttributeError: in user code:
    #   ... AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    Case(
        name="f11_numpy_called_on_a_count_inside_tf_function",
        family="tf_function_and_tracing",
        code="""
@tf.function
def positive_ones(x):
    n = int(tf.reduce_sum(tf.cast(x > 0, tf.int32)).numpy())
    return tf.ones((n,))

positive_ones(tf.constant([1.0, -2.0, 3.0]))
""",
        expect="T02",
        must=("numpy",),
        must_not=("float64", "persistent"),
        fix="use the tensor directly: tf.ones(tf.reduce_sum(tf.cast(x > 0, tf.int32)))",
    ),
    # InvalidArgumentError: Detected unsupported operations when trying to compile graph __inference_median_abs_error_...
    #   on XLA_CPU_JIT: PyFunc (No registered 'PyFunc' OpKernel for XLA_CPU_JIT devices ...
    Case(
        name="f11_jit_compiled_loss_calls_numpy_median",
        family="tf_function_and_tracing",
        code="""
@tf.function(jit_compile=True)
def median_abs_error(y_true, y_pred):
    errors = tf.abs(y_true - y_pred)
    return tf.numpy_function(np.median, [errors], tf.float32)

median_abs_error(tf.random.normal((16,)), tf.random.normal((16,)))
""",
        expect="T03",
        must=("jit_compile",),
        must_not=("float64",),
        fix="drop jit_compile=True, or a TF median (sort and gather) instead of numpy",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_output_types_1_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   Error in user-defined function passed to MapDataset:... TypeError: Cannot convert 'great movie' to EagerTensor of dtype float
    Case(
        name="f11_py_function_returns_text_with_tout_float32",
        family="tf_function_and_tracing",
        code="""
def clean(line):
    return line.numpy().decode().lower().strip()

reviews = tf.data.Dataset.from_tensor_slices(["Great movie ", "BAD plot"])
cleaned = reviews.map(lambda s: tf.py_function(clean, [s], Tout=tf.float32))
first = next(iter(cleaned))
""",
        expect="S11",
        must=("tout",),
        must_not=("astype", "float64"),
        fix="Tout=tf.string",
    ),
]
