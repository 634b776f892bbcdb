"""Family ``functional_graphs``: functional models built from ``keras.Input`` and layer calls.

APIs: ``keras.Input(shape, name=...)`` (the shape excludes the batch axis), the merge
layers (``Concatenate(axis=-1)`` needs all inputs of the same rank and equal sizes on every
axis but the concatenation axis; ``Add``/``Multiply`` need equal (broadcastable) shapes;
``Dot(axes=...)`` contracts the named axis of each input, and the two sizes must be
equal), a shared layer (one ``Dense`` instance called on several tensors builds its kernel
for the first input's last axis, so every later input needs the same width), a model used
as a layer (its own ``Input`` fixes the shape it accepts), ``Lambda`` layers (the function
runs on symbolic ``KerasTensor``s to infer the output shape, so it must use ``keras.ops``
or TensorFlow ops, not NumPy), plain TensorFlow functions on a ``KerasTensor`` (not
allowed: only Keras layers and ``keras.ops`` take them), models with several outputs
(``fit``'s ``y`` dict keys must be the output names), and feature extractors made from
another model's ``inputs`` and ``get_layer(name).output`` (a ``Sequential`` built without
an ``Input`` has no symbolic inputs to take).

Evidence a diagnosis needs: the layer that failed and the shapes of all its inputs, the
layer that produced each input (an ``LSTM`` with ``return_sequences=True`` makes a rank-3
tensor; a nested model's own ``Input`` shape), the merge layer's ``axis``/``axes``, the
output names against the keys of ``y``, whether a ``Sequential`` has an ``Input``, and
which call in a ``Lambda`` asked a symbolic tensor for values.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Incompatible input shapes: axis values 8 (at axis 2) != 7 (at axis 1).
    #   Full input shapes: (None, 5, 8), (None, 7, 8)
    Case(
        name="f12_dot_axes_two_one_for_query_key_attention_scores",
        family="functional_graphs",
        code="""
queries = keras.Input((5, 8), name="queries")
keys = keras.Input((7, 8), name="keys")
scores = keras.layers.Dot(axes=(2, 1))([queries, keys])
weights = keras.layers.Softmax()(scores)
""",
        expect="S01",
        must=("axes",),
        must_not=("concatenate",),
        fix="Dot(axes=(2, 2)) to contract the feature axes",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    #   concatenation axis. Received: input_shape=[(None, 10, 8), (None, 3)]
    Case(
        name="f12_concatenate_lstm_sequence_output_with_static_metadata",
        family="functional_graphs",
        code="""
readings = keras.Input((10, 4), name="readings")
metadata = keras.Input((3,), name="metadata")
encoded = keras.layers.LSTM(8, return_sequences=True)(readings)
merged = keras.layers.Concatenate()([encoded, metadata])
output = keras.layers.Dense(1)(merged)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims",),
        fix="LSTM(8) without return_sequences (or RepeatVector the metadata)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'input_layer_...' of layer 'functional_...' is incompatible with the
    #   layer: expected shape=(None, 16), found shape=(None, 32)
    Case(
        name="f12_nested_encoder_model_built_for_16_called_on_32_features",
        family="functional_graphs",
        code="""
encoder = keras.Sequential(
    [keras.Input((16,)), keras.layers.Dense(8, activation="relu")], name="encoder"
)
features = keras.Input((32,))
code = encoder(features)
classifier = keras.Model(features, keras.layers.Dense(2, activation="softmax")(code))
""",
        expect="S01",
        must=("encoder",),
        must_not=("flatten",),
        fix="build the encoder with keras.Input((32,)) (or feed it 16 features)",
    ),
    # ValueError: Input 0 with name 'None' of layer 'shared_proj' is incompatible with the layer:
    #   expected axis -1 of input shape to have value 8, but received input with shape (None, 12)
    Case(
        name="f12_shared_projection_called_on_branches_of_different_width",
        family="functional_graphs",
        code="""
left = keras.Input((8,), name="left")
right = keras.Input((12,), name="right")
shared = keras.layers.Dense(4, name="shared_proj")
merged = keras.layers.Concatenate()([shared(left), shared(right)])
siamese = keras.Model([left, right], keras.layers.Dense(1, activation="sigmoid")(merged))
""",
        expect="S01",
        must=("shared_proj",),
        must_not=("expand_dims",),
        fix="give both branches the same width (or use two Dense layers)",
    ),
    # TypeError: Expected float32, but got box of type 'str'.
    Case(
        name="f12_fit_targets_dict_keyed_label_for_output_named_cls",
        family="functional_graphs",
        code="""
image_feats = keras.Input((8,))
h = keras.layers.Dense(16, activation="relu")(image_feats)
cls = keras.layers.Dense(3, activation="softmax", name="cls")(h)
box = keras.layers.Dense(4, name="box")(h)
detector = keras.Model(image_feats, {"cls": cls, "box": box})
detector.compile("adam", loss={"cls": "sparse_categorical_crossentropy", "box": "mse"})
targets = {"label": np.random.randint(0, 3, 6), "box": np.random.rand(6, 4)}
detector.fit(np.random.rand(6, 8), targets, epochs=1, verbose=0)
""",
        expect="S12",
        must=("cls",),
        must_not=("cast",),
        fix="key the targets by the output names: {'cls': ..., 'box': ...}",
    ),
    # AttributeError: Sequential model 'sequential_...' has no defined inputs yet.
    Case(
        name="f12_feature_extractor_from_sequential_without_input_layer",
        family="functional_graphs",
        code="""
base = keras.Sequential([
    keras.layers.Dense(16, activation="relu", name="hidden"),
    keras.layers.Dense(1),
])
extractor = keras.Model(inputs=base.inputs, outputs=base.get_layer("hidden").output)
""",
        expect="S04",
        must=("input",),
        must_not=("no such layer",),
        fix="start the Sequential with keras.Input((n_features,))",
    ),
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor
    #   is a symbolic placeholder for a shape and dtype, ...
    Case(
        name="f12_tf_nn_gelu_applied_to_functional_keras_tensor",
        family="functional_graphs",
        code="""
tokens = keras.Input((10, 32))
h = keras.layers.Dense(64)(tokens)
h = tf.nn.gelu(h)
out = keras.layers.Dense(32)(h)
""",
        expect=None,
        unexplained="the message says a KerasTensor cannot go into a TensorFlow function and to use keras.layers / keras.ops",
        fix="keras.layers.Activation('gelu') or keras.ops.gelu",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().
    #   We could not automatically infer the shape of the Lambda's output. Please specify the
    #   `output_shape` argument for this Lambda layer.
    Case(
        name="f12_lambda_layer_calling_numpy_log1p_on_symbolic_input",
        family="functional_graphs",
        code="""
counts = keras.Input((10,))
log_counts = keras.layers.Lambda(lambda t: np.log1p(t))(counts)
out = keras.layers.Dense(1)(log_counts)
""",
        expect="T02",
        must=("log1p",),
        must_not=("output_shape",),
        fix="keras.ops.log1p(t) in the Lambda",
    ),
]
