"""Call contracts and dimension lineage: each broken contract, raised for real in a real shell,
names the argument and a fix that fits it; a twin where the fix is already in place, or where
Keras' own message already names the fix, gets no contract finding."""

from __future__ import annotations

import textwrap

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

PRELUDE = "import numpy as np\nimport tensorflow as tf\nimport keras\n"

# (name, code, code of the finding, words it must contain, words it must NOT contain)
BROKEN: list[tuple[str, str, str, tuple[str, ...], tuple[str, ...]]] = [
    (
        "lstm_state_count_inside_predict",
        """
        enc = keras.Input((12, 8)); _, h = keras.layers.GRU(16, return_state=True)(enc)
        dec = keras.Input((10, 8))
        out = keras.layers.LSTM(16, return_sequences=True)(dec, initial_state=[h])
        model = keras.Model([enc, dec], out)
        model.predict([np.zeros((2, 12, 8)), np.zeros((2, 10, 8))], verbose=0)
        """,
        "S12",
        ("initial_state", "takes 2", "[h, c]"),
        ("channel",),
    ),
    (
        "bidirectional_takes_four_states",
        """
        enc = keras.Input((12, 8)); _, h = keras.layers.GRU(16, return_state=True)(enc)
        dec = keras.Input((10, 8))
        out = keras.layers.Bidirectional(keras.layers.LSTM(16, return_sequences=True))(dec, initial_state=[h, h])
        model = keras.Model([enc, dec], out)
        model.predict([np.zeros((2, 12, 8)), np.zeros((2, 10, 8))], verbose=0)
        """,
        "S12",
        ("bidirectional", "takes 4", "2 tensor"),
        (),
    ),
    (
        "mha_without_value",
        "q = keras.Input((4, 8))\nkeras.layers.MultiHeadAttention(2, 4)(q)",
        "S12",
        ("value", "mha(q, q)"),
        (),
    ),
    (
        "optimizer_shared_by_two_models",
        """
        opt = keras.optimizers.Adam()
        m1 = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m1.compile(opt, "mse")
        m2 = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m2.compile(opt, "mse")
        x = np.zeros((4, 3), "float32"); y = np.zeros((4, 1), "float32")
        m1.fit(x, y, verbose=0); m2.fit(x, y, verbose=0)
        """,
        "S12",
        ("`m1`", "its own optimizer"),
        ("unfrozen",),
    ),
    (
        "set_weights_in_out_in_layout",
        "d = keras.layers.Dense(4); d.build((None, 3))\nw = np.zeros((4, 3)); d.set_weights([w, np.zeros(4)])",
        "S12",
        ("(3, 4)", "(4, 3)", "w.T"),
        (),
    ),
    (
        "to_categorical_one_based",
        "grades = np.array([1, 2, 5, 3]); keras.utils.to_categorical(grades, num_classes=5)",
        "P12",
        ("1 to 5", "grades - 1"),
        (),
    ),
    (
        "resize_grayscale",
        "digit = np.zeros((28, 28), 'float32'); tf.image.resize(digit, (32, 32))",
        "S07",
        ("rank 2", "digit[..., None]"),
        (),
    ),
    (
        "random_crop_size_without_channels",
        "img = np.zeros((32, 32, 3), 'float32'); tf.image.random_crop(img, size=(24, 24))",
        "S07",
        ("(24, 24, 3)",),
        ("batch axis",),
    ),
    (
        "apply_gradients_pairs_reversed",
        """
        v = tf.Variable(1.0); opt = keras.optimizers.SGD()
        with tf.GradientTape() as tape:
            loss = v * v
        grads = tape.gradient(loss, [v])
        opt.apply_gradients(zip([v], grads))
        """,
        "S12",
        ("(variable, gradient)", "zip(grads"),
        (),
    ),
    (
        "from_tensor_slices_lengths",
        "features = np.zeros((10, 3)); labels = np.zeros(8)\ntf.data.Dataset.from_tensor_slices((features, labels))",
        "S12",
        ("`features` 10", "`labels` 8"),
        (),
    ),
    (
        "map_function_arity",
        "ds = tf.data.Dataset.from_tensor_slices((np.zeros((10, 3)), np.zeros(10)))\nds.map(lambda image: image / 255.0)",
        "S12",
        ("tuple of 2", "takes 1"),
        (),
    ),
    (
        "input_signature_axis",
        """
        @tf.function(input_signature=[tf.TensorSpec((None, 3), tf.float32)])
        def f(x):
            return x
        batch = np.zeros((2, 4), "float32")
        f(batch)
        """,
        "S12",
        ("axis 1", "declares 3"),
        (),
    ),
    (
        "class_weight_two_outputs",
        """
        i = keras.Input((3,)); a = keras.layers.Dense(2, activation="softmax", name="a")(i); b = keras.layers.Dense(1, name="b")(i)
        m = keras.Model(i, [a, b]); m.compile("adam", loss=["sparse_categorical_crossentropy", "mse"])
        m.fit(np.zeros((4, 3)), [np.zeros((4,)), np.zeros((4, 1))], class_weight={0: 1.0, 1: 2.0}, verbose=0)
        """,
        "S12",
        ("2 outputs", "sample_weight"),
        (),
    ),
    (
        "model_output_from_unlisted_input",
        """
        i = keras.Input((3,)); j = keras.Input((3,))
        o = keras.layers.Dense(1)(keras.layers.Concatenate()([i, j]))
        keras.Model(i, o)
        """,
        "S12",
        ("not in `inputs`", "[i, j]"),
        (),
    ),
    (
        "build_reads_the_batch_axis",
        """
        class Scale(keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[0], input_shape[-1]))
            def call(self, x):
                return x * self.w
        keras.Sequential([keras.Input((3,)), Scale()])
        """,
        "S01",
        ("input_shape[0]", "batch axis"),
        ("channel",),
    ),
    (
        "keras3_get_initial_state",
        "gru = keras.layers.GRU(4); batch = np.zeros((2, 5, 3), 'float32')\ngru.get_initial_state(batch)",
        "S12",
        ("batch_size", "tf.shape(batch)[0]"),
        (),
    ),
    (
        "steps_per_epoch_float",
        """
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        ds = tf.data.Dataset.from_tensor_slices((np.zeros((10, 3)), np.zeros((10, 1)))).batch(2).repeat()
        m.fit(ds, steps_per_epoch=10 / 3, epochs=1, verbose=0)
        """,
        "S12",
        ("steps_per_epoch", "10 // 3"),
        (),
    ),
    (
        "loss_with_an_extra_parameter",
        """
        def weighted_mse(y_true, y_pred, weight):
            return weight * tf.reduce_mean((y_true - y_pred) ** 2)
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("adam", weighted_mse)
        m.fit(np.zeros((4, 3)), np.zeros((4, 1)), verbose=0)
        """,
        "S12",
        ("(y_true, y_pred)", "weight="),
        (),
    ),
    # where each dimension came from
    (
        "unet_skip_after_odd_pooling",
        """
        inp = keras.Input((28, 28, 1))
        c1 = keras.layers.Conv2D(4, 3, padding="same", name="c1")(inp)
        p1 = keras.layers.MaxPooling2D(name="p1")(c1)
        p2 = keras.layers.MaxPooling2D(name="p2")(p1)
        p3 = keras.layers.MaxPooling2D(name="p3")(p2)
        u1 = keras.layers.UpSampling2D(name="u1")(p3)
        keras.layers.Concatenate(name="cat")([u1, p2])
        """,
        "S01",
        ("p2 7 -> p3 3 (floor of 7/2) -> u1 6", "multiple of 8", "32 instead of 28"),
        ("strides=",),
    ),
    (
        "same_padding_stride_one_branches_of_two_sizes",
        """
        a = keras.Input((10, 10, 3)); b = keras.Input((12, 12, 3))
        ca = keras.layers.Conv2D(4, 3, padding="same")(a); cb = keras.layers.Conv2D(4, 3, padding="same")(b)
        keras.layers.Concatenate()([ca, cb])
        """,
        "S01",
        ("no layer on the path has a stride",),
        ("check strides", "padding='same' on both"),
    ),
    (
        "residual_with_one_valid_convolution",
        """
        inp = keras.Input((32, 32, 16))
        h = keras.layers.Conv2D(16, 3, padding="same")(inp)
        h = keras.layers.Conv2D(16, 3, name="c2")(h)
        keras.layers.Add()([inp, h])
        """,
        "S01",
        ("'c2' 32 -> 30", "padding='same'"),
        ("strides=",),
    ),
    (
        "autoencoder_ceil_overshoots",
        """
        inp = keras.Input((28, 28, 1))
        h = keras.layers.Conv2D(8, 3, strides=2, padding="same", name="enc1")(inp)
        h = keras.layers.Conv2D(8, 3, strides=2, padding="same", name="enc2")(h)
        h = keras.layers.Conv2D(8, 3, strides=2, padding="same", name="enc3")(h)
        h = keras.layers.Conv2DTranspose(8, 3, strides=2, padding="same", name="dec1")(h)
        h = keras.layers.Conv2DTranspose(8, 3, strides=2, padding="same", name="dec2")(h)
        out = keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same", name="dec3")(h)
        ae = keras.Model(inp, out); ae.compile("adam", "mse")
        x = np.zeros((8, 28, 28, 1), "float32")
        ae.fit(x, x, epochs=1, verbose=0)
        """,
        "S07",
        (
            "28 -> enc1 14 -> enc2 7 -> enc3 4 (ceil of 7/2) -> dec1 8 -> dec2 16 -> dec3 32",
            "targets are the inputs",
        ),
        ("make the labels", "one-hot", "sparse"),
    ),
    (
        "dense_autoencoder_width",
        """
        m = keras.Sequential([keras.Input((784,)), keras.layers.Dense(64), keras.layers.Dense(728, name="out")])
        m.compile("adam", "mse")
        x = np.zeros((16, 784), "float32")
        m.fit(x, x, verbose=0)
        """,
        "S07",
        ("'out'", "728 units", "give it 784"),
        ("flatten", "stride", "one-hot"),
    ),
    (
        "input_shape_holds_the_sample_count",
        """
        x = np.zeros((100, 8), "float32"); y = np.zeros((100, 1), "float32")
        model = keras.Sequential([keras.Input(shape=x.shape), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(x, y, verbose=0)
        """,
        "S01",
        ("number of samples", "x.shape[1:]"),
        ("channel axis",),
    ),
]

