"""%%tfcheck checks the gradient flowing back into a layer's output only where the step
computes it: under a frozen layer no trainable variable needs it, so the plain step never
computes it and the check does not either (it used to, and reported a NaN there); where a
trainable variable needs it, the same NaN is found."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic

SETUP = """
import keras
import numpy as np


class Root(keras.layers.Layer):
    def call(self, x):
        return keras.ops.sqrt(keras.ops.relu(x))  # at 0: gradient inf * 0 = NaN


inputs = keras.Input((4,))
base = keras.layers.Dense(4, name="base_dense", kernel_initializer="zeros")
x_out = keras.layers.Dense(1, name="head")(Root(name="root")(base(inputs)))
model = keras.Model(inputs, x_out)
x, y = np.ones((16, 4), "float32"), np.ones((16, 1), "float32")
"""

FIT = "model.fit(x, y, batch_size=8, epochs=1, verbose=0)"


@pytest.mark.parametrize("frozen", [True, False])
def test_backward_check_only_where_the_gradient_is_used(
    shell: InteractiveShell, frozen: bool
) -> None:
    shell.run_cell(SETUP)
    shell.run_cell(f"base.trainable = {not frozen}\nmodel.compile('sgd', 'mse')")
    if frozen:
        shell.run_cell(FIT)  # the plain step trains the head on finite gradients
        head_kernel = shell.user_ns["model"].get_layer("head").kernel.numpy()
        assert (head_kernel == head_kernel).all()
        report = run_magic(shell, "%%tfcheck -q -o --no-live", cell=FIT).result
        assert report.failure is None and "G03" not in report.codes(), report.to_text()
        assert any(p.endswith("base_dense") for p in report.layers_checked), report.to_text()
    else:
        from IPython.core.error import UsageError

        with pytest.raises(UsageError, match="gradient flowing back into the output of"):
            run_magic(shell, "%%tfcheck -q -o --no-live", cell=FIT)
