"""Family: custom training loops with ``tf.GradientTape`` and ``train_step`` overrides.

The APIs and their documented contract:

- ``with tf.GradientTape(persistent=False, watch_accessed_variables=True) as tape:``
  records the operations run INSIDE the block on watched tensors: every trainable
  ``tf.Variable`` read there is watched automatically; a plain tensor (an input batch, a
  ``tf.constant``) only after ``tape.watch(t)``, and only a floating one.
  ``tape.gradient(target, sources)`` returns one gradient per source, in the structure of
  ``sources``; a source the target does not depend on through recorded, differentiable
  TensorFlow ops gets ``None`` (``unconnected_gradients="none"``).  A non-persistent tape
  releases its resources after the first ``gradient`` call: a second call raises
  "A non-persistent GradientTape can only be used to compute one set of gradients";
  ``persistent=True`` (then ``del tape``) or one tape per loss is the contract.
- What breaks the recorded path: computing the loss after the ``with`` block closed,
  leaving TensorFlow (``.numpy()``, ``float()``, NumPy arithmetic), and ops without a
  gradient (``tf.argmax``, ``tf.round``, casts to integers, comparisons).  Then every
  gradient is ``None`` and Keras' ``apply_gradients`` raises "No gradients provided for
  any variable", or NumPy values reach the tape and it fails on them.
- ``model.trainable_variables`` is a snapshot list: on a subclassed model (or a
  ``Sequential`` without ``Input``) it is EMPTY until the model is built by a first call
  or ``model.build(input_shape)``; a list read before that stays empty, so
  ``tape.gradient`` returns ``[]`` and ``zip(*...)`` inside ``apply_gradients`` has
  nothing to unpack.
- ``tf.function`` traces the Python body into a graph: inside it tensors are symbolic
  (no ``.numpy()``, no Python ``bool``), ``print`` runs once at trace time
  (``tf.print`` runs every step).
- ``keras.Model.train_step(self, data)`` (Keras 3, TensorFlow backend): ``data`` is what
  the data adapter yields for one batch: ``(x, y)``, or ``(x, y, sample_weight)`` when
  ``fit`` gets ``sample_weight`` or ``class_weight`` (class weights become per-sample
  weights); ``keras.utils.unpack_x_y_sample_weight(data)`` unpacks either.  Inside,
  ``self.compute_loss(x=, y=, y_pred=, sample_weight=)`` (keywords),
  ``self.optimizer.apply(grads, self.trainable_variables)``, metrics through
  ``self.metrics``; it returns a dict of metric results.
- GAN loops: two models, two optimizers, two losses; each ``tape.gradient`` call takes
  the loss of one half and that half's ``trainable_variables``.

Evidence a diagnosis needs: which gradients are ``None`` and why (where the loss tensor
was created relative to the tape's block; the op on the path that has no gradient, or
the point where the value left TensorFlow; an unwatched constant source); how many times
a non-persistent tape's ``gradient`` was called; the length of the variable list at the
time it was read and whether the model was built then; the structure of ``data`` in
``train_step`` versus the unpacking; a ``.numpy()`` call inside a traced function.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "gradient_tape_loops"

CASES = [
    # ValueError: No gradients provided for any variable.
    Case(
        name="f20_mse_computed_after_tape_block",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
opt = keras.optimizers.SGD(0.01)
x = tf.random.normal((16, 4))
y = tf.random.normal((16, 1))
for step in range(3):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
    loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="T03",
        must=("block",),
        must_not=("argmax", "numpy"),
        fix="compute the loss inside the with block",
    ),
    # RuntimeError: A non-persistent GradientTape can only be used to compute one set of
    # gradients (or jacobians)
    Case(
        name="f20_gan_two_losses_one_tape",
        family=FAMILY,
        code="""
gen = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4)])
disc = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
g_opt, d_opt = keras.optimizers.Adam(1e-4), keras.optimizers.Adam(1e-4)
bce = keras.losses.BinaryCrossentropy(from_logits=True)
real = tf.random.normal((8, 4))
z = tf.random.normal((8, 2))
with tf.GradientTape() as tape:
    fake = gen(z, training=True)
    d_real, d_fake = disc(real, training=True), disc(fake, training=True)
    d_loss = bce(tf.ones_like(d_real), d_real) + bce(tf.zeros_like(d_fake), d_fake)
    g_loss = bce(tf.ones_like(d_fake), d_fake)