BROKEN += [
    (
        "concatenate_on_separate_arguments",
        "a = keras.Input((3,)); b = keras.Input((3,))\nkeras.layers.Concatenate()(a, b)",
        "S12",
        ("one list", "[a, b]"),
        (),
    ),
    (
        "optimizer_class_not_instance",
        """
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        m.compile(optimizer=keras.optimizers.Adam, loss="mse")
        """,
        "S12",
        ("keras.optimizers.Adam()",),
        (),
    ),
    (
        "input_shape_as_an_int",
        "keras.Input(shape=10)",
        "S12",
        ("(10,)",),
        (),
    ),
    (
        "one_hot_of_float_ids",
        "ids = tf.constant([0.0, 2.0, 1.0])\ntf.one_hot(ids, 3)",
        "S11",
        ("float32", "tf.cast(ids, tf.int32)"),
        (),
    ),
    (
        "load_model_of_a_weights_file",
        """
        import os, tempfile
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        path = os.path.join(tempfile.mkdtemp(), "best.weights.h5"); m.save_weights(path)
        keras.saving.load_model(path)
        """,
        "C05",
        ("weights file", "load_weights"),
        ("custom_objects",),
    ),
    (
        "images_larger_than_the_model_was_built_for",
        """
        m = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(8, 3, padding="same"),
                              keras.layers.Flatten(), keras.layers.Dense(2)])
        m.predict(np.zeros((4, 32, 32, 1), "float32"), verbose=0)
        """,
        "S01",  # images of another size than the model's layers were built for
        ("(28, 28, 1)", "(32, 32, 1)", "resize"),
        (),
    ),
    (
        "normalization_adapted_on_a_transposed_table",
        """
        table = np.random.rand(300, 5).astype("float32")
        norm = keras.layers.Normalization(); norm.adapt(table.T)
        m = keras.Sequential([keras.Input((5,)), norm, keras.layers.Dense(1)])
        m.predict(table[:8], verbose=0)
        """,
        "S01",
        ("300", "adapt"),
        ("tf.shape(x)[0]",),
    ),
    (
        "tensorshape_value_in_build",
        """
        class Old(keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1].value, 4))
            def call(self, x):
                return x @ self.w
        keras.Sequential([keras.Input((3,)), Old()])
        """,
        "S01",
        (".value", "input_shape[-1]"),
        (),
    ),
    (
        "jit_compile_with_py_function",
        """
        class Jitter(keras.layers.Layer):
            def call(self, x):
                y = tf.py_function(lambda t: t + 1.0, [x], tf.float32)
                return tf.ensure_shape(y, x.shape)
        m = keras.Sequential([keras.Input((4,)), Jitter(), keras.layers.Dense(1)])
        m.compile("adam", "mse", jit_compile=True)
        m.fit(np.zeros((8, 4), "float32"), np.zeros((8, 1), "float32"), verbose=0)
        """,
        "T03",
        ("jit_compile", "tf.py_function", "jit_compile=False"),
        ("set_shape",),
    ),
    (
        "one_optimizer_for_a_gan_in_a_custom_loop",
        """
        gen = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6)])
        disc = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1)])
        opt = keras.optimizers.Adam(1e-3); z = tf.random.normal((8, 4))
        with tf.GradientTape() as tape:
            d_loss = tf.reduce_mean(disc(gen(z)))
        opt.apply_gradients(zip(tape.gradient(d_loss, disc.trainable_variables), disc.trainable_variables))
        with tf.GradientTape() as tape:
            g_loss = -tf.reduce_mean(disc(gen(z)))
        opt.apply_gradients(zip(tape.gradient(g_loss, gen.trainable_variables), gen.trainable_variables))
        """,
        "S12",
        ("`disc`", "`gen_opt = keras.optimizers.Adam(...)`"),
        ("persistent", "compile("),  # a custom loop has no compile to give an optimizer to
    ),
]

BROKEN += [
    (
        "outputs_is_a_layer_never_called",
        """
        inputs = keras.Input((10,))
        hidden = keras.layers.Dense(8, activation="relu")(inputs)
        outputs = keras.layers.Dense(1, activation="sigmoid")
        keras.Model(inputs, outputs)
        """,
        "S12",
        ("never called", "(hidden)"),
        (),
    ),
    (
        "outputs_from_another_models_graph",
        """
        base = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, name="hidden"), keras.layers.Dense(2)])
        new_input = keras.Input((8,))
        keras.Model(new_input, base.get_layer("hidden").output)
        """,
        "S12",
        ("`base`", "base.inputs"),
        (),
    ),
]

# Keras' own message names the fix: no contract finding (the box may still show another rule's)
BROKEN += [
    (
        "apply_gradients_given_only_the_gradients",
        """
        net = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD()
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(net(tf.ones((8, 4))) ** 2)
        g = tape.gradient(loss, net.trainable_weights)
        opt.apply_gradients(g)
        """,
        "S12",
        ("list of 2 gradient(s) without their variables", "zip(g, net.trainable_weights)"),
        ("model.trainable_variables", "persistent"),
    ),
]

# a layer's result unpacked into the wrong number of names
BROKEN += [
    (
        "lstm_return_state_unpacked_into_two",
        """
        inputs = keras.Input((10, 3))
        outputs, state = keras.layers.LSTM(8, return_state=True, name="encoder")(inputs)
        """,
        "S12",
        ("LSTM 'encoder' returns 3 tensors", "output, state_h, state_c = "),
        ("return_sequences",),
    ),
    (
        "gru_without_return_state_unpacked",
        """
        gru = keras.layers.GRU(8, name="dec")
        seq, h = gru(keras.Input((10, 3)))
        """,
        "S12",
        ("GRU 'dec' returns one tensor", "return_state=True"),
        ("state_c",),
    ),
    (
        "bidirectional_states_unpacked_into_three",
        """
        bi = keras.layers.Bidirectional(keras.layers.LSTM(8, return_state=True))
        out, h, c = bi(keras.Input((10, 3)))
        """,
        "S12",
        ("returns 5 tensors", "forward_h, forward_c, backward_h, backward_c"),
        (),
    ),
]

# where the data's axes came from: the rank a layer rejects is the data's own (no layer made it)
BROKEN += [
    (
        "dataset_batched_twice",
        """
        ds = tf.data.Dataset.from_tensor_slices((np.zeros((64, 10), "float32"), np.zeros((64, 1), "float32"))).batch(16)
        model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(1)]); model.compile("adam", "mse")
        model.fit(ds.batch(4), epochs=1, verbose=0)
        """,
        "S12",  # the data's structure (batches of batches) is the cause
        ("batched 2 times", ".batch(16), .batch(4)", "batch once"),
        ("flatten", "globalaveragepooling"),
    ),
    (
        "one_dimensional_x_without_input",
        """
        model = keras.Sequential([keras.layers.Dense(8), keras.layers.Dense(1)]); model.compile("adam", "mse")
        x = np.random.rand(64).astype("float32")
        model.fit(x, 3 * x, epochs=1, verbose=0)
        """,
        "S01",
        ("1-D array of shape (64,)", "two causes fit", "x.reshape(-1, 1)", "x[None]"),
        ("folded", "flatten"),
    ),
    (
        "one_example_without_its_batch_axis",
        """
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)]); model.compile("adam", "mse")
        x = np.random.rand(8, 5).astype("float32")
        model.predict(x[0], verbose=0)
        """,
        "S12",  # the catalog: a single example passed without its batch axis
        ("single example without its batch axis", "x[0:1]"),
        ("folded", "flatten", "reshape(-1, 1)"),
    ),
]

