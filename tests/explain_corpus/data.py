"""The data against the model: ids past an Embedding (S09), shapes tf.data lost (S10), arguments
that do not fit the model's inputs (S12), and elements of different shapes batched (S13)."""

from __future__ import annotations

from tests.explain_corpus import Case

S09 = [
    Case(
        "embedding_ids_start_at_one",
        "data",
        """
        vocab = 40
        ids = (np.arange(60).reshape(12, 5) % vocab) + 1  # ids 1..40, 0 kept for padding
        model = keras.Sequential([keras.Input((5,), dtype="int32"), keras.layers.Embedding(vocab, 8),
                                  keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(ids, np.zeros(12), epochs=1, verbose=0)
        """,
        "S09",
        must=("input_dim", "41", "start at 1"),
        must_not=("Flatten", "batch size", "units"),
        fix="input_dim = max id + 1",
    ),
    Case(
        "embedding_vocab_too_small_functional_predict",
        "data",
        """
        tokens = np.arange(24).reshape(4, 6) * 5  # ids up to 115
        inp = keras.Input((6,), dtype="int32")
        h = keras.layers.Embedding(100, 4, name="tok")(inp)
        model = keras.Model(inp, keras.layers.GlobalAveragePooling1D()(h))
        model.predict(tokens, verbose=0)
        """,
        "S09",
        must=("'tok'", "input_dim", "116"),
        must_not=("Flatten", "batch size", "start at 1"),
        fix="input_dim = max id + 1",
    ),
    Case(
        "embedding_subclassed_model_direct_call",
        "data",
        """
        class Recommender(keras.Model):
            def __init__(self):
                super().__init__()
                self.items = keras.layers.Embedding(50, 8, name="items")
                self.out = keras.layers.Dense(1)
            def call(self, x):
                return self.out(keras.ops.mean(self.items(x), axis=1))
        item_ids = np.array([[3, 50, 7], [1, 2, 4]])
        model = Recommender()
        model(item_ids)
        """,
        "S09",
        must=("'items'", "input_dim", "51"),
        must_not=("Flatten", "batch size"),
        fix="input_dim = max id + 1",
    ),
    Case(
        "embedding_ids_from_tf_data",
        "data",
        """
        ids = np.arange(40).reshape(8, 5) % 31  # ids 0..30 for a 30-row table
        ds = tf.data.Dataset.from_tensor_slices((ids, np.zeros(8, "float32"))).batch(4)
        model = keras.Sequential([keras.Input((5,), dtype="int32"), keras.layers.Embedding(30, 4),
                                  keras.layers.Flatten(), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(ds, epochs=1, verbose=0)
        """,
        "S09",
        must=("input_dim", "max id + 1", "30"),
        must_not=("batch size", "units"),
        fix="input_dim = max id + 1",
    ),
    Case(
        "embedding_sized_from_vocabulary_without_padding_and_oov",
        "data",
        """
        texts = ["the cat sat", "the dog ran", "a cat ran home"]
        vectorize = keras.layers.TextVectorization(output_sequence_length=4)
        vectorize.adapt(texts)
        words = len(set(" ".join(texts).split()))  # 7 words, but ids also count '' and [UNK]
        seqs = vectorize(texts)
        model = keras.Sequential([keras.layers.Embedding(words, 4), keras.layers.GlobalAveragePooling1D()])
        model.predict(seqs, verbose=0)
        """,
        "S09",
        must=("input_dim", "max id + 1", "vectorize.vocabulary_size() = 9"),
        must_not=("Flatten", "batch size"),
        fix="input_dim = vocabulary_size()",
    ),
    Case(
        "embedding_after_string_lookup_without_oov_row",
        "data",
        """
        colors = ["red", "green", "blue", "black"]
        lookup = keras.layers.StringLookup(vocabulary=colors)  # index 0 is kept for OOV
        inp = keras.Input((1,), dtype="string")
        vec = keras.layers.Flatten()(keras.layers.Embedding(len(colors), 3)(lookup(inp)))
        model = keras.Model(inp, keras.layers.Dense(1)(vec))
        model.compile("adam", "mse")
        x = tf.constant([["red"], ["black"], ["blue"], ["green"]])
        model.fit(x, np.zeros(4), epochs=1, verbose=0)
        """,
        "S09",
        must=("lookup.vocabulary_size() = 5", "input_dim"),
        must_not=("Flatten", "batch size", "start at 1"),
        fix="input_dim = lookup.vocabulary_size()",
    ),
    Case(
        "two_embeddings_second_one_too_small",
        "data",
        """
        users = np.array([[0], [1], [2], [3]]); items = np.array([[5], [12], [20], [3]])
        u_in = keras.Input((1,), dtype="int32", name="user"); i_in = keras.Input((1,), dtype="int32", name="item")
        u = keras.layers.Embedding(10, 4, name="user_emb")(u_in)
        i = keras.layers.Embedding(20, 4, name="item_emb")(i_in)
        score = keras.layers.Dot(axes=2)([u, i])
        model = keras.Model([u_in, i_in], keras.layers.Flatten()(score))
        model.compile("adam", "mse")
        model.fit([users, items], np.ones(4), epochs=1, verbose=0)
        """,
        "S09",
        must=("'item_emb'", "input_dim", "21"),
        must_not=("'user_emb'", "batch size"),
        fix="input_dim = max id + 1",
    ),
    Case(
        "gather_index_past_the_table",
        "data",
        """
        class_names = tf.constant(["cat", "dog", "bird", "fish", "frog"])
        predicted = tf.constant([0, 4, 5])
        tf.gather(class_names, predicted)
        """,
        "S09",
        must=("below 5", "GatherV2"),
        must_not=("Embedding", "input_dim"),
        fix="indices below the number of rows",
    ),
    Case(
        "gather_negative_padding_index",
        "data",
        """
        table = tf.random.normal((6, 3))
        idx = tf.constant([2, -1, 4])  # -1 marks padding
        tf.gather(table, idx)
        """,
        "S09",
        must=("negative", "-1"),
        must_not=("input_dim", "Embedding"),
        fix="map negative markers to a valid id",
    ),
]

