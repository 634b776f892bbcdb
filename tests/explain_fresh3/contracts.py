"""Family: a Keras/TF API called against its documented contract, raised inside the library.

The documented contracts: a recurrent layer's ``initial_state`` is one tensor
per state, each of shape ``(batch, units)`` (a ``GRU(16)`` takes a
``(B, 16)`` state, whatever width the encoder that produced it had);
``tf.math.confusion_matrix(labels, predictions)`` takes two 1-D vectors of
class ids, so a model's ``(N, C)`` probabilities need an ``argmax`` first;
``Layer.set_weights`` assigns to the variables a layer already has, and an
unbuilt ``Dense`` has none (build it, or call it once, first);
``Dataset.padded_batch(padding_values=...)`` must have each component's own
dtype (``-1`` for int32 ids, not ``-1.0``); ``from_generator``'s
``output_signature`` is checked against every yielded element, so a fixed
``TensorSpec((10,))`` rejects a sequence of length 7 (variable lengths are
``(None,)``, then ``padded_batch``); ``tf.nn.softmax_cross_entropy_with_logits``
wants one-hot / probability labels of the logits' shape, and integer class ids
belong to ``tf.nn.sparse_softmax_cross_entropy_with_logits``;
``tf.image.rgb_to_grayscale`` needs a last axis of 3 (RGB), so images that
already have one channel fail; ``StringLookup(vocabulary=...)`` needs distinct
terms (``np.unique`` of the label column, not the column itself).

The evidence a diagnosis needs: the API and the argument that breaks the
contract, what it received (shape, dtype, length, duplicates) against what the
contract requires, and the call or value that fits.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Exception encountered when calling GRUCell.call().
    #   (Dimensions must be equal, but are 32 and 16 ... MatMul_1 ... input shapes: [8,32], [16,48])
    Case(
        name="gru_initial_state_wider_than_its_units",
        family="contracts",
        code="""
        x = np.random.rand(8, 10, 4).astype("float32")
        context = np.random.rand(8, 32).astype("float32")  # an encoder's 32-wide summary
        seq = keras.Input((10, 4))
        h0 = keras.Input((32,))
        out = keras.layers.GRU(16)(seq, initial_state=h0)
        model = keras.Model([seq, h0], keras.layers.Dense(1)(out))
        model.predict([x, context], verbose=0)
        """,
        expect="S01",
        must=("state",),
        must_not=("return_sequences", "flatten"),
        fix="GRU(32) (units = the state's width), or Dense(16)(context) before passing it",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Pack_N_2_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   Shapes of all inputs must match: values[0].shape = [20] != values[1].shape = [20,3] [Op:Pack] name: stack
    Case(
        name="confusion_matrix_of_predicted_probabilities",
        family="contracts",
        code="""
        x = np.random.rand(20, 4).astype("float32")
        y = np.random.randint(0, 3, 20)
        model = keras.Sequential([
            keras.Input((4,)),
            keras.layers.Dense(3, activation="softmax"),
        ])
        probs = model.predict(x, verbose=0)
        tf.math.confusion_matrix(y, probs)
        """,
        expect="S07",
        must=("argmax",),
        must_not=("to_categorical", "one-hot encode"),
        fix="tf.math.confusion_matrix(y, np.argmax(probs, axis=1))",
    ),
    # ValueError: You called `set_weights(weights)` on layer 'dense' with a weight list of length 2,
    #   but the layer was expecting 0 weights.
    Case(
        name="set_weights_on_a_dense_never_built",
        family="contracts",
        code="""
        kernel = np.random.rand(3, 4).astype("float32")  # exported from another framework
        bias = np.zeros(4, "float32")
        layer = keras.layers.Dense(4)
        layer.set_weights([kernel, bias])
        """,
        expect="S04",
        must=("build",),
        must_not=("bias", "transpose"),
        fix="layer.build((None, 3)) (or call it once) before set_weights",
    ),
    # TypeError: Invalid `padding_values`. `padding_values` values type <dtype: 'float32'> does not match
    #   type <dtype: 'int32'> of the corresponding input component.
    Case(
        name="padded_batch_float_padding_for_int_tokens",
        family="contracts",
        code="""
        token_ids = [[4, 8, 15], [16, 23], [42]]
        ds = tf.data.Dataset.from_generator(
            lambda: iter(token_ids),
            output_signature=tf.TensorSpec((None,), tf.int32),
        )
        ds = ds.padded_batch(2, padding_values=-1.0)
        """,
        expect="S11",
        must=("padding_values",),
        must_not=("astype",),
        fix="padding_values=-1 (an int32 value for the int32 ids)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_output_types_2_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   TypeError: `generator` yielded an element of shape (7,) where an element of shape (10,) was expected.
    Case(
        name="from_generator_signature_fixes_the_sequence_length",
        family="contracts",
        code="""
        def sentences():
            for n in (10, 7, 12, 10):
                yield np.arange(n, dtype="int32"), 1

        ds = tf.data.Dataset.from_generator(
            sentences,
            output_signature=(tf.TensorSpec((10,), tf.int32), tf.TensorSpec((), tf.int32)),
        )
        for ids, label in ds:
            pass
        """,
        expect="S13",
        must=("signature",),
        must_not=("batch the dataset", "py_function"),
        fix="tf.TensorSpec((None,), tf.int32) in output_signature, then padded_batch",
    ),
    # InvalidArgumentError: {{function_node __wrapped__SoftmaxCrossEntropyWithLogits_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   logits and labels must be broadcastable: logits_size=[4,3] labels_size=[1,4] [Op:SoftmaxCrossEntropyWithLogits] name:
    Case(
        name="softmax_cross_entropy_given_class_ids",
        family="contracts",
        code="""
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
        x = np.random.rand(4, 5).astype("float32")
        y = np.array([0, 2, 1, 2])
        with tf.GradientTape() as tape:
            logits = model(x)
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        """,
        expect="M05",
        must=("sparse",),
        must_not=("from_logits", "reshape the labels"),
        fix="tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)",
    ),
    # InvalidArgumentError: {{function_node __wrapped____MklMatMul_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   Matrix size-incompatible: In[0]: [3136,1], In[1]: [3,1] [Op:MatMul] name:
    Case(
        name="rgb_to_grayscale_of_single_channel_images",
        family="contracts",
        code="""
        scans = np.random.rand(4, 28, 28, 1).astype("float32")  # already one channel
        gray = tf.image.rgb_to_grayscale(scans)
        """,
        expect="S07",
        must=("channel",),
        must_not=("transpose", "strides"),
        fix="drop the conversion (the images are already grayscale)",
    ),
    # ValueError: The passed vocabulary has at least one repeated term. Please uniquify your dataset.
    #   The repeated terms are: [np.str_('cat'), np.str_('dog')]
    Case(
        name="string_lookup_vocabulary_from_the_label_column",
        family="contracts",
        code="""
        labels = np.array(["cat", "dog", "cat", "bird", "dog"])
        lookup = keras.layers.StringLookup(vocabulary=labels)
        """,
        expect=None,
        must_not=("num_oov_indices", "mask_token"),
        unexplained="Keras names the repeated terms and says to uniquify the vocabulary",
        fix="vocabulary=np.unique(labels)",
    ),
]