# the unpacking of a batch, a list of rows, a decorator factory, a padded length, a traced map
BROKEN += [
    (
        "test_step_unpacks_two_of_three_parts",
        """
        class Scored(keras.Model):
            def test_step(self, data):
                x, y = data
                y_pred = self(x, training=False)
                return {"loss": self.compute_loss(x=x, y=y, y_pred=y_pred)}
        i = keras.Input((3,)); m = Scored(i, keras.layers.Dense(1)(i)); m.compile("adam", "mse")
        m.evaluate(np.zeros((4, 3)), np.zeros((4, 1)), sample_weight=np.ones(4), verbose=0)
        """,
        "S12",
        (
            "test_step",
            "(x, y, sample_weight)",
            "`sample_weight=` was given",
            "unpack_x_y_sample_weight",
        ),
        ("class_weight",),
    ),
    (
        "rows_listed_for_evaluate",
        """
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        samples = [np.random.rand(3) for _ in range(5)]
        m.evaluate(samples, np.zeros((5, 1)), verbose=0)
        """,
        "S12",
        ("list of 5 arrays of shape (3,)", "np.stack(samples)", "(5, 3)"),
        ("split", "filter"),
    ),
    (
        "serializable_decorator_without_parentheses",
        """
        @keras.saving.register_keras_serializable
        class Twice(keras.layers.Layer):
            def call(self, x):
                return 2 * x
        model = keras.Sequential([keras.Input((3,)), Twice()])
        """,
        "C05",
        ("`twice` is not your class", "register_keras_serializable()"),
        ("custom_objects",),
    ),
    (
        "padded_length_shorter_than_a_sequence_in_fit",
        """
        seqs = [[1, 2, 3], [1, 2, 3, 4, 5, 6, 7]]
        ds = tf.data.Dataset.from_generator(
            lambda: ((np.array(s), 1) for s in seqs),
            output_signature=(tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.int32)),
        ).padded_batch(2, padded_shapes=([4], []))
        m = keras.Sequential([keras.Input((None,)), keras.layers.Embedding(10, 4),
                              keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
        m.compile("adam", "mse")
        m.fit(ds, verbose=0)
        """,
        "S13",
        ("padded_shapes (4,)", "(none,)", "padded_shapes=[none]", "c0[:4]"),
        ("drop_remainder", "ragged_batch"),
    ),
    (
        "validation_one_hot_of_a_split_without_the_last_class",
        """
        m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
        m.compile("adam", "categorical_crossentropy")
        y_tr = keras.utils.to_categorical([0, 1, 2, 1, 0, 2])
        y_va = keras.utils.to_categorical([0, 1, 1, 0])
        m.fit(np.zeros((6, 4)), y_tr, validation_data=(np.zeros((4, 4)), y_va), epochs=1, verbose=0)
        """,
        "M04",
        ("validation labels", "`y_va`", "num_classes=3"),
        ("units (one per class)",),
    ),
    (
        "numpy_read_in_a_dataset_filter",
        """
        ds = tf.data.Dataset.from_tensor_slices(np.arange(6.0))
        ds = ds.filter(lambda v: v.numpy() > 2)
        """,
        "T02",
        ("dataset.filter", "does not change that", "tf.py_function"),
        ("run_functions_eagerly(true)",),
    ),
]

# callbacks' logs and schedules, a matrix product, state made after build, a KerasTensor as a
# bool, layers paired by a shifted index, the output a multi-output loss check names
BROKEN += [
    (
        "early_stopping_callback_reading_val_loss_without_validation",
        """
        class StopAt(keras.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                if logs["val_loss"] < 0.1:
                    self.model.stop_training = True
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        m.fit(np.zeros((8, 3)), np.zeros((8, 1)), epochs=1, verbose=0, callbacks=[StopAt()])
        """,
        "S12",
        ("`val_loss`", "no validation data", "validation_data=", "use `loss`"),
        (),
    ),
    (
        "checkpoint_path_with_the_keras2_acc_key",
        """
        import tempfile, os
        path = os.path.join(tempfile.mkdtemp(), "m-{epoch}-{acc:.2f}.keras")
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="softmax")])
        m.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
        m.fit(np.zeros((8, 3)), np.zeros(8), epochs=1, verbose=0,
              callbacks=[keras.callbacks.ModelCheckpoint(path)])
        """,
        "S12",
        ("`acc`", "keras 3 logs it as `accuracy`"),
        ("validation_data",),
    ),
    (
        "schedule_returning_a_tensor",
        """
        def decay(epoch, lr):
            return lr * tf.exp(-0.5 * epoch)
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        m.fit(np.zeros((8, 3)), np.zeros((8, 1)), epochs=1, verbose=0,
              callbacks=[keras.callbacks.LearningRateScheduler(decay)])
        """,
        "S11",
        ("`decay`", "tf.exp(-0.5 * epoch)", "float("),
        ("tf.cast",),
    ),
    (
        "attention_scores_without_transposing_keys",
        """
        q = tf.random.normal((2, 4, 16)); k = tf.random.normal((2, 7, 16))
        scores = tf.matmul(q, k) / 4.0
        """,
        "S07",
        ("`k` fits transposed", "transpose_b=true"),
        ("reshape",),
    ),
    (
        "matrix_product_whose_transpose_is_already_given",
        """
        a = tf.zeros((3, 4)); b = tf.zeros((6, 5))
        tf.matmul(a, b, transpose_b=True)
        """,
        "S07",
        ("(4 vs 5)", "no transpose of either"),
        ("transpose `b`", "fits transposed"),
    ),
    (
        "sublayer_made_inside_call",
        """
        class Head(keras.layers.Layer):
            def call(self, x):
                self.proj = keras.layers.Dense(2)
                return self.proj(x)
        keras.Sequential([keras.Input((3,)), Head()])
        """,
        "T03",
        ("creates a sub-layer", "`__init__`"),
        ("add_weight",),
    ),
    (
        "python_and_on_keras_tensors",
        """
        x = keras.Input((4,))
        y = x * 2 if keras.ops.min(x) > 0 else x
        """,
        "T02",
        ("kerastensor used as a python boolean", "keras.ops.where"),
        ("run_functions_eagerly(true)",),
    ),
    (
        "weights_copied_one_layer_early",
        """
        src = keras.Sequential([keras.Input((6,)), keras.layers.Dense(5), keras.layers.Dense(2)])
        inp = keras.Input((6,)); h = keras.layers.Dense(5)(inp); dst = keras.Model(inp, keras.layers.Dense(2)(h))
        for a, b in zip(src.layers, dst.layers):
            b.set_weights(a.get_weights())
        """,
        "S12",
        ("`dst.layers[1]`", "off by 1", "inputlayer", "src.layers if l.weights"),
        ("another framework",),
    ),
    (
        "stack_given_two_tensors_not_a_list",
        """
        left = tf.ones((2, 3)); right = tf.zeros((2, 3))
        pair = tf.stack(left, right)
        """,
        "S12",
        ("`right` (2, 3) went to `axis`", "tf.stack([left, right])", "defaults to 0"),
        ("reshape",),
    ),
    (
        "regression_head_and_too_narrow_class_head",
        """
        inp = keras.Input((5,))
        price = keras.layers.Dense(1, name="price")(inp)
        kind = keras.layers.Dense(3, activation="softmax", name="kind")(inp)
        m = keras.Model(inp, {"price": price, "kind": kind})
        m.compile("adam", {"price": "mse", "kind": "categorical_crossentropy"})
        y = {"price": np.zeros((6, 1)), "kind": keras.utils.to_categorical(np.arange(6) % 5, 5)}
        m.fit(np.zeros((6, 5)), y, epochs=1, verbose=0)
        """,
        "M04",
        ("output 'kind'", "5 units"),
        ("sparse_categorical",),
    ),
]

