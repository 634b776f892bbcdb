"""Family ``keras_ops_in_models``: ops and merge/reshape layers on the symbolic tensors of a functional model.

APIs: ``keras.Input`` returns a ``KerasTensor``, a symbolic placeholder with a shape and a
dtype and no value: it may be passed to Keras layers and ``keras.ops`` functions only --
TensorFlow functions (``tf.split``, ``tf.reduce_sum``, ``tf.shape``) and NumPy functions
refuse it, and Python control flow (``if``) cannot ask it for a value;
``keras.layers.Lambda`` runs its function on ``KerasTensor`` objects to infer the output,
so it must use ``keras.ops``; ``keras.ops.concatenate(xs, axis=0)`` takes a *list* of
tensors (the second positional parameter is the axis); ``keras.ops.matmul(a, b)`` needs
``a.shape[-1] == b.shape[-2]`` (``transpose`` the key for attention scores);
``keras.ops.reshape`` takes the full target shape, batch axis included (``-1`` for the
batch), while ``keras.layers.Reshape`` takes the shape without the batch axis and keeps
the number of elements; ``Concatenate(axis=...)`` needs all axes but ``axis`` equal;
``Add``/``Multiply`` need equal (or broadcastable) shapes.

Evidence a diagnosis needs: which op or layer refused which tensor (a ``KerasTensor`` in a
TensorFlow/NumPy function, a ``KerasTensor`` used as a boolean and at which user line), the
shapes of every input of a merge layer or op and the axis where they differ, the element
counts of a reshape, and, for an error at ``fit`` time, where a shape fixed at model
construction (a hard-coded batch size) came from.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic
    #   placeholder for a shape and dtype, ... You can only use it as input to a Keras layer or a Keras operation ...
    Case(
        name="tf_split_of_a_functional_input_into_two_halves",
        family="keras_ops_in_models",
        code="""
inp = keras.Input((32,))
left, right = tf.split(inp, 2, axis=-1)
gated = keras.layers.Multiply()([left, keras.layers.Activation("sigmoid")(right)])
out = keras.layers.Dense(1)(gated)
model = keras.Model(inp, out)
""",
        expect=None,
        unexplained="the message says a KerasTensor only goes into Keras layers or keras.ops and shows the fix",
        fix="keras.ops.split(inp, 2, axis=-1)",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis.
    #   Received: input_shape=[(None, 10, 8), (None, 10, 3)]
    Case(
        name="concatenate_features_along_the_time_axis",
        family="keras_ops_in_models",
        code="""
seq_feats = keras.Input((10, 8), name="sensor")
calendar = keras.Input((10, 3), name="calendar")
h = keras.layers.Concatenate(axis=1)([seq_feats, calendar])
h = keras.layers.LSTM(16)(h)
model = keras.Model([seq_feats, calendar], keras.layers.Dense(1)(h))
""",
        expect="S01",
        must=("axis",),
        must_not=("strides",),
        fix="Concatenate(axis=-1)",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (20,) and (32,)
    Case(
        name="residual_add_of_twenty_inputs_and_thirty_two_units",
        family="keras_ops_in_models",
        code="""
inp = keras.Input((20,))
h = keras.layers.Dense(64, activation="relu")(inp)
h = keras.layers.Dense(32, activation="relu")(h)
res = keras.layers.Add()([inp, h])
model = keras.Model(inp, keras.layers.Dense(1)(res))
""",
        expect="S01",
        must=("add",),
        must_not=("reshape",),
        fix="project the shortcut: Dense(32)(inp), or Dense(20) before the Add",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().
    #   ... We could not automatically infer the shape of the Lambda's output. Please specify the `output_shape` argument ...
    Case(
        name="lambda_layer_pooling_time_with_numpy_mean",
        family="keras_ops_in_models",
        code="""
inp = keras.Input((16, 8))
pooled = keras.layers.Lambda(lambda t: np.mean(t, axis=1))(inp)
out = keras.layers.Dense(1)(pooled)
""",
        expect="T02",
        must=("keras.ops",),
        must_not=("output_shape",),
        fix="Lambda(lambda t: keras.ops.mean(t, axis=1)) or GlobalAveragePooling1D",
    ),
    # TypeError: A symbolic KerasTensor cannot be used as a boolean.
    Case(
        name="ops_concatenate_given_two_tensors_instead_of_a_list",
        family="keras_ops_in_models",
        code="""
user_vec = keras.Input((4,), name="user")
item_vec = keras.Input((6,), name="item")
both = keras.ops.concatenate(user_vec, item_vec)
out = keras.layers.Dense(1)(both)
""",
        expect="S12",
        must=("list",),
        must_not=("tf.cond", "tf.where"),
        fix="keras.ops.concatenate([user_vec, item_vec], axis=-1)",
    ),
    # TypeError: A symbolic KerasTensor cannot be used as a boolean.
    Case(
        name="python_if_on_pixel_maximum_while_building_functional_model",
        family="keras_ops_in_models",
        code="""
inp = keras.Input((28, 28, 1))
x = inp
if keras.ops.max(x) > 1.0:
    x = x / 255.0
x = keras.layers.Conv2D(8, 3, activation="relu")(x)
""",
        expect="T02",
        must=("ops.max",),
        must_not=("run_eagerly",),
        fix="scale unconditionally (keras.layers.Rescaling(1/255)) or keras.ops.where",
    ),
    # ValueError: Inner dimensions (`x1.shape[-1]` and `x2.shape[-2]`) must be equal, but received
    #   `x1.shape=(None, 5, 8)` and `x2.shape=(None, 5, 8)`.
    Case(
        name="attention_scores_matmul_of_query_and_untransposed_key",
        family="keras_ops_in_models",
        code="""
q = keras.Input((5, 8), name="query")
k = keras.Input((5, 8), name="key")
scores = keras.ops.matmul(q, k)
weights = keras.ops.softmax(scores, axis=-1)
""",
        expect="S07",
        must=("transpose",),
        must_not=("reshape",),
        fix="keras.ops.matmul(q, keras.ops.transpose(k, (0, 2, 1)))",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Incompatible shapes: [4,1] vs. [16,1] [[{{node gradient_tape/compile_loss/mse/Mul_1}}]]
    Case(
        name="ops_reshape_with_batch_size_sixteen_written_in",
        family="keras_ops_in_models",
        code="""
x = np.random.rand(20, 64).astype("float32")
y = np.random.rand(20, 1).astype("float32")
inp = keras.Input((64,))
grid = keras.ops.reshape(inp, (16, 8, 8))
h = keras.layers.Flatten()(grid)
model = keras.Model(inp, keras.layers.Dense(1)(h))
model.compile("adam", "mse")
model.fit(x, y, batch_size=16, epochs=1, verbose=0)
""",
        expect="S07",
        must=("reshape",),
        must_not=("reshape the labels", "drop_remainder"),
        fix="keras.ops.reshape(inp, (-1, 8, 8)) or keras.layers.Reshape((8, 8))",
    ),
]
