"""Family: tf.data element contracts, from the dataset to the model.

The documented contracts: ``Dataset.map`` unpacks a tuple element into
positional arguments but passes a dict element as ONE argument (``lambda ex:
(ex["image"], ex["label"])``); ``from_tensor_slices`` slices a tuple
``(features, labels)`` into pairs but converts a list ``[features, labels]``
into one tensor, which needs equal shapes; ``batch()`` stacks elements of one
shape, so per-example results of variable size (``tf.image.resize(...,
preserve_aspect_ratio=True)``, ``tf.boolean_mask``) need ``padded_batch``,
``ragged_batch`` or a fixed-size resize/pad in the ``map``; ``from_generator``'s
``output_signature`` is the only shape the pipeline knows, so
``TensorSpec(shape=None)`` leaves layers that need a rank or a channel axis
without one; an ``Embedding(input_dim)`` accepts ids in ``[0, input_dim)``, so
hash buckets (``to_hash_bucket_fast(s, num_buckets)``) need ``input_dim >=
num_buckets``; a dict of labels must be keyed by the model's output names
(the ``name=`` of the output layers, not Keras 2's ``<name>_output``), and a
dict of features fits only a model whose inputs carry those names (a
``Sequential`` takes one tensor: stack the columns, or one ``keras.Input(name=)``
per column).

The evidence a diagnosis needs: which component of the element (by key or
position) has which shape, dtype or structure, the transformation that made
it so, and what the next stage (``batch``, the layer, ``fit``'s structure
check) expected instead.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: in user code: ... TypeError: outer_factory.<locals>.inner_factory.<locals>.<lambda>()
    #   missing 1 required positional argument: 'label'
    Case(
        name="map_with_two_parameters_on_a_dict_element",
        family="data",
        code="""
        images = np.random.randint(0, 256, (8, 16, 16, 3), dtype=np.uint8)
        labels = np.random.randint(0, 3, 8)
        ds = tf.data.Dataset.from_tensor_slices({"image": images, "label": labels})   # like tfds without as_supervised
        ds = ds.map(lambda image, label: (tf.cast(image, tf.float32) / 255.0, label))
        """,
        expect="S12",
        must=("dict",),
        fix="ds.map(lambda ex: (tf.cast(ex['image'], tf.float32) / 255.0, ex['label']))",
    ),
    # InvalidArgumentError: Graph execution error: ... Cannot add tensor to the batch: number of elements does not match.
    #   Shapes are: [tensor]: [102,128,3], [batch]: [77,128,3] [[{{node IteratorGetNext}}]]
    Case(
        name="resize_with_preserve_aspect_ratio_then_batch",
        family="data",
        code="""
        def photos():
            for h in (120, 160, 120, 160, 120, 160):
                yield np.random.rand(h, 200, 3).astype("float32"), h % 3
        ds = tf.data.Dataset.from_generator(photos, output_signature=(
            tf.TensorSpec((None, None, 3), tf.float32), tf.TensorSpec((), tf.int64)))
        ds = ds.map(lambda img, y: (tf.image.resize(img, (128, 128), preserve_aspect_ratio=True), y))
        ds = ds.batch(4)

        model = keras.Sequential([
            keras.Input((128, 128, 3)),
            keras.layers.Conv2D(4, 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(3, activation="softmax"),
        ])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(ds, epochs=1, verbose=0)
        """,
        expect="S13",
        must=("pad",),
        must_not=("input_shape",),
        fix="tf.image.resize_with_pad(img, 128, 128), or drop preserve_aspect_ratio",
    ),
    # InvalidArgumentError: Cannot add tensor to the batch: number of elements does not match.
    #   Shapes are: [tensor]: [4], [batch]: [2] [Op:IteratorGetNext]
    Case(
        name="boolean_mask_in_map_then_batch",
        family="data",
        code="""
        sequences = np.array([[3, 0, 5, 0], [1, 2, 0, 0], [4, 4, 4, 1]])
        ds = tf.data.Dataset.from_tensor_slices(sequences)
        ds = ds.map(lambda s: tf.boolean_mask(s, s > 0))       # drop the padding zeros
        ds = ds.batch(3)
        first = next(iter(ds))
        """,
        expect="S13",
        must=("padded_batch",),
        fix="ds.padded_batch(3) (or ragged_batch), or keep the zeros and mask in the model",
    ),
    # ValueError: as_list() is not defined on an unknown TensorShape.
    Case(
        name="from_generator_signature_with_unknown_image_shape",
        family="data",
        code="""
        def gen():
            for _ in range(8):
                yield np.random.rand(32, 32, 3).astype("float32"), np.random.randint(0, 2)

        ds = tf.data.Dataset.from_generator(gen, output_signature=(
            tf.TensorSpec(shape=None, dtype=tf.float32),
            tf.TensorSpec(shape=(), dtype=tf.int64),
        )).batch(4)
        model = keras.Sequential([
            keras.layers.Conv2D(8, 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(1, activation="sigmoid"),
        ])
        model.compile("adam", "binary_crossentropy")
        model.fit(ds, epochs=1, verbose=0)
        """,
        expect="S10",
        must=("output_signature",),
        fix="tf.TensorSpec(shape=(32, 32, 3), dtype=tf.float32) in output_signature",
    ),
    # InvalidArgumentError: Graph execution error: Detected at node .../embedding/GatherV2 ...
    #   indices[0,0] = 354 is not in [0, 100) [[{{node sequential/embedding/GatherV2}}]]
    Case(
        name="hash_buckets_larger_than_the_embedding",
        family="data",
        code="""
        words = tf.constant([["the", "cat", "sat"], ["a", "dog", "ran"]])
        ds = tf.data.Dataset.from_tensor_slices((words, [0, 1]))
        ds = ds.map(lambda w, y: (tf.strings.to_hash_bucket_fast(w, 1000), y)).batch(2)
        model = keras.Sequential([
            keras.Input((3,), dtype="int64"),
            keras.layers.Embedding(100, 8),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(1, activation="sigmoid"),
        ])
        model.compile("adam", "binary_crossentropy")
        model.fit(ds, epochs=1, verbose=0)
        """,
        expect="S09",
        must=("input_dim",),
        fix="Embedding(1000, 8) (input_dim = the number of hash buckets)",
    ),
    # ValueError: Can't convert non-rectangular Python sequence to Tensor.
    Case(
        name="from_tensor_slices_given_a_list_of_features_and_labels",
        family="data",
        code="""
        x = np.random.rand(8, 4).astype("float32")
        y = np.random.randint(0, 2, 8)
        ds = tf.data.Dataset.from_tensor_slices([x, y])
        """,
        expect="S12",
        must=("tuple",),
        must_not=("pad",),
        fix="tf.data.Dataset.from_tensor_slices((x, y))",
    ),
    # TypeError: Expected float32, but got digit_output of type 'str'.
    Case(
        name="dataset_label_dict_keyed_by_keras2_output_names",
        family="data",
        code="""
        inp = keras.Input((4,))
        h = keras.layers.Dense(8, activation="relu")(inp)
        digit = keras.layers.Dense(10, activation="softmax", name="digit")(h)
        parity = keras.layers.Dense(1, activation="sigmoid", name="parity")(h)
        model = keras.Model(inp, [digit, parity])
        model.compile("adam", loss={"digit": "sparse_categorical_crossentropy", "parity": "binary_crossentropy"})

        y = np.random.randint(0, 10, 8)
        targets = {"digit_output": y, "parity_output": (y % 2).astype("float32")}
        ds = tf.data.Dataset.from_tensor_slices((np.random.rand(8, 4).astype("float32"), targets)).batch(4)
        model.fit(ds, epochs=1, verbose=0)
        """,
        expect="S12",
        must=("digit_output",),
        must_not=("tf.cast",),
        fix="key the labels by the output names: {'digit': y, 'parity': y % 2}",
    ),
    # ValueError: Exception encountered when calling Sequential.call(). The structure of `inputs` doesn't match
    #   the expected structure. Expected: keras_tensor_.. Received: inputs={'age': ..., 'bmi': ..., 'bp': ...}
    Case(
        name="dict_of_feature_columns_into_a_sequential_model",
        family="data",
        code="""
        columns = {
            "age": np.random.rand(8).astype("float32"),
            "bmi": np.random.rand(8).astype("float32"),
            "bp": np.random.rand(8).astype("float32"),
        }
        ds = tf.data.Dataset.from_tensor_slices((columns, np.random.randint(0, 2, 8))).batch(4)
        model = keras.Sequential([
            keras.Input((3,)),
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dense(1, activation="sigmoid"),
        ])
        model.compile("adam", "binary_crossentropy")
        model.fit(ds, epochs=1, verbose=0)
        """,
        expect="S12",
        must=("dict",),
        must_not=("add an axis", "reshape"),
        fix="ds.map(lambda f, y: (tf.stack([f['age'], f['bmi'], f['bp']], axis=-1), y)), or one keras.Input(name=) per column",
    ),
]