# what a library call returned, used as another kind of value on the user's own line
BROKEN += [
    (
        "history_read_as_an_attribute",
        """
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        run = m.fit(np.zeros((4, 2)), np.zeros((4, 1)), epochs=2, verbose=0)
        curve = run.val_loss
        """,
        "S12",
        ("history object that fit returned", "run.history['loss']"),
        ("return_dict",),
    ),
    (
        "evaluate_list_read_by_metric_name",
        """
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        m.compile("adam", "mse", metrics=["mae"])
        result = m.evaluate(np.zeros((4, 2)), np.zeros((4, 1)), verbose=0)
        mae = result["mae"]
        """,
        "S12",
        ("[loss, *metrics]", "return_dict=true"),
        ("history",),
    ),
    (
        "dataset_indexed_like_a_list",
        """
        batches = tf.data.Dataset.from_tensor_slices(np.zeros((6, 2))).batch(3)
        batch = batches[1]
        """,
        "S12",
        ("cannot be indexed", "next(iter(batches))", "batches.skip(n).take(1)"),
        (),
    ),
    (
        "numpy_method_on_a_tensor",
        """
        probs = tf.nn.softmax(tf.zeros((2, 3)))
        best = probs.argmax(-1)
        """,
        "S12",
        ("no numpy method `.argmax`", "tf.argmax(probs, axis=-1)"),
        (),
    ),
    (
        "variable_item_set_with_equals",
        """
        counts = tf.Variable(tf.zeros((4,)))
        counts[2] = 1.0
        """,
        "S12",
        ("tf.variable", "counts[i].assign(value)"),
        ("tensor_scatter_nd_update",),
    ),
]

# values of the wrong kind for any API, and the data's own kinds
BROKEN += [
    (
        "bound_method_given_for_its_result",
        """
        a = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        b = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        b.set_weights(a.get_weights)
        """,
        "S12",
        ("the method itself", "a.get_weights()"),
        (),
    ),
    (
        "loss_method_called_on_its_class",
        """
        loss_fn = keras.losses.MeanSquaredError
        loss_fn.call(tf.zeros((2, 1)), tf.ones((2, 1)))
        """,
        "S12",
        ("the class keras.losses.meansquarederror", "loss_fn = keras.losses.MeanSquaredError()"),
        (),
    ),
    (
        "model_called_on_a_dataset",
        """
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        rows = tf.data.Dataset.from_tensor_slices(np.zeros((4, 3), "float32")).batch(2)
        m(rows)
        """,
        "S12",
        ("called directly on the dataset", "m.predict(rows)"),
        (),
    ),
    (
        "images_of_two_sizes_in_one_list",
        """
        photos = [np.zeros((20, 20, 3), "float32"), np.zeros((24, 20, 3), "float32")]
        tf.image.flip_left_right(photos)
        """,
        "S13",
        ("(20, 20, 3) at 0", "(24, 20, 3) at 1"),
        (),
    ),
    (
        "ragged_ids_into_fit",
        """
        ids = tf.ragged.constant([[1, 2], [3, 4, 5, 6]])
        m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        m.fit(ids, np.zeros(2), epochs=1, verbose=0)
        """,
        "S13",
        ("tf.raggedtensor (rows of 2 to 4 values)", "ids.to_tensor(shape=(none, 4))"),
        (),
    ),
    (
        "numpy_loss_given_to_the_tape",
        """
        w = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            y = (w * 3.0).numpy()
            loss = np.square(y)
        tape.gradient(loss, [w])
        """,
        "G04",
        ("numpy", "`y = (w * 3.0).numpy()`"),
        (),
    ),
    (
        "missing_ids_cast_to_int",
        """
        users = np.array([1.0, 2.0, np.nan, 3.0]).astype("int32")
        emb = keras.layers.Embedding(5, 2)
        emb(users)
        """,
        "N05",
        ("nan", "fill or drop the missing ids"),
        ("max id + 1",),
    ),
    (
        "data_array_as_the_model_input",
        """
        features = np.zeros((10, 6), "float32")
        hidden = keras.layers.Dense(3)(keras.Input((6,)))
        keras.Model(inputs=features, outputs=hidden)
        """,
        "S12",
        ("numpy array (10, 6), data", "keras.input(shape=(6,))"),
        ("missing input",),
    ),
    (
        "shared_tower_called_on_both_inputs_at_once",
        """
        inp = keras.Input((5,)); tower = keras.Model(inp, keras.layers.Dense(2)(inp), name="tower")
        left = keras.Input((5,)); right = keras.Input((5,))
        tower([left, right])
        """,
        "S12",
        ("tower(left), tower(right)",),
        ("dict",),
    ),
    (
        "gru_sequence_merged_with_a_vector",
        """
        seq = keras.Input((7, 3)); meta = keras.Input((4,))
        h = keras.layers.GRU(6, return_sequences=True)(seq)
        keras.layers.Concatenate()([h, meta])
        """,
        "S01",
        ("gru 'gru", "return_sequences=false"),
        ("repeatvector",),
    ),
    (
        "dense_shared_by_branches_of_two_widths",
        """
        a = keras.Input((10,)); b = keras.Input((6,))
        proj = keras.layers.Dense(4)
        pa = proj(a)
        pb = proj(b)
        """,
        "S01",
        ("is reused", "built its weights for 10 features", "`b` here has 6"),
        ("label or id column",),
    ),
    (
        "class_name_labels_for_fit",
        """
        import pandas as pd
        frame = pd.DataFrame({"w": [1.0, 2.0, 3.0], "h": [2.0, 1.0, 0.0], "kind": ["cat", "dog", "cat"]})
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2, activation="softmax")])
        m.compile("adam", "sparse_categorical_crossentropy")
        m.fit(frame[["w", "h"]], frame["kind"], epochs=1, verbose=0)
        """,
        "S11",
        ("labels `frame['kind']` are text", "pd.factorize"),
        ("get_dummies",),
    ),
    (
        "date_column_among_the_features",
        """
        import pandas as pd
        frame = pd.DataFrame({"x": [1.0, 2.0], "day": pd.to_datetime(["2024-01-01", "2024-02-01"])})
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        m.fit(frame, np.zeros(2), epochs=1, verbose=0)
        """,
        "S11",
        ("date/time column 'day'", ".dt.days"),
        ("get_dummies",),
    ),
    (
        "target_column_kept_in_the_features",
        """
        import pandas as pd
        frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.5, 0.1, 0.2], "y": [3.0, 4.0, 5.0]})
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        m.fit(frame, frame["y"], epochs=1, verbose=0)
        """,
        "S01",
        ("still holds 'y'", ".drop(columns=['y'])"),
        ("get_dummies",),
    ),
    (
        "one_hot_columns_of_a_test_table",
        """
        import pandas as pd
        train = pd.get_dummies(pd.DataFrame({"size": ["s", "m", "l"]}), dtype="float32")
        test = pd.get_dummies(pd.DataFrame({"size": ["s", "m"]}), dtype="float32")
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        m.predict(test, verbose=0)
        """,
        "S01",
        (
            "the columns of `train`",
            "lacks 'size_l'",
            "reindex(columns=train.columns, fill_value=0)",
        ),
        ("target",),
    ),
    (
        "one_hot_columns_without_the_training_table",
        """
        import pandas as pd
        test = pd.get_dummies(pd.DataFrame({"size": ["s", "m"]}), dtype="float32")
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        m.predict(test, verbose=0)
        """,
        "S01",
        ("one-hot encoded per value", "reindex(columns=train_columns, fill_value=0)"),
        ("target",),
    ),
    (
        "columns_dict_for_a_one_input_model",
        """
        import pandas as pd
        frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0.0, 1.0, 0.0, 1.0]})
        ds = tf.data.Dataset.from_tensor_slices((dict(frame), np.zeros(4))).batch(2)
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        m.fit(ds, epochs=1, verbose=0)
        """,
        "S12",
        ("dict of 2 columns ('a', 'b')", "tf.stack([d['a'], d['b']], axis=-1)"),
        ("rename",),
    ),
]