S10 = [
    Case(
        "py_function_in_map_loses_shape_sequential_fit",
        "data",
        """
        x = np.random.rand(16, 4).astype("float32"); y = np.random.rand(16, 1).astype("float32")
        def augment(features, label):
            features = tf.py_function(lambda f: f + 0.01, [features], tf.float32)
            return features, label
        train_ds = tf.data.Dataset.from_tensor_slices((x, y)).map(augment).batch(8)
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(train_ds, epochs=1, verbose=0)
        """,
        "S10",
        must=("train_ds", "augment", "ensure_shape", "(4,)", "py_function"),
        must_not=("batch(", "Flatten", "Input("),
        fix="tf.ensure_shape in the mapped function",
    ),
    Case(
        "numpy_function_in_map_functional_fit",
        "data",
        """
        x = np.random.rand(16, 6).astype("float32"); y = np.random.rand(16, 1).astype("float32")
        def load_example(features, label):
            return np.log1p(features), label
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        ds = ds.map(lambda f, l: tf.numpy_function(load_example, [f, l], [tf.float32, tf.float32]))
        ds = ds.batch(4).prefetch(1)
        inp = keras.Input((6,))
        model = keras.Model(inp, keras.layers.Dense(1)(inp))
        model.compile("adam", "mse")
        model.fit(ds, epochs=1, verbose=0)
        """,
        "S10",
        must=("numpy_function", "ensure_shape", "(6,)"),
        must_not=("Flatten", "batch size"),
        fix="tf.ensure_shape in the mapped function",
    ),
    Case(
        "from_generator_with_output_types_only",
        "data",
        """
        def rows():
            for i in range(12):
                yield np.full(3, i, "float32"), np.float32(i % 2)
        ds = tf.data.Dataset.from_generator(rows, output_types=(tf.float32, tf.float32)).batch(4)
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        model.fit(ds, epochs=1, verbose=0)
        """,
        "S10",
        must=("output_signature", "rows", "shape=(3,)"),
        must_not=("Flatten", "ensure_shape"),
        fix="output_signature=(tf.TensorSpec(...), ...)",
    ),
    Case(
        "py_function_on_the_labels_only",
        "data",
        """
        x = np.random.rand(8, 4).astype("float32"); y = np.arange(8).astype("float32")
        def smooth(label):
            return tf.py_function(lambda t: t * 0.9, [label], tf.float32)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).map(lambda f, l: (f, smooth(l))).batch(4)
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(ds, epochs=1, verbose=0)
        """,
        "S10",
        must=("labels (y)", "ensure_shape(y"),
        must_not=("Input(", "Flatten", "inputs (x) of"),
        fix="tf.ensure_shape on the label",
    ),
    Case(
        "py_function_images_evaluate",
        "data",
        """
        images = np.random.rand(8, 8, 8, 3).astype("float32"); labels = np.zeros((8, 1), "float32")
        def decode(img, lab):
            return tf.py_function(lambda t: t / 255.0, [img], tf.float32), lab
        val_ds = tf.data.Dataset.from_tensor_slices((images, labels)).map(decode).batch(4)
        cnn = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(2, 3),
                                keras.layers.Flatten(), keras.layers.Dense(1)])
        cnn.compile("adam", "mse")
        cnn.evaluate(val_ds, verbose=0)
        """,
        "S10",
        must=("val_ds", "decode", "(8, 8, 3)", "ensure_shape"),
        must_not=("Flatten", "channel axis"),
        fix="tf.ensure_shape in the mapped function",
    ),
    Case(
        "decode_image_then_resize_in_map",
        "data",
        """
        import os, tempfile
        folder = tempfile.mkdtemp()
        for i in range(3):
            png = tf.io.encode_png(tf.zeros((30, 20, 3), tf.uint8))
            tf.io.write_file(os.path.join(folder, f"img{i}.png"), png)
        def load_and_resize(path):
            image = tf.io.decode_image(tf.io.read_file(path), channels=3)
            return tf.image.resize(image, (24, 24))
        files = tf.data.Dataset.list_files(os.path.join(folder, "*.png"))
        images = files.map(load_and_resize)
        """,
        "S10",
        must=("decode_image", "expand_animations=False", "load_and_resize"),
        must_not=("batch", "Flatten", "Input("),
        fix="decode_image(..., expand_animations=False)",
    ),
    Case(
        "decode_image_into_fit",
        "data",
        """
        import os, tempfile
        folder = tempfile.mkdtemp()
        for i in range(4):
            png = tf.io.encode_png(tf.zeros((16, 16, 3), tf.uint8))
            tf.io.write_file(os.path.join(folder, f"img{i}.png"), png)
        def load(path):
            image = tf.io.decode_image(tf.io.read_file(path), channels=3)
            return tf.cast(image, tf.float32) / 255.0
        files = tf.data.Dataset.list_files(os.path.join(folder, "*.png"), shuffle=False)
        train_ds = tf.data.Dataset.zip((files.map(load), tf.data.Dataset.range(4).map(lambda i: i % 2)))
        train_ds = train_ds.batch(2)
        model = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(2, 3),
                                  keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(train_ds, epochs=1, verbose=0)
        """,
        "S10",
        must=("train_ds", "expand_animations=False", "(16, 16, 3)"),
        must_not=("Flatten", "batch size"),
        fix="decode_image(..., expand_animations=False)",
    ),
    Case(
        "py_function_model_without_input",
        "data",
        """
        x = np.random.rand(8, 5).astype("float32"); y = np.random.rand(8, 1).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        ds = ds.map(lambda f, l: (tf.py_function(lambda t: t * 2, [f], tf.float32), l)).batch(4)
        model = keras.Sequential([keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(ds, epochs=1, verbose=0)
        """,
        "S10",
        must=("ensure_shape", "(5,)", "the mapped function"),
        must_not=("Flatten", "Input("),
        fix="tf.ensure_shape in the mapped function",
    ),
]