d_grads = tape.gradient(d_loss, disc.trainable_variables)
g_grads = tape.gradient(g_loss, gen.trainable_variables)
d_opt.apply_gradients(zip(d_grads, disc.trainable_variables))
g_opt.apply_gradients(zip(g_grads, gen.trainable_variables))
""",
        expect="T03",
        must=("persistent",),
        must_not=("watch",),
        fix="GradientTape(persistent=True) or one tape per loss",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="f20_error_rate_loss_through_argmax",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
opt = keras.optimizers.Adam()
x = tf.random.normal((16, 4))
y = tf.constant(np.random.randint(0, 3, 16))
with tf.GradientTape() as tape:
    predicted = tf.argmax(model(x, training=True), axis=1)
    loss = tf.reduce_mean(tf.cast(predicted != y, tf.float32))
grads = tape.gradient(loss, model.trainable_variables)
opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="G04",
        must=("argmax",),
        must_not=("persistent",),
        fix="a differentiable loss (sparse categorical cross-entropy on the logits)",
    ),
    # AttributeError: 'numpy.float32' object has no attribute '_id'
    Case(
        name="f20_mae_loss_written_in_numpy",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
opt = keras.optimizers.Adam()
x = tf.random.normal((16, 4))
y = np.random.rand(16, 1).astype("float32")
with tf.GradientTape() as tape:
    pred = model(x, training=True).numpy()
    loss = np.mean(np.abs(pred - y))
grads = tape.gradient(loss, model.trainable_variables)
opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="G04",
        must=("numpy",),
        must_not=("persistent", "watch"),
        fix="tf.reduce_mean(tf.abs(model(x) - y)) without .numpy()",
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    Case(
        name="f20_logging_loss_numpy_inside_tf_function",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
opt = keras.optimizers.Adam()
history = []

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    history.append(loss.numpy())
    return loss

train_step(tf.random.normal((8, 4)), tf.random.normal((8, 1)))
""",
        expect="T02",
        must=("numpy",),
        must_not=("watch", "persistent"),
        fix="return the loss and call .numpy() outside, or tf.print",
    ),
    # ValueError: Attempt to convert a value (None) with an unsupported type
    # (<class 'NoneType'>) to a Tensor.
    Case(
        name="f20_fgsm_gradient_of_unwatched_input",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
x = tf.constant(np.random.rand(8, 4).astype("float32"))
y = np.random.randint(0, 3, 8)
loss_fn = keras.losses.SparseCategoricalCrossentropy()
with tf.GradientTape() as tape:
    loss = loss_fn(y, model(x))
signed_grad = tf.sign(tape.gradient(loss, x))
x_adv = tf.clip_by_value(x + 0.1 * signed_grad, 0.0, 1.0)
""",
        expect="G04",
        must=("watch",),
        must_not=("argmax", "persistent"),
        fix="tape.watch(x) inside the with block",
    ),
    # ValueError: not enough values to unpack (expected 2, got 0)
    Case(
        name="f20_trainable_variables_read_before_first_call",
        family=FAMILY,
        code="""
class Regressor(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(8, activation="relu")
        self.out = keras.layers.Dense(1)

    def call(self, x):
        return self.out(self.hidden(x))

model = Regressor()
opt = keras.optimizers.Adam()
params = model.trainable_variables
x = tf.random.normal((16, 4))
y = tf.random.normal((16, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
grads = tape.gradient(loss, params)
opt.apply_gradients(zip(grads, params))
""",
        expect="S04",
        must=("build",),
        must_not=("watch", "persistent"),
        fix="read model.trainable_variables after the first call (or model.build first)",
    ),
    # ValueError: too many values to unpack (expected 2)
    Case(
        name="f20_train_step_unpacks_two_with_class_weight",
        family=FAMILY,
        code="""
class WeightedModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        return {"loss": loss}

inputs = keras.Input((4,))
model = WeightedModel(inputs, keras.layers.Dense(1, activation="sigmoid")(inputs))
model.compile(optimizer="adam", loss="binary_crossentropy")
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 2, (32, 1))
model.fit(x, y, class_weight={0: 1.0, 1: 4.0}, epochs=1, verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("validation_data",),
        fix="x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)",
    ),
]
