"""Tensor manipulation with ``keras.ops`` and ``tf`` inside models.

The family
----------
Keras 3 models are built from layers; inside a layer's ``call`` (a custom ``Layer``
subclass or a ``Lambda``) the user manipulates tensors with ``keras.ops.*`` (backend
agnostic) or, on the TensorFlow backend, with ``tf.*``.  The documented contracts:

* Functional construction works on ``KerasTensor``s (symbolic placeholders with a shape
  and a dtype, batch axis ``None``).  A KerasTensor may only go into a Keras layer or a
  ``keras.ops`` function; passing it to a TensorFlow function (``tf.concat``,
  ``tf.random.normal``, ``tf.shape``) raises "A KerasTensor cannot be used as input to a
  TensorFlow function"; the fix is ``keras.ops`` or wrapping the code in a layer.
* When a layer is first called on a KerasTensor, Keras infers its output spec by running
  ``call`` on symbolic tensors (a ``tf.function`` graph on this backend); any error there is
  re-raised as "Could not automatically infer the output shape / dtype of ... Either the
  ``call()`` method is incorrect, or you need to implement ``compute_output_spec``" (custom
  layers) or "We could not automatically infer the shape of the Lambda's output. Please
  specify the ``output_shape`` argument" (``Lambda``).  Those words are generic: the real
  cause is the error encountered in ``call`` (for ``Lambda`` it is hidden entirely), and
  ``output_shape`` / ``compute_output_spec`` are usually NOT the fix.
* ``ops.concatenate(xs, axis=-1)``: all shapes equal except on ``axis``; ``axis=0`` is the
  batch axis.  ``ops.reshape(x, newshape)``: the element count must be kept; writing the
  batch size as a constant (instead of ``-1`` or ``ops.shape(x)[0]``) fails on any batch
  of another size (the last, partial batch of ``fit``).  ``ops.squeeze(x, axis)``: that axis
  must have size 1.  Element-wise ops broadcast NumPy style: trailing dimensions must be
  equal or 1.
* Dtypes: TensorFlow ops do not promote: ``tf.range`` and ``tf.shape`` give ``int32``,
  adding them to a ``float32`` tensor raises; ``tf.gather`` / ``ops.take`` need integer
  indices; ``tf.cast`` / ``ops.cast`` are the fix at the place the integer is made.
* Weights belong in ``build`` (``self.add_weight(shape=..., ...)``) with a shape derived
  from ``input_shape``; a ``tf.Variable`` created inside ``call`` is created anew on every
  trace of the ``tf.function`` Keras compiles ("could not be lifted out of a tf.function").
* Inside ``call`` the tensors are symbolic during tracing: ``.numpy()``, Python ``if`` on a
  tensor, and NumPy functions on tensors are not available; use ``keras.ops`` / ``tf``
  ops (``ops.where``, ``ops.cond``).

Evidence a diagnosis needs: the layer (custom or ``Lambda``) and the op inside its ``call``
that failed, the real error under Keras' "could not infer the output shape" wrapper, the
shapes / dtypes that reached the op (which axis differs, and whether it is the batch axis),
and where a dtype came from (``tf.range``, float indices).
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder for a shape and dtype, ...
    Case(
        name="f24_tf_concat_on_functional_inputs",
        family="keras_ops_and_tensor_manipulation",
        code="""
a = keras.Input((4,))
b = keras.Input((3,))
merged = tf.concat([a, b], axis=-1)
out = keras.layers.Dense(1)(merged)
model = keras.Model([a, b], out)
""",
        expect=None,
        unexplained=(
            "Keras' message says a KerasTensor only goes into Keras layers or keras.ops and "
            "shows how to wrap the TF call in a layer (or use keras.ops.concatenate)"
        ),
        fix="keras.ops.concatenate or keras.layers.Concatenate()",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().
    # (We could not automatically infer the shape of the Lambda's output. Please specify the `output_shape` argument ...)
    Case(
        name="f24_lambda_concatenate_on_batch_axis",
        family="keras_ops_and_tensor_manipulation",
        code="""
a = keras.Input((4,))
b = keras.Input((3,))
merged = keras.layers.Lambda(lambda t: keras.ops.concatenate(t, axis=0))([a, b])
out = keras.layers.Dense(1)(merged)
model = keras.Model([a, b], out)
""",
        expect="S01",
        must=("axis",),
        must_not=("output_shape",),
        fix="concatenate on the feature axis: axis=-1",
    ),
    # TypeError: Exception encountered when calling PickColumn.call().
    # (... Value passed to parameter 'indices' has DataType float32 not in list of allowed values: int16, int32, int64)
    Case(
        name="f24_gather_with_float_indices",
        family="keras_ops_and_tensor_manipulation",
        code="""