S12 = [
    Case(
        "x_and_y_of_different_lengths",
        "data",
        """
        x = np.random.rand(100, 4).astype("float32"); y = np.random.randint(0, 2, 100)
        x_train = x[:80]; y_train = y[:70]
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        model.fit(x_train, y_train, epochs=1, verbose=0)
        """,
        "S12",
        must=("x_train", "y_train", "80", "70", "same rows"),
        must_not=("batch size", "Flatten", "reshape"),
        fix="the same rows for x and y",
    ),
    Case(
        "validation_data_of_different_lengths",
        "data",
        """
        x = np.random.rand(50, 3).astype("float32"); y = np.random.rand(50, 1).astype("float32")
        x_val, y_val = x[40:], y[:5]
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(x[:40], y[:40], validation_data=(x_val, y_val), epochs=1, verbose=0)
        """,
        "S12",
        must=("validation_data", "x_val", "10", "5"),
        must_not=("batch size", "Flatten"),
        fix="the same rows for x_val and y_val",
    ),
    Case(
        "two_input_model_given_one_concatenated_array",
        "data",
        """
        num = keras.Input((4,), name="numeric"); cat = keras.Input((3,), name="onehot")
        merged = keras.layers.Concatenate()([num, cat])
        model = keras.Model([num, cat], keras.layers.Dense(1)(merged))
        model.compile("adam", "mse")
        features = np.random.rand(16, 7).astype("float32")
        model.fit(features, np.zeros(16), epochs=1, verbose=0)
        """,
        "S12",
        must=("split", "features[:, 0:4]", "features[:, 4:7]"),
        must_not=("Flatten", "batch size", "reshape"),
        fix="one array per input",
    ),
    Case(
        "two_input_model_predict_with_one_array",
        "data",
        """
        image = keras.Input((8,), name="image"); meta = keras.Input((2,), name="meta")
        h = keras.layers.Concatenate()([keras.layers.Dense(4)(image), meta])
        model = keras.Model([image, meta], keras.layers.Dense(1)(h))
        x_image = np.random.rand(5, 8).astype("float32")
        model.predict(x_image, verbose=0)
        """,
        "S12",
        must=("2 inputs", "'image'", "'meta'", "x_image"),
        must_not=("Flatten", "batch size", "split it"),
        fix="a list or dict with one array per input",
    ),
    Case(
        "input_dict_with_a_misnamed_key",
        "data",
        """
        a = keras.Input((4,), name="age"); b = keras.Input((3,), name="bmi")
        model = keras.Model({"age": a, "bmi": b}, keras.layers.Dense(1)(keras.layers.Concatenate()([a, b])))
        data = {"age": np.zeros((6, 4), "float32"), "BMI": np.zeros((6, 3), "float32")}
        model.predict(data, verbose=0)
        """,
        "S12",
        must=("'BMI'", "'bmi'", "rename"),
        must_not=("Flatten", "batch size"),
        fix="dict keys named as the Inputs",
    ),
    Case(
        "validation_data_without_labels",
        "data",
        """
        x = np.random.rand(20, 4).astype("float32"); y = np.random.rand(20, 1).astype("float32")
        x_val = np.random.rand(5, 4).astype("float32")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(x, y, validation_data=x_val, epochs=1, verbose=0)
        """,
        "S12",
        must=("validation_data=(x_val, y_val)", "labels are missing"),
        must_not=("None values", "Flatten", "batch size"),
        fix="validation_data=(x_val, y_val)",
    ),
    Case(
        "validation_data_with_four_parts",
        "data",
        """
        x = np.random.rand(20, 4).astype("float32"); y = np.random.rand(20, 1).astype("float32")
        val = (x[:5], y[:5], np.ones(5), np.ones(5))
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(x, y, validation_data=val, epochs=1, verbose=0)
        """,
        "S12",
        must=("tuple of 4", "sample_weight"),
        must_not=("Flatten", "batch size"),
        fix="validation_data=(x_val, y_val[, w])",
    ),
    Case(
        "features_and_labels_passed_as_one_list",
        "data",
        """
        x_train = np.random.rand(20, 4).astype("float32"); y_train = np.random.rand(20, 1).astype("float32")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit([x_train, y_train], epochs=1, verbose=0)
        """,
        "S12",
        must=("fit(x_train, y_train",),
        must_not=("None values", "Flatten"),
        fix="fit(x, y)",
    ),
    Case(
        "two_inputs_with_different_sample_counts",
        "data",
        """
        left = keras.Input((4,)); right = keras.Input((4,))
        model = keras.Model([left, right], keras.layers.Dense(1)(keras.layers.Add()([left, right])))
        model.compile("adam", "mse")
        x_left = np.zeros((32, 4), "float32"); x_right = np.zeros((30, 4), "float32")
        model.fit([x_left, x_right], np.zeros(32), epochs=1, verbose=0)
        """,
        "S12",
        must=("x_right", "30", "32"),
        must_not=("batch size", "Flatten"),
        fix="the same rows for every input",
    ),
]

