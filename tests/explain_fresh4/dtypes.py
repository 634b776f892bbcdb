"""Family: dtype contracts of TensorFlow ops and Keras layers.

The documented contracts: TensorFlow ops do not promote dtypes (unlike NumPy
and ``keras.ops``): ``tf.matmul``, ``+``, ``*`` and ``/`` need both operands of
one dtype, so integer counts, ``uint8`` pixels, ``bool`` masks and float64
NumPy results must be cast (``tf.cast(x, tf.float32)``) before they meet a
float32 tensor or variable; ``tf.reduce_sum``/``tf.reduce_mean`` and
``tf.math.rsqrt`` refuse ``bool`` and integer inputs respectively;
``tf.nn.sigmoid_cross_entropy_with_logits`` wants ``labels`` of the logits'
float dtype; under a ``mixed_float16`` policy a layer computes in float16
(``self.compute_dtype``) so any constant it mixes in must be cast to that
dtype, not to float32; a ``LearningRateSchedule`` receives the optimizer's
integer ``iterations`` as ``step`` and must cast it (the Transformer
tutorial's ``tf.cast(step, tf.float32)``); Keras models take numbers, so
string class names must be encoded (``StringLookup`` or a label encoder)
before ``fit``.

The evidence a diagnosis needs: the op (or layer) that refused, the two
dtypes it met and where each came from (the user's data, a NumPy constant,
the policy, the optimizer's step counter), and the cast or encoding that
belongs at that place.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: cannot compute MatMul as input #1(zero-based) was expected to be a int32 tensor
    #   but is a float tensor [Op:MatMul]
    Case(
        name="word_counts_int_matmul_float_variable",
        family="dtypes",
        code="""
        counts = tf.constant([[1, 0, 2], [0, 3, 1]])      # bag-of-words counts per document
        topic_weights = tf.Variable(tf.random.normal((3, 2)))
        doc_topics = tf.matmul(counts, topic_weights)
        """,
        expect="S11",
        must=("int32", "tf.cast"),
        must_not=("float64",),
        fix="tf.matmul(tf.cast(counts, tf.float32), topic_weights)",
    ),
    # TypeError: Value passed to parameter 'input' has DataType bool not in list of allowed values:
    #   float32, float64, int32, uint8, ...
    Case(
        name="masked_loss_multiplies_by_a_bool_mask",
        family="dtypes",
        code="""
        def masked_mse(y_true, y_pred):
            mask = tf.not_equal(y_true, 0.0)            # ignore missing targets
            return tf.reduce_mean(tf.square(y_true - y_pred) * mask)

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", loss=masked_mse)
        model.fit(np.random.rand(8, 4).astype("float32"), np.random.rand(8, 1).astype("float32"),
                  epochs=1, verbose=0)
        """,
        expect="S11",
        must=("bool", "tf.cast"),
        fix="mask = tf.cast(tf.not_equal(y_true, 0.0), y_pred.dtype)",
    ),
    # InvalidArgumentError: cannot compute Mul as input #1(zero-based) was expected to be a float tensor
    #   but is a int64 tensor [Op:Mul]
    Case(
        name="sigmoid_cross_entropy_with_integer_labels",
        family="dtypes",
        code="""
        labels = np.array([0, 1, 1, 0])
        logits = tf.random.normal((4,))
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
        """,
        expect="S06",
        must=("labels", "float32"),
        must_not=("sparse",),
        fix="labels=labels.astype('float32') (or tf.cast(labels, logits.dtype))",
    ),
    # ValueError: Invalid dtype: str128
    Case(
        name="string_class_names_as_sparse_labels",
        family="dtypes",
        code="""
        x = np.random.rand(6, 4).astype("float32")
        y = np.array(["cat", "dog", "bird", "cat", "dog", "bird"])
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(x, y, epochs=1, verbose=0)
        """,
        expect="S11",
        must=("string", "label"),
        must_not=("to_categorical",),
        fix="encode the class names: keras.layers.StringLookup(num_oov_indices=0) or np.unique(y, return_inverse=True)",
    ),
    # TypeError: in user code: ... lambda img: img + tf.random.normal(tf.shape(img), stddev=8.0)
    #   TypeError: Input 'y' of 'AddV2' Op has type float32 that does not match type uint8 of argument 'x'.
    Case(
        name="gaussian_noise_added_to_uint8_images_in_map",
        family="dtypes",
        code="""
        images = np.random.randint(0, 256, (4, 8, 8, 3), dtype=np.uint8)
        ds = tf.data.Dataset.from_tensor_slices(images)
        ds = ds.map(lambda img: img + tf.random.normal(tf.shape(img), stddev=8.0))   # noise augmentation
        """,
        expect="S11",
        must=("uint8", "tf.cast"),
        fix="img = tf.cast(img, tf.float32) before adding the noise",
    ),
    # TypeError: Exception encountered when calling PositionalEmbedding.call(). Could not automatically infer
    #   the output shape / dtype ... Input 'y' of 'AddV2' Op has type float64 that does not match type float32 of argument 'x'.
    Case(
        name="positional_encoding_float64_added_in_layer",
        family="dtypes",
        code="""
        def positional_encoding(length, depth):
            pos = np.arange(length)[:, None]
            i = np.arange(depth)[None, :]
            angle = pos / np.power(10000, (2 * (i // 2)) / depth)
            angle[:, 0::2] = np.sin(angle[:, 0::2])
            angle[:, 1::2] = np.cos(angle[:, 1::2])
            return tf.constant(angle)

        class PositionalEmbedding(keras.layers.Layer):
            def __init__(self, vocab, d, **kwargs):
                super().__init__(**kwargs)
                self.emb = keras.layers.Embedding(vocab, d)
                self.pe = positional_encoding(64, d)

            def call(self, tokens):
                n = tf.shape(tokens)[1]
                return self.emb(tokens) + self.pe[tf.newaxis, :n, :]

        tokens = keras.Input((10,), dtype="int32")
        embedded = PositionalEmbedding(100, 16)(tokens)
        """,
        expect="S11",
        must=("float64",),
        must_not=("compute_output_shape",),
        fix="return tf.constant(angle, dtype=tf.float32) (or tf.cast(angle, tf.float32))",
    ),
    # TypeError: Exception encountered when calling ScaledDotAttention.call().
    #   `x` and `y` must have the same dtype, got tf.float16 != tf.float32.
    Case(
        name="attention_scale_cast_to_float32_under_mixed_float16",
        family="dtypes",
        code="""
        class ScaledDotAttention(keras.layers.Layer):
            def call(self, q, k, v):
                scores = tf.matmul(q, k, transpose_b=True)
                scores = scores / tf.math.sqrt(tf.cast(tf.shape(k)[-1], tf.float32))
                return tf.matmul(tf.nn.softmax(scores), v)

        x = tf.random.normal((2, 5, 8))
        h = keras.layers.Dense(8, dtype="mixed_float16")(x)
        out = ScaledDotAttention(dtype="mixed_float16")(h, h, h)
        """,
        expect="S11",
        must=("float16",),
        fix="tf.cast(tf.shape(k)[-1], scores.dtype) (or self.compute_dtype)",
    ),
    # TypeError: Value passed to parameter 'x' has DataType int64 not in list of allowed values:
    #   bfloat16, float16, float32, float64, complex64, complex128
    Case(
        name="warmup_schedule_rsqrt_of_the_integer_step",
        family="dtypes",
        code="""
        class WarmupSchedule(keras.optimizers.schedules.LearningRateSchedule):
            def __init__(self, d_model, warmup_steps=4000):
                self.d_model = float(d_model)
                self.warmup_steps = warmup_steps

            def __call__(self, step):
                arg1 = tf.math.rsqrt(step)
                arg2 = step * (self.warmup_steps ** -1.5)
                return tf.math.rsqrt(self.d_model) * tf.math.minimum(arg1, arg2)

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile(keras.optimizers.Adam(WarmupSchedule(128)), "mse")
        model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
        """,
        expect="S11",
        must=("int64", "tf.cast"),
        fix="step = tf.cast(step, tf.float32) first in __call__",
    ),
]
