"""Family: custom training loops, ``tf.GradientTape`` and Keras 3 optimizers.

API: ``with tf.GradientTape(persistent=False) as tape:`` records the operations run
inside the block on trainable variables (and on tensors passed to ``tape.watch``);
``tape.gradient(target, sources)`` returns one gradient per source, in the sources'
structure, ``None`` for a source the target does not depend on through recorded,
differentiable float ops (an integer tensor, an ``argmax``/cast-to-int, a detour
through NumPy, an op run after the block closed); a non-persistent tape answers one
``gradient`` call only.  ``optimizer.apply_gradients(zip(grads, vars))`` (pairs in
that order) or ``optimizer.apply(grads, vars)``: a Keras 3 optimizer is built, on
first use or by ``optimizer.build(vars)``, for one list of variables and refuses any
other ("Unknown variable ... recreate a new optimizer instance"); an empty list of
pairs cannot be applied, and all-``None`` gradients raise "No gradients provided for
any variable".  Its arguments are ``learning_rate`` (a float or a
``keras.optimizers.schedules.LearningRateSchedule``, whose ``__call__`` receives the
optimizer's ``iterations``, an int64 tensor, as ``step``), ``clipnorm`` /
``clipvalue`` / ``global_clipnorm`` (one at most), ``weight_decay``; Keras 2's
``lr=``/``decay=`` and ``keras.optimizers.legacy`` are gone.  ``model.trainable_variables``
is empty until the model is built (no ``Input`` and no first call).  ``tf.function``
creates variables only on its first trace (an optimizer or ``tf.Variable`` created
inside the step breaks this), and inside it, as inside a ``train_step`` override run
by ``fit``, tensors are symbolic: no ``.numpy()``, no Python ``if`` on a tensor.
Evidence a diagnosis can read at the failure: the user's loop source (which lines sit
inside the ``with`` block, how many ``gradient`` calls one tape gets, what is created
inside the ``tf.function``), the gradients list (which entries are ``None`` and the
variables and layers they belong to), the variables' dtypes, the sources passed to
``gradient``, the optimizer's built variable list and its ``learning_rate`` object, the
model's built state and layers, and the data's dtypes.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "tape_optimizers"

CASES = [
    # ValueError: No gradients provided for any variable.
    # (the L2 penalty, and with it the total loss, is added after the tape's block closed)
    Case(
        "tape_l2_penalty_added_after_with_block",
        FAMILY,
        """
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(32, 6).astype("float32")
y = np.random.rand(32, 1).astype("float32")
with tf.GradientTape() as tape:
    pred = model(x, training=True)
    mse = tf.reduce_mean(tf.square(pred - y))
