"""Family: keras.ops and tensor manipulation, in eager code, functional models and layers.

API: ``keras.ops.reshape`` / ``concatenate`` / ``squeeze`` / ``einsum`` / ``mean`` /
``split`` / ``take`` (and the ``tf.*`` ops a custom layer may use), applied to NumPy
arrays and tensors in a notebook cell, to ``KerasTensor`` s while a functional model is
built, and inside ``keras.layers.Lambda`` functions and custom layers' ``call``.
Contract (from the Keras 3 ops reference and the Lambda / Layer docs): ``reshape``
keeps the number of values, and in a model the target must leave the batch axis free
(``-1``); ``concatenate`` needs every axis except ``axis`` to agree; ``squeeze(axis=a)``
needs size 1 on ``a``; each ``einsum`` operand needs as many subscript letters as it has
axes; element-wise ops broadcast from the right, so a ``mean(axis=1)`` of ``(n, f)`` is
``(n,)`` and only matches ``(n, f)`` with ``keepdims=True``; ``split`` with an int needs
the axis to divide evenly (unequal parts are given as split points); ``take`` needs
integer indices in ``[0, size)``; ``tf.*`` ops do not promote dtypes (a ``bool`` mask
must be cast before it multiplies floats); a ``KerasTensor`` is symbolic, so it cannot be
passed to a ``tf.*`` function or used as a Python ``bool``; a Lambda infers its output
shape by running its function, and says "specify output_shape" when that run fails.
Evidence a diagnosis can read at the failure: the op and its arguments (axis, target
shape, subscripts, number of sections, indices and their dtype and range), the shapes and
dtypes of the operands, the layer (its name, its source) whose call raised and the
layers that produced its inputs, the size of the batch that entered the model against
the size a layer hard-codes, and the user's line in the traceback.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras_ops"

CASES = [
    # ValueError: Exception encountered when calling Lambda.call().
    # (Cannot reshape a tensor with 120 elements to shape [32,6,4] (768 elements) for
    # '{{node functional_1/to_tokens_1/Reshape}} ...' with input shapes: [5,24], [3];
    # fit with batches of 32 works, predict on 5 rows fails)
    Case(
        "kops_lambda_reshape_hardcodes_batch",
        FAMILY,
        """
x = np.random.rand(64, 24).astype("float32")
y = np.random.rand(64, 1).astype("float32")
inp = keras.Input((24,))
tokens = keras.layers.Lambda(lambda v: keras.ops.reshape(v, (32, 6, 4)), name="to_tokens")(inp)
h = keras.layers.LSTM(8)(tokens)
model = keras.Model(inp, keras.layers.Dense(1)(h))
model.compile("adam", "mse")
model.fit(x, y, batch_size=32, epochs=1, verbose=0)
model.predict(x[:5], verbose=0)
""",
        "S01",
        must=("to_tokens", "32"),
        must_not=("return_sequences", "drop_remainder"),
        fix="reshape to (-1, 6, 4)",
    ),
    # ValueError: Every value in `xs` must have the same shape except on the `axis` dim.
    # But found element of shape (None, 20, 16), which is different from the first
    # element's shape (None, 20, 8).
    Case(
        "kops_concatenate_branches_on_time_axis",
        FAMILY,
        """
inp = keras.Input((20, 3))
narrow = keras.layers.Conv1D(8, 3, padding="same", name="conv_narrow")(inp)
wide = keras.layers.Conv1D(16, 5, padding="same", name="conv_wide")(inp)
merged = keras.ops.concatenate([narrow, wide], axis=1)
out = keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(merged))
model = keras.Model(inp, out)
""",
        "S01",
        must=("conv_narrow", "conv_wide"),
        must_not=("strides", "downsample", "upsample"),
        fix="concatenate on axis=-1",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().
    # (We could not automatically infer the shape of the Lambda's output. Please specify
    # the `output_shape` argument ...; the function's own error, chained below it:
    # ValueError: Cannot squeeze axis=1, because the dimension is not 1.)
    Case(
        "kops_lambda_squeeze_time_axis",
        FAMILY,
        """
inp = keras.Input((12, 4))
per_step = keras.layers.Dense(1)(inp)
scores = keras.layers.Lambda(lambda t: keras.ops.squeeze(t, axis=1), name="drop_unit")(per_step)
model = keras.Model(inp, keras.layers.Softmax()(scores))
""",
        "S01",
        must=("drop_unit", "12"),
        must_not=("return_sequences", "output_shape="),
        fix="squeeze axis=-1",
    ),
    # InvalidArgumentError: {{function_node __wrapped____MklEinsum_N_2_device_/job:localhost/
    # replica:0/task:0/device:CPU:0}} Expected input 0 to have rank 3 but got: 4 [Op:Einsum]
    Case(
        "kops_einsum_subscripts_miss_heads_axis",
        FAMILY,
        """