# preprocessing layers, hooks of the user's subclasses, metrics
BROKEN += [
    (
        "embedding_sized_before_the_lookup_is_adapted",
        """
        lookup = keras.layers.StringLookup()
        emb = keras.layers.Embedding(lookup.vocabulary_size(), 2)
        lookup.adapt(["red", "green", "blue"])
        inp = keras.Input((1,), dtype="string")
        model = keras.Model(inp, emb(lookup(inp)))
        model.predict(tf.constant([["blue"]]), verbose=0)
        """,
        "S09",
        ("returns before adapt", "now 4"),
        ("re-index",),
    ),
    (
        "hashing_bins_wider_than_the_embedding",
        """
        inp = keras.Input((1,), dtype="string")
        ids = keras.layers.Hashing(num_bins=500)(inp)
        model = keras.Model(inp, keras.layers.Embedding(10, 2)(ids))
        model.predict(tf.constant([["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]), verbose=0)
        """,
        "S09",
        ("num_bins = 500", "num_bins=10"),
        ("vocabulary_size",),
    ),
    (
        "normalization_adapted_on_a_dataframe",
        """
        import pandas as pd
        frame = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
        keras.layers.Normalization().adapt(frame)
        """,
        "S12",
        ("yields its column names", "frame.to_numpy('float32')"),
        (),
    ),
    (
        "bucketizing_numbers_read_as_text",
        """
        prices = np.array([["12.5"], ["7"], ["30"]])
        keras.layers.Discretization(bin_boundaries=[10.0, 20.0])(prices)
        """,
        "S11",
        ("numbers stored as text", "prices.astype('float32')"),
        ("stringlookup",),
    ),
    (
        "inverted_lookup_given_names",
        """
        back = keras.layers.StringLookup(vocabulary=["a", "b"], invert=True)
        back(tf.constant(["a", "b"]))
        """,
        "S11",
        ("invert=true", "tf.argmax(probs, axis=-1)"),
        ("astype",),
    ),
    (
        "metric_update_without_sample_weight",
        """
        class Hits(keras.metrics.Metric):
            def __init__(self, **kw):
                super().__init__(**kw); self.n = self.add_weight(name="n", initializer="zeros")
            def update_state(self, y_true, y_pred):
                self.n.assign_add(1.0)
            def result(self):
                return self.n
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        m.compile("adam", "mse", metrics=[Hits()])
        m.fit(np.zeros((4, 2)), np.zeros((4, 1)), epochs=1, verbose=0)
        """,
        "S12",
        ("`sample_weight=`", "hits.update_state", "sample_weight=none"),
        (),
    ),
    (
        "f1_metric_with_class_ids",
        """
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="softmax")])
        m.compile("adam", "sparse_categorical_crossentropy", metrics=[keras.metrics.F1Score()])
        m.fit(np.zeros((4, 3)), np.array([0, 1, 2, 3]), epochs=1, verbose=0)
        """,
        "M05",
        ("f1score takes one-hot labels", "to_categorical(y, 4)"),
        (),
    ),
    (
        "rgb_statistics_for_grayscale_input",
        """
        norm = keras.layers.Normalization(mean=[0.5, 0.5, 0.5], variance=[0.25, 0.25, 0.25])
        keras.Sequential([keras.Input((16, 16, 1)), norm])
        """,
        "S01",
        ("mean (and variance) of 3 values", "1 value"),
        ("transpose",),
    ),
    (
        "weights_from_a_helper_without_return",
        """
        def saved_arrays():
            arrays = [np.zeros((3, 2)), np.zeros(2)]
        d = keras.layers.Dense(2); d.build((None, 3))
        d.set_weights(saved_arrays())
        """,
        "S12",
        ("`saved_arrays()` is none", "returned nothing"),
        ("transpose",),
    ),
    (
        "flip_layer_on_an_image_without_channels",
        """
        flip = keras.layers.RandomFlip("horizontal")
        ds = tf.data.Dataset.from_tensor_slices(np.zeros((4, 12, 12), "float32"))
        ds = ds.map(lambda im: flip(im, training=True))
        """,
        "S01",
        ("randomflip", "has no channel axis", "[..., none]"),
        ("batch the dataset",),
    ),
]

# tf.function and AutoGraph contracts
BROKEN += [
    (
        "tensor_formatted_with_a_spec_inside_tf_function",
        """
        @tf.function
        def log_loss(v):
            tf.print(f"loss {tf.reduce_sum(v):.3f}")
            return v
        log_loss(tf.ones(2))
        """,
        "T02",
        ("format spec", "tf.print"),
        ("run_functions_eagerly(true)",),
    ),
    (
        "tensor_if_returning_in_one_branch",
        """
        @tf.function
        def clip_positive(x):
            if tf.reduce_min(x) < 0:
                return tf.zeros_like(x)
        clip_positive(tf.ones(2))
        """,
        "T03",
        ("returns in one branch only", "tf.where"),
        (),
    ),
    (
        "python_list_filled_in_a_tensor_loop",
        """
        @tf.function
        def squares(n):
            values = []
            for i in tf.range(n):
                values.append(i * i)
            return tf.stack(values)
        squares(tf.constant(4))
        """,
        "T03",
        ("tf.tensorarray", "ta.write(i, value)"),
        (),
    ),
    (
        "variable_assigned_a_longer_value",
        """
        state = tf.Variable(tf.zeros((4,)))
        state.assign(tf.ones((6,)))
        """,
        "S07",
        ("has shape (4,)", "shape=tf.tensorshape(none)"),
        ("reshape",),
    ),
    (
        "input_signature_short_of_a_parameter",
        """
        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def scale(x, factor):
            return x * factor
        """,
        "S12",
        ("parameter `factor` has none", "tf.TensorSpec([], tf.float32)"),
        (),
    ),
    (
        "xla_function_running_python",
        """
        @tf.function(jit_compile=True)
        def sort_rows(x):
            return tf.numpy_function(np.sort, [x], tf.float32)
        sort_rows(tf.ones((2, 3)))
        """,
        "T03",
        ("`sort_rows` is compiled with xla", "jit_compile=false"),
        (),
    ),
    (
        "class_names_one_hot_encoded_directly",
        """
        keras.utils.to_categorical(np.array(["cat", "dog", "cat"]))
        """,
        "S11",
        ("class names", "pd.factorize"),
        (),
    ),
]

# losses on class ids, fixed batches, loops, targets and windows
BROKEN += [
    (
        "own_loss_on_ids_with_one_hot_arithmetic",
        """
        def hinge_like(y_true, y_pred):
            return tf.reduce_mean(tf.maximum(0.0, 1.0 - y_true * y_pred), axis=-1)
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4)])
        m.compile("adam", hinge_like)
        m.fit(np.zeros((6, 2)), np.arange(6.0) % 4, epochs=1, verbose=0)
        """,
        "M05",
        ("hinge_like", "one-hot labels", "to_categorical(y, 4)"),
        ("reshape",),
    ),
    (
        "per_class_rows_given_as_sample_weight",
        """
        y = keras.utils.to_categorical([0, 1, 2, 1], 3)
        w = np.array([1.0, 3.0, 2.0])
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation="softmax")])
        m.compile("adam", "categorical_crossentropy")
        m.fit(np.zeros((4, 2)), y, sample_weight=y * w, epochs=1, verbose=0)
        """,
        "S07",
        ("`sample_weight` has shape (4, 3)", "(y * w).sum(axis=1)"),
        ("sparse",),
    ),
    (
        "accuracy_of_ids_against_scores",
        """
        acc = keras.metrics.Accuracy()
        acc.update_state(tf.constant([0, 2]), tf.random.uniform((2, 3)))
        """,
        "S07",
        ("class ids with per-class scores", "sparsecategoricalaccuracy"),
        ("reshape",),
    ),
    (
        "stateful_gru_fit_on_a_short_last_batch",
        """
        m = keras.Sequential([keras.Input((5, 1), batch_size=4), keras.layers.GRU(3, stateful=True),
                              keras.layers.Dense(1)])
        m.compile("adam", "mse")
        series, target = np.zeros((10, 5, 1)), np.zeros((10, 1))
        m.fit(series, target, batch_size=4, epochs=1, verbose=0)
        """,
        "S12",
        ("fixed batch size of 4", "x[:8]"),
        ("reshape",),
    ),
    (
        "elementwise_condition_in_a_traced_loss",
        """
        @tf.function(autograph=False)
        def clipped(err):
            if err > 1.0:
                return err
            return err * 0.0
        clipped(tf.ones((3, 2)))
        """,
        "T02",
        ("rank-2", "tf.where"),
        ("tf.cond",),
    ),
    (
        "elementwise_condition_under_autograph",
        """
        @tf.function
        def gate(v):
            if v > 0.5:
                return v
            return v * 2.0
        gate(tf.ones((4,)))
        """,
        "T02",
        ("shape (4,)", "tf.where", "tf.reduce_any"),
        ("run_functions_eagerly(true)",),
    ),
    (
        "targets_dict_keyed_by_other_names",
        """
        inp = keras.Input((3,))
        out = {"score": keras.layers.Dense(1, name="score")(inp)}
        m = keras.Model(inp, out); m.compile("adam", {"score": "mse"})
        m.fit(np.zeros((4, 3)), {"target": np.zeros((4, 1))}, epochs=1, verbose=0)
        """,
        "S12",
        ("'target' names no output", "rename 'target' to 'score'"),
        (),
    ),
    (
        "dataset_of_inputs_only_given_to_fit",
        """
        ds = tf.data.Dataset.from_tensor_slices(np.zeros((8, 3), "float32")).batch(4)
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
        m.fit(ds, epochs=1, verbose=0)
        """,
        "S12",
        ("yields inputs only", "(inputs, targets) pairs"),
        ("validation",),
    ),
    (
        "loop_over_an_unbatched_dataset",
        """
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        rows = tf.data.Dataset.from_tensor_slices(np.zeros((6, 3), "float32"))
        for r in rows:
            m(r)
        """,
        "S12",
        ("`rows` is not batched", "rows = rows.batch(32)"),
        ("x[none]",),
    ),
    (
        "lstm_built_for_one_feature_fed_two",
        """
        m = keras.Sequential([keras.Input((6, 1)), keras.layers.LSTM(4), keras.layers.Dense(1)])
        m.compile("adam", "mse")
        m.fit(np.zeros((8, 6, 2), "float32"), np.zeros((8, 1)), epochs=1, verbose=0)
        """,
        "S01",
        ("'lstm' was built for 1 input features", "gets 2"),
        ("return_sequences",),
    ),
    (
        "apply_given_zipped_pairs",
        """
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD()
        with tf.GradientTape() as t:
            loss = tf.reduce_sum(m(tf.ones((1, 2))))
        g = t.gradient(loss, m.trainable_variables)
        opt.apply(zip(g, m.trainable_variables))
        """,
        "S12",
        ("two lists", "opt.apply_gradients(zip(g, m.trainable_variables))"),
        (),
    ),
    (
        "windows_batched_before_flat_map",
        """
        ds = tf.data.Dataset.range(30).window(5, shift=1, drop_remainder=True).batch(4)
        ds = ds.map(lambda w: w[:, :4])
        """,
        "S12",
        ("batches the windows", "flat_map(lambda w: w.batch(5))"),
        (),
    ),
]