l2 = tf.add_n([tf.reduce_sum(tf.square(w)) for w in model.trainable_variables if "kernel" in w.path])
total_loss = mse + 1e-4 * l2
grads = tape.gradient(total_loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        "T03",
        must=("total_loss",),
        must_not=("argmax", "integer"),
        fix="compute l2 and total_loss inside the with block",
    ),
    # RuntimeError: A non-persistent GradientTape can only be used to compute one set
    # of gradients (or jacobians)
    # (GAN step: one tape records both losses, then gradient is called for each model)
    Case(
        "tape_gan_one_tape_two_gradient_calls",
        FAMILY,
        """
generator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(4)])
discriminator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                                  keras.layers.Dense(1)])
g_opt = keras.optimizers.Adam(2e-4)
d_opt = keras.optimizers.Adam(2e-4)
bce = keras.losses.BinaryCrossentropy(from_logits=True)
real = np.random.rand(16, 4).astype("float32")
noise = tf.random.normal((16, 8))
with tf.GradientTape() as tape:
    fake = generator(noise, training=True)
    real_out = discriminator(real, training=True)
    fake_out = discriminator(fake, training=True)
    gen_loss = bce(tf.ones_like(fake_out), fake_out)
    disc_loss = bce(tf.ones_like(real_out), real_out) + bce(tf.zeros_like(fake_out), fake_out)
gen_grads = tape.gradient(gen_loss, generator.trainable_variables)
disc_grads = tape.gradient(disc_loss, discriminator.trainable_variables)
g_opt.apply_gradients(zip(gen_grads, generator.trainable_variables))
d_opt.apply_gradients(zip(disc_grads, discriminator.trainable_variables))
""",
        "T03",
        must=("persistent",),
        must_not=("outside",),
        fix="two tapes (gen_tape, disc_tape) or persistent=True",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first
    # call. Make sure the tf.Variable is only created once or created outside tf.function.
    # (the optimizer, and so its iteration/slot variables, is created inside train_step)
    Case(
        "tape_optimizer_created_inside_tf_function",
        FAMILY,
        """
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
x = np.random.rand(32, 5).astype("float32")
y = np.random.rand(32, 1).astype("float32")

@tf.function
def train_step(xb, yb):
    sgd = keras.optimizers.SGD(learning_rate=0.01, momentum=0.9)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
    grads = tape.gradient(loss, model.trainable_variables)
    sgd.apply_gradients(zip(grads, model.trainable_variables))
    return loss

for step in range(3):
    train_step(x, y)
""",
        "T03",
        must=("sgd", "train_step"),
        must_not=("persistent", "with block"),
        fix="create the optimizer once, outside train_step",
    ),
    # ValueError: No gradients provided for any variable.
    # (slope and intercept are tf.Variable(0): int32, and integers have no gradient)
    Case(
        "tape_integer_variables_linear_fit",
        FAMILY,
        """
x = np.arange(20)
y = 3 * x + 2
slope = tf.Variable(0)
intercept = tf.Variable(0)
opt = keras.optimizers.SGD(learning_rate=0.001)
for epoch in range(5):
    with tf.GradientTape() as tape:
        pred = slope * x + intercept
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, [slope, intercept])
    opt.apply_gradients(zip(grads, [slope, intercept]))
""",
        "G04",
        must=("slope", "int32"),
        must_not=("closed", "argmax"),
        fix="tf.Variable(0.0) and float data",
    ),
    # AttributeError: 'numpy.float32' object has no attribute '_id'
    # (the loss goes through .numpy() and np.mean inside the tape: nothing is recorded)
    Case(
        "tape_numpy_loss_inside_tape",
        FAMILY,
        """
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(24, 4).astype("float32")
y = np.random.rand(24, 1).astype("float32")
with tf.GradientTape() as tape:
    pred = model(x, training=True).numpy()
    mae = np.mean(np.abs(pred - y))
grads = tape.gradient(mae, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        "G04",
        must=("numpy",),
        must_not=("closed", "persistent"),
        fix="compute mae with tf ops on the model output",
    ),
    # ValueError: Attempt to convert a value (None) with an unsupported type
    # (<class 'NoneType'>) to a Tensor.
    # (the 'category' head is not in the loss: its kernel and bias get None, and the
    # hand-written clipping passes None to tf.clip_by_norm)
    Case(
        "tape_unused_head_none_grads_clip_by_norm",
        FAMILY,
        """
inp = keras.Input((6,))
h = keras.layers.Dense(16, activation="relu", name="trunk")(inp)
price = keras.layers.Dense(1, name="price")(h)
category = keras.layers.Dense(3, name="category")(h)
model = keras.Model(inp, [price, category])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(32, 6).astype("float32")
y_price = np.random.rand(32, 1).astype("float32")
with tf.GradientTape() as tape:
    price_pred, category_pred = model(x, training=True)
    loss = tf.reduce_mean(tf.square(price_pred - y_price))
grads = tape.gradient(loss, model.trainable_variables)
grads = [tf.clip_by_norm(g, 1.0) for g in grads]
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        "G04",
        must=("category",),
        must_not=("closed", "int32"),
        fix="add the category loss, or skip None gradients",
    ),
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is
    # not allowed. You can attempt the following resolutions to the problem: ...
    # (a train_step override skips "bad" batches with a Python if on the loss tensor)
    Case(
        "tape_train_step_python_if_on_loss",
        FAMILY,
        """
class SkipSpikes(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            batch_loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        if batch_loss > 10.0:
            return {"loss": batch_loss}
        grads = tape.gradient(batch_loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": batch_loss}

inp = keras.Input((4,))
model = SkipSpikes(inp, keras.layers.Dense(1)(inp))
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(32, 4).astype("float32"), np.random.rand(32, 1).astype("float32"),
          epochs=1, verbose=0)
""",
        "T02",
        must=("batch_loss",),
        must_not=("decorate", ".numpy()"),
        fix="tf.cond / tf.where, or run_eagerly=True",
    ),
    # TypeError: Input 'y' of 'Pow' Op has type int64 that does not match type float32
    # of argument 'x'.
    # (a custom LearningRateSchedule uses the optimizer's int64 step without a cast)
    Case(
        "tape_custom_schedule_int64_step",
        FAMILY,
        """
class StepDecay(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, initial_lr, drop_every):
        self.initial_lr = initial_lr
        self.drop_every = drop_every

    def __call__(self, step):
        return self.initial_lr * tf.pow(0.5, step // self.drop_every)

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=StepDecay(1e-3, 10)), loss="mse")
model.fit(np.random.rand(32, 4).astype("float32"), np.random.rand(32, 1).astype("float32"),
          epochs=1, verbose=0)
""",
        "S11",
        must=("stepdecay", "int64"),
        must_not=("float64", "astype"),
        fix="tf.cast(step, tf.float32) in __call__",
    ),
    # ValueError: not enough values to unpack (expected 2, got 0)
    # (params = model.trainable_variables is read before the model, which has no Input,
    # is built: an empty list, so zip(grads, params) is empty)
    Case(
        "tape_trainable_variables_before_build",
        FAMILY,
        """
model = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
params = model.trainable_variables
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
for epoch in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, params)
    optimizer.apply_gradients(zip(grads, params))
""",
        "S04",
        must=("params",),
        must_not=("persistent", "watch"),
        fix="keras.Input((4,)) first, or read trainable_variables after a call",
    ),
    # ValueError: Unknown variable: <Variable path=sequential_1/dense_1/kernel, shape=(8, 2),
    # ... This optimizer can only be called for the variables it was originally built
    # with. When working with a new set of variables, you should recreate a new optimizer
    # instance.
    # (the optimizer used to pretrain the encoder is reused for the classifier head)
    Case(
        "tape_one_optimizer_two_models",
        FAMILY,
        """
encoder = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu")])
head = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(32, 6).astype("float32")
labels = np.random.randint(0, 2, 32)
with tf.GradientTape() as tape:
    recon = tf.reduce_mean(tf.square(encoder(x)))
grads = tape.gradient(recon, encoder.trainable_variables)
optimizer.apply_gradients(zip(grads, encoder.trainable_variables))
ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
with tf.GradientTape() as tape:
    loss = ce(labels, head(encoder(x)))
grads = tape.gradient(loss, head.trainable_variables)
optimizer.apply_gradients(zip(grads, head.trainable_variables))
""",
        None,
        unexplained=(
            "Keras names the unknown variable and says to recreate a new optimizer instance"
        ),
        fix="a second optimizer for the head",
    ),
]