class PickColumn(keras.layers.Layer):
    def call(self, x):
        idx = x[:, 0] * 3.0
        return tf.gather(x, idx, axis=1, batch_dims=1)

inp = keras.Input((4,))
out = PickColumn()(inp)
model = keras.Model(inp, out)
""",
        expect="S11",
        must=("indices", "int"),
        must_not=("compute_output",),
        fix="tf.cast(idx, tf.int32) before tf.gather",
    ),
    # TypeError: Exception encountered when calling AddPosition.call().
    # (... Input 'y' of 'AddV2' Op has type int32 that does not match type float32 of argument 'x'.)
    Case(
        name="f24_positions_from_tf_range_added_to_floats",
        family="keras_ops_and_tensor_manipulation",
        code="""
class AddPosition(keras.layers.Layer):
    def call(self, x):
        positions = tf.range(tf.shape(x)[1])
        return x + positions[tf.newaxis, :, tf.newaxis]

inp = keras.Input((10, 8))
h = AddPosition()(inp)
out = keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(h))
model = keras.Model(inp, out)
""",
        expect="S11",
        must=("int32",),
        must_not=("compute_output",),
        fix="tf.cast(tf.range(...), x.dtype) before adding",
    ),
    # ValueError: Exception encountered when calling Scale.call().
    # (... Argument `initial_value` (Tensor("ones:0", ...)) could not be lifted out of a `tf.function`. ...)
    Case(
        name="f24_tf_variable_created_in_call",
        family="keras_ops_and_tensor_manipulation",
        code="""
class Scale(keras.layers.Layer):
    def call(self, x):
        self.s = tf.Variable(tf.ones((x.shape[-1],)), trainable=True)
        return x * self.s

model = keras.Sequential([keras.Input((5,)), Scale(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
x = np.random.rand(32, 5).astype("float32")
model.fit(x, np.random.rand(32, 1).astype("float32"), epochs=1, verbose=0)
""",
        expect="T03",
        must=("build",),
        must_not=("init_scope",),
        fix="create the weight once in build() with self.add_weight",
    ),
    # InvalidArgumentError: Graph execution error:
    # (Incompatible shapes: [4,1] vs. [32,1] -- the reshape hard-codes 32 and the last batch has 4 rows)
    Case(
        name="f24_lambda_reshape_hardcodes_batch",
        family="keras_ops_and_tensor_manipulation",
        code="""
inp = keras.Input((16,))
h = keras.layers.Lambda(lambda t: keras.ops.reshape(t, (32, 4, 4)))(inp)
h = keras.layers.Conv1D(8, 2, activation="relu")(h)
out = keras.layers.Dense(1)(keras.layers.Flatten()(h))
model = keras.Model(inp, out)
model.compile(optimizer="adam", loss="mse")
x = np.random.rand(100, 16).astype("float32")
model.fit(x, np.random.rand(100, 1).astype("float32"), batch_size=32, epochs=1, verbose=0)
""",
        expect="S01",
        must=("batch",),
        must_not=("labels",),
        fix="reshape to (-1, 4, 4) (or keras.layers.Reshape((4, 4)))",
    ),
    # AttributeError: Exception encountered when calling Clip.call().
    # (... 'SymbolicTensor' object has no attribute 'numpy')
    Case(
        name="f24_numpy_percentile_inside_call",
        family="keras_ops_and_tensor_manipulation",
        code="""
class Clip(keras.layers.Layer):
    def call(self, x):
        hi = np.percentile(x.numpy(), 99)
        return tf.clip_by_value(x, 0.0, hi)

model = keras.Sequential([keras.Input((6,)), Clip(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
x = np.random.rand(32, 6).astype("float32")
model.fit(x, np.random.rand(32, 1).astype("float32"), epochs=1, verbose=0)
""",
        expect="T02",
        must=("numpy",),
        must_not=("compute_output",),
        fix="compute the bound with tensor ops (ops.quantile) or fix it outside the model",
    ),
    # ValueError: Exception encountered when calling FeatureScale.call().
    # (... Dimensions must be equal, but are 10 and 5 for '{{node mul}} = Mul[T=DT_FLOAT](Placeholder, mul/ReadVariableOp)' with input shapes: [?,10], [5].)
    Case(
        name="f24_custom_weight_shape_not_from_input",
        family="keras_ops_and_tensor_manipulation",
        code="""
class FeatureScale(keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.units = units
    def build(self, input_shape):
        self.w = self.add_weight(shape=(self.units,), initializer="ones")
    def call(self, x):
        return x * self.w

inp = keras.Input((10,))
h = FeatureScale(5)(inp)
out = keras.layers.Dense(1)(h)
model = keras.Model(inp, out)
""",
        expect="S01",
        must=("weight",),
        must_not=("compute_output",),
        fix="add_weight(shape=(input_shape[-1],)) so the scale matches the 10 features",
    ),
]
