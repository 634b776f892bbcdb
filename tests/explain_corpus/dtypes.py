"""Dtypes that cannot meet outside a loss (S11): uint8 pixels with floats, float64 data against
float32 weights, text columns in the features, a float32 variable under mixed precision.

Keras 3 casts float64 arrays to float32 when they enter a layer, so a float64
array only fails where the user's own code meets a float32 weight.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "uint8_image_minus_float_in_map",
        "dtypes",
        """
        images = np.random.randint(0, 256, (8, 4, 4, 3), dtype=np.uint8)
        ds = tf.data.Dataset.from_tensor_slices(images)
        ds = ds.map(lambda image: (image - 127.5) / 127.5)
        """,
        "S11",
        must=("uint8", "tf.cast", "mapped function"),
        must_not=("labels", "loss", "astype"),
        fix="tf.cast(image, tf.float32) first",
    ),
    Case(
        "uint8_image_minus_mean_tensor_in_named_map",
        "dtypes",
        """
        mean = tf.constant([0.485, 0.456, 0.406])
        def normalize(image, label):
            return image - mean, label
        images = np.random.randint(0, 256, (8, 4, 4, 3), dtype=np.uint8)
        train_ds = tf.data.Dataset.from_tensor_slices((images, np.zeros(8))).map(normalize)
        """,
        "S11",
        must=("uint8", "float32", "tf.cast", "normalize"),
        must_not=("labels", "loss", "astype"),
        fix="tf.cast(image, tf.float32) first",
    ),
    Case(
        "uint8_tensor_divided_by_float",
        "dtypes",
        """
        batch = tf.constant(np.random.randint(0, 256, (2, 4, 4, 3), dtype=np.uint8))
        scaled = batch / 255.0
        """,
        "S11",
        must=("uint8", "tf.cast"),
        must_not=("labels", "loss"),
        fix="tf.cast(batch, tf.float32) / 255.0",
    ),
    Case(
        "float64_numpy_against_float32_weights_in_custom_loop",
        "dtypes",
        """
        dense = keras.layers.Dense(1)
        dense.build((None, 3))
        x = np.random.rand(4, 3)  # NumPy's default: float64
        logits = tf.matmul(x, dense.kernel) + dense.bias
        """,
        "S11",
        must=("float64", "float32", "astype('float32')"),
        must_not=("labels", "loss", "Flatten"),
        fix="x.astype('float32')",
    ),
    Case(
        "float64_constant_times_float32_variable",
        "dtypes",
        """
        w = tf.Variable(tf.ones((3, 2)))
        features = tf.constant(np.linspace(0, 1, 6).reshape(2, 3))
        hidden = features @ w
        """,
        "S11",
        must=("float64", "astype('float32')"),
        must_not=("labels", "loss"),
        fix="float32 data",
    ),
    Case(
        "text_column_in_dataframe_features",
        "dtypes",
        """
        import pandas as pd
        df = pd.DataFrame({"rooms": [3.0, 2.0, 4.0, 1.0], "city": ["Oslo", "Bergen", "Oslo", "Tromso"],
                           "price": [5.0, 3.0, 6.0, 2.0]})
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(df[["rooms", "city"]], df["price"], epochs=1, verbose=0)
        """,
        "S11",
        must=("'city'", "encode", "Oslo"),
        must_not=("reshape", "Flatten", "labels"),
        fix="encode the text column",
    ),
    Case(
        "question_marks_in_a_numeric_column",
        "dtypes",
        """
        import pandas as pd
        cars = pd.DataFrame({"weight": [3504.0, 3693.0, 3436.0], "horsepower": ["130", "?", "150"]})
        x = cars.values
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        model.predict(x, verbose=0)
        """,
        "S11",
        must=("pd.to_numeric", "'horsepower'", "made from the DataFrame `cars`", "missing value"),
        must_not=("reshape", "one-hot"),
        fix="pd.to_numeric(..., errors='coerce')",
    ),
    Case(
        "object_array_of_numbers_direct_call",
        "dtypes",
        """
        import pandas as pd
        people = pd.DataFrame({"age": [31.0, 45.0, 22.0], "smoker": [True, False, True]})
        x = people.values  # floats and bools together: dtype object
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        model(x)
        """,
        "S11",
        must=("x.astype('float32')", "object"),
        must_not=("encode", "reshape", "Flatten"),
        fix="x.astype('float32')",
    ),
    Case(
        "object_array_into_from_tensor_slices",
        "dtypes",
        """
        rows = [[5.1, 3.5, "setosa"], [6.2, 2.9, "versicolor"]]
        data = np.array(rows, dtype=object)
        ds = tf.data.Dataset.from_tensor_slices(data)
        """,
        "S11",
        must=("column 2", "setosa", "encode"),
        must_not=("reshape", "Flatten"),
        fix="encode the text column",
    ),
    Case(
        "numpy_strings_into_a_string_input_model",
        "dtypes",
        """
        words = keras.layers.StringLookup(vocabulary=["red", "green", "blue"])
        inp = keras.Input((1,), dtype="string")
        out = keras.layers.Dense(1)(keras.layers.Flatten()(keras.layers.Embedding(4, 2)(words(inp))))
        model = keras.Model(inp, out)
        colors = np.array([["red"], ["blue"], ["green"]])
        model.predict(colors, verbose=0)
        """,
        "S11",
        must=("tf.constant(colors)", "string Input"),
        must_not=("one-hot", "astype", "category codes"),
        fix="tf.constant(x) for a string Input",
    ),
    Case(
        "numpy_strings_into_a_numeric_model",
        "dtypes",
        """
        sizes = np.array([["small"], ["large"], ["medium"], ["small"]])
        model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(sizes, np.zeros(4), epochs=1, verbose=0)
        """,
        "S11",
        must=("`sizes`", "encode", "StringLookup"),
        must_not=("astype('float32')", "reshape"),
        fix="encode the text, or a string Input with StringLookup",
    ),
    Case(
        "float32_variable_in_mixed_float16_layer",
        "dtypes",
        """
        keras.mixed_precision.set_global_policy("mixed_float16")
        try:
            class Scale(keras.layers.Layer):
                def __init__(self, **kwargs):
                    super().__init__(**kwargs)
                    self.gain = tf.Variable(2.0)
                def call(self, x):
                    return x * self.gain
            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4), Scale(name="scale")])
        finally:
            keras.mixed_precision.set_global_policy("float32")
        """,
        "S11",
        must=("'scale'", "mixed_float16", "add_weight", "self.gain"),
        must_not=("shapes fit", "Flatten", "labels"),
        fix="self.add_weight, or tf.cast(..., self.compute_dtype)",
    ),
    Case(
        "float32_variable_in_mixed_float16_functional",
        "dtypes",
        """
        keras.mixed_precision.set_global_policy("mixed_float16")
        try:
            class AddBias(keras.layers.Layer):
                def build(self, input_shape):
                    self.offset = tf.Variable(tf.zeros(input_shape[-1:]), trainable=False)
                def call(self, x):
                    return x + self.offset
            inp = keras.Input((4,))
            out = keras.layers.Dense(1, dtype="float32")(AddBias(name="add_bias")(keras.layers.Dense(4)(inp)))
        finally:
            keras.mixed_precision.set_global_policy("float32")
        """,
        "S11",
        must=("'add_bias'", "add_weight", "float16"),
        must_not=("shapes fit", "labels"),
        fix="self.add_weight",
    ),
]
