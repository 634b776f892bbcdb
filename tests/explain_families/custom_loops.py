"""Family: custom training loops around ``tf.GradientTape`` (a third pass).

API: ``with tf.GradientTape(persistent=False) as tape:`` records the operations run
inside the block on trainable ``tf.Variable``s, and on other tensors only when
``tape.watch(t)`` is called (a ``tf.constant`` or an array is not watched, its
gradient is ``None``).  ``tape.gradient(target, sources)`` returns gradients in the
structure of ``sources`` (a list, a list of lists, a dict), ``None`` where the target
does not depend on a source through recorded, differentiable ops (``tf.stop_gradient``
blocks the path on purpose).  ``tape.jacobian(target, source)`` gives the full
Jacobian; ``tape.batch_jacobian(target, source)`` needs ``target`` ``[b, ...]`` and
``source`` ``[b, ...]`` with the same first (batch) dimension, row ``i`` of the target
depending on row ``i`` of the source only.  ``optimizer.apply_gradients(zip(grads,
vars))``; Keras 3's ``optimizer.apply(grads, trainable_variables=None)`` may omit the
variables only once the optimizer is built.  ``tf.Variable.assign``/``assign_add``
need a value of the variable's shape and dtype; a variable made from a NumPy array
takes its dtype (float64 from ``np.random.randn``); ``model.weights`` also holds the
non-trainable variables (BatchNormalization's ``moving_mean``/``moving_variance``),
``model.trainable_variables`` only those ``tape.gradient`` returns.  ``tf.gather``
on a variable needs indices in ``[0, rows)``.  Inside ``tf.function`` the tensors are
symbolic (no ``.numpy()``), and variables (a ``keras.metrics.Mean``'s, an
optimizer's) may only be created on the first trace.  ``tf.debugging.check_numerics``
raises on the first NaN/Inf.
Evidence a diagnosis can read at the failure: the user's loop source (what sits inside
the ``with`` block, which tensors are watched, where ``stop_gradient`` wraps what, what
is created inside the ``tf.function``), the gradients list (which entries are
``None``) and the sources' structure, the variables' names, shapes and dtypes (the
buffers next to the variables they were built from), the model's layers and their
weights (trainable or not), the data's shapes, dtypes and value ranges (the largest id,
the sign of the predictions fed to a log), the step at which a check fired.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "custom_loops"

CASES = [
    # ValueError: Attempt to convert a value (None) with an unsupported type
    # (<class 'NoneType'>) to a Tensor.
    # (FGSM: the input image is a tf.constant the tape never watched, so its gradient is
    # None and tf.sign(None) fails)
    Case(
        "cl_fgsm_input_image_not_watched",
        FAMILY,
        """
model = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(4, 3, activation="relu"),
                          keras.layers.Flatten(), keras.layers.Dense(3)])
loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
image = tf.convert_to_tensor(np.random.rand(1, 8, 8, 1).astype("float32"))
label = tf.constant([2])
with tf.GradientTape() as tape:
    prediction = model(image)
    loss = loss_object(label, prediction)
gradient = tape.gradient(loss, image)
adv_image = tf.clip_by_value(image + 0.01 * tf.sign(gradient), 0.0, 1.0)
""",
        "T03",
        must=("watch", "image"),
        must_not=("persistent", "closed", "int32"),
        fix="tape.watch(image) inside the with block",
    ),
    # ValueError: No gradients provided for any variable.
    # (DQN: tf.stop_gradient wraps the online network's Q-values, the side that must be
    # trained, instead of the target network's)
    Case(
        "cl_dqn_stop_gradient_on_online_q_values",
        FAMILY,
        """
online = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                           keras.layers.Dense(2)])
target = keras.models.clone_model(online)
target.set_weights(online.get_weights())
optimizer = keras.optimizers.Adam(1e-3)
states = np.random.rand(16, 4).astype("float32")
next_states = np.random.rand(16, 4).astype("float32")
actions = np.random.randint(0, 2, 16)
rewards = np.random.rand(16).astype("float32")
gamma = 0.99
with tf.GradientTape() as tape:
    q_values = tf.stop_gradient(online(states, training=True))
    q_taken = tf.reduce_sum(q_values * tf.one_hot(actions, 2), axis=1)
    q_target = rewards + gamma * tf.reduce_max(target(next_states), axis=1)
    loss = tf.reduce_mean(tf.square(q_target - q_taken))
