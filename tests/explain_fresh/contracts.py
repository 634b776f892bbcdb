"""Family: API contracts broken by the arguments the user passed.

The API: any Keras or TensorFlow entry point a notebook calls directly, such as
a recurrent layer's ``initial_state``, an attention layer's ``(query, value)``
arguments, ``Optimizer.apply_gradients``, ``Layer.set_weights``,
``keras.utils.to_categorical``, the ``tf.image`` ops, ``tf.data`` constructors
and transformations, a ``tf.function`` with an ``input_signature``.

The contract: each documents what it takes (how many states, which pairs in
which order, which rank, which structure, ids below ``num_classes``), and
when the user breaks it the exception often comes from deep inside the
library: an ``IndexError`` in NumPy, a ``TypeError`` about a missing
positional argument of an internal ``call``, an ``AttributeError`` on an
object of the wrong kind, ``Unknown variable``.

The evidence a diagnosis needs: the API the user called (the frame of the
user's cell), the argument that breaks the contract and what it held
(its length, its structure, its rank, its largest value), and what the API
documents instead; the fix names the argument and the form it must take.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "contracts"

CASES: list[Case] = [
    # Raises IndexError: Exception encountered when calling LSTM.call(). ... list index out of
    # range
    Case(
        name="lstm_initial_state_given_only_h",
        family=FAMILY,
        code="""
        enc_in = keras.Input((12, 8))
        _, h = keras.layers.GRU(16, return_state=True)(enc_in)
        dec_in = keras.Input((10, 8))
        dec = keras.layers.LSTM(16, return_sequences=True)(dec_in, initial_state=[h])
        model = keras.Model([enc_in, dec_in], dec)
        model.predict([np.zeros((2, 12, 8)), np.zeros((2, 10, 8))], verbose=0)
        """,
        expect="S12",
        must=("initial_state", "2"),
        must_not=("return_sequences=true", "the strides", "batch the dataset"),
        fix="an LSTM takes two states [h, c]: use an LSTM encoder or pass [h, c]",
    ),
    # Raises IndexError: Exception encountered when calling LSTM.call(). ... list index out of
    # range
    Case(
        name="bidirectional_lstm_initial_state_with_two_states",
        family=FAMILY,
        code="""
        seq = keras.Input((10, 8))
        h0 = keras.Input((16,))
        c0 = keras.Input((16,))
        both = keras.layers.Bidirectional(keras.layers.LSTM(16))(seq, initial_state=[h0, c0])
        model = keras.Model([seq, h0, c0], both)
        model.predict([np.zeros((2, 10, 8)), np.zeros((2, 16)), np.zeros((2, 16))], verbose=0)
        """,
        expect="S12",
        must=("initial_state", "4"),
        must_not=("return_sequences=true", "the strides", "batch the dataset"),
        fix="a Bidirectional LSTM takes four states: [h_fw, c_fw, h_bw, c_bw]",
    ),
    # Raises TypeError: missing a required argument: 'value'
    Case(
        name="multi_head_attention_called_with_query_only",
        family=FAMILY,
        code="""
        tokens = keras.Input((20, 32))
        attended = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)(tokens)
        """,
        expect="S12",
        must=("value", "multiheadattention"),
        must_not=("the strides", "flatten", "batch the dataset"),
        fix="self-attention: mha(tokens, tokens)",
    ),
    # Raises ValueError: Attention layer must be called on a list of inputs, namely [query, value]
    # or [query, value, key]. Received: inputs=(None, 5, 16).
    Case(
        name="attention_layer_given_one_tensor",
        family=FAMILY,
        code="""
        q = keras.Input((5, 16))
        context = keras.layers.Attention()(q)
        """,
        expect=None,
        must_not=("the strides", "flatten", "batch the dataset", "return_sequences"),
        unexplained="Keras says the layer must be called on a list [query, value] (or [query, value, key])",
        fix="Attention()([query, value])",
    ),
    # Raises ValueError: Unknown variable: <Variable path=sequential/dense/kernel, shape=(4, 6),
    # dtype=float32, value=[...]
    Case(
        name="one_optimizer_for_generator_and_discriminator",
        family=FAMILY,
        code="""
        gen = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6)])
        disc = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1)])
        opt = keras.optimizers.Adam(1e-3)
        z = tf.random.normal((8, 4))
        with tf.GradientTape() as tape:
            d_loss = tf.reduce_mean(disc(gen(z)))
        opt.apply_gradients(zip(tape.gradient(d_loss, disc.trainable_variables),
                                disc.trainable_variables))
        with tf.GradientTape() as tape:
            g_loss = -tf.reduce_mean(disc(gen(z)))
        opt.apply_gradients(zip(tape.gradient(g_loss, gen.trainable_variables),
                                gen.trainable_variables))
        """,
        expect="S12",
        must=("optimizer", "instance"),
        must_not=("learning rate", "persistent", "the strides"),
        fix="one optimizer instance per model: gen_opt and disc_opt",
    ),
    # Raises ValueError: Layer dense_2 weight shape (3, 4) is not compatible with provided weight
    # shape (4, 3).
    Case(
        name="set_weights_in_pytorch_layout",
        family=FAMILY,
        code="""
        layer = keras.layers.Dense(4)
        layer.build((None, 3))
        torch_weight = np.random.rand(4, 3).astype("float32")  # (out_features, in_features)
        torch_bias = np.zeros(4, dtype="float32")
        layer.set_weights([torch_weight, torch_bias])
        """,
        expect="S12",
        must=("(3, 4)", "transpose"),
        must_not=("batch size", "flatten", "the strides"),
        fix="transpose the kernel: set_weights([w.T, b])",
    ),
    # Raises ValueError: You called `set_weights(weights)` on layer 'dense_3' with a weight list
    # of length 1, but the layer was expecting 2 weights.
    Case(
        name="set_weights_without_the_bias",
        family=FAMILY,
        code="""
        layer = keras.layers.Dense(4)
        layer.build((None, 3))
        layer.set_weights([np.ones((3, 4), dtype="float32")])
        """,
        expect=None,
        must_not=("transpose", "the strides", "batch size"),
        unexplained="Keras says the list has 1 weight and the layer expects 2",
        fix="pass [kernel, bias] (or use_bias=False)",
    ),
    # Raises IndexError: index 5 is out of bounds for axis 1 with size 5
    Case(
        name="to_categorical_with_one_based_classes",
        family=FAMILY,
        code="""
        grades = np.array([1, 2, 3, 4, 5, 3, 2])  # star ratings 1..5
        y = keras.utils.to_categorical(grades, num_classes=5)
        """,
        expect="P12",
        must=("5", "num_classes"),
        must_not=("embedding", "input_dim", "the strides"),
        fix="shift the ids to 0..4 (grades - 1) or num_classes=6",
    ),
    # Raises InvalidArgumentError: {{function_node __wrapped__SparseSoftmaxCrossEntropyWithLogits_
    # device_/job:localhost/replica:0/task:0/device:CPU:0}} Received a label value of 3 which is
    # outside the valid range of [0, 3).  Label values: 0 1 2 3 [Op:SparseSoftmaxCrossEntr
    Case(
        name="sparse_crossentropy_label_equal_to_class_count",
        family=FAMILY,
        code="""
        loss_fn = keras.losses.SparseCategoricalCrossentropy()
        probs = tf.nn.softmax(tf.random.normal((4, 3)))
        labels = tf.constant([0, 1, 2, 3])
        loss_fn(labels, probs)
        """,
        expect="P12",
        must=("label", "3"),
        must_not=("embedding", "input_dim", "one-hot", "the strides"),
        fix="the model needs 4 output units, or re-index the labels to 0..2",
    ),
    # Raises ValueError: 'images' must have either 3 or 4 dimensions.
    Case(
        name="resize_grayscale_without_channel_axis",
        family=FAMILY,
        code="""
        digit = np.random.rand(28, 28).astype("float32")
        bigger = tf.image.resize(digit, (32, 32))
        """,
        expect="S07",
        must=("resize", "channel"),
        must_not=("batch the dataset", "the strides", "flatten"),
        fix="add a channel axis: digit[..., None]",
    ),
    # Raises InvalidArgumentError: {{function_node
    # __wrapped__GreaterEqual_device_/job:localhost/replica:0/task:0/device:CPU:0}} Incompatible
    # shapes: [3] vs. [2] [Op:GreaterEqual] name:
    Case(
        name="random_crop_size_without_channels",
        family=FAMILY,
        code="""
        photo = tf.random.uniform((64, 64, 3))
        patch = tf.image.random_crop(photo, size=(32, 32))
        """,
        expect="S07",
        must=("random_crop", "size"),
        must_not=("batch the dataset", "batch size", "the strides", "flatten"),
        fix="size must list every axis: size=(32, 32, 3)",
    ),
    # Raises AttributeError: 'tensorflow.python.framework.ops.EagerTensor' object has no attribute
    # '_unique_id'
    Case(
        name="apply_gradients_pairs_in_reverse_order",
        family=FAMILY,
        code="""
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD(0.1)
        x = tf.random.normal((8, 3))
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x)))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(model.trainable_variables, grads))
        """,
        expect="S12",
        must=("apply_gradients", "zip(grad"),
        must_not=("learning rate", "the strides", "persistent"),
        fix="zip(grads, model.trainable_variables): gradient first",
    ),
    # Raises AttributeError: 'Sequential' object has no attribute '_id'
    Case(
        name="gradient_with_the_model_as_sources",
        family=FAMILY,
        code="""
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        x = tf.random.normal((8, 3))
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x)))
        grads = tape.gradient(loss, model)
        """,
        expect="S12",
        must=("gradient", "trainable_variables"),
        must_not=("persistent", "the strides", "learning rate"),
        fix="tape.gradient(loss, model.trainable_variables)",
    ),
    # Raises ValueError: Dimensions 100 and 90 are not compatible
    Case(
        name="from_tensor_slices_with_features_and_truncated_labels",
        family=FAMILY,
        code="""
        features = np.random.rand(100, 4).astype("float32")
        labels = np.random.randint(0, 2, size=90)
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        """,
        expect="S12",
        must=("100", "90"),
        must_not=("padded_batch", "the strides", "batch the dataset"),
        fix="give features and labels the same number of rows",
    ),
    # Raises TypeError: in user code: ... TypeError:
    # outer_factory.<locals>.inner_factory.<locals>.<lambda>() takes 1 positional argument but 2
    # were given
    Case(
        name="dataset_map_with_one_argument_on_pairs",
        family=FAMILY,
        code="""
        ds = tf.data.Dataset.from_tensor_slices(
            (np.random.rand(16, 8, 8).astype("float32"), np.arange(16)))
        ds = ds.map(lambda image: image / 255.0)
        """,
        expect="S12",
        must=("map", "2"),
        must_not=("the strides", "padded_batch", "cast"),
        fix="the function takes every component: lambda image, label: (image / 255.0, label)",
    ),
    # Raises TypeError: If shallow structure is a sequence, input must also be a sequence. Input
    # has type: 'list'.
    Case(
        name="padded_batch_shapes_for_the_sequence_only",
        family=FAMILY,
        code="""
        def pairs():
            for n in (3, 5, 2, 4):
                yield np.arange(n, dtype="int32"), n % 2
        ds = tf.data.Dataset.from_generator(
            pairs,
            output_signature=(tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32)))
        ds = ds.padded_batch(2, padded_shapes=[None])
        """,
        expect="S12",
        must=("padded_shapes",),
        must_not=("the strides", "ragged_batch", "batch the dataset"),
        fix="one padded shape per component: padded_shapes=([None], [])",
    ),
    # Raises InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_output_types_1_devic
    # e_/job:localhost/replica:0/task:0/device:CPU:0}} TypeError: `generator` yielded an element
    # that could not be converted to the expected type. The expected type was float32, but
    Case(
        name="from_generator_signature_without_the_label",
        family=FAMILY,
        code="""
        def rows():
            for i in range(6):
                yield np.full(4, i, dtype="float32"), i % 2
        ds = tf.data.Dataset.from_generator(
            rows, output_signature=tf.TensorSpec(shape=(4,), dtype=tf.float32))
        for x in ds.take(1):
            pass
        """,
        expect="S12",
        must=("output_signature",),
        must_not=("the strides", "padded_batch", "set_shape"),
        fix="output_signature=(TensorSpec((4,), float32), TensorSpec((), int32))",
    ),
    # Raises TypeError: Binding inputs to tf.function failed due to `Can not cast
    # TensorSpec(shape=(2, 3), dtype=tf.int32, name=None) to TensorSpec(shape=(None, 3),
    # dtype=tf.float32, name=None)`. Received args: (<tf.Tensor: shape=(2, 3), dtype=int32, numpy=
    Case(
        name="tf_function_signature_float_called_with_ints",
        family=FAMILY,
        code="""
        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def score(batch):
            return tf.reduce_sum(batch, axis=1)

        score(tf.constant([[1, 2, 3], [4, 5, 6]]))
        """,
        expect="S11",
        must=("float32", "int32"),
        must_not=("the strides", "batch the dataset", "retrac"),
        fix="cast first: tf.cast(batch, tf.float32)",
    ),
    # Raises ValueError: `labels.shape.rank` must equal `logits.shape.rank - 1`. Received:
    # labels.shape=(4, 3) of rank 2 and logits.shape=(4,) of rank 1
    Case(
        name="sparse_softmax_loss_arguments_in_positional_order",
        family=FAMILY,
        code="""
        logits = tf.random.normal((4, 3))
        labels = tf.constant([0, 2, 1, 1])
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(logits, labels)
        """,
        expect="S12",
        must=("labels=", "logits="),
        must_not=("astype", "tf.cast", "the strides"),
        fix="pass by keyword: labels=labels, logits=logits",
    ),
    # Raises TypeError: too many positional arguments
    Case(
        name="concatenate_called_with_two_tensors",
        family=FAMILY,
        code="""
        a = keras.Input((8,))
        b = keras.Input((4,))
        merged = keras.layers.Concatenate()(a, b)
        """,
        expect="S12",
        must=("concatenate", "[a, b]"),
        must_not=("the strides", "matching shapes"),
        fix="pass one list: Concatenate()([a, b])",
    ),
    # Raises InvalidArgumentError: Value for attr 'TI' of float is not in the list of allowed
    # values: uint8, int8, int32, int64
    Case(
        name="one_hot_of_float_class_ids",
        family=FAMILY,
        code="""
        ids = tf.constant([0.0, 2.0, 1.0])
        onehot = tf.one_hot(ids, depth=3)
        """,
        expect="S11",
        must=("one_hot", "int"),
        must_not=("the strides", "embedding", "input_dim"),
        fix="tf.one_hot(tf.cast(ids, tf.int32), 3)",
    ),
    # Raises ValueError: Argument `validation_split` is only supported for tensors or NumPy
    # arrays.Found incompatible type in the input: [<class
    # 'tensorflow.python.data.ops.batch_op._BatchDataset'>]
    Case(
        name="validation_split_with_a_dataset",
        family=FAMILY,
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        ds = tf.data.Dataset.from_tensor_slices(
            (np.random.rand(32, 4).astype("float32"), np.random.rand(32, 1).astype("float32"))
        ).batch(8)
        model.fit(ds, validation_split=0.2, epochs=1, verbose=0)
        """,
        expect=None,
        must_not=("the strides", "shuffle before fit", "labels"),
        unexplained="Keras says validation_split is only supported for arrays and tensors",
        fix="split the dataset with take/skip and pass validation_data",
    ),
]
