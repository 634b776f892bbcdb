"""Family ``weights_and_transfer``: moving weights between layers, files and pretrained models.

APIs: ``Layer.get_weights()``/``set_weights(list)`` (one NumPy array per variable, in the
layer's order -- ``Dense``: kernel ``(in, units)`` then bias ``(units,)``; each array must
have exactly the variable's shape: weights from another layout, e.g. a PyTorch
``Linear`` ``(out, in)``, need a transpose, never a reshape), ``model.layers`` (a
functional model lists its ``InputLayer`` first, a ``Sequential`` does not, so copying by
index between the two is off by one), ``Model.save_weights``/``load_weights`` with
``.weights.h5`` (the file is matched to the model variable by variable, so it loads only
into the same architecture), ``keras.applications`` (``weights="imagenet"`` with
``include_top=True`` requires ``classes=1000``; ``include_top=False`` returns a 4-D feature
map that needs ``pooling="avg"`` or a ``GlobalAveragePooling2D`` before a ``Dense`` head;
``input_shape`` fixes the image size the model accepts), ``Layer.build(input_shape)`` with
``add_weight`` (``input_shape[-1]`` is the feature size, ``input_shape[0]`` is the batch
axis and is ``None``; every weight is created in ``__init__`` or ``build``, never in
``call``).

Evidence a diagnosis needs: the layer or variable whose shape does not fit, both shapes
(the variable's and the array's or file's) and where the array came from (another
layer's ``get_weights``, a layer index that points at a different layer, a file saved
from another architecture); for ``keras.applications`` the arguments given and the rank
or size of the tensor that reached the head or the base; for a custom layer the line of
``build``/``call`` that created the weight and the shape it asked for.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Layer dense_... weight shape (8, 16) is not compatible with provided weight shape (16, 4).
    Case(
        name="copy_weights_by_index_from_sequential_into_functional_twin",
        family="weights_and_transfer",
        code="""
old = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(4),
])
inp = keras.Input((8,))
h = keras.layers.Dense(16, activation="relu")(inp)
out = keras.layers.Dense(4)(h)
new = keras.Model(inp, out)
for i in range(1, len(new.layers)):
    new.layers[i].set_weights(old.layers[i].get_weights())
""",
        expect="S01",
        must=("inputlayer",),
        must_not=("transpose",),
        fix="new.layers[i + 1].set_weights(old.layers[i].get_weights()), or new.set_weights(old.get_weights())",
    ),
    # ValueError: Layer dense_... weight shape (5, 3) is not compatible with provided weight shape (3, 5).
    Case(
        name="torch_linear_weight_loaded_into_dense_untransposed",
        family="weights_and_transfer",
        code="""
torch_weight = np.random.rand(3, 5).astype("float32")   # nn.Linear(5, 3).weight: (out, in)
torch_bias = np.zeros(3, "float32")
layer = keras.layers.Dense(3)
layer.build((None, 5))
layer.set_weights([torch_weight, torch_bias])
""",
        expect="S01",
        must=("transpose",),
        must_not=("reshape",),
        fix="layer.set_weights([torch_weight.T, torch_bias])",
    ),
    # ValueError: A total of 2 objects could not be loaded. Example error message for object <Dense name=dense_..., built=True>:
    #   ... variable.shape=(5, 16), Received: value.shape=(5, 8) ...
    Case(
        name="load_weights_of_an_eight_unit_model_into_sixteen_units",
        family="weights_and_transfer",
        code="""
import os, tempfile
x = np.random.rand(16, 5).astype("float32")
y = np.random.randint(0, 2, 16)
model = keras.Sequential([
    keras.Input((5,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "clf.weights.h5")
model.save_weights(path)
wider = keras.Sequential([
    keras.Input((5,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
wider.load_weights(path)
""",
        expect="C04",
        must=("16",),
        must_not=("build",),
        fix="rebuild the saved architecture (Dense(8)) before load_weights",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`.
    #   Received: target.shape=(None,), output.shape=(None, 2, 2, 5)
    Case(
        name="mobilenet_feature_map_into_dense_head_without_pooling",
        family="weights_and_transfer",
        code="""
base = keras.applications.MobileNetV2(include_top=False, weights=None, input_shape=(64, 64, 3))
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(5, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
imgs = np.random.rand(4, 64, 64, 3).astype("float32")
labels = np.array([0, 3, 1, 4])
model.fit(imgs, labels, epochs=1, verbose=0)
""",
        expect="S07",
        must=("pool",),
        must_not=("return_sequences", "to_categorical"),
        fix='GlobalAveragePooling2D() before the Dense, or pooling="avg"',
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   ... Input 0 with name 'input_layer_...' of layer 'mobilenetv2_1.00_96' is incompatible with the layer:
    #   expected shape=(None, 96, 96, 3), found shape=(None, 128, 128, 3)
    Case(
        name="pretrained_base_built_for_96_pixels_fed_128_pixel_images",
        family="weights_and_transfer",
        code="""
base = keras.applications.MobileNetV2(include_top=False, weights=None, input_shape=(96, 96, 3), pooling="avg")
model = keras.Sequential([base, keras.layers.Dense(2, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
imgs = np.random.rand(4, 128, 128, 3).astype("float32")
model.fit(imgs, np.array([0, 1, 1, 0]), epochs=1, verbose=0)
""",
        expect="S12",
        must=("96",),
        must_not=("expand_dims", "batch axis"),
        fix="resize the images to 96x96 (keras.layers.Resizing) or input_shape=(128, 128, 3)",
    ),
    # ValueError: If using `weights='imagenet'` with `include_top=True`, `classes` should be 1000.  Received classes=5
    Case(
        name="resnet50_imagenet_weights_with_five_classes_and_top",
        family="weights_and_transfer",
        code="""
model = keras.applications.ResNet50(weights="imagenet", classes=5, input_shape=(224, 224, 3))
""",
        expect=None,
        unexplained="the message says classes must be 1000 with imagenet weights and include_top=True",
        fix="include_top=False with pooling='avg' and a new Dense(5) head",
    ),
    # ValueError: Exception encountered when calling Bias.call().
    #   ... Could not automatically infer the output shape / dtype of 'bias' (of type Bias). ...
    #   You cannot add new elements of state (variables or sub-layers) to a layer that is already built. ...
    Case(
        name="custom_bias_layer_adds_its_weight_inside_call",
        family="weights_and_transfer",
        code="""
class Bias(keras.layers.Layer):
    def call(self, x):
        b = self.add_weight(shape=(x.shape[-1],), initializer="zeros")
        return x + b
model = keras.Sequential([keras.Input((4,)), Bias(), keras.layers.Dense(1)])
""",
        expect="T03",
        must=("build",),
        must_not=("compute_output_shape", "compute_output_spec"),
        fix="create self.b with add_weight in build(self, input_shape)",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None` dimensions).
    #   Received: shape=(None, 4) for variable path='sequential_.../project/variable_...'
    Case(
        name="custom_layer_build_sizes_kernel_by_the_batch_axis",
        family="weights_and_transfer",
        code="""
class Project(keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.units = units
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[0], self.units), initializer="glorot_uniform")
    def call(self, x):
        return keras.ops.matmul(x, self.w)
model = keras.Sequential([keras.Input((6,)), Project(4), keras.layers.Dense(1)])
""",
        expect="S01",
        must=("input_shape[-1]",),
        must_not=("batch_size",),
        fix="shape=(input_shape[-1], self.units)",
    ),
]
