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
