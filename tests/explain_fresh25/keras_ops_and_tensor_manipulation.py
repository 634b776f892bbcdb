"""``keras.ops`` and ``tf`` tensor manipulation inside models.

The family
----------
Models often do their own tensor arithmetic: a ``keras.layers.Lambda(fn)``, a custom layer's
``call``, or ``keras.ops.*`` applied to the symbolic tensors of a functional model.

* While a functional model is built, every tensor is a ``KerasTensor``: a symbolic
  placeholder with a shape (batch axis ``None``) and a dtype.  Only Keras layers and
  ``keras.ops`` functions accept it; a TensorFlow function (``tf.expand_dims``,
  ``tf.concat``, ``tf.reshape``) called on it raises "A KerasTensor cannot be used as input
  to a TensorFlow function" (the fix: ``keras.ops.<same op>`` or wrap the call in a layer).
* Inside a layer's ``call`` (and inside ``Lambda``) TensorFlow ops are fine.  Keras infers
  the layer's output by running ``call`` on symbolic placeholders
  (``compute_output_spec``); when the op inside fails, a custom layer reports "Could not
  automatically infer the output shape / dtype ... Error encountered: <the op's error>", and
  a ``Lambda`` reports only "We could not automatically infer the shape of the Lambda's
  output. Please specify the `output_shape` argument" -- the real cause (the op's own error)
  is hidden, and ``output_shape`` is not the fix.
* Op contracts: ``tf.concat`` / ``keras.ops.concatenate(xs, axis)`` need every axis but
  ``axis`` equal (``axis=0`` is the batch axis, ``axis=-1`` the features);
  ``tf.one_hot(indices, depth)`` needs integer ``indices`` (uint8/int8/int32/int64);
  ``tf.matmul(a, b)`` needs one dtype on both sides (no implicit int -> float promotion;
  a layer only autocasts *floating* inputs to its compute dtype, an ``int32`` input stays
  ``int32``); ``tf.gather(params, indices)`` needs ``0 <= indices < params.shape[0]``
  (on CPU an error "indices[i,j] = N is not in [0, N)", on GPU silent zeros).
* ``keras.layers.Permute(dims)``: ``dims`` indexes the axes *without* the batch axis and
  starts at 1.
* Python control flow on a tensor value (``if tf.reduce_max(x) > 1.0:``) asks a symbolic
  tensor for a concrete bool while the model is traced; use ``tf.where`` /
  ``keras.ops.where`` / ``keras.ops.cond``.
* State: variables belong in ``build`` (``self.add_weight``), created once; a
  ``tf.Variable(...)`` created in ``call`` is created on every trace and TensorFlow refuses it
  inside a ``tf.function`` / the symbolic trace.

Evidence a diagnosis needs
--------------------------
The layer whose ``call`` failed (a ``Lambda`` or a custom layer, by name), the shapes and
dtypes it received, and the error of the *op inside it* (the real cause the Lambda message
hides): the axis of a concat, the dtype of ``one_hot`` indices or of a ``matmul`` operand, the
largest index against the table size, the user's line that created a variable or asked a
tensor for a Python bool.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras_ops_and_tensor_manipulation"

CASES = [
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder ...
    Case(
        name="f25_tf_expand_dims_on_functional_input",
        family=FAMILY,
        code="""
inp = keras.Input(shape=(10,))
x = tf.expand_dims(inp, -1)
x = keras.layers.Conv1D(4, 3, activation="relu")(x)
out = keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(x))
model = keras.Model(inp, out)
""",
        expect=None,
        unexplained="the message says a KerasTensor only goes to Keras layers and keras.ops, "
        "which is the fix (keras.ops.expand_dims or a Reshape layer)",
        fix="keras.ops.expand_dims(inp, -1) or keras.layers.Reshape((10, 1))",
    ),
    # ValueError: Exception encountered when calling Scale.call().  (... Argument `initial_value` ... could not be lifted out of a `tf.function` ...)
    Case(
        name="f25_tf_variable_created_in_layer_call",
        family=FAMILY,
        code="""
class Scale(keras.layers.Layer):
    def call(self, inputs):
        self.alpha = tf.Variable(tf.ones((inputs.shape[-1],)))
        return inputs * self.alpha

