"""A fix is named only where the failing run's evidence supports it.

Each case raises for real in a real shell.  Its finding must name the fix that the evidence
supports and must not name an alternative that the evidence rules out: a length the records
hold where a varying length is not shown, the dtype a function must return where a cast after
the call would only move the problem, the dataset's missing ``batch()`` where a NumPy
``expand_dims`` does not apply, the constant a loss made where its labels are fine.  Where
two causes fit the evidence, both are named (the last cases).
"""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests.test_explain_contracts import PRELUDE, _run

# (name, code, code of the finding, words it must contain, words it must NOT contain)
CASES: list[tuple[str, str, str, tuple[str, ...], tuple[str, ...]]] = [
    (
        "parsed_feature_length_from_the_message",
        """
        ex = tf.train.Example(features=tf.train.Features(feature={
            "v": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0, 3.0]))}))
        tf.io.parse_example([ex.SerializeToString()] * 2, {"v": tf.io.FixedLenFeature([2], tf.float32)})
        """,
        "S07",
        ("FixedLenFeature([3]", "3 values"),
        ("VarLenFeature", "RaggedFeature"),
    ),
    (
        "parsed_feature_dtype_declared_not_cast",
        """
        ex = tf.train.Example(features=tf.train.Features(feature={
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))}))
        tf.io.parse_single_example(ex.SerializeToString(), {"label": tf.io.FixedLenFeature([], tf.float32)})
        """,
        "S11",
        ("tf.int64",),
        ("tf.cast",),
    ),
    (
        "numpy_function_returns_float64",
        """
        def noisy(x):
            return x + np.random.normal(size=x.shape)
        ds = tf.data.Dataset.from_tensor_slices(np.zeros((4, 3), "float32"))
        ds = ds.map(lambda x: tf.numpy_function(noisy, [x], tf.float32))
        next(iter(ds))
        """,
        "S11",
        ("astype(np.float32)",),
        ("tf.cast", "Tout=tf.float64"),
    ),
    (
        "f1_score_on_one_sigmoid_column",
        """
        x = np.random.rand(16, 4).astype("float32"); labels = np.arange(16) % 2
        m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
        m.compile("adam", "binary_crossentropy", metrics=[keras.metrics.F1Score()])
        m.fit(x, labels, epochs=1, verbose=0)
        """,
        "S07",
        ("labels.reshape(-1, 1)", "threshold=0.5"),
        ("to_categorical", "argmax"),
    ),
    (
        "predict_on_a_dataset_never_batched",
        """
        images = tf.data.Dataset.from_tensor_slices(np.random.rand(6, 8, 8, 1).astype("float32"))
        cnn = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(2, 3),
                                keras.layers.Flatten(), keras.layers.Dense(1)])
        cnn.predict(images, verbose=0)
        """,
        "S12",
        ("images.batch(",),
        ("expand_dims", "x[None]"),
    ),
    (
        "batch_axis_into_tf_zeros",
        """
        class AddState(keras.layers.Layer):
            def call(self, x):
                return x + tf.zeros((x.shape[0], 4))
        keras.Sequential([keras.Input((4,)), AddState()])
        """,
        "T02",
        ("tf.shape(x)[0]",),
        ("reshape",),
    ),
    (
        "object_array_of_sequences_of_two_lengths",
        """
        series = np.array([np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])], dtype=object)
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        m.fit(series, np.zeros(2), verbose=0)
        """,
        "S13",
        ("pad_sequences(list(series)", "2, 3"),
        ("astype",),
    ),
    (
        "object_array_of_equal_rows",
        """
        rows = np.empty(3, dtype=object)
        for i in range(3):
            rows[i] = [1.0, 2.0]
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        m.predict(rows, verbose=0)
        """,
        "S11",
        ("np.stack(list(rows))",),
        ("pad_sequences",),
    ),
    (
        "object_array_of_sequences_sliced",
        """
        series = np.array([np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])], dtype=object)
        tf.data.Dataset.from_tensor_slices(series)
        """,
        "S13",
        ("pad_sequences(list(series)",),
        ("astype",),
    ),
    (
        "loss_weights_constant_in_float64",
        """
        class_w = tf.constant(np.array([0.5, 2.0]))
        def weighted_mse(y_true, y_pred):
            return tf.reduce_mean(class_w * tf.square(y_true - y_pred))
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2)]); m.compile("adam", weighted_mse)
        m.fit(np.random.rand(4, 2).astype("float32"), np.random.rand(4, 2).astype("float32"), verbose=0)
        """,
        "S11",
        ("class_w", "dtype=tf.float32"),
        ("labels and predictions", "y_true = tf.cast"),
    ),
    (
        "numpy_float64_batch_into_matmul",
        """
        proj = keras.layers.Dense(2); proj.build((None, 3))
        batch = np.random.uniform(size=(4, 3))
        scores = tf.nn.relu(tf.matmul(batch, proj.kernel))
        """,
        "S11",
        ("`batch`", "astype('float32')"),
        ("labels and predictions",),
    ),
    (
        "assert_on_a_tensor_in_a_loss",
        """
        def checked(y_true, y_pred):
            assert tf.reduce_all(y_pred >= 0)
            return tf.reduce_mean(tf.square(y_true - y_pred))
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("adam", checked)
        m.fit(np.random.rand(8, 3).astype("float32"), np.zeros((8, 1)), verbose=0)
        """,
        "T02",
        ("tf.debugging",),
        ("tf.cond", "tf.where"),
    ),
    (
        "if_on_a_whole_tensor_reduction",
        """
        class Normalize(keras.layers.Layer):
            def call(self, x):
                if tf.reduce_max(x) > 1.0:
                    return x / tf.reduce_max(x)
                return x
        m = keras.Sequential([keras.Input((3,)), Normalize(), keras.layers.Dense(1)])
        m.compile("adam", "mse")
        m.fit(np.random.rand(8, 3).astype("float32"), np.zeros((8, 1)), verbose=0)
        """,
        "T02",
        ("scalar tensor", "tf.cond("),
        ("one value per element",),
    ),
    (
        "conv1d_on_measurements_without_feature_axis",
        """
        signal = np.random.rand(8, 20).astype("float32")
        m = keras.Sequential([keras.layers.Conv1D(4, 3), keras.layers.GlobalAveragePooling1D(),
                              keras.layers.Dense(1)])
        m.compile("adam", "mse"); m.fit(signal, np.zeros(8), verbose=0)
        """,
        "S01",
        ("fractional values", "x[..., None]"),
        ("Embedding",),
    ),
    (
        "lstm_on_whole_numbers_names_both_causes",
        """
        ids = np.random.randint(0, 50, (8, 20))
        m = keras.Sequential([keras.layers.LSTM(4), keras.layers.Dense(1)])
        m.compile("adam", "mse"); m.fit(ids, np.zeros(8), verbose=0)
        """,
        "S01",
        ("Embedding(", "x[..., None]"),
        (),
    ),
    # where the cause entered, read from the run: the layer that made a Reshape's input, the
    # lookup layer that made the labels, the assignment that left a variable list empty
    (
        "reshape_after_a_dense_of_another_size",
        """
        code = keras.Input((16,))
        h = keras.layers.Dense(64)(code)
        grid = keras.layers.Reshape((4, 4, 5))(h)
        """,
        "S01",
        ("Dense(80)", "64"),
        ("Flatten",),
    ),
    (
        "reshape_target_led_by_the_batch_size",
        """
        inp = keras.Input((64,))
        seq = keras.layers.Reshape((16, 8, 8))(inp)
        """,
        "S01",
        ("starts with 16", "Reshape((8, 8))"),
        ("Flatten",),
    ),
    (
        "numbers_read_as_strings",
        """
        import io
        table = np.loadtxt(io.StringIO("1.5 2.0\\n0.5 4.0\\n"), dtype=str)
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        m.predict(table, verbose=0)
        """,
        "S11",
        ("table.astype('float32')",),
        ("StringLookup", "TextVectorization"),
    ),
    (
        "saliency_of_an_unwatched_image",
        """
        net = keras.Sequential([keras.Input((6,)), keras.layers.Dense(2)])
        img = tf.random.uniform((1, 6))
        with tf.GradientTape() as tape:
            score = net(img)[0, 1]
        saliency = tf.abs(tape.gradient(score, img))
        """,
        "T03",
        ("tape.watch(img)",),
        ("persistent",),
    ),
    (
        "weights_listed_before_the_first_call",
        """
        net = keras.Sequential([keras.layers.Dense(4), keras.layers.Dense(1)])
        sgd = keras.optimizers.SGD(0.01)
        weights = net.trainable_weights
        xb, yb = tf.ones((8, 3)), tf.zeros((8, 1))
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((net(xb) - yb) ** 2)
        sgd.apply_gradients(zip(tape.gradient(loss, weights), weights))
        """,
        "S04",
        ("`weights` is an empty list", "build"),
        ("watch",),
    ),
    (
        "integer_lookup_labels_keep_index_zero",
        """
        codes = np.array([10, 20, 30] * 8)
        index = keras.layers.IntegerLookup()
        index.adapt(codes)
        targets = index(codes)
        clf = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
        clf.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        clf.fit(np.random.rand(24, 2).astype("float32"), targets, verbose=0)
        """,
        "P12",
        ("`index`", "num_oov_indices=0"),
        ("subtract 1",),
    ),
    (
        "multi_hot_genres_with_a_sparse_loss",
        """
        genres = np.array([[1, 0, 1, 0], [0, 1, 1, 1], [1, 0, 0, 0], [0, 1, 0, 1]] * 3, "float32")
        m = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4, activation="softmax")])
        m.compile("adam", "sparse_categorical_crossentropy")
        m.fit(np.random.rand(12, 6).astype("float32"), genres, verbose=0)
        """,
        "M05",
        ("multi-hot", "binary_crossentropy"),
        ("argmax", "to_categorical"),
    ),
    (
        "one_sgd_for_encoder_and_decoder_in_a_loop",
        """
        enc = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        dec = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
        opt = keras.optimizers.SGD(0.1)
        xb = tf.ones((4, 3))
        for _ in range(2):
            with tf.GradientTape(persistent=True) as tape:
                loss = tf.reduce_mean((dec(enc(xb)) - xb) ** 2)
            opt.apply_gradients(zip(tape.gradient(loss, enc.trainable_variables), enc.trainable_variables))
            opt.apply_gradients(zip(tape.gradient(loss, dec.trainable_variables), dec.trainable_variables))
        """,
        "S12",
        ("`dec`", "dec_opt"),
        ("compile(",),
    ),
    (
        "learning_rate_from_a_numpy_grid",
        """
        grid = np.array([1e-3, 1e-2], "float32")
        opt = keras.optimizers.RMSprop(learning_rate=grid[0])
        """,
        "S11",
        ("float(grid[0])",),
        ("tf.cast",),
    ),
    # one axis too few: the batch axis or the channel axis, read from the data against the
    # model's Input (or, with no Input declared, from a channel-sized last axis)
    (
        "one_rgb_photo_into_a_model_with_its_input",
        """
        net = keras.Sequential([keras.Input((64, 64, 3)), keras.layers.Conv2D(4, 3),
                                keras.layers.Flatten(), keras.layers.Dense(1)])
        photo = np.random.rand(64, 64, 3).astype("float32")
        net.predict(photo / 255.0, verbose=0)
        """,
        "S12",
        ("(photo / 255.0)[None]",),
        ("channel axis (x", "x[..., None]"),
    ),
    (
        "one_grayscale_example_into_a_model_with_its_input",
        """
        net = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(4, 3),
                                keras.layers.Flatten(), keras.layers.Dense(1)])
        digits = np.random.rand(10, 28, 28).astype("float32")
        net.predict(digits[0], verbose=0)
        """,
        "S12",
        ("digits[0][None, ..., None]",),
        ("Input(shape + (1,))",),
    ),
    (
        "one_rgb_photo_into_a_sequential_without_input",
        """
        net = keras.Sequential([keras.layers.Conv2D(4, 3), keras.layers.Flatten(), keras.layers.Dense(1)])
        img = np.random.rand(64, 64, 3).astype("float32")
        net.predict(img, verbose=0)
        """,
        "S12",
        ("img[None]",),
        ("channel axis (x", "x[..., None]"),
    ),
    (
        "grayscale_stack_into_a_sequential_without_input",
        """
        net = keras.Sequential([keras.layers.Conv2D(4, 3), keras.layers.Flatten(), keras.layers.Dense(1)])
        net.compile("adam", "mse")
        scans = np.random.rand(10, 28, 28).astype("float32")
        net.fit(scans, np.random.rand(10, 1), epochs=1, verbose=0)
        """,
        "S01",
        ("scans[..., None]",),
        ("x[None]", "batch of one"),
    ),
    # a Python condition on a tensor: one value per element picks with tf.where, not tf.cond,
    # whether the condition is an if, a conditional expression or one AutoGraph converted
    (
        "conditional_expression_in_a_layer_call",
        """
        class Mirror(keras.layers.Layer):
            def call(self, x):
                return x if x > 0 else -x
        inp = keras.Input((3,))
        keras.Model(inp, keras.layers.Dense(1)(Mirror()(inp)))
        """,
        "T02",
        ("tf.where(", "rank-2"),
        ("tf.cond(",),
    ),
    (
        "conditional_expression_in_a_dataset_map",
        """
        rows = tf.data.Dataset.from_tensor_slices(np.arange(6.0).reshape(3, 2))
        rows = rows.map(lambda r: r if r > 2 else r * 0)
        next(iter(rows))
        """,
        "T02",
        ("tf.where(", "shape (2,)"),
        ("tf.cond(",),
    ),
    # round 8: the structure of the data and of a layer's results, read from the run
    (
        "class_count_taken_as_the_largest_id",
        """
        tags = np.arange(40) % 5
        n_classes = int(tags.max())
        inp = keras.Input((6,))
        clf = keras.Model(inp, keras.layers.Dense(n_classes, activation="softmax")(inp))
        clf.compile("adam", "sparse_categorical_crossentropy")
        clf.fit(np.random.rand(40, 6), tags, epochs=1, verbose=0)
        """,
        "M04",
        ("5 units", "tags.max() + 1"),
        ("subtract 1", "1-based"),
    ),
    (
        "attention_scores_passed_on_with_the_output",
        """
        seq = keras.Input((5, 8))
        attended = keras.layers.MultiHeadAttention(2, 4)(seq, seq, return_attention_scores=True)
        keras.layers.Dense(1)(attended)
        """,
        "S12",
        ("out, scores =",),
        ("Concatenate",),
    ),
    (
        "three_inputs_given_in_another_order_to_evaluate",
        """
        a, b, c = keras.Input((3,)), keras.Input((5,)), keras.Input((7,))
        net = keras.Model([a, b, c], keras.layers.Dense(1)(keras.layers.Concatenate()([a, b, c])))
        net.compile("adam", "mse")
        xa, xb, xc = np.ones((8, 3)), np.ones((8, 5)), np.ones((8, 7))
        net.evaluate([xc, xa, xb], np.ones(8), verbose=0)
        """,
        "S12",
        ("[xa, xb, xc]",),
        ("Reshape", "Flatten"),
    ),
    (
        "dataset_of_two_inputs_and_labels_flat",
        """
        left, right = keras.Input((4,)), keras.Input((2,))
        pair = keras.Model([left, right], keras.layers.Dense(1)(keras.layers.Concatenate()([left, right])))
        pair.compile("adam", "mse")
        pairs_ds = tf.data.Dataset.from_tensor_slices((np.ones((8, 4)), np.ones((8, 2)), np.ones(8))).batch(4)
        pair.evaluate(pairs_ds, verbose=0)
        """,
        "S12",
        ("sample_weight", "((x1, x2), y)"),
        ("Concatenate()(",),
    ),
    (
        "stacked_gru_behind_a_batch_norm",
        """
        tagger = keras.Sequential([keras.Input((12, 3)), keras.layers.GRU(16),
                                   keras.layers.BatchNormalization(), keras.layers.GRU(8)])
        """,
        "S01",
        ("return_sequences=True",),
        ("Reshape", "feature axis"),
    ),
    (
        "gradient_list_after_the_tape_block_in_a_loop",
        """
        reg = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        xb = tf.ones((4, 3))
        with tf.GradientTape() as tape:
            out = reg(xb)
        cost = tf.reduce_mean(out ** 2)
        grads = tape.gradient(cost, reg.trainable_variables)
        norms = [tf.norm(g) for g in grads]
        """,
        "T03",
        ("after the tape's `with` block",),
        ("watch(",),
    ),
    (
        "token_lists_of_different_lengths_to_predict",
        """
        reader = keras.Sequential([keras.Input((None,)), keras.layers.Embedding(30, 4),
                                   keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
        reviews = [[3, 9, 4], [7], [2, 2, 8, 1]]
        reader.predict(reviews, verbose=0)
        """,
        "S13",
        ("pad_sequences(reviews",),
        ("astype",),
    ),
    (
        "weights_into_a_sequential_never_built",
        """
        import os, tempfile
        saved = keras.Sequential([keras.Input((5,)), keras.layers.Dense(2)])
        where = os.path.join(tempfile.mkdtemp(), "w.weights.h5")
        saved.save_weights(where)
        again = keras.Sequential([keras.layers.Dense(2)])
        again.load_weights(where)
        """,
        "S04",
        ("again.build((None,", "keras.Input((5,))"),
        ("custom_objects",),
    ),
    (
        "units_from_a_numpy_count",
        """
        tags = np.arange(40) % 5
        head = keras.layers.Dense(tags.max() + 1, activation="softmax")
        """,
        "S12",
        ("int(tags.max() + 1)", "NumPy int64"),
        ("a float",),
    ),
    # round 9: the layer, weight or part of the data that made the shape, read from the run
    (
        "noise_of_a_constant_batch_in_a_lambda",
        """
        inp = keras.Input((3,))
        noisy = keras.layers.Lambda(lambda t: t + tf.random.normal((16, 3)))(inp)
        net = keras.Model(inp, keras.layers.Dense(1)(noisy))
        net.compile("adam", "mse")
        net.fit(np.ones((40, 3), "float32"), np.ones((40, 1), "float32"), batch_size=16, verbose=0)
        """,
        "S07",
        ("fixes the batch axis at 16", "tf.shape(x)[0]"),
        ("Input(batch_size",),
    ),
    (
        "variable_made_in_call_of_a_functional_layer",
        """
        class Bias(keras.layers.Layer):
            def call(self, x):
                self.b = tf.Variable(tf.zeros((x.shape[-1],)))
                return x + self.b
        inp = keras.Input((4,))
        keras.Model(inp, Bias()(inp))
        """,
        "T03",
        ("add_weight", "build("),
        ("so the shapes fit",),
    ),
    (
        "gain_weight_sized_by_its_own_argument",
        """
        class Gain(keras.layers.Layer):
            def __init__(self, width):
                super().__init__()
                self.width = width
            def build(self, input_shape):
                self.g = self.add_weight(shape=(self.width,), initializer="ones")
            def call(self, x):
                return x * self.g
        inp = keras.Input((6,))
        Gain(4)(inp)
        """,
        "S01",
        ("input_shape[-1]", "shape=(self.width,)"),
        ("print their shapes",),
    ),
    (
        "backbone_ending_in_global_pooling_then_a_conv",
        """
        backbone = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(4, 3),
                                     keras.layers.GlobalMaxPooling2D()])
        inp = keras.Input((16, 16, 3))
        keras.layers.Conv2D(2, 1)(backbone(inp))
        """,
        "S01",
        ("already ends in GlobalMaxPooling2D",),
        ("Reshape",),
    ),
    (
        "sequence_denoiser_fit_with_one_label_per_series",
        """
        series = np.random.rand(32, 30, 1).astype("float32")
        kinds = np.random.randint(0, 2, 32)
        inp = keras.Input((30, 1))
        hidden = keras.layers.Conv1D(4, 3, padding="same")(inp)
        den = keras.Model(inp, keras.layers.Conv1D(1, 3, padding="same", activation="sigmoid")(hidden))
        den.compile("adam", "binary_crossentropy")
        den.fit(series, kinds, epochs=1, verbose=0)
        """,
        "S07",
        ("fit(series, series)",),
        ("sparse",),
    ),
    (
        "two_targets_as_a_tuple_for_one_output",
        """
        feats = np.random.rand(20, 3).astype("float32")
        low, high = np.random.rand(20), np.random.rand(20)
        reg = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        reg.compile("adam", "mse")
        reg.fit(feats, (low, high), epochs=1, verbose=0)
        """,
        "S12",
        ("np.stack([low, high], axis=1)",),
        ("dict keyed",),
    ),
    (
        "train_step_batch_passed_whole_to_the_network",
        """
        class Wrapped(keras.Model):
            def __init__(self):
                super().__init__()
                inp = keras.Input((4,))
                self.net = keras.Model(inp, keras.layers.Dense(1)(inp))
            def call(self, x):
                return self.net(x)
            def train_step(self, batch):
                pred = self.net(batch)
                return {"loss": keras.ops.mean(pred)}
        w = Wrapped(); w.compile("adam")
        w.fit(np.ones((8, 4), "float32"), np.ones((8, 1), "float32"), verbose=0)
        """,
        "S12",
        ("x, y = batch",),
        ("once per tensor",),
    ),
    (
        "image_op_mapped_over_the_labels_too",
        """
        shots = tf.data.Dataset.from_tensor_slices((np.random.rand(6, 8, 8, 3), np.arange(6)))
        shots = shots.map(lambda im, lab: (tf.image.flip_left_right(im), tf.image.flip_left_right(lab)))
        """,
        "S01",
        ("(tf.image.flip_left_right(im), lab)",),
        ("before batching",),
    ),
    # round 10: the user's own checks, read for the values they compared and the fit before
    (
        "a_guard_on_history_after_nan_in_the_features",
        """
        feats = np.random.rand(40, 3).astype("float32"); feats[5, 1] = np.nan
        reg = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        reg.compile("adam", "mse")
        hist = reg.fit(feats, np.random.rand(40, 1), epochs=3, verbose=0,
                       callbacks=[keras.callbacks.TerminateOnNaN()])
        assert np.isfinite(hist.history["loss"][-1]), "loss is not finite"
        """,
        "N05",
        ("`feats`", "column 1"),
        ("learning rate",),
    ),
    (
        "ensure_shape_on_a_parsed_length",
        """
        def encode(t):
            return np.zeros(12, "float32")
        lines = tf.data.Dataset.from_tensor_slices(["a", "b"])
        lines = lines.map(lambda t: tf.ensure_shape(tf.numpy_function(encode, [t], tf.float32), [16]))
        next(iter(lines))
        """,
        "S10",
        ("[12]", "(16,)"),
        ("padded_batch",),
    ),
    (
        "shape_check_in_a_hand_written_loss",
        """
        def l1(target, guess):
            tf.debugging.assert_equal(tf.shape(target), tf.shape(guess))
            return tf.reduce_mean(tf.abs(target - guess))
        l1(tf.ones((6, 1)), tf.ones((6,)))
        """,
        "S08",
        ("tf.reshape(guess, (-1, 1))",),
        ("sparse",),
    ),
    (
        "rank_check_in_a_pooling_layer_after_a_gru",
        """
        class Pool(keras.layers.Layer):
            def call(self, x):
                tf.debugging.assert_rank(x, 3)
                return tf.reduce_mean(x, axis=1)
        seq = keras.Input((7, 2))
        summary = keras.layers.GRU(5)(seq)
        Pool()(summary)
        """,
        "S01",
        ("return_sequences=True",),
        ("expand_dims",),
    ),
    (
        "lstm_states_tuple_into_concatenate",
        """
        seq = keras.Input((6, 3))
        enc = keras.layers.LSTM(4, return_state=True)(seq)
        keras.layers.Concatenate()([seq[:, -1, :], enc])
        """,
        "S01",
        ("enc, *states =",),
        ("Reshape",),
    ),
    (
        "positions_longer_than_the_tokens",
        """
        tokens = keras.Input((12,), dtype="int32")
        words = keras.layers.Embedding(50, 8)(tokens)
        spots = keras.layers.Embedding(20, 8)(keras.ops.arange(20))
        mixed = words + spots
        """,
        "S07",
        ("keras.ops.arange(keras.ops.shape(x)[1])",),
        ("vocab",),
    ),
    (
        "labels_laid_on_their_side",
        """
        feats = np.random.rand(9, 2).astype("float32")
        flags = (np.arange(9) % 2).reshape(1, -1)
        clf = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
        clf.compile("adam", "binary_crossentropy")
        clf.fit(feats, flags, verbose=0)
        """,
        "S12",
        ("transposed", "flags.T"),
        ("split once",),
    ),
    (
        "normalization_adapted_on_a_text_column",
        """
        rows = np.array([[1.0, "red"], [2.0, "blue"], [3.0, "red"]], dtype=object)
        keras.layers.Normalization().adapt(rows)
        """,
        "S11",
        ("column 1", "StringLookup"),
        ("astype",),
    ),
    (
        "layer_norm_given_a_block_input_and_output",
        """
        block_in = keras.Input((5, 16))
        block_out = keras.layers.Dense(16)(block_in)
        keras.layers.LayerNormalization()([block_in, block_out])
        """,
        "S12",
        ("keras.layers.Add()([block_in, block_out])",),
        ("Concatenate",),
    ),
    # A layer that takes one tensor, given several: the items say which intent the list had.
    (
        "rnn_given_its_padding_mask_in_the_list",
        """
        tokens = keras.Input((7, 3))
        pad_mask = keras.Input((7,), dtype="bool")
        encoded = keras.layers.GRU(4)([tokens, pad_mask])
        """,
        "S12",
        ("mask=pad_mask",),
        ("Concatenate",),
    ),
    (
        "conv_given_a_block_input_and_output",
        """
        x = keras.Input((12, 8))
        h = keras.layers.Conv1D(8, 3, padding="same")(x)
        h = keras.layers.Activation("relu")(h)
        out = keras.layers.Conv1D(8, 1)([x, h])
        """,
        "S12",
        ("Add()([x, h])",),
        ("Concatenate",),
    ),
    (
        "pooling_given_maps_of_two_sizes",
        """
        img = keras.Input((16, 16, 3))
        f1 = keras.layers.Conv2D(4, 3, strides=2)(img)
        f2 = keras.layers.Conv2D(4, 3)(img)
        pooled = keras.layers.GlobalMaxPooling2D()([f1, f2])
        """,
        "S12",
        ("differ before the last axis", "pool each"),
        ("Concatenate()([f1, f2])", "Add"),
    ),
    (
        "eager_layer_given_features_and_labels",
        """
        features = np.random.rand(5, 3).astype("float32")
        labels = np.random.rand(5, 1).astype("float32")
        head = keras.layers.Dense(1)
        head([features, labels])
        """,
        "S12",
        ("head(features)",),
        ("Concatenate",),
    ),
    (
        "one_embedding_given_two_id_inputs",
        """
        user_ids = keras.Input((1,), dtype="int32")
        item_ids = keras.Input((1,), dtype="int32")
        vectors = keras.layers.Embedding(50, 4)([user_ids, item_ids])
        """,
        "S12",
        ("own Embedding",),
        ("mask=",),
    ),
    (
        "one_dense_given_two_towers_of_one_shape_names_both_intents",
        """
        query = keras.Input((10,))
        doc = keras.Input((10,))
        proj = keras.layers.Dense(3)
        pair = proj([query, doc])
        """,
        "S12",
        ("proj(query)", "Concatenate"),
        ("residual",),
    ),
    # A numeric check's NaN/Inf traced to the op (and operand values) that made it.
    (
        "check_on_a_log_of_counts_with_zeros",
        """
        visits = tf.constant([[3.0, 0.0], [1.0, 8.0]])
        log_visits = tf.math.log(visits)
        tf.debugging.check_numerics(log_visits, "log visits")
        """,
        "N01",
        ("`visits`", "log1p"),
        ("learning rate", "xlogy"),
    ),
    (
        "check_on_a_mean_over_empty_groups",
        """
        totals = tf.constant([4.0, 6.0, 0.0])
        sizes = tf.constant([2.0, 3.0, 0.0])
        tf.debugging.assert_all_finite(totals / sizes, "group means")
        """,
        "N01",
        ("divide_no_nan(totals, sizes)",),
        ("log1p", "sqrt"),
    ),
    (
        "check_on_raw_features_that_hold_nan",
        """
        readings = np.array([[0.5, 1.5], [np.nan, 2.0], [1.0, np.inf]], dtype="float32")
        feats = tf.convert_to_tensor(readings)
        tf.debugging.check_numerics(feats, "sensor features")
        """,
        "N05",
        ("`readings`", "rows [1, 2]"),
        ("log1p", "divide_no_nan"),
    ),
    (
        "check_on_log_of_a_linear_head",
        """
        head = keras.Sequential([keras.Input((5,)), keras.layers.Dense(4)])
        batch = np.random.rand(6, 5).astype("float32") - 0.5  # centred: some outputs < 0
        onehot = np.eye(4, dtype="float32")[np.arange(6) % 4]
        nll = -tf.reduce_mean(tf.reduce_sum(onehot * tf.math.log(head(batch)), axis=-1))
        tf.debugging.check_numerics(nll, "nll")
        """,
        "M02",
        ("softmax", "from_logits=True"),
        ("log1p", "learning rate"),
    ),
    # A user's step against the element fit gives it, and the forward pass it records.
    (
        "autoencoder_step_unpacks_x_only_data",
        """
        class Denoiser(keras.Model):
            def train_step(self, batch):
                clean, noisy = batch
                return {"loss": tf.reduce_mean(self(noisy) - clean)}
        i = keras.Input((5,))
        net = Denoiser(i, keras.layers.Dense(5)(i))
        net.compile(optimizer="sgd")
        net.fit(np.zeros((12, 5), "float32"), batch_size=4, verbose=0)
        """,
        "S12",
        ("clean = batch",),
        ("tf.map_fn", "run_eagerly"),
    ),
    (
        "step_unpacks_a_dict_dataset",
        """
        class Scorer(keras.Model):
            def train_step(self, data):
                inputs, labels = data
                return {"loss": tf.reduce_mean(self(inputs) - labels)}
        i = keras.Input((3,), name="pixels")
        net = Scorer(i, keras.layers.Dense(1)(i))
        net.compile(optimizer="sgd")
        rows = {"pixels": np.zeros((8, 3), "float32"), "score": np.zeros((8, 1), "float32")}
        net.fit(tf.data.Dataset.from_tensor_slices(rows).batch(4), verbose=0)
        """,
        "S12",
        ("data['pixels'], data['score']",),
        ("convert_to_tensor",),
    ),
    (
        "critic_forward_pass_before_the_tape",
        """
        actor = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        critic = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD()
        state = tf.ones((4, 3))
        action = actor(state)
        with tf.GradientTape() as tape:
            value = -tf.reduce_mean(critic(action))
        grads = tape.gradient(value, actor.trainable_variables)
        opt.apply_gradients(zip(grads, actor.trainable_variables))
        """,
        "T03",
        ("action = actor(state)", "inside"),
        ("argmax",),
    ),
    (
        "stack_of_float_and_int_tensors",
        """
        ids = tf.constant([1, 2, 3])
        weights = tf.constant([0.5, 0.2, 0.3])
        pair = tf.stack([weights, ids], axis=1)
        """,
        "S11",
        ("tf.cast(ids, tf.float32)",),
        ("255",),
    ),
    # A list of different tensors given where a list is read as one tensor.
    (
        "features_and_labels_listed_for_from_tensor_slices",
        """
        pixels = np.zeros((12, 4, 4), "float32")
        digits = np.arange(12) % 3
        ds = tf.data.Dataset.from_tensor_slices([pixels, digits])
        """,
        "S12",
        ("(pixels, digits)",),
        ("pad_sequences", "resize"),
    ),
    # Sparse and ragged values against their contracts; layers that take one value each.
    (
        "sparse_features_summed_with_a_dense_op",
        """
        clicks = tf.sparse.SparseTensor(indices=[[0, 0], [2, 1]], values=[2.0, 5.0], dense_shape=[3, 2])
        per_user = tf.reduce_sum(clicks, axis=1)
        """,
        "S11",
        ("tf.sparse.reduce_sum(clicks",),
        ("astype",),
    ),
    (
        "sparse_row_index_past_the_shape",
        """
        edges = tf.sparse.SparseTensor(indices=[[0, 1], [3, 0]], values=[1.0, 1.0], dense_shape=[3, 2])
        adjacency = tf.sparse.to_dense(edges)
        """,
        "S09",
        ("index 3 on axis 0", "must be 4"),
        ("reorder",),
    ),
    (
        "ragged_from_row_splits_not_ending_at_the_values",
        """
        chars = tf.constant([7, 8, 9, 10, 11])
        words = tf.RaggedTensor.from_row_splits(chars, row_splits=[0, 2, 4])
        """,
        "S07",
        ("end at 5",),
        ("reorder",),
    ),
    (
        "category_encoding_given_minus_one_for_missing",
        """
        colors = np.array([[1, -1], [2, 0]])
        hot = keras.layers.CategoryEncoding(num_tokens=3, output_mode="multi_hot")(colors)
        """,
        "S09",
        ("num_tokens=4",),
        ("increase num_tokens",),
    ),
    # tf.data structures: a list read as one tensor, unbatch before fit, padded widths.
    (
        "listed_inputs_with_labels_in_from_tensor_slices",
        """
        ages = np.random.rand(10, 1).astype("float32")
        words = np.random.rand(10, 3).astype("float32")
        target = np.random.rand(10).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices(([ages, words], target))
        """,
        "S12",
        ("(ages, words)",),
        ("pad_sequences",),
    ),
    (
        "rebatched_then_unbatched_before_fit",
        """
        feats = np.random.rand(12, 5).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((feats, np.zeros(12))).batch(6)
        ds = ds.map(lambda x, y: (x * 2.0, y)).unbatch()
        net = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
        net.compile("sgd", "mse")
        net.fit(ds, verbose=0)
        """,
        "S12",
        ("unbatch",),
        ("x[None]",),
    ),
    (
        "padded_batch_to_each_batch_longest",
        """
        def series():
            for n in (2, 3, 4, 4):
                yield np.ones(n, "float32"), np.float32(0.0)
        spec = (tf.TensorSpec((None,), tf.float32), tf.TensorSpec((), tf.float32))
        ds = tf.data.Dataset.from_generator(series, output_signature=spec).padded_batch(2)
        net = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        net.compile("sgd", "mse")
        net.fit(ds, verbose=0)
        """,
        "S01",
        ("padded_shapes=([4], [])",),
        ("transpose",),
    ),
    # Windows that run out on one axis; image layers on sequences; string ids.
    (
        "pooling_runs_out_on_the_time_axis_of_video",
        """
        video = keras.Input((2, 16, 16, 3))
        h = keras.layers.AveragePooling3D(2)(video)
        h = keras.layers.AveragePooling3D(2)(h)
        """,
        "S01",
        ("pool_size=(1, 2, 2)",),
        ("padding='same'",),
    ),
    (
        "image_conv_on_accelerometer_windows",
        """
        net = keras.Sequential([keras.Input((64, 6)), keras.layers.Conv2D(8, 3)])
        """,
        "S01",
        ("Conv1D",),
        ("expand_dims",),
    ),
    (
        "product_codes_into_an_integer_model",
        """
        ds = tf.data.Dataset.from_tensor_slices((["sku-17", "sku-3", "sku-17"], [1.0, 0.0, 1.0])).batch(3)
        i = keras.Input(shape=(), dtype="int64")
        net = keras.Model(i, keras.layers.Dense(1)(keras.layers.Embedding(50, 4)(i)))
        net.compile("sgd", "mse")
        net.fit(ds, verbose=0)
        """,
        "S11",
        ("StringLookup",),
        ("TextVectorization",),
    ),
    (
        "own_check_finds_unlabeled_rows_marked_minus_one",
        """
        targets = np.array([2, 0, -1, 1, -1])
        tf.debugging.assert_non_negative(targets)
        """,
        "P12",
        ("`targets`", "-1"),
        ("learning rate",),
    ),
    (
        "own_check_finds_one_based_class_ids",
        """
        y = tf.constant([1, 4, 2, 4])
        tf.debugging.assert_less(y, tf.constant(4))
        """,
        "P12",
        ("y - 1",),
        ("non-negative",),
    ),
    (
        "pydataset_returns_its_targets_as_a_list",
        """
        class Rows(keras.utils.PyDataset):
            def __init__(self, **kw):
                super().__init__(**kw)
                self.x = np.random.rand(6, 3).astype("float32")
            def __len__(self):
                return 2
            def __getitem__(self, i):
                return self.x[i * 3:(i + 1) * 3], [0.5, 1.5, 2.5]
        net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        net.compile("sgd", "mse")
        net.fit(Rows(), verbose=0)
        """,
        "S12",
        ("np.array([0.5, 1.5, 2.5])",),
        ("one example",),
    ),
    (
        "generator_yields_its_targets_as_a_list",
        """
        def stream():
            while True:
                yield np.ones((2, 3), "float32"), [1.0, 0.0]
        net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        net.compile("sgd", "mse")
        net.fit(stream(), steps_per_epoch=2, verbose=0)
        """,
        "S12",
        ("np.array([1.0, 0.0])",),
        ("one example",),
    ),
    (
        "checked_log_of_predictions_in_a_compiled_loss",
        """
        net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        def nll(t, p):
            logp = tf.debugging.check_numerics(tf.math.log(p), "log p")
            return -tf.reduce_mean(t * logp)
        net.compile("sgd", nll)
        net.fit(np.random.randn(8, 3).astype("float32"), np.eye(2)[np.arange(8) % 2], verbose=0)
        """,
        "M02",
        ("softmax", "from_logits=True"),
        ("log1p",),
    ),
    (
        "step_unpacks_a_shape_not_its_data",
        """
        class Counter(keras.Model):
            def train_step(self, data):
                dims = tf.shape(data)
                rows, cols = dims
                return {"rows": tf.cast(rows, tf.float32)}
        i = keras.Input((3,))
        net = Counter(i, keras.layers.Dense(1)(i))
        net.compile(optimizer="sgd")
        net.fit(np.zeros((8, 3), "float32"), batch_size=4, verbose=0)
        """,
        "T02",
        ("rows, cols = dims",),
        ("given only x",),
    ),
    # Keras 2 module attributes and optimizer attributes, with their Keras 3 form.
    (
        "keras2_backend_set_value_on_a_counter",
        """
        step = keras.Variable(0.0)
        keras.backend.set_value(step, 5.0)
        """,
        "S12",
        ("step.assign(5.0)",),
        ("learning_rate",),
    ),
    (
        "keras2_experimental_preprocessing_path",
        """
        flip = keras.layers.experimental.preprocessing.RandomFlip("horizontal")
        """,
        "S12",
        ("keras.layers.RandomFlip",),
        ("keras.ops",),
    ),
    (
        "keras2_optimizer_lr_attribute",
        """
        opt = keras.optimizers.RMSprop(learning_rate=0.01)
        current = float(opt.lr)
        """,
        "S12",
        ("opt.learning_rate",),
        ("set_value",),
    ),
    # Tables: the target left among dict columns, date columns, text labels.
    (
        "dict_dataset_still_holding_its_target",
        """
        import pandas as pd
        table = pd.DataFrame({"rooms": [3.0, 4.0], "area": [70.0, 90.0], "outcome": [1.0, 0.0]})
        ds = tf.data.Dataset.from_tensor_slices(dict(table)).batch(2)
        net = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        net.compile("sgd", "mse")
        net.fit(ds, verbose=0)
        """,
        "S12",
        ("d['outcome']", "tf.stack([d['rooms'], d['area']]"),
        ("d['outcome']], axis",),
    ),
    (
        "frame_with_a_date_column",
        """
        import pandas as pd
        sales = pd.DataFrame({"day": pd.to_datetime(["2024-03-01", "2024-03-02"]), "units": [4.0, 6.0]})
        net = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        net.compile("sgd", "mse")
        net.fit(sales, np.zeros(2), verbose=0)
        """,
        "S11",
        ("'day'", ".dt."),
        ("get_dummies",),
    ),
    # A fit that went non-finite: its labels, a table's column, a loss written by hand.
    (
        "fit_on_labels_with_missing_values",
        """
        feats = np.random.rand(6, 2).astype("float32")
        target = np.array([1.0, np.nan, 2.0, 3.0, np.nan, 1.5], dtype="float32")
        net = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        net.compile("sgd", "mse")
        net.fit(feats, target, verbose=0)
        assert np.isfinite(net.history.history["loss"][-1])
        """,
        "N05",
        ("`target`", "rows [1, 4]"),
        ("learning rate",),
    ),
    (
        "fit_with_a_hand_written_exp_loss",
        """
        def exp_loss(y_true, y_pred):
            return tf.reduce_mean(tf.exp(y_pred) - y_true * y_pred)
        net = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, kernel_initializer="ones")])
        net.compile("sgd", exp_loss)
        net.fit(np.full((8, 2), 5000.0, "float32"), np.ones(8, "float32"), verbose=0)
        assert np.isfinite(net.history.history["loss"][-1])
        """,
        "G05",
        ("exp_loss", "exp"),
        ("lower the learning rate",),
    ),
    (
        "loss_through_a_helper_with_log_of_zero",
        """
        def nll(t, p):
            return -tf.reduce_mean(t * tf.math.log(p))
        p = tf.constant([[0.0, 1.0], [0.5, 0.5]])
        t = tf.constant([[1.0, 0.0], [0.0, 1.0]])
        loss = nll(t, p)
        tf.debugging.check_numerics(loss, "nll")
        """,
        "G05",
        ("`p`", "zero"),
        ("learning rate",),
    ),
    (
        "fit_on_a_dataset_whose_source_holds_nan",
        """
        rows = np.random.rand(12, 2).astype("float32")
        rows[5, 0] = np.inf
        ds = tf.data.Dataset.from_tensor_slices((rows, np.zeros(12, "float32"))).batch(4)
        net = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        net.compile("adam", "mse")
        net.fit(ds, verbose=0)
        assert np.isfinite(net.history.history["loss"][-1]), "loss"
        """,
        "N05",
        ("from_tensor_slices source",),
        ("learning rate", "clipnorm"),
    ),
    (
        "gradient_of_a_norm_at_zero",
        """
        v = tf.Variable([0.0, 0.0])
        with tf.GradientTape() as tape:
            norm = tf.sqrt(tf.reduce_sum(tf.square(v)))
        g = tape.gradient(norm, v)
        tf.debugging.check_numerics(g, "norm gradient")
        """,
        "G03",
        ("sqrt", "1e-12"),
        ("learning rate", "clipnorm"),
    ),
    (
        "dense_given_a_block_written_inline",
        """
        x = keras.Input((6, 8))
        out = keras.layers.Dense(8)([x, keras.layers.Dense(8)(x)])
        """,
        "S12",
        ("Add()",),
        ("Concatenate",),
    ),
]


