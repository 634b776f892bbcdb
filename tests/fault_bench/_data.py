"""Small, learnable synthetic data sets, as the first lines of a setup cell.

Each snippet is plain code a user could have in a notebook: numpy with a fixed seed,
float32 arrays, a few hundred examples.  Every snippet imports what it uses.
"""

from __future__ import annotations

__all__ = ["BINARY", "BLOBS", "IMAGES", "REGRESSION", "cell"]

#: ten classes of Gaussian blobs in 20 dimensions: ``x`` (600, 20), integer ``y`` (600,)
#: and one-hot ``y_onehot`` (600, 10); an MLP reaches ~95% in a few epochs
BLOBS = """\
import numpy as np
import keras
rng = np.random.default_rng(0)
centers = rng.normal(0.0, 1.0, (10, 20)).astype("float32")
y = rng.integers(0, 10, 600)
x = (centers[y] + 1.0 * rng.normal(0.0, 1.0, (600, 20))).astype("float32")
y_onehot = keras.utils.to_categorical(y, 10).astype("float32")
"""

#: two classes in 10 dimensions with a curved boundary: ``x`` (512, 10), ``y`` (512, 1) of 0/1
BINARY = """\
import numpy as np
import keras
rng = np.random.default_rng(1)
x = rng.normal(0.0, 1.0, (512, 10)).astype("float32")
y = ((x[:, 0] + 0.5 * x[:, 1] ** 2 - 0.5 * x[:, 2]) > 0.5).astype("float32").reshape(-1, 1)
"""

#: a smooth nonlinear regression: ``x`` (512, 8), ``y`` (512, 1), roughly unit scale
REGRESSION = """\
import numpy as np
import keras
rng = np.random.default_rng(2)
x = rng.normal(0.0, 1.0, (512, 8)).astype("float32")
w = rng.normal(0.0, 1.0, (8, 1)).astype("float32")
y = (np.tanh(x @ w) + 0.3 * x[:, :1] * x[:, 1:2]).astype("float32")
"""

#: 8x8 grey "images" with pixel values 0..255 (as float32, like an image loaded from
#: disk): the class (0..3) is the quadrant that is bright; ``x`` (480, 8, 8, 1), ``y`` (480,)
IMAGES = """\
import numpy as np
import keras
rng = np.random.default_rng(3)
y = rng.integers(0, 4, 480)
x = rng.uniform(0, 90, (480, 8, 8, 1))
for i, c in enumerate(y):
    r, k = divmod(int(c), 2)
    x[i, 4 * r:4 * r + 4, 4 * k:4 * k + 4, 0] += 150
x = np.clip(x, 0, 255).round().astype("float32")
"""


def cell(*parts: str) -> str:
    """Join snippets and a model block into one cell's code."""
    return "\n".join(p.strip("\n") for p in parts) + "\n"
