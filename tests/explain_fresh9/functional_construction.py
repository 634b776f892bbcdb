"""Family ``functional_construction``: building ``keras.Model(inputs, outputs)`` and ``Sequential`` graphs.

APIs: a Functional model is built from symbolic tensors: ``inputs`` must be the
``KerasTensor``s returned by ``keras.Input(shape=...)`` (not NumPy arrays, ``tf``
tensors or ``InputLayer`` objects), and ``outputs`` must be reachable from them: every
``keras.Input`` that an output depends on has to be listed in ``inputs``.
``keras.Input(shape)`` takes the shape of ONE example, without the batch axis (Keras adds
``None`` in front), so ``shape=(None, 32, 32, 3)`` makes a rank-5 tensor that a
``Conv2D`` cannot take.  A layer object holds one set of weights, built for the shape of
its first input: calling the same layer (or the same sub-model) again on a tensor of a
different last dimension fails, and a nested model checks its own ``Input`` shape.
``Sequential`` passes each layer's output to the next, so consecutive layers must chain:
a recurrent layer needs rank-3 ``(batch, steps, features)`` input and ``Dense`` gives
rank 2; merge layers (``Add``, ``Multiply``) need identical shapes.  A model with N
inputs is called/predicted with ONE argument holding the N arrays (a list in input order
or a dict keyed by input names), never with N positional arguments.

Evidence a diagnosis needs: the construction call that failed (``keras.Model``,
``keras.Input``, the layer call) and what it was given (a non-symbolic tensor, an
``Input`` left out of ``inputs``, a shape with the batch axis), the layer reused or the
sub-model called and the shape it was built for against the new shape, the producer of a
wrongly-ranked input (a ``Dense`` before an ``LSTM``), and the number and names of the
model's inputs against the arguments of the call.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Output with path `` is not connected to `inputs`
    Case(
        name="f9_metadata_input_left_out_of_model_inputs",
        family="functional_construction",
        code="""
image_feats = keras.Input((16,), name="image_feats")
meta = keras.Input((4,), name="meta")
h = keras.layers.Concatenate()([keras.layers.Dense(8)(image_feats), meta])
out = keras.layers.Dense(1)(h)
model = keras.Model(inputs=image_feats, outputs=out)
""",
        expect="S12",
        must=("meta",),
        must_not=("batch axis", "reshape"),
        fix="keras.Model(inputs=[image_feats, meta], outputs=out)",
    ),
    # ValueError: All `inputs` values must be KerasTensors. Received: inputs=[[0.77 ...
    Case(
        name="f9_training_array_used_as_functional_inputs",
        family="functional_construction",
        code="""
x_train = np.random.rand(10, 4).astype("float32")
inputs = tf.constant(x_train)
h = keras.layers.Dense(8, activation="relu")(inputs)
out = keras.layers.Dense(1)(h)
model = keras.Model(inputs, out)
""",
        expect="S12",
        must=("keras.input",),
        must_not=("expand_dims", "astype"),
        fix="inputs = keras.Input(shape=(4,)); pass x_train to fit",
    ),
    # ValueError: Kernel shape must have the same length as input, but received kernel of
    #   shape (3, 3, 3, 16) and input of shape (None, None, 32, 32, 3).
    Case(
        name="f9_input_shape_written_with_the_batch_axis",
        family="functional_construction",
        code="""
inp = keras.Input(shape=(None, 32, 32, 3))
h = keras.layers.Conv2D(16, 3, activation="relu")(inp)
h = keras.layers.GlobalAveragePooling2D()(h)
model = keras.Model(inp, keras.layers.Dense(10)(h))
""",
        expect="S01",
        must=("batch",),
        must_not=("expand_dims", "kernel_size"),
        fix="keras.Input(shape=(32, 32, 3))",
    ),
    # ValueError: Input 0 with name 'None' of layer 'encoder' is incompatible with the
    #   layer: expected axis -1 of input shape to have value 8, but received input with shape (None, 12)
    Case(
        name="f9_shared_encoder_on_query_and_document_of_other_widths",
        family="functional_construction",
        code="""
encoder = keras.layers.Dense(16, activation="relu", name="encoder")
query = keras.Input((8,), name="query")
doc = keras.Input((12,), name="doc")
q = encoder(query)
d = encoder(doc)
score = keras.layers.Dot(axes=1)([q, d])
model = keras.Model([query, doc], score)
""",
        expect="S01",
        must=("encoder",),
        must_not=("expand_dims", "return_sequences"),
        fix="give doc its own Dense (or project both inputs to the same width first)",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the layer:
    #   expected ndim=3, found ndim=2. Full shape received: (None, 64)
    Case(
        name="f9_lstm_stacked_after_dense_in_sequential",
        family="functional_construction",
        code="""
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.LSTM(32),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("lstm",),
        must_not=("return_sequences",),
        fix="Input((timesteps, features)) for sequences, or drop the LSTM for flat features",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'input_layer_3' of layer 'functional_2' is incompatible with the
    #   layer: expected shape=(None, 16), found shape=(None, 10)
    Case(
        name="f9_nested_backbone_built_for_sixteen_features",
        family="functional_construction",
        code="""
backbone = keras.Sequential(
    [keras.Input((16,)), keras.layers.Dense(8, activation="relu")], name="backbone"
)
inp = keras.Input((10,))
h = backbone(inp)
model = keras.Model(inp, keras.layers.Dense(1)(h))
""",
        expect="S01",
        must=("backbone",),
        must_not=("batch axis", "reshape"),
        fix="keras.Input((16,)) for the outer model (or rebuild the backbone for 10 features)",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (32,) and (16,)
    Case(
        name="f9_residual_add_of_branches_with_different_units",
        family="functional_construction",
        code="""
inp = keras.Input((32,))
main = keras.layers.Dense(32, activation="relu")(inp)
shortcut = keras.layers.Dense(16)(inp)
h = keras.layers.Add(name="residual_add")([main, shortcut])
model = keras.Model(inp, keras.layers.Dense(1)(h))
""",
        expect="S01",
        must=("residual_add",),
        must_not=("strides", "batch axis"),
        fix="Dense(32) on the shortcut (both branches the same width)",
    ),
    # ValueError: Layer "functional" expects 2 named input(s) with keys ['user', 'item'],
    #   but it received 1 input tensors. Pass inputs as a dict, e.g. `layer({'user': ..., 'item': ...})`.
    Case(
        name="f9_two_input_model_called_with_two_positional_arrays",
        family="functional_construction",
        code="""
user = keras.Input((5,), name="user")
item = keras.Input((3,), name="item")
out = keras.layers.Dense(1)(keras.layers.Concatenate()([user, item]))
model = keras.Model([user, item], out)
scores = model(np.random.rand(4, 5).astype("float32"), np.random.rand(4, 3).astype("float32"))
""",
        expect=None,
        unexplained="the message names both inputs and says to pass them as one dict",
        fix='model({"user": u, "item": i}) or model([u, i])',
    ),
]
