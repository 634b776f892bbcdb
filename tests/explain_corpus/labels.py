"""Labels against the loss and the output layer: encoding, class count, output units."""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "int_labels_with_categorical_crossentropy",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(10, activation="softmax")])
        model.compile("adam", "categorical_crossentropy")
        x = np.zeros((16, 8), "float32"); y = np.arange(16) % 10
        model.fit(x, y, epochs=1, verbose=0)
        """,
        "M05",
        must=("sparse_categorical_crossentropy",),
        must_not=("Flatten", "GlobalAveragePooling"),
        fix="the sparse loss (or one-hot labels)",
    ),
    Case(
        "two_sigmoid_units_with_binary_crossentropy",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        x = np.zeros((16, 8), "float32"); y = np.arange(16) % 2
        model.fit(x, y, epochs=1, verbose=0)
        """,
        "M04",
        must=("Dense(1",),
        must_not=("Flatten", "GlobalAveragePooling"),
        fix="Dense(1, activation='sigmoid')",
    ),
]

CASES += [
    Case(
        "onehot_labels_with_sparse_loss",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(10, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy")
        y = keras.utils.to_categorical(np.arange(16) % 10, 10)
        model.fit(np.zeros((16, 8), "float32"), y, epochs=1, verbose=0)
        """,
        "M05",
        must=("categorical_crossentropy", "argmax"),
        must_not=("Flatten",),
        fix="categorical_crossentropy, or class ids",
    ),
    Case(
        "onehot_with_wrong_class_count",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(10, activation="softmax")])
        model.compile("adam", "categorical_crossentropy")
        y = keras.utils.to_categorical(np.arange(16) % 5, 5)
        model.fit(np.zeros((16, 8), "float32"), y, epochs=1, verbose=0)
        """,
        "M04",
        must=("5 units",),
        must_not=("Flatten",),
        fix="as many units as classes",
    ),
    Case(
        "binary_loss_on_two_unit_softmax",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2, activation="softmax")])
        model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
        model.fit(np.zeros((16, 8), "float32"), np.arange(16) % 2, epochs=1, verbose=0)
        """,
        "M03",
        must=("Dense(1", "sparse_categorical_crossentropy"),
        must_not=("Flatten",),
        fix="Dense(1, sigmoid), or the sparse loss",
    ),
    Case(
        "multiclass_ids_with_binary_loss",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        y = np.arange(16) % 4
        model.fit(np.zeros((16, 8), "float32"), y, epochs=1, verbose=0)
        """,
        "M04",
        must=("4 classes", "softmax", "sparse_categorical_crossentropy"),
        must_not=("Flatten", "Dense(1"),
        fix="softmax with the sparse loss",
    ),
    Case(
        "onehot_labels_for_one_sigmoid_unit",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy")
        y = keras.utils.to_categorical(np.arange(16) % 2, 2)
        model.fit(np.zeros((16, 8), "float32"), y, epochs=1, verbose=0)
        """,
        "M05",
        must=("argmax",),
        must_not=("Flatten",),
        fix="class ids, or a 2-unit softmax",
    ),
    Case(
        "int_labels_categorical_in_evaluate",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", "categorical_crossentropy")
        model.evaluate(np.zeros((6, 8), "float32"), np.array([0, 1, 2, 0, 1, 2]), verbose=0)
        """,
        "M05",
        must=("sparse_categorical_crossentropy",),
        must_not=("Flatten",),
        fix="the sparse loss",
    ),
    Case(
        "int_labels_categorical_from_dataset",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", "categorical_crossentropy")
        ds = tf.data.Dataset.from_tensor_slices((np.zeros((12, 8), "float32"), np.arange(12) % 3)).batch(4)
        model.fit(ds, epochs=1, verbose=0)
        """,
        "M05",
        must=("sparse_categorical_crossentropy",),
        must_not=("Flatten",),
        fix="the sparse loss",
    ),
    Case(
        "one_based_labels_sparse",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(np.zeros((12, 8), "float32"), np.arange(12) % 3 + 1, epochs=1, verbose=0)
        """,
        "P12",
        must=("subtract 1",),
        fix="labels from 0",
    ),
    Case(
        "too_few_output_units_sparse",
        "labels",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(np.zeros((12, 8), "float32"), np.arange(12) % 6, epochs=1, verbose=0)
        """,
        "P12",
        must=("units",),
        fix="one output unit per class",
    ),
    Case(
        "float_labels_sparse_in_custom_loss",
        "labels",
        """
        logits = tf.zeros((4, 3))
        labels = tf.constant([0.0, 1.0, 2.0, 1.0])
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        """,
        "S06",
        must=("int",),
        fix="tf.cast(labels, tf.int32)",
    ),
]
