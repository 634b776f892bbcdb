"""Family ``model_assembly``: putting a model together with ``keras.Model(inputs, outputs)`` and ``Sequential``.

APIs: ``keras.Model(inputs, outputs)`` takes ``keras.Input`` tensors as ``inputs`` and the
symbolic tensors computed from them (by calling layers) as ``outputs``: every ``Input``
an output depends on must be listed in ``inputs`` (else the output "is not connected"),
and a NumPy array or a layer object in either place is not a ``KerasTensor``.  A layer
object builds its weights for the shape of its first call and is then *shared*: calling it
again on a tensor of another last dimension fails.  A model used as a layer (a sub-model)
takes the inputs it was built with, as many and in the same structure.  ``Concatenate``
joins tensors of the same rank that agree on every axis but the concatenation axis (an
LSTM with ``return_sequences=True`` gives rank 3).  ``keras.Sequential`` takes layer
*instances* (``keras.layers.Flatten()``, not the class).  ``keras.Input(shape=...)`` is
the shape of ONE example, without the batch axis (``batch_size=`` sets that).  A
subclassed model creates its weights only when it is first called or ``build`` is run, so
``set_weights``/``load_weights``/``count_params`` on a fresh instance find no weights.

Evidence a diagnosis needs: the ``Input`` tensors listed against the ones the outputs
depend on, the type of what was given as inputs or outputs, the shape a shared layer
was built for (its first call) and the shape of the later call, the number and names of
a sub-model's inputs against what it was called with, the ranks of the tensors joined
and the layer that made the extra axis, the ``shape`` given to ``Input`` against the data's
shape, and whether the model was built.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Output with path `` is not connected to `inputs`
    Case(
        name="f10_functional_model_lists_only_the_image_input",
        family="model_assembly",
        code="""
image_feats = keras.Input((8,), name="image_feats")
meta = keras.Input((3,), name="meta")
x = keras.layers.Concatenate()([keras.layers.Dense(4)(image_feats), meta])
price = keras.layers.Dense(1)(x)
model = keras.Model(inputs=image_feats, outputs=price)
""",
        expect="S12",
        must=("meta",),
        must_not=("return_sequences", "flatten"),
        fix="keras.Model(inputs=[image_feats, meta], outputs=price)",
    ),
    # ValueError: All `inputs` values must be KerasTensors. Received: inputs=[[0. 0. 0. 0.]]
    #   including invalid value [[0. 0. 0. 0.]] of type <class 'numpy.ndarray'>
    Case(
        name="f10_numpy_array_used_as_functional_model_input",
        family="model_assembly",
        code="""
sample = np.zeros((1, 4), dtype="float32")
hidden = keras.layers.Dense(8, activation="relu")(sample)
score = keras.layers.Dense(1)(hidden)
model = keras.Model(inputs=sample, outputs=score)
""",
        expect="S12",
        must=("keras.input",),
        must_not=("tf.convert_to_tensor", "astype"),
        fix="inputs = keras.Input((4,)) and build the layers on it",
    ),
    # ValueError: Input 0 with name 'None' of layer 'dense' is incompatible with the layer:
    #   expected axis -1 of input shape to have value 8, but received input with shape (None, 4)
    Case(
        name="f10_shared_dense_reused_on_a_narrower_branch",
        family="model_assembly",
        code="""
user = keras.Input((8,), name="user")
item = keras.Input((4,), name="item")
tower = keras.layers.Dense(16, activation="relu")
user_vec = tower(user)
item_vec = tower(item)
score = keras.layers.Dot(axes=1)([user_vec, item_vec])
model = keras.Model([user, item], score)
""",
        expect="S01",
        must=("reuse",),
        must_not=("flatten", "batch"),
        fix="one Dense per tower (or project both inputs to the same width first)",
    ),
    # ValueError: Layer "encoder" expects 1 named input(s) with keys ['input_layer'], but it
    #   received 2 input tensors. Pass inputs as a dict, e.g. `layer({'input_layer': ...})`.
    Case(
        name="f10_single_input_encoder_called_on_query_and_document",
        family="model_assembly",
        code="""
enc_in = keras.Input((6,))
encoder = keras.Model(enc_in, keras.layers.Dense(3)(enc_in), name="encoder")
query = keras.Input((6,))
doc = keras.Input((6,))
z = encoder([query, doc])
""",
        expect="S12",
        must=("encoder",),
        must_not=("concatenate the inputs", "dict"),
        fix="call the encoder once per input: encoder(query), encoder(doc)",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    #   concatenation axis. Received: input_shape=[(None, 10, 8), (None, 5)]
    Case(
        name="f10_concatenate_lstm_sequence_with_static_features",
        family="model_assembly",
        code="""
series = keras.Input((10, 8), name="series")
static = keras.Input((5,), name="static")
h = keras.layers.LSTM(8, return_sequences=True)(series)
x = keras.layers.Concatenate()([h, static])
out = keras.layers.Dense(1)(x)
model = keras.Model([series, static], out)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims",),
        fix="LSTM(8) (return_sequences=False), or GlobalAveragePooling1D before the Concatenate",
    ),
    # ValueError: Only instances of `keras.Layer` can be added to a Sequential model. Received:
    #   <class 'keras.src.layers.reshaping.flatten.Flatten'> (of type <class 'type'>)
    Case(
        name="f10_sequential_given_the_flatten_class_not_an_instance",
        family="model_assembly",
        code="""
model = keras.Sequential([
    keras.Input((28, 28)),
    keras.layers.Flatten,
    keras.layers.Dense(10, activation="softmax"),
])
""",
        expect=None,
        unexplained="the message says only Layer instances are accepted and shows the Flatten class that came",
        fix="keras.layers.Flatten()",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Invalid input shape for input Tensor("data:0", shape=(32, 784), dtype=float32) ...
    #   Expected shape (None, 32, 784), but input has incompatible shape (32, 784)
    Case(
        name="f10_input_shape_written_with_the_batch_size",
        family="model_assembly",
        code="""
x = np.random.rand(32, 784).astype("float32")
y = np.arange(32) % 10
model = keras.Sequential([
    keras.Input(shape=(32, 784)),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, y, batch_size=32, epochs=1, verbose=0)
""",
        expect="S12",
        must=("batch",),
        must_not=("expand_dims", "np.newaxis"),
        fix="keras.Input(shape=(784,)) (batch_size=32 if it must be fixed)",
    ),
    # ValueError: You called `set_weights(weights)` on layer 'net_1' with a weight list of
    #   length 4, but the layer was expecting 0 weights.
    Case(
        name="f10_set_weights_on_a_fresh_unbuilt_subclassed_model",
        family="model_assembly",
        code="""
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(8, activation="relu")
        self.out = keras.layers.Dense(1)

    def call(self, x):
        return self.out(self.hidden(x))

trained = Net()
trained(np.zeros((1, 4), "float32"))
fresh = Net()
fresh.set_weights(trained.get_weights())
""",
        expect="S04",
        must=("build",),
        must_not=("shifted",),
        fix="fresh.build((None, 4)) (or call it on a batch) before set_weights",
    ),
]
