"""Family: the user's own layer and model classes.

API: ``keras.layers.Layer`` subclasses (``__init__``, ``build``, ``call``), ``keras.Model`` subclasses.
Contract: weights are made in ``build(input_shape)`` from the input's feature size,
(input_shape[-1], units) for ``x @ w``; ``call`` returns its result; the batch size
is dynamic (``tf.shape(x)[0]``); a layer called on a list gets a list of shapes in
``build``.  Evidence: the class's own code (whether it overrides build, what it
returns), its weights' shapes, the input the frame was given.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_CASES_LAYERS = [
    Case(
        "kernel_hardcoded_input_dim",
        "custom_layers",
        """
class MyDense(keras.layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw)
        self.kernel = self.add_weight(shape=(4, units), initializer="glorot_uniform", name="kernel")
    def call(self, x):
        return x @ self.kernel
m = keras.Sequential([keras.Input((6,)), MyDense(3, name="mydense")])
""",
        "S01",
        must=("mydense", "build"),
        must_not=("flatten", "reshape the data", "batch the dataset"),
    ),
    Case(
        "build_ignores_input_shape",
        "custom_layers",
        """
class Mix(keras.layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw); self.units = units
    def build(self, input_shape):
        self.w = self.add_weight(shape=(self.units, self.units), name="w")
    def call(self, x):
        return tf.matmul(x, self.w)
m = keras.Sequential([keras.Input((10,)), Mix(5, name="mix")])
""",
        "S01",
        must=("mix", "input_shape[-1]"),
        must_not=("flatten", "batch the dataset"),
    ),
    Case(
        "block_without_return_sequential",
        "custom_layers",
        """
class Block(keras.layers.Layer):
    def __init__(self, **kw):
        super().__init__(**kw); self.d = keras.layers.Dense(8, activation="relu")
    def call(self, x):
        h = self.d(x)
m = keras.Sequential([keras.Input((5,)), Block(name="block"), keras.layers.Dense(1)])
""",
        "S01",
        must=("block", "return"),
        must_not=("compute_output_shape", "batch the dataset"),
    ),
    Case(
        "model_call_without_return",
        "custom_layers",
        """
class Net(keras.Model):
    def __init__(self):
        super().__init__(); self.d = keras.layers.Dense(1)
    def call(self, x):
        out = self.d(x)
net = Net(); net.compile("adam", "mse")
net.fit(np.random.rand(16, 3).astype("float32"), np.random.rand(16, 1).astype("float32"), epochs=1, verbose=0)
""",
        "S01",
        must=("net", "return"),
        must_not=("compute_output_shape", "batch the dataset", "labels"),
    ),
    Case(
        "einsum_weight_in_init",
        "custom_layers",
        """
class Proj(keras.layers.Layer):
    def __init__(self, dim, **kw):
        super().__init__(**kw)
        self.w = self.add_weight(shape=(dim, dim), name="w")
    def call(self, x):
        return tf.einsum("bi,ij->bj", x, self.w)
inp = keras.Input((12,)); out = Proj(4, name="proj")(inp)
""",
        "S01",
        must=("proj", "build"),
        must_not=("flatten", "batch the dataset"),
    ),
    Case(
        "build_reads_batch_axis",
        "custom_layers",
        """
class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self.s = self.add_weight(shape=(input_shape[0], input_shape[-1]), name="s")
    def call(self, x):
        return x * self.s
m = keras.Sequential([keras.Input((7,)), Scale(name="scale")])
""",
        "S01",
        must=("scale", "input_shape[0]"),
        must_not=("batch_size=", "flatten"),
    ),
    Case(
        "call_reshapes_with_static_batch",
        "custom_layers",
        """
class Split(keras.layers.Layer):
    def call(self, x):
        return tf.reshape(x, (x.shape[0], 2, -1))
m = keras.Sequential([keras.Input((8,)), Split(name="split"), keras.layers.Flatten(), keras.layers.Dense(1)])
m.compile("adam", "mse")
m.fit(np.random.rand(16, 8).astype("float32"), np.random.rand(16, 1).astype("float32"), epochs=1, verbose=0)
""",
        "T02",  # a concrete size asked of a symbolic tensor (was expected as S01 when written)
        must=("split", "tf.shape"),
        must_not=("flatten()", "batch the dataset"),
    ),
    Case(
        "two_inputs_one_param",
        "custom_layers",
        """
class Pair(keras.layers.Layer):
    def call(self, inputs):
        a, b = inputs
        return a * b
a = keras.Input((3,)); b = keras.Input((3,))
out = Pair(name="pair")(a, b)
""",
        "S12",
        must=("pair", "[a, b]"),
        must_not=("flatten",),
    ),
    Case(
        "functional_layer_no_return_then_add",
        "custom_layers",
        """
class Norm(keras.layers.Layer):
    def call(self, x):
        x = x / (tf.norm(x, axis=-1, keepdims=True) + 1e-6)
inp = keras.Input((4,)); h = Norm(name="norm")(inp); out = keras.layers.Add()([inp, h])
""",
        "S01",
        must=("norm", "return"),
        must_not=("compute_output_shape", "matching shapes"),
    ),
    Case(
        "dense_kernel_transposed",
        "custom_layers",
        """
class Lin(keras.layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw); self.units = units
    def build(self, input_shape):
        self.w = self.add_weight(shape=(self.units, input_shape[-1]), name="w")
    def call(self, x):
        return tf.matmul(x, self.w)
m = keras.Sequential([keras.Input((6,)), Lin(3, name="lin")])
""",
        "S01",
        must=("lin", "input_shape[-1]"),
        must_not=("flatten", "batch the dataset"),
    ),
]

CASES = _CASES_LAYERS