S13 = [
    Case(
        "variable_length_sequences_batch",
        "data",
        """
        sentences = [[4, 8, 15], [16, 23, 42, 7, 1], [3, 9]]
        ds = tf.data.Dataset.from_generator(lambda: iter(sentences),
                                            output_signature=tf.TensorSpec((None,), tf.int32))
        ds = ds.batch(2)
        for batch in ds:
            print(batch.shape)
        """,
        "S13",
        must=("padded_batch(2)", "ragged_batch", "(3,)", "(5,)"),
        must_not=("resize", "batch size", "Flatten"),
        fix="padded_batch / ragged_batch",
    ),
    Case(
        "split_strings_then_batch",
        "data",
        """
        reviews = tf.data.Dataset.from_tensor_slices(["great film", "not my taste at all", "meh"])
        tokens = reviews.map(lambda s: tf.strings.split(s)).batch(3)
        next(iter(tokens))
        """,
        "S13",
        must=("tokens", "padded_batch(3)"),
        must_not=("resize", "Flatten"),
        fix="padded_batch / ragged_batch",
    ),
    Case(
        "images_of_different_sizes_predict",
        "data",
        """
        photos = [np.zeros((32, 32, 3), "float32"), np.zeros((40, 30, 3), "float32")]
        ds = tf.data.Dataset.from_generator(lambda: iter(photos),
                                            output_signature=tf.TensorSpec((None, None, 3), tf.float32))
        ds = ds.batch(2)
        cnn = keras.Sequential([keras.Input((32, 32, 3)), keras.layers.Conv2D(4, 3),
                                keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(1)])
        cnn.predict(ds, verbose=0)
        """,
        "S13",
        must=("tf.image.resize", "(32, 32)", "(40, 30, 3)"),
        must_not=("padded_batch", "Flatten"),
        fix="tf.image.resize in the map",
    ),
    Case(
        "sequences_and_labels_fit",
        "data",
        """
        def examples():
            for n in (3, 5, 4, 2):
                yield np.arange(1, n + 1, dtype="int32"), np.float32(n % 2)
        spec = (tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.float32))
        train_ds = tf.data.Dataset.from_generator(examples, output_signature=spec).batch(2)
        model = keras.Sequential([keras.layers.Embedding(10, 4), keras.layers.GlobalAveragePooling1D(),
                                  keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        model.fit(train_ds, epochs=1, verbose=0)
        """,
        "S13",
        must=("train_ds", "padded_batch(2)", "inputs (x)"),
        must_not=("resize", "Flatten", "batch size"),
        fix="padded_batch",
    ),
    Case(
        "text_vectorization_per_example_then_batch",
        "data",
        """
        texts = ["a fine day", "rain again today in the hills", "sun"]
        vectorize = keras.layers.TextVectorization()
        vectorize.adapt(texts)
        ds = tf.data.Dataset.from_tensor_slices((texts, [1, 0, 1]))
        ds = ds.map(lambda text, label: (vectorize(text), label)).batch(3)
        model = keras.Sequential([keras.layers.Embedding(20, 4), keras.layers.GlobalAveragePooling1D(),
                                  keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        model.evaluate(ds, verbose=0)
        """,
        "S13",
        must=("padded_batch(3)", "inputs (x)"),
        must_not=("resize", "Flatten", "batch size"),
        fix="padded_batch, or output_sequence_length",
    ),
    Case(
        "variable_length_labels_batch",
        "data",
        """
        def tagged():
            for n in (2, 4, 3):
                yield np.zeros(5, "float32"), np.ones(n, "int32")
        spec = (tf.TensorSpec((5,), tf.float32), tf.TensorSpec((None,), tf.int32))
        ds = tf.data.Dataset.from_generator(tagged, output_signature=spec).batch(3)
        next(iter(ds))
        """,
        "S13",
        must=("labels (y)", "padded_batch(3)"),
        must_not=("resize", "inputs (x)"),
        fix="padded_batch",
    ),
    Case(
        "decoded_png_files_of_different_sizes",
        "data",
        """
        import os, tempfile
        folder = tempfile.mkdtemp()
        for i, (h, w) in enumerate([(24, 24), (20, 28), (24, 24)]):
            png = tf.io.encode_png(tf.zeros((h, w, 3), tf.uint8))
            tf.io.write_file(os.path.join(folder, f"img{i}.png"), png)
        def load(path):
            return tf.cast(tf.io.decode_png(tf.io.read_file(path), channels=3), tf.float32) / 255.0
        files = tf.data.Dataset.list_files(os.path.join(folder, "*.png"), shuffle=False)
        images = files.map(load).batch(3)
        model = keras.Sequential([keras.Input((24, 24, 3)), keras.layers.Conv2D(2, 3),
                                  keras.layers.GlobalAveragePooling2D()])
        model.predict(images, verbose=0)
        """,
        "S13",
        must=("tf.image.resize", "(24, 24)", "images"),
        must_not=("padded_batch", "Flatten"),
        fix="tf.image.resize in the map",
    ),
]

CASES = S09 + S10 + S12 + S13
