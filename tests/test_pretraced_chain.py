"""A tf.function traced in an earlier cell and reached through the user's own Python functions
(TensorFlow's DCGAN tutorial: ``train(dataset, epochs)`` calls ``@tf.function train_step``) is
traced again under ``%%tfgrad`` and ``%%tfcheck``, in every such cell, and gets its own traces
back afterwards."""

from __future__ import annotations

import textwrap

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tfnb_debug.collect.retrace import traced_functions_in

DEFINE = """
import numpy as np, tensorflow as tf, keras
generator = keras.Sequential(
    [keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)],
    name="generator",
)
discriminator = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)],
    name="discriminator",
)
cross_entropy = keras.losses.BinaryCrossentropy(from_logits=True)
g_opt = keras.optimizers.Adam(1e-3)
d_opt = keras.optimizers.Adam(1e-3)
images = np.random.default_rng(0).normal(size=(64, 4)).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices(images).batch(16)

@tf.function
def train_step(batch):
    noise = tf.random.normal([16, 8])
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        fake = generator(noise, training=True)
        real_out = discriminator(batch, training=True)
        fake_out = discriminator(fake, training=True)
        gen_loss = cross_entropy(tf.ones_like(fake_out), fake_out)
        disc_loss = cross_entropy(tf.ones_like(real_out), real_out) + cross_entropy(
            tf.zeros_like(fake_out), fake_out
        )
    g_vars, d_vars = generator.trainable_variables, discriminator.trainable_variables
    g_opt.apply_gradients(zip(gen_tape.gradient(gen_loss, g_vars), g_vars))
    d_opt.apply_gradients(zip(disc_tape.gradient(disc_loss, d_vars), d_vars))

class Trainer:
    def fit(self, data):
        for batch in data:
            train_step(batch)

def train(data, epochs):
    for _ in range(epochs):
        Trainer().fit(data)

train(dataset, 1)
"""


def run(shell: InteractiveShell, code: str):  # type: ignore[no-untyped-def]
    with capture_output() as out:
        result = shell.run_cell(textwrap.dedent(code).strip("\n"), store_history=False)
    assert result.success, f"{result.error_in_exec!r}\n{out.stdout[-2000:]}"
    return result, out


def test_chain_through_functions_and_classes_reaches_the_traced_step(
    shell: InteractiveShell,
) -> None:
    run(shell, DEFINE)
    found = traced_functions_in("train(dataset, 2)", shell.user_ns)
    assert [name for name, _ in found] == ["train_step"]
    # a library function in the chain is not followed into TensorFlow or Keras internals
    assert traced_functions_in("np.mean(images)", shell.user_ns) == []


def test_tfgrad_records_every_cell_of_the_dcgan_pattern(shell: InteractiveShell) -> None:
    run(shell, DEFINE)
    step = shell.user_ns["train_step"]
    traces = step.experimental_get_tracing_count()
    for _ in range(2):  # the second cell used to fail again after the first
        result, _ = run(shell, "%%tfgrad -q -o\ntrain(dataset, 1)")
        report = result.result
        assert report.history.total_steps == 4  # 64 examples / 16 per batch
        assert "8 optimizer updates by 2" in " ".join(report.summary)
    assert step.experimental_get_tracing_count() == traces  # its own traces are back


def test_tfcheck_checks_the_training_steps_of_the_dcgan_pattern(shell: InteractiveShell) -> None:
    run(shell, DEFINE)
    for _ in range(2):
        _, out = run(shell, "%%tfcheck\ntrain(dataset, 1)")
        text = "\n".join(o.data.get("text/plain", "") for o in out.outputs)
        assert "4 step(s) (8 optimizer updates by 2 optimizers)" in text, text[:1500]
        assert "0 optimizer step" not in text and "NOTHING CHECKED" not in text
        assert "2 loss(es)" in text