grads = tape.gradient(loss, online.trainable_variables)
optimizer.apply_gradients(zip(grads, online.trainable_variables))
""",
        "G04",
        must=("stop_gradient", "q_values"),
        must_not=("closed", "numpy", "int32"),
        fix="stop_gradient on q_target, not on q_values",
    ),
    # InvalidArgumentError: {{function_node
    # __wrapped__AssignAddVariableOp_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    # Cannot update variable with shape [16] using a Tensor with shape [16,1], shapes
    # must be equal. [Op:AssignAddVariableOp] name:
    # (gradient accumulation: the buffers follow model.weights, which holds the
    # BatchNormalization moving_mean/moving_variance, so they are out of step with the
    # gradients of model.trainable_variables from the fifth buffer on)
    Case(
        "cl_accum_buffers_from_model_weights",
        FAMILY,
        """
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.BatchNormalization(), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(64, 10).astype("float32")
y = np.random.rand(64, 1).astype("float32")
accum_steps = 4
accum_grads = [tf.Variable(tf.zeros_like(w), trainable=False) for w in model.weights]
for i in range(accum_steps):
    xb, yb = x[i * 16:(i + 1) * 16], y[i * 16:(i + 1) * 16]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb)) / accum_steps
    grads = tape.gradient(loss, model.trainable_variables)
    for buf, g in zip(accum_grads, grads):
        buf.assign_add(g)
optimizer.apply_gradients(zip(accum_grads, model.trainable_variables))
""",
        "S07",
        must=("accum_grads",),
        must_not=("drop_remainder", "reshape the labels", "batch size"),
        fix="build accum_grads from model.trainable_variables",
    ),
    # InvalidArgumentError: cannot compute _MklMatMul as input #1(zero-based) was
    # expected to be a float tensor but is a double tensor [Op:MatMul] name:
    # (theta is made from np.random.randn, so it is a float64 variable, against float32 x)
    Case(
        "cl_theta_variable_float64_from_numpy",
        FAMILY,
        """
x = np.random.rand(50, 3).astype("float32")
y = x @ np.array([[1.5], [-2.0], [0.5]], dtype="float32") + 0.3
theta = tf.Variable(np.random.randn(3, 1))
bias = tf.Variable(0.0)
for step in range(10):
    with tf.GradientTape() as tape:
        pred = tf.matmul(x, theta) + bias
        loss = tf.reduce_mean(tf.square(pred - y))
    d_theta, d_bias = tape.gradient(loss, [theta, bias])
    theta.assign_sub(0.1 * d_theta)
    bias.assign_sub(0.1 * d_bias)
""",
        "S11",
        must=("theta", "float64"),
        must_not=("int32", "sparse", "label"),
        fix='tf.Variable(..., dtype="float32")',
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    # (the loss is logged with .numpy() inside the @tf.function train_step)
    Case(
        "cl_loss_numpy_logged_inside_tf_function",
        FAMILY,
        """
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
ds = tf.data.Dataset.from_tensor_slices((np.random.rand(40, 5).astype("float32"),
                                         np.random.rand(40, 1).astype("float32"))).batch(10)
history = []

@tf.function
def train_step(xb, yb):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    history.append(loss.numpy())
    return loss

for xb, yb in ds:
    train_step(xb, yb)