tokens = np.random.rand(2, 6, 16).astype("float32")
q = keras.ops.reshape(tokens, (2, 6, 4, 4))  # (batch, time, heads, head_dim)
k = keras.ops.reshape(tokens, (2, 6, 4, 4))
scores = keras.ops.einsum("btd,bsd->bts", q, k)
""",
        "S07",
        must=("btd",),
        must_not=("labels", "units"),
        fix='subscripts "bthd,bshd->bhts"',
    ),
    # InvalidArgumentError: {{function_node __wrapped__Sub_device_/job:localhost/replica:0/
    # task:0/device:CPU:0}} Incompatible shapes: [40,6] vs. [40] [Op:Sub] name:
    Case(
        "kops_standardize_with_row_mean",
        FAMILY,
        """
x = np.random.rand(40, 6).astype("float32")
feat_mean = keras.ops.mean(x, axis=1)
feat_std = keras.ops.std(x, axis=1)
x_scaled = (x - feat_mean) / feat_std
""",
        "S07",
        must=("feat_mean",),
        must_not=("labels", "loss"),
        fix="mean/std over axis=0",
    ),
    # TypeError: Exception encountered when calling MaskedMean.call().
    # (Could not automatically infer the output shape / dtype of 'masked_mean' ...
    # Error encountered: Value passed to parameter 'input' has DataType bool not in list
    # of allowed values: float32, float64, int32, ...)
    Case(
        "kops_bool_mask_times_embeddings",
        FAMILY,
        """
class MaskedMean(keras.layers.Layer):
    def call(self, vectors, token_ids):
        mask = tf.not_equal(token_ids, 0)
        summed = tf.reduce_sum(vectors * mask[..., None], axis=1)
        return summed / tf.reduce_sum(tf.cast(mask, "float32"), axis=1, keepdims=True)

ids = keras.Input((12,), dtype="int32")
vectors = keras.layers.Embedding(100, 8)(ids)
pooled = MaskedMean()(vectors, ids)
""",
        "S11",
        must=("mask", "bool"),
        must_not=("float64", "compute_output_spec"),
        fix='tf.cast(mask, "float32") before multiplying',
    ),
    # InvalidArgumentError: {{function_node __wrapped__GatherV2_device_/job:localhost/
    # replica:0/task:0/device:CPU:0}} indices[4] = 5 is not in [0, 5) [Op:GatherV2] name:
    Case(
        "kops_take_one_based_grades",
        FAMILY,
        """
grade_weights = np.array([2.0, 1.5, 1.0, 1.0, 1.5], dtype="float32")  # one weight per star rating
grades = np.array([1, 3, 2, 4, 5, 3, 1, 2])  # ratings 1..5 from the survey
sample_weight = keras.ops.take(grade_weights, grades)
""",
        "S09",
        must=("grades", "5"),
        must_not=("embedding", "float64"),
        fix="take(grade_weights, grades - 1)",
    ),
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A
    # KerasTensor is a symbolic placeholder for a shape and dtype, ...
    Case(
        "kops_tf_image_resize_on_input",
        FAMILY,
        """
inp = keras.Input((32, 32, 3))
x = tf.image.resize(inp, (64, 64))
x = keras.layers.Conv2D(8, 3, activation="relu")(x)
model = keras.Model(inp, keras.layers.Dense(10)(keras.layers.GlobalAveragePooling2D()(x)))
""",
        None,
        unexplained=(
            "Keras' own message names the cause (a tf function called on a KerasTensor) and "
            "shows the fix: use keras layers/ops, or wrap the tf call in a Layer."
        ),
        fix="keras.layers.Resizing(64, 64)",
    ),
    # OperatorNotAllowedInGraphError: Exception encountered when calling AutoScale.call().
    # (Could not automatically infer the output shape / dtype of 'autoscale' ... Error
    # encountered: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. ...)
    Case(
        "kops_python_if_on_tensor_in_call",
        FAMILY,
        """
class AutoScale(keras.layers.Layer):
    def call(self, images):
        if keras.ops.max(images) > 1.0:
            images = images / 255.0
        return images

inp = keras.Input((28, 28, 1))
x = AutoScale(name="autoscale")(inp)
model = keras.Model(inp, keras.layers.Dense(10)(keras.layers.Flatten()(x)))
""",
        "T02",
        must=("autoscale",),
        must_not=("run_eagerly", "compute_output_spec"),
        fix="keras.ops.where / keras.ops.cond instead of if",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Split_num_split_3_device_/job:localhost/
    # replica:0/task:0/device:CPU:0}} Number of ways to split should evenly divide the split
    # dimension, but got split_dim 1 (size = 10) and num_split 3 [Op:Split] name: split
    Case(
        "kops_split_sensor_groups_unequal",
        FAMILY,
        """
readings = np.random.rand(16, 10).astype("float32")  # 4 accelerometer, 3 gyro, 3 magnetometer columns
accel, gyro, mag = keras.ops.split(readings, 3, axis=1)
""",
        "S07",
        must=("readings", "10"),
        must_not=("labels", "axis=0"),
        fix="split at points [4, 7]",
    ),
]