# records and image folders
BROKEN += [
    (
        "tfrecord_list_read_as_one_value",
        """
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "r.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            f = {"pix": tf.train.Feature(float_list=tf.train.FloatList(value=[0.1, 0.2]))}
            w.write(tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString())
        spec = {"pix": tf.io.FixedLenFeature([], tf.float32)}
        next(iter(tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec))))
        """,
        "S07",
        ("feature 'pix'", "fixedlenfeature([n], dtype)"),
        ("varlenfeature",),  # nothing shows a length that varies between records
    ),
    (
        "tfrecord_int_feature_read_as_float",
        """
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "r.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            f = {"label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}
            w.write(tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString())
        spec = {"label": tf.io.FixedLenFeature([], tf.float32)}
        next(iter(tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec))))
        """,
        "S11",
        ("feature 'label' is stored as int64", "tf.io.FixedLenFeature(shape, tf.int64)"),
        (),
    ),
    (
        "image_folder_dataset_at_its_default_size",
        """
        import os, tempfile
        root = tempfile.mkdtemp()
        for c in ("a", "b"):
            os.makedirs(os.path.join(root, c))
            for i in range(2):
                keras.utils.save_img(os.path.join(root, c, f"{i}.png"), np.zeros((6, 6, 3)))
        photos = keras.utils.image_dataset_from_directory(root, batch_size=2, verbose=False)
        m = keras.Sequential([keras.Input((32, 32, 3)), keras.layers.Flatten(),
                              keras.layers.Dense(1, activation="sigmoid")])
        m.compile("adam", "binary_crossentropy")
        m.fit(photos, epochs=1, verbose=0)
        """,
        "S01",
        ("`photos` yields images of (256, 256, 3)", "image_size=(32, 32)"),
        ("flatten",),
    ),
    # blind set 14's families: image channels and sizes against the model's Input, unbuilt
    # exports, token lists of different lengths, RNN inputs without a feature axis, integer
    # variables in float arithmetic, signatures given one example, layers given a label
    (
        "rgba_images_into_an_rgb_model",
        """
        m = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(4, 3),
                              keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])
        m.predict(np.zeros((2, 16, 16, 4), "float32"), verbose=0)
        """,
        "S01",
        ("rgba", "x[..., :3]"),
        ("resize", "label or id column", "model was changed"),
    ),
    (
        "rgb_images_through_rescaling_into_a_grayscale_model",
        """
        m = keras.Sequential([keras.Input((12, 12, 1)), keras.layers.Rescaling(1 / 255),
                              keras.layers.Conv2D(4, 3), keras.layers.Flatten(), keras.layers.Dense(1)])
        m.predict(np.zeros((2, 12, 12, 3), "float32"), verbose=0)
        """,
        "S01",
        ("rgb_to_grayscale", "(12, 12, 3)"),
        ("model was changed", "resize"),
    ),
    (
        "grayscale_folder_into_an_rgb_model",
        """
        import os, tempfile
        root = tempfile.mkdtemp()
        for c in ("a", "b"):
            os.makedirs(os.path.join(root, c))
            for i in range(2):
                keras.utils.save_img(os.path.join(root, c, f"{i}.png"), np.zeros((10, 10, 3)))
        scans = keras.utils.image_dataset_from_directory(
            root, image_size=(10, 10), color_mode="grayscale", batch_size=2, verbose=False)
        m = keras.Sequential([keras.Input((10, 10, 3)), keras.layers.Conv2D(2, 3),
                              keras.layers.Flatten(), keras.layers.Dense(1)])
        m.compile("adam", "mse")
        m.fit(scans, epochs=1, verbose=0)
        """,
        "S01",
        ('color_mode="rgb"', "`scans`"),
        ("resize", "grayscale_to_rgb"),
    ),
    (
        "one_image_into_a_functional_model_called_directly",
        """
        inp = keras.Input((16, 16, 3))
        net = keras.Model(inp, keras.layers.Conv2D(2, 3)(inp))
        net(np.zeros((16, 16, 3), "float32"))
        """,
        "S12",
        ("batch axis", "[None, ...]"),
        ("resize", "channel"),
    ),
    (
        "larger_images_into_a_model_called_directly",
        """
        inp = keras.Input((16, 16, 3))
        net = keras.Model(inp, keras.layers.Dense(2)(keras.layers.Flatten()(inp)))
        net(np.zeros((2, 20, 20, 3), "float32"))
        """,
        "S01",
        ("resize", "(16, 16)"),
        ("channel", "batch axis"),
    ),
    (
        "export_of_a_subclassed_model_never_called",
        """
        import os, tempfile
        class Net(keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = keras.layers.Dense(1)
            def call(self, x):
                return self.dense(x)
        net = Net()
        net.export(os.path.join(tempfile.mkdtemp(), "net"))
        """,
        "S04",
        ("keras.Input", "net(x[:1])"),
        ("custom_objects",),
    ),
    (
        "ragged_token_lists_into_tf_constant",
        """
        reviews = [[5, 1, 9, 9], [3, 7], [2, 2, 2]]
        tokens = tf.constant(reviews)
        """,
        "S13",
        ("pad_sequences(reviews", "2 to 4"),
        ("reshape",),
    ),
    (
        "gru_on_ids_without_embedding",
        """
        model = keras.Sequential([keras.Input((10,)), keras.layers.GRU(8), keras.layers.Dense(1)])
        """,
        "S01",
        ("embedding", "x[..., None]", "keras.Input((10, 1))"),
        (),
    ),
    (
        "integer_counter_divided_by_a_float",
        """
        class Warmup(keras.layers.Layer):
            def build(self, input_shape):
                self.count = tf.Variable(0, trainable=False)
            def call(self, x):
                self.count.assign_add(1)
                return x * tf.minimum(1.0, self.count / 10.0)
        Warmup()(np.ones((2, 2), "float32"))
        """,
        "S11",
        ("self.count", "int32", "tf.cast(self.count, tf.float32)"),
        ("astype",),
    ),
    (
        "signature_given_one_example",
        """
        @tf.function(input_signature=[tf.TensorSpec((None, 4), tf.float32)])
        def score(rows):
            return tf.reduce_sum(rows, axis=1)
        score(np.zeros(4, "float32"))
        """,
        "S12",
        ("one example", "[None, ...]"),
        ("astype",),
    ),
    (
        "grafted_onto_a_new_input_names_the_model",
        """
        backbone = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, name="feat")],
                                    name="backbone_v2")
        x_new = keras.Input((8,))
        head = keras.layers.Dense(1)(backbone.get_layer("feat").output)
        keras.Model(x_new, head)
        """,
        "S12",
        ("'backbone_v2'", "backbone.inputs"),
        (),
    ),
    (
        "flip_layer_given_the_label_in_a_map",
        """
        flip = keras.layers.RandomFlip("horizontal")
        pairs = tf.data.Dataset.from_tensor_slices((np.zeros((4, 8, 8, 3), "float32"), np.arange(4)))
        pairs.batch(2).map(lambda img, lbl: flip(img, lbl))
        """,
        "S12",
        ("`lbl`", "randomflip", "flip(x, training=True)"),
        ("reshape",),
    ),
    (
        "reshape_for_one_example_mapped_after_batch",
        """
        rows = tf.data.Dataset.from_tensor_slices(np.zeros((6, 16), "float32"))
        grids = rows.batch(3, drop_remainder=True).map(lambda r: tf.reshape(r, (4, 4)))
        """,
        "S07",
        ("mapped after `.batch(3)`", "(3, 16)", "single examples of (16,)"),
        ("padded_batch",),
    ),
    # blind set 16's families: Python values of traced tensors, Python code in pipelines,
    # windows, table columns, unlabeled batches, text into numeric models
    (
        "int_of_a_tensor_inside_tf_function",
        """
        @tf.function(autograph=False)
        def count(x):
            return int(tf.reduce_sum(x))
        count(tf.ones(3))
        """,
        "T02",
        ("`int()`", "tf.cast"),
        ("padded_batch",),
    ),
    (
        "tensor_kept_in_a_dict_by_a_tf_function",
        """
        seen = {}
        @tf.function
        def step(x):
            seen["last"] = x * 2
            return x
        step(tf.ones(2))
        seen["last"].numpy()
        """,
        "T02",
        ("`seen` holds", "outside the traced function"),
        ("tf.cond",),
    ),
    (
        "numpy_function_returning_int64_for_int32",
        """
        rows = tf.data.Dataset.from_tensor_slices(np.zeros((4, 5), "float32"))
        ids = rows.map(lambda r: tf.numpy_function(lambda a: np.arange(len(a)), [r], tf.int32))
        next(iter(ids))
        """,
        "S11",
        ("int64", "astype(np.int32)"),
        ("reshape",),
    ),
    (
        "generator_yields_three_parts_for_one_spec",
        """
        def rows():
            for i in range(4):
                yield np.zeros(2, "float32"), np.float32(i), np.float32(1.0)
        ds = tf.data.Dataset.from_generator(rows, output_signature=tf.TensorSpec((2,), tf.float32))
        list(ds)
        """,
        "S12",
        ("tuple of 3", "output_signature=("),
        ("padded_batch",),
    ),
    (
        "windows_without_drop_remainder_batched",
        """
        series = tf.data.Dataset.range(12)
        windows = series.window(4, shift=2).flat_map(lambda w: w.batch(4)).batch(3)
        list(windows)
        """,
        "S13",
        ("drop_remainder=True", "window(4"),
        ("padded_batch", "ragged_batch"),
    ),
    (
        "hand_windows_sliced_past_the_end",
        """
        series = np.arange(30, dtype="float32")
        windows = [series[i:i + 5] for i in range(len(series))]
        np.array(windows)
        """,
        "S13",
        ("range(len(series) - 5 + 1)", "last 4"),
        ("pad_sequences", "padded_batch"),
    ),
    (
        "nullable_int_column_into_fit",
        """
        import pandas as pd
        visits = pd.DataFrame({"visits": pd.array([1, None, 3, 4], dtype="Int64"),
                               "age": [1.0, 2.0, 3.0, 4.0]})
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]); m.compile("sgd", "mse")
        m.fit(visits, np.zeros(4), epochs=1, verbose=0)
        """,
        "S11",
        ("'visits'", "Int64", "fillna(0)"),
        ("reshape",),
    ),
    (
        "category_column_into_fit",
        """
        import pandas as pd
        homes = pd.DataFrame({"city": pd.Categorical(["a", "b", "a", "c"]), "rooms": [1.0, 2.0, 3.0, 4.0]})
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]); m.compile("sgd", "mse")
        m.fit(homes, np.zeros(4), epochs=1, verbose=0)
        """,
        "S11",
        ("'city'", "cat.codes"),
        ("fillna",),
    ),
    (
        "pydataset_without_labels_into_evaluate",
        """
        class Rows(keras.utils.PyDataset):
            def __len__(self):
                return 2
            def __getitem__(self, i):
                return np.zeros((4, 3), "float32")
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)]); m.compile("sgd", "mse")
        m.evaluate(Rows(), verbose=0)
        """,
        "S12",
        ("Rows.__getitem__", "return x_batch, y_batch"),
        ("reshape",),
    ),
    (
        "raw_text_dataset_into_a_dense_model",
        """
        reviews = tf.data.Dataset.from_tensor_slices((["good film", "bad"], [1.0, 0.0])).batch(2)
        m = keras.Sequential([keras.layers.Dense(1)]); m.compile("sgd", "mse")
        m.fit(reviews, epochs=1, verbose=0)
        """,
        "S11",
        ("textvectorization", "'dense"),
        ("reshape", "expand_dims"),
    ),
    (
        "categorical_loss_class_in_a_hand_written_loss_with_ids",
        """
        def smoothed(y_true, y_pred):
            return keras.losses.CategoricalCrossentropy()(y_true, y_pred)
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(5, activation="softmax")])
        m.compile("adam", smoothed)
        m.fit(np.zeros((8, 3)), np.arange(8) % 5, epochs=1, verbose=0)
        """,
        "M05",
        ("sparse", "class ids"),
        ("reshape",),
    ),
    (
        "conv_layer_made_inside_tf_function",
        """
        @tf.function
        def features(x):
            conv = keras.layers.Conv1D(2, 3, name="stem")
            return conv(x)
        features(tf.ones((1, 8, 2)))
        features(tf.ones((1, 8, 2)))
        """,
        "T03",
        ('`conv = keras.layers.Conv1D(2, 3, name="stem")`', "create `conv` once"),
        ("run_eagerly",),
    ),
    # blind set 18's families: user layers' contracts with Keras, evaluation code, seq2seq
    (
        "layer_without_super_init_in_a_sequential",
        """
        class Offset(keras.layers.Layer):
            def __init__(self, shift):
                self.shift = shift
            def call(self, x):
                return x + self.shift
        keras.Sequential([keras.Input((2,)), Offset(1.0)])
        """,
        "S01",
        ("`Offset.__init__` never calls `super().__init__()`", "super().__init__(**kwargs)"),
        ("compute_output_shape",),
    ),
    (
        "mask_argument_without_default",
        """
        class Gate(keras.layers.Layer):
            def call(self, x, mask):
                return x
        Gate()(keras.Input((4,)))
        """,
        "S01",
        ("`Gate.call` requires `mask`", "mask=None"),
        ("build(",),
    ),
    (
        "siamese_call_takes_two_inputs",
        """
        class Siamese(keras.Model):
            def __init__(self):
                super().__init__()
                self.d = keras.layers.Dense(1)
            def call(self, a, b):
                return self.d(a - b)
        twin = Siamese()
        twin.predict([np.zeros((2, 3)), np.zeros((2, 3))], verbose=0)
        """,
        "S12",
        ("2 arguments (a, b)", "a, b = inputs"),
        ("concatenate",),
    ),
    (
        "precision_given_two_column_probabilities",
        """
        p = keras.metrics.Precision()
        scores = np.array([[0.3, 0.7], [0.4, 0.6], [0.9, 0.1]], "float32")
        p.update_state(np.array([0, 1, 1]), scores)
        """,
        "S07",
        ("`Precision`", "scores[:, 1]"),
        ("argmax",),
    ),
    (
        "dict_outputs_unpacked_from_predict",
        """
        inp = keras.Input((3,))
        net = keras.Model(inp, {"age": keras.layers.Dense(1)(inp), "sex": keras.layers.Dense(2)(inp)})
        age, sex = net.predict(np.zeros((2, 3)), verbose=0)
        print(age.mean())
        """,
        "S12",
        ("the string 'age'", "preds['sex']"),
        ("np.array(",),
    ),
    (
        "one_hot_labels_compared_with_argmax",
        """
        labels_1hot = keras.utils.to_categorical([0, 2, 1, 1], 3)
        scores = tf.random.uniform((4, 3))
        hits = tf.math.equal(labels_1hot, tf.argmax(scores, -1))
        """,
        "S07",
        ("`labels_1hot`", "one-hot", "tf.argmax(labels_1hot, axis=-1)"),
        ("keepdims",),
    ),
    (
        "iou_metric_given_two_class_probabilities",
        """
        inp = keras.Input((8, 8, 1))
        seg = keras.Model(inp, keras.layers.Conv2D(2, 1, activation="softmax")(inp))
        seg.compile("adam", "sparse_categorical_crossentropy",
                    metrics=[keras.metrics.IoU(num_classes=2, target_class_ids=[1])])
        seg.fit(np.zeros((2, 8, 8, 1)), np.zeros((2, 8, 8, 1)), epochs=1, verbose=0)
        """,
        "S07",
        ("IoU(num_classes=2, sparse_y_pred=False)",),
        ("categorical_crossentropy'",),
    ),
    (
        "text_labels_met_in_the_loss",
        """
        mail = np.array(["spam", "ham", "spam", "ham"])
        m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
        m.compile("adam", "binary_crossentropy")
        m.fit(np.zeros((4, 2), "float32"), mail, epochs=1, verbose=0)
        """,
        "S11",
        ("the labels `mail` are text", "pd.factorize(mail)"),
        ("sparse",),
    ),
    (
        "teacher_forcing_targets_not_shifted",
        """
        tokens = np.random.randint(1, 9, (4, 6))
        inp = keras.Input((None,), dtype="int32")
        h = keras.layers.GRU(8, return_sequences=True)(keras.layers.Embedding(10, 4)(inp))
        lm = keras.Model(inp, keras.layers.Dense(10)(h))
        lm.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        lm.fit(tokens[:, :-1], tokens, epochs=1, verbose=0)
        """,
        "S07",
        ("6 steps", "tokens[:, 1:]", "`tokens[:, :-1]`"),
        ("return_sequences",),
    ),
    (
        "attention_between_grus_of_other_widths",
        """
        a = keras.Input((5, 3)); b = keras.Input((7, 3))
        qa = keras.layers.GRU(8, return_sequences=True)(a)
        kb = keras.layers.GRU(12, return_sequences=True)(b)
        att = keras.Model([a, b], keras.layers.Attention()([qa, kb]))
        att.predict([np.zeros((2, 5, 3)), np.zeros((2, 7, 3))], verbose=0)
        """,
        "S01",
        ("(8 units)", "(12 units)", "same units"),
        ("transpose",),
    ),
    (
        "sequences_of_other_lengths_batched_for_a_fixed_length_input",
        """
        def reviews():
            for n in (3, 5, 4, 6):
                yield np.ones(n, "float32"), np.float32(1)
        ds = tf.data.Dataset.from_generator(reviews, output_signature=(
            tf.TensorSpec((None,), tf.float32), tf.TensorSpec((), tf.float32))).batch(2)
        m = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1)]); m.compile("sgd", "mse")
        m.fit(ds, epochs=1, verbose=0)
        """,
        "S13",
        ("takes 6 steps", "pad or cut each to 6"),
        ("ragged_batch",),
    ),
]