""",
        "T02",
        must=("numpy", "train_step"),
        must_not=("tf.cond", "persistent"),
        fix="return loss; call .numpy() outside train_step",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first
    # call. Make sure the tf.Variable is only created once or created outside
    # tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables
    # for more information.
    # (the keras.metrics.Mean and SparseCategoricalAccuracy are created inside train_step)
    Case(
        "cl_metrics_created_inside_tf_function",
        FAMILY,
        """
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(3)])
optimizer = keras.optimizers.Adam(1e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
ds = tf.data.Dataset.from_tensor_slices((np.random.rand(40, 5).astype("float32"),
                                         np.random.randint(0, 3, 40))).batch(10)

@tf.function
def train_step(xb, yb):
    train_loss = keras.metrics.Mean(name="train_loss")
    train_acc = keras.metrics.SparseCategoricalAccuracy(name="train_acc")
    with tf.GradientTape() as tape:
        logits = model(xb, training=True)
        loss = loss_fn(yb, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    train_loss.update_state(loss)
    train_acc.update_state(yb, logits)
    return train_loss.result(), train_acc.result()

for epoch in range(2):
    for xb, yb in ds:
        train_step(xb, yb)
""",
        "T03",
        must=("train_loss", "train_step"),
        must_not=("persistent", "with block"),
        fix="create the metrics once outside, reset_state() per epoch",
    ),
    # InvalidArgumentError: {{function_node
    # __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} nll :
    # Tensor had NaN values [Op:CheckNumerics] name:
    # (Poisson NLL by hand: log of the rate from a linear Dense(1), negative for some
    # rows, at the very first step)
    Case(
        "cl_poisson_nll_log_of_linear_output",
        FAMILY,
        """
counts = np.random.poisson(3.0, size=(40, 1)).astype("float32")
x = np.random.randn(40, 4).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(1e-3)
for step in range(3):
    with tf.GradientTape() as tape:
        rate = model(x, training=True)
        nll = tf.reduce_mean(rate - counts * tf.math.log(rate))
    tf.debugging.check_numerics(nll, "nll")
    grads = tape.gradient(nll, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        "G05",
        must=("nll", "log"),
        must_not=("learning rate", "exploding", "clipnorm"),
        fix='activation="softplus"/"exponential", or predict the log-rate',
    ),
    # ValueError: Need first dimension of target shape ((8, 1)) and source shape
    # ((4, 16)) to match.
    # (per-example gradients: batch_jacobian against the first Dense kernel, which has no
    # batch axis)
    Case(
        "cl_batch_jacobian_against_kernel",
        FAMILY,
        """
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="tanh"),
                          keras.layers.Dense(1)])
x = tf.random.normal((8, 4)); y = tf.random.normal((8, 1))
kernel = model.layers[0].kernel
with tf.GradientTape() as tape:
    per_example_loss = tf.square(model(x) - y)
per_example_grads = tape.batch_jacobian(per_example_loss, kernel)
grad_norms = tf.norm(tf.reshape(per_example_grads, (8, -1)), axis=1)
""",
        "S07",
        must=("batch_jacobian", "kernel"),
        must_not=("drop_remainder", "reshape the labels"),
        fix="tape.jacobian(per_example_loss, kernel)",
    ),
    # InvalidArgumentError: {{function_node
    # __wrapped__ResourceGather_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    # indices[19] = 20 is not in [0, 20) [Op:ResourceGather] name:
    # (matrix factorization by hand: user ids run 1..20, the table has n_users = 20 rows)
    Case(
        "cl_embedding_table_ids_from_one",
        FAMILY,
        """
user_ids = np.tile(np.arange(1, 21), 3)
item_ids = np.repeat(np.arange(0, 15), 4)
ratings = np.random.randint(1, 6, 60).astype("float32")
n_users = len(np.unique(user_ids))
n_items = len(np.unique(item_ids))
user_emb = tf.Variable(tf.random.normal((n_users, 8), stddev=0.1))
item_emb = tf.Variable(tf.random.normal((n_items, 8), stddev=0.1))
optimizer = keras.optimizers.Adam(0.01)
for epoch in range(2):
    with tf.GradientTape() as tape:
        u = tf.gather(user_emb, user_ids)
        v = tf.gather(item_emb, item_ids)
        pred = tf.reduce_sum(u * v, axis=1)
        loss = tf.reduce_mean(tf.square(pred - ratings))
    grads = tape.gradient(loss, [user_emb, item_emb])
    optimizer.apply_gradients(zip(grads, [user_emb, item_emb]))
""",
        "S09",
        must=("user_emb", "20"),
        must_not=("number of classes", "from_logits", "item_emb"),
        fix="n_users = user_ids.max() + 1, or re-index the ids from 0",
    ),
    # ValueError: When passing `grads` without `variables`, the optimizer must already be
    # built on a list of variables. Call `optimizer.build(trainable_variables)` first.
    # (Keras 3's optimizer.apply is called with the gradients only, on a fresh optimizer)
    Case(
        "cl_keras3_apply_without_variables",
        FAMILY,
        """
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(24, 6).astype("float32")
y = np.random.rand(24, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply(grads)
""",
        None,
        unexplained=(
            "Keras says the optimizer must be built first and to call "
            "optimizer.build(trainable_variables)"
        ),
        fix="optimizer.apply(grads, model.trainable_variables)",
    ),
]
