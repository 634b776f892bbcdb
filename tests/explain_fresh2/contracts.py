"""Family: a Keras/TF API called with arguments that break its documented contract.

The APIs: ``keras.layers.Embedding`` (ids must lie in ``[0, input_dim)``),
``tf.data.Dataset.batch`` (every element of a batch has the same shape; use
``padded_batch``/``ragged_batch`` otherwise) and ``from_tensor_slices`` (a
rectangular structure), the cross-entropy losses (``SparseCategorical*`` take
integer ids of shape ``(B,)``, ``Categorical*`` one-hot ``(B, C)``,
``BinaryCrossentropy`` a target of the output's shape), ``Model.predict``
(the first axis is the batch axis, even for one example), recurrent layers
(input ``(batch, timesteps, features)``), ``keras.metrics.Precision``
(binary or one-hot targets of the prediction's shape), ``Optimizer.apply_gradients``
(an iterable of ``(gradient, variable)`` pairs), ``MultiHeadAttention``
(``attention_mask`` of shape ``(B, T_query, T_value)``).

The exception is often raised deep inside the library (a gather op, an
iterator, a tf.function of the trainer).  The evidence a diagnosis needs: the
layer/loss/metric that received the value, the value's shape or range, and
what the API's contract asks for instead.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: indices[..] = 10 is not in [0, 10) at tokens/GatherV2
    Case(
        name="embedding_vocab_counted_without_the_largest_id",
        family="contracts",
        code="""
        ids = np.random.default_rng(0).integers(1, 11, size=(64, 5))  # token ids 1..10
        model = keras.Sequential([
            keras.Input((5,), dtype="int32"),
            keras.layers.Embedding(10, 4, name="tokens"),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(1),
        ])
        model.compile("adam", "mse")
        model.fit(ids, np.zeros((64, 1), "float32"), epochs=1, verbose=0)
        """,
        expect="S09",
        must=("tokens", "input_dim", "11"),
        must_not=("batch size", "output_dim"),
        fix="Embedding(input_dim=max id + 1 = 11, ...)",
    ),
    # InvalidArgumentError: Cannot batch tensors with different shapes in component 0.
    Case(
        name="batch_of_variable_length_generator_sequences",
        family="contracts",
        code="""
        sequences = [[1, 2, 3], [4, 5], [6, 7, 8, 9]] * 8
        ds = tf.data.Dataset.from_generator(
            lambda: iter(sequences), output_signature=tf.TensorSpec((None,), tf.int32)
        )
        for batch in ds.batch(4):
            pass
        """,
        expect="S13",
        must=("padded_batch",),
        must_not=("drop_remainder", "output_signature="),
        fix="ds.padded_batch(4) (or ragged_batch)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. target (32, 4)
    Case(
        name="sparse_loss_given_to_categorical_one_hot_labels",
        family="contracts",
        code="""
        x = np.random.rand(64, 8).astype("float32")
        y = keras.utils.to_categorical(np.random.randint(0, 4, 64), 4)
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(x, y, epochs=1, verbose=0)
        """,
        expect="M05",
        must=("sparse",),
        must_not=("from_logits", "flatten", "units"),
        fix="loss='categorical_crossentropy' (or integer labels)",
    ),
    # ValueError: Can't convert non-rectangular Python sequence to Tensor.
    Case(
        name="from_tensor_slices_of_unpadded_token_lists",
        family="contracts",
        code="""
        sentences = [[3, 7, 1], [4, 2], [9, 9, 9, 1, 5]]
        ds = tf.data.Dataset.from_tensor_slices(sentences)
        """,
        expect="S13",
        must=("pad",),
        must_not=("batch size", "expand_dims"),
        fix="keras.utils.pad_sequences(sentences) or tf.ragged.constant(sentences)",
    ),
    # ValueError: Negative dimension size ... input shapes [28,28,1,1] (Conv2D)
    Case(
        name="predict_one_image_without_batch_axis",
        family="contracts",
        code="""
        model = keras.Sequential([
            keras.Input((28, 28, 1)),
            keras.layers.Conv2D(4, 3),
            keras.layers.Flatten(),
            keras.layers.Dense(10),
        ])
        image = np.random.rand(28, 28, 1).astype("float32")
        model.predict(image, verbose=0)
        """,
        expect="S12",
        must=("batch",),
        must_not=("padding=", "strides", "kernel_size"),
        fix="model.predict(image[None]) (np.expand_dims(image, 0))",
    ),
    # ValueError: Input 0 of layer 'lstm' ... expected ndim=3, found ndim=2. (None, 10)
    Case(
        name="lstm_declared_on_flat_feature_vectors",
        family="contracts",
        code="""
        model = keras.Sequential([
            keras.Input((10,)),
            keras.layers.LSTM(8, name="encoder_lstm"),
            keras.layers.Dense(1),
        ])
        """,
        expect="S01",
        must=("encoder_lstm",),
        must_not=("return_sequences", "batch the dataset"),
        fix="keras.Input((timesteps, features)), e.g. (10, 1)",
    ),
    # ValueError: Dimensions must be equal, but are 32 and 160 for LogicalAnd (precision)
    Case(
        name="precision_metric_on_sparse_multiclass_labels",
        family="contracts",
        code="""
        x = np.random.rand(64, 8).astype("float32")
        y = np.random.randint(0, 5, 64)
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(5, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy", metrics=[keras.metrics.Precision()])
        model.fit(x, y, epochs=1, verbose=0)
        """,
        expect="S07",
        must=("precision",),
        must_not=("batch size", "flatten"),
        fix="Precision on one-hot labels, or a per-class Precision(class_id=k); SparseCategoricalAccuracy",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. (32, 2) vs (32, 1)
    Case(
        name="binary_crossentropy_with_two_column_one_hot_labels",
        family="contracts",
        code="""
        x = np.random.rand(64, 8).astype("float32")
        y = keras.utils.to_categorical(np.random.randint(0, 2, 64), 2)
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        model.fit(x, y, epochs=1, verbose=0)
        """,
        expect="M04",
        must=(),
        must_not=("from_logits", "flatten", "sparse_categorical"),
        fix="labels of shape (N, 1) (y.argmax(1)), or Dense(2, softmax) + categorical_crossentropy",
    ),
    # ValueError: not enough values to unpack (expected 2, got 1)
    Case(
        name="apply_gradients_given_the_gradient_list",
        family="contracts",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.Adam()
        x = tf.random.normal((8, 4))
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(grads)
        """,
        expect="S12",
        must=("zip",),
        must_not=("persistent", "inside the", "with block"),
        fix="opt.apply_gradients(zip(grads, model.trainable_variables))",
    ),
    # InvalidArgumentError: Incompatible shapes: [2,2,5,6] vs. [2,1,6,5] [Op:LogicalAnd]
    Case(
        name="attention_mask_with_query_and_value_axes_swapped",
        family="contracts",
        code="""
        mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, name="cross_attention")
        query = tf.zeros((2, 5, 8))
        value = tf.zeros((2, 6, 8))
        mask = tf.ones((2, 6, 5), bool)  # should be (batch, T_query=5, T_value=6)
        mha(query, value, attention_mask=mask)
        """,
        expect="S07",
        must=("attention_mask",),
        must_not=("smaller batch", "lower the batch"),
        fix="attention_mask of shape (B, T_query, T_value) = (2, 5, 6) (transpose it)",
    ),
]