CLEAR = [
    (
        "layer_without_super_init_called_on_an_input",
        """
        class Clip(keras.layers.Layer):
            def __init__(self, limit):
                self.limit = limit
            def call(self, x):
                return tf.clip_by_value(x, -self.limit, self.limit)
        Clip(3.0)(keras.Input((3,)))
        """,
    ),
    (
        "load_weights_into_a_model_never_built",
        """
        import os, tempfile
        class Tiny(keras.Model):
            def __init__(self):
                super().__init__()
                self.d = keras.layers.Dense(2)
            def call(self, x):
                return self.d(x)
        saved = Tiny(); saved(np.zeros((1, 3)))
        path = os.path.join(tempfile.mkdtemp(), "tiny.weights.h5"); saved.save_weights(path)
        Tiny().load_weights(path)
        """,
    ),
    (
        "dict_keyed_by_other_names_than_the_inputs",
        """
        a = keras.Input((1,), name="age_in"); b = keras.Input((1,), name="pay_in")
        model = keras.Model([a, b], keras.layers.Dense(1)(keras.layers.Concatenate()([a, b])))
        model.predict({"age": np.zeros((2, 1)), "pay": np.zeros((2, 1))}, verbose=0)
        """,
    ),
    ("attention_on_one_tensor", "q = keras.Input((4, 8))\nkeras.layers.Attention()(q)"),
    (
        "set_weights_without_the_bias",
        "d = keras.layers.Dense(4); d.build((None, 3))\nd.set_weights([np.zeros((3, 4))])",
    ),
]