@pytest.fixture
def alt_shell(shell: InteractiveShell) -> InteractiveShell:
    with capture_output():
        shell.run_cell(PRELUDE, store_history=False)
    return shell


@pytest.mark.parametrize(
    ("name", "code", "expect", "must", "must_not"), CASES, ids=[c[0] for c in CASES]
)
def test_fix_fits_the_evidence(
    alt_shell: InteractiveShell,
    name: str,
    code: str,
    expect: str,
    must: tuple[str, ...],
    must_not: tuple[str, ...],
) -> None:
    success, lines = _run(alt_shell, code)
    assert not success, f"{name}: the cell did not fail"
    right = [line for line in lines if line.startswith(expect + " ")]
    assert right, f"{name}: no {expect} finding in {lines}"
    line = right[0]
    missing = [w for w in must if w.lower() not in line.lower()]
    assert not missing, f"{name}: lacks {missing}:\n{line}"
    wrong = [w for w in must_not if any(w.lower() in other.lower() for other in lines)]
    assert not wrong, f"{name}: says {wrong}, which the evidence rules out:\n{lines}"


def test_fixed_versions_run(alt_shell: InteractiveShell) -> None:
    """The fixes the findings name work: each cell below is a case above with its fix."""
    code = """
    ex = tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0, 3.0]))}))
    tf.io.parse_example([ex.SerializeToString()] * 2, {"v": tf.io.FixedLenFeature([3], tf.float32)})
    def noisy(x):
        return (x + np.random.normal(size=x.shape)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((4, 3), "float32"))
    next(iter(ds.map(lambda x: tf.numpy_function(noisy, [x], tf.float32))))
    series = np.array([np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])], dtype=object)
    padded = keras.utils.pad_sequences(list(series), padding='post', dtype='float32')
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
    m.fit(padded, np.zeros(2), verbose=0)
    class_w = tf.constant(np.array([0.5, 2.0]), dtype=tf.float32)
    def weighted_mse(y_true, y_pred):
        return tf.reduce_mean(class_w * tf.square(y_true - y_pred))
    m2 = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2)]); m2.compile("adam", weighted_mse)
    m2.fit(np.random.rand(4, 2).astype("float32"), np.random.rand(4, 2).astype("float32"), verbose=0)
    labels = (np.arange(16) % 2).reshape(-1, 1)
    m3 = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
    m3.compile("adam", "binary_crossentropy", metrics=[keras.metrics.F1Score(threshold=0.5)])
    m3.fit(np.random.rand(16, 4).astype("float32"), labels, epochs=1, verbose=0)
    net = keras.Sequential([keras.Input((64, 64, 3)), keras.layers.Conv2D(4, 3),
                            keras.layers.Flatten(), keras.layers.Dense(1)])
    photo = np.random.rand(64, 64, 3).astype("float32")
    net.predict((photo / 255.0)[None], verbose=0)
    net2 = keras.Sequential([keras.layers.Conv2D(4, 3), keras.layers.Flatten(), keras.layers.Dense(1)])
    net2.compile("adam", "mse")
    scans = np.random.rand(10, 28, 28).astype("float32")
    net2.fit(scans[..., None], np.random.rand(10, 1), epochs=1, verbose=0)
    tokens = keras.Input((7, 3))
    pad_mask = keras.Input((7,), dtype="bool")
    encoded = keras.layers.GRU(4)(tokens, mask=pad_mask)
    x = keras.Input((12, 8))
    h = keras.layers.Conv1D(8, 3, padding="same")(x)
    out = keras.layers.Conv1D(8, 1)(keras.layers.Add()([x, h]))
    visits = tf.constant([[3.0, 0.0], [1.0, 8.0]])
    tf.debugging.check_numerics(tf.math.log1p(visits), "log visits")
    totals, sizes = tf.constant([4.0, 6.0, 0.0]), tf.constant([2.0, 3.0, 0.0])
    tf.debugging.assert_all_finite(tf.math.divide_no_nan(totals, sizes), "group means")
    ids = tf.constant([1, 2, 3])
    pair = tf.stack([tf.constant([0.5, 0.2, 0.3]), tf.cast(ids, tf.float32)], axis=1)
    pixels, digits = np.zeros((12, 4, 4), "float32"), np.arange(12) % 3
    ds = tf.data.Dataset.from_tensor_slices((pixels, digits))
    clicks = tf.sparse.SparseTensor(indices=[[0, 0], [2, 1]], values=[2.0, 5.0], dense_shape=[3, 2])
    per_user = tf.sparse.reduce_sum(clicks, axis=1)
    words = tf.RaggedTensor.from_row_splits(tf.constant([7, 8, 9, 10, 11]), row_splits=[0, 2, 5])
    def series():
        for n in (2, 3, 4, 4):
            yield np.ones(n, "float32"), np.float32(0.0)
    spec = (tf.TensorSpec((None,), tf.float32), tf.TensorSpec((), tf.float32))
    ds = tf.data.Dataset.from_generator(series, output_signature=spec)
    net = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    net.compile("sgd", "mse")
    net.fit(ds.padded_batch(2, padded_shapes=([4], [])), verbose=0)
    video = keras.Input((2, 16, 16, 3))
    h = keras.layers.AveragePooling3D((1, 2, 2))(keras.layers.AveragePooling3D((1, 2, 2))(video))
    net1d = keras.Sequential([keras.Input((64, 6)), keras.layers.Conv1D(8, 3)])
    """
    success, lines = _run(alt_shell, code)
    assert success and lines == [], lines