model = keras.Sequential([keras.Input(shape=(4,)), Scale(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(16, 4).astype("float32"), np.random.rand(16, 1).astype("float32"), epochs=1, verbose=0)
""",
        expect="T03",
        must=("build",),
        must_not=("init_scope",),
        fix="create the weight once in build(): self.alpha = self.add_weight(shape=(input_shape[-1],), initializer='ones')",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().  (We could not automatically infer the shape of the Lambda's output ...)
    Case(
        name="f25_lambda_tf_concat_on_batch_axis",
        family=FAMILY,
        code="""
a_in = keras.Input(shape=(8,))
b_in = keras.Input(shape=(3,))
a = keras.layers.Dense(16, activation="relu")(a_in)
b = keras.layers.Dense(4, activation="relu")(b_in)
merged = keras.layers.Lambda(lambda t: tf.concat(t, axis=0))([a, b])
out = keras.layers.Dense(1)(merged)
model = keras.Model([a_in, b_in], out)
""",
        expect="S01",
        must=("axis",),
        must_not=("output_shape",),
        fix="concatenate the features: tf.concat(t, axis=-1) (or keras.layers.Concatenate())",
    ),
    # TypeError: Exception encountered when calling Linear.call().  (... Input 'b' of 'MatMul' Op has type float32 that does not match type int32 of argument 'a'.)
    Case(
        name="f25_custom_layer_matmul_int_input_float_kernel",
        family=FAMILY,
        code="""
class Linear(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 4), initializer="glorot_uniform")
    def call(self, inputs):
        return tf.matmul(inputs, self.w)

inp = keras.Input(shape=(6,), dtype="int32")
out = keras.layers.Dense(1)(Linear()(inp))
model = keras.Model(inp, out)
""",
        expect="S11",
        must=("int32",),
        must_not=("compute_output",),
        fix="tf.cast(inputs, self.compute_dtype) before the matmul (or a float32 Input)",
    ),
    # ValueError: Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` must be consecutive and start from 1. Received dims=(0, 2, 1)
    Case(
        name="f25_permute_dims_include_batch_axis",
        family=FAMILY,
        code="""
inp = keras.Input(shape=(20, 6))
x = keras.layers.Permute((0, 2, 1))(inp)
x = keras.layers.Conv1D(8, 3)(x)
""",
        expect=None,
        unexplained="the message says the dims must be consecutive and start from 1 and shows the "
        "dims received; Permute((2, 1)) follows directly",
        fix="keras.layers.Permute((2, 1))",
    ),
    # InvalidArgumentError: Graph execution error:  (... indices[1,1] = 10 is not in [0, 10) ...)
    Case(
        name="f25_tf_gather_one_based_ids_in_custom_layer",
        family=FAMILY,
        code="""
class Lookup(keras.layers.Layer):
    def __init__(self, table, **kw):
        super().__init__(**kw)
        self.table = tf.constant(table)
    def call(self, ids):
        return tf.gather(self.table, ids)

table = np.random.rand(10, 4).astype("float32")
ids = np.array([[1, 2], [5, 10], [3, 7]], dtype="int32")
inp = keras.Input(shape=(2,), dtype="int32")
model = keras.Model(inp, keras.layers.Flatten()(Lookup(table, name="lookup")(inp)))
model.predict(ids, verbose=0)
""",
        expect="S09",
        must=("lookup",),
        must_not=("batch size",),
        fix="ids run 1..10: use ids - 1 (or a table with max id + 1 rows)",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().  (We could not automatically infer the shape of the Lambda's output ...)
    Case(
        name="f25_lambda_one_hot_on_float_input",
        family=FAMILY,
        code="""
inp = keras.Input(shape=(5,))
x = keras.layers.Lambda(lambda t: tf.one_hot(t, depth=8))(inp)
x = keras.layers.Flatten()(x)
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inp, out)
""",
        expect="S11",
        must=("one_hot",),
        must_not=("output_shape",),
        fix="integer ids: keras.Input(shape=(5,), dtype='int32') or tf.one_hot(tf.cast(t, 'int32'), 8)",
    ),
    # OperatorNotAllowedInGraphError: Exception encountered when calling Norm.call().  (... Using a symbolic `tf.Tensor` as a Python `bool` is not allowed ...)
    Case(
        name="f25_python_if_on_tensor_in_layer_call",
        family=FAMILY,
        code="""
class Norm(keras.layers.Layer):
    def call(self, x):
        if tf.reduce_max(x) > 1.0:
            x = x / 255.0
        return x

inp = keras.Input(shape=(4,))
out = keras.layers.Dense(1)(Norm()(inp))
model = keras.Model(inp, out)
""",
        expect="T02",
        must=("norm",),
        must_not=("compute_output",),
        fix="tf.where(tf.reduce_max(x) > 1.0, x / 255.0, x) (or scale the data once outside the model)",
    ),
]