def _run(shell: InteractiveShell, code: str) -> tuple[bool, list[str]]:
    with capture_output() as captured:
        result = shell.run_cell(textwrap.dedent(code).strip("\n"), store_history=False)
    text = "\n".join(o.data["text/plain"] for o in captured.outputs if "text/plain" in o.data)
    return bool(result.success), [
        line for line in text.splitlines() if line[:1].isupper() and line[1:3].isdigit()
    ]


@pytest.fixture
def contract_shell(shell: InteractiveShell) -> InteractiveShell:
    with capture_output():
        shell.run_cell(PRELUDE, store_history=False)
    return shell


@pytest.mark.parametrize(
    ("name", "code", "expect", "must", "must_not"), BROKEN, ids=[c[0] for c in BROKEN]
)
def test_broken_contract_names_argument_and_fix(
    contract_shell: InteractiveShell,
    name: str,
    code: str,
    expect: str,
    must: tuple[str, ...],
    must_not: tuple[str, ...],
) -> None:
    success, lines = _run(contract_shell, code)
    assert not success, f"{name}: the cell did not fail"
    assert len(lines) == 1, f"{name}: one problem, one finding; got {lines}"
    line = lines[0]
    assert line.startswith(expect + " "), line
    missing = [w for w in must if w.lower() not in line.lower()]
    assert not missing, f"{name}: lacks {missing}:\n{line}"
    wrong = [w for w in must_not if w.lower() in line.lower()]
    assert not wrong, f"{name}: says {wrong}, which the evidence contradicts:\n{line}"


@pytest.mark.parametrize(("name", "code"), CLEAR, ids=[c[0] for c in CLEAR])
def test_no_contract_finding_where_keras_message_names_the_fix(
    contract_shell: InteractiveShell, name: str, code: str
) -> None:
    success, lines = _run(contract_shell, code)
    assert not success
    assert lines == [], f"{name}: Keras' message already names the fix; got {lines}"


def test_contracts_hold_where_the_call_is_right(contract_shell: InteractiveShell) -> None:
    """The fixed versions of the broken calls above run without an error (so no finding)."""
    code = """
    enc = keras.Input((12, 8)); _, h, c = keras.layers.LSTM(16, return_state=True)(enc)
    dec = keras.Input((10, 8))
    out = keras.layers.LSTM(16, return_sequences=True)(dec, initial_state=[h, c])
    keras.Model([enc, dec], out).predict([np.zeros((2, 12, 8)), np.zeros((2, 10, 8))], verbose=0)
    d = keras.layers.Dense(4); d.build((None, 3)); d.set_weights([np.zeros((4, 3)).T, np.zeros(4)])
    keras.utils.to_categorical(np.array([1, 2, 5, 3]) - 1, num_classes=5)
    tf.image.resize(np.zeros((28, 28), "float32")[..., None], (32, 32))
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        loss = v * v
    keras.optimizers.SGD().apply_gradients(zip(tape.gradient(loss, [v]), [v]))
    """
    success, lines = _run(contract_shell, code)
    assert success and lines == []


def test_contract_reading_runs_no_user_code(contract_shell: InteractiveShell) -> None:
    """Arguments that are calls of the user's functions are never evaluated to check them."""
    code = """
    calls = []
    def make():
        calls.append(1)
        return np.zeros((28, 28), "float32")
    tf.image.resize(make(), (32, 32))
    """
    success, lines = _run(contract_shell, code)
    assert not success
    assert contract_shell.user_ns["calls"] == [1]
    assert lines and "rank 2" in lines[0]


def test_sequences_cut_by_a_first_batch_are_not_called_batched_twice(
    contract_shell: InteractiveShell,
) -> None:
    """The twin of dataset_batched_twice: ids.batch(11).map(split).batch(4) builds sequences
    with its first batch() (the map splits each into input and target), so a model declared
    for single tokens is not told to batch once (nor to add a Flatten): the examples are
    sequences, and the Input or the examples must change."""
    success, lines = _run(
        contract_shell,
        """
        ids = tf.data.Dataset.from_tensor_slices(np.arange(200) % 7)
        seqs = ids.batch(11, drop_remainder=True).map(lambda s: (s[:-1], s[1:]))
        model = keras.Sequential([keras.Input(()), keras.layers.Embedding(7, 4), keras.layers.Dense(7)])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(seqs.batch(4), verbose=0)
        """,
    )
    assert not success and len(lines) == 1, lines
    line = lines[0]
    assert "batch once" not in line and "batched 2 times" not in line and "Flatten" not in line
    assert "makes the examples" in line and "keras.Input(shape=(10,))" in line, line


def test_half_precision_output_meeting_float32_labels_names_the_output_layer(
    contract_shell: InteractiveShell,
) -> None:
    """Under mixed_float16 a model whose last layer computes in float16 meets float32 labels
    in the user's own loss line (no train_step): S05 names that layer and its dtype."""
    code = """
    keras.mixed_precision.set_global_policy("mixed_float16")
    inp = keras.Input((3,))
    net = keras.Model(inp, keras.layers.Dense(1, name="score")(keras.layers.Dense(4)(inp)))
    y = tf.ones((4, 1))
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.abs(y - net(np.ones((4, 3), "float32"))))
    """
    try:
        success, lines = _run(contract_shell, code)
    finally:
        contract_shell.run_cell(
            "keras.mixed_precision.set_global_policy('float32')", store_history=False
        )
    assert not success
    assert len(lines) == 1 and lines[0].startswith("S05 "), lines
    assert "'score'" in lines[0] and 'dtype="float32"' in lines[0], lines[0]
    assert "astype" not in lines[0], lines[0]
