"""Time series forecasting (tutorials/structured_data/time_series), on a random weather table.

The tutorial's ``WindowGenerator`` (``timeseries_dataset_from_array`` then a ``map``), its
``compile_and_fit`` with early stopping, the linear, dense, multi-step dense, convolutional
and LSTM models.  Correct code stays quiet at warning and error severity (but P02 and P04
on the window datasets: a ``map`` after the utility's ``prefetch``, without
``num_parallel_calls``); the tutorial's
deliberate error (the multi-step dense model, built on 3-step windows, called on 24-step
ones) gets the diagnosis that names the Flatten.
"""

from __future__ import annotations

import pytest

from tests.tutorials._notebook import Notebook, severe

pytestmark = pytest.mark.slow

DATA = """
import numpy as np
import pandas as pd
import tensorflow as tf

rng = np.random.default_rng(0)
n_raw = 6 * 240  # every 10 minutes; the tutorial keeps every sixth row (hourly)
columns = ['p (mbar)', 'T (degC)', 'Tpot (K)', 'Tdew (degC)', 'rh (%)', 'VPmax (mbar)',
           'VPact (mbar)', 'VPdef (mbar)', 'sh (g/kg)', 'H2OC (mmol/mol)', 'rho (g/m**3)',
           'wv (m/s)', 'max. wv (m/s)', 'wd (deg)']
hours = np.arange(n_raw) / 6
raw = rng.normal(size=(n_raw, len(columns))) + 5 * np.sin(2 * np.pi * hours / 24)[:, None]
raw[:, -1] = rng.uniform(0, 360, n_raw)
raw[3, 11] = -9999.0  # the tutorial's bad wind speed
df = pd.DataFrame(raw, columns=columns)
df.insert(0, 'Date Time', pd.date_range('2009-01-01', periods=n_raw, freq='10min')
          .strftime('%d.%m.%Y %H:%M:%S'))
"""

PREPARE = """
# Slice [start:stop:step], starting from index 5 take every 6th record.
df = df[5::6]
date_time = pd.to_datetime(df.pop('Date Time'), format='%d.%m.%Y %H:%M:%S')

wv = df['wv (m/s)'].copy()
wv[wv == -9999.0] = 0.0
df['wv (m/s)'] = wv

wv = df.pop('wv (m/s)')
max_wv = df.pop('max. wv (m/s)')
# Convert to radians.
wd_rad = df.pop('wd (deg)')*np.pi / 180
# Calculate the wind x and y components.
df['Wx'] = wv*np.cos(wd_rad)
df['Wy'] = wv*np.sin(wd_rad)
# Calculate the max wind x and y components.
df['max Wx'] = max_wv*np.cos(wd_rad)
df['max Wy'] = max_wv*np.sin(wd_rad)

timestamp_s = date_time.map(pd.Timestamp.timestamp)
day = 24*60*60
year = (365.2425)*day
df['Day sin'] = np.sin(timestamp_s * (2 * np.pi / day))
df['Day cos'] = np.cos(timestamp_s * (2 * np.pi / day))
df['Year sin'] = np.sin(timestamp_s * (2 * np.pi / year))
df['Year cos'] = np.cos(timestamp_s * (2 * np.pi / year))

column_indices = {name: i for i, name in enumerate(df.columns)}
n = len(df)
train_df = df[0:int(n*0.7)]
val_df = df[int(n*0.7):int(n*0.9)]
test_df = df[int(n*0.9):]
num_features = df.shape[1]

train_mean = train_df.mean()
train_std = train_df.std()
train_df = (train_df - train_mean) / train_std
val_df = (val_df - train_mean) / train_std
test_df = (test_df - train_mean) / train_std

class WindowGenerator():
  def __init__(self, input_width, label_width, shift,
               train_df=train_df, val_df=val_df, test_df=test_df,
               label_columns=None):
    # Store the raw data.
    self.train_df = train_df
    self.val_df = val_df
    self.test_df = test_df

    # Work out the label column indices.
    self.label_columns = label_columns
    if label_columns is not None:
      self.label_columns_indices = {name: i for i, name in
                                    enumerate(label_columns)}
    self.column_indices = {name: i for i, name in
                           enumerate(train_df.columns)}

    # Work out the window parameters.
    self.input_width = input_width
    self.label_width = label_width
    self.shift = shift

    self.total_window_size = input_width + shift

    self.input_slice = slice(0, input_width)
    self.input_indices = np.arange(self.total_window_size)[self.input_slice]

    self.label_start = self.total_window_size - self.label_width
    self.labels_slice = slice(self.label_start, None)
    self.label_indices = np.arange(self.total_window_size)[self.labels_slice]

  def split_window(self, features):
    inputs = features[:, self.input_slice, :]
    labels = features[:, self.labels_slice, :]
    if self.label_columns is not None:
      labels = tf.stack(
          [labels[:, :, self.column_indices[name]] for name in self.label_columns],
          axis=-1)

    # Slicing doesn't preserve static shape information, so set the shapes
    # manually. This way the `tf.data.Datasets` are easier to inspect.
    inputs.set_shape([None, self.input_width, None])
    labels.set_shape([None, self.label_width, None])

    return inputs, labels

  def make_dataset(self, data):
    data = np.array(data, dtype=np.float32)
    ds = tf.keras.utils.timeseries_dataset_from_array(
        data=data,
        targets=None,
        sequence_length=self.total_window_size,
        sequence_stride=1,
        shuffle=True,
        batch_size=32,)

    ds = ds.map(self.split_window)

    return ds

  @property
  def train(self):
    return self.make_dataset(self.train_df)

  @property
  def val(self):
    return self.make_dataset(self.val_df)

  @property
  def test(self):
    return self.make_dataset(self.test_df)

  @property
  def example(self):
    \"\"\"Get and cache an example batch of `inputs, labels` for plotting.\"\"\"
    result = getattr(self, '_example', None)
    if result is None:
      # No example batch was found, so get one from the `.train` dataset
      result = next(iter(self.train))
      # And cache it for next time
      self._example = result
    return result

MAX_EPOCHS = 2

def compile_and_fit(model, window, patience=2):
  early_stopping = tf.keras.callbacks.EarlyStopping(monitor='val_loss',
                                                    patience=patience,
                                                    mode='min')

  model.compile(loss=tf.keras.losses.MeanSquaredError(),
                optimizer=tf.keras.optimizers.Adam(),
                metrics=[tf.keras.metrics.MeanAbsoluteError()])

  history = model.fit(window.train, epochs=MAX_EPOCHS,
                      validation_data=window.val,
                      callbacks=[early_stopping], verbose=0)
  return history
"""

MODELS = """
single_step_window = WindowGenerator(
    input_width=1, label_width=1, shift=1,
    label_columns=['T (degC)'])

class Baseline(tf.keras.Model):
  def __init__(self, label_index=None):
    super().__init__()
    self.label_index = label_index

  def call(self, inputs):
    if self.label_index is None:
      return inputs
    result = inputs[:, :, self.label_index]
    return result[:, :, tf.newaxis]

baseline = Baseline(label_index=column_indices['T (degC)'])
baseline.compile(loss=tf.keras.losses.MeanSquaredError(),
                 metrics=[tf.keras.metrics.MeanAbsoluteError()])
baseline.evaluate(single_step_window.val, verbose=0)

wide_window = WindowGenerator(
    input_width=24, label_width=24, shift=1,
    label_columns=['T (degC)'])

linear = tf.keras.Sequential([
    tf.keras.layers.Dense(units=1)
])
history = compile_and_fit(linear, single_step_window)

dense = tf.keras.Sequential([
    tf.keras.layers.Dense(units=64, activation='relu'),
    tf.keras.layers.Dense(units=64, activation='relu'),
    tf.keras.layers.Dense(units=1)
])
history = compile_and_fit(dense, single_step_window)

CONV_WIDTH = 3
conv_window = WindowGenerator(
    input_width=CONV_WIDTH,
    label_width=1,
    shift=1,
    label_columns=['T (degC)'])

multi_step_dense = tf.keras.Sequential([
    # Shape: (time, features) => (time*features)
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(units=32, activation='relu'),
    tf.keras.layers.Dense(units=32, activation='relu'),
    tf.keras.layers.Dense(units=1),
    # Add back the time dimension.
    # Shape: (outputs) => (1, outputs)
    tf.keras.layers.Reshape([1, -1]),
])
history = compile_and_fit(multi_step_dense, conv_window)

conv_model = tf.keras.Sequential([
    tf.keras.layers.Conv1D(filters=32,
                           kernel_size=(CONV_WIDTH,),
                           activation='relu'),
    tf.keras.layers.Dense(units=32, activation='relu'),
    tf.keras.layers.Dense(units=1),
])
history = compile_and_fit(conv_model, conv_window)

lstm_model = tf.keras.models.Sequential([
    # Shape [batch, time, features] => [batch, time, lstm_units]
    tf.keras.layers.LSTM(8, return_sequences=True),
    # Shape => [batch, time, features]
    tf.keras.layers.Dense(units=1)
])
history = compile_and_fit(lstm_model, wide_window)
"""


@pytest.fixture(scope="module")
def nb(notebook: Notebook) -> Notebook:
    notebook.cell(DATA)
    notebook.cell(PREPARE)
    notebook.cell(MODELS)
    return notebook


def test_the_deliberate_shape_error_is_diagnosed_through_the_flatten(nb: Notebook) -> None:
    # the tutorial: "print('Output shape:', multi_step_dense(wide_window.example[0]).shape)"
    failed = nb.failing("multi_step_dense(wide_window.example[0])")
    assert type(failed.error).__name__ == "ValueError"
    text = failed.diagnosis
    assert text.splitlines()[1].startswith("S01"), text
    assert "axis before it changed" in text and "flatten" in text, text
    # %tfshape on the same call shows the table up to the failing row, with the same cause
    shape = nb.failing("%tfshape -v traced multi_step_dense wide_window.example[0]")
    assert shape.diagnosis == ""  # the magic reported it: no second box
    report = nb.ns["traced"]
    assert report.failed and severe(report) == {"S01"}, report.to_text()
    assert "axis before it changed" in shape.shown


def test_tfshape_on_each_model_that_fits_its_window(nb: Notebook) -> None:
    for model, window in (
        ("baseline", "wide_window"),
        ("dense", "single_step_window"),
        ("multi_step_dense", "conv_window"),
        ("conv_model", "conv_window"),
        ("lstm_model", "wide_window"),
    ):
        report = nb.magic(f"%tfshape {model} {window}.example[0]")
        assert severe(report) == set(), (model, report.to_text())
        assert not report.failed


def test_tfgrad_tfcheck_tfmem_on_compile_and_fit(nb: Notebook) -> None:
    report = nb.magic("%%tfgrad", "history = compile_and_fit(lstm_model, wide_window)")
    assert severe(report) == set(), report.to_text()
    report = nb.magic("%%tfcheck", "history = compile_and_fit(conv_model, conv_window)")
    assert severe(report) == set(), report.to_text()
    report = nb.magic("%%tfmem", "history = compile_and_fit(dense, single_step_window)")
    assert severe(report) == set(), report.to_text()


def test_tfpipeline_on_the_window_datasets(nb: Notebook) -> None:
    report = nb.magic("%tfpipeline wide_window.train --model lstm_model --no-timing")
    # timeseries_dataset_from_array prefetches before its own shuffle and batch, and the
    # tutorial maps split_window after it, one batch at a time: no prefetch() at the end
    # (P02) and a map without num_parallel_calls (P04), both as the tutorial writes it
    assert severe(report) == {"P02", "P04"}, report.to_text()


def test_tflint_and_tfoverfit(nb: Notebook) -> None:
    report = nb.magic("%tflint lstm_model --data wide_window.train")
    assert severe(report) == set(), report.to_text()
    report = nb.magic("%tfoverfit dense single_step_window.train --steps 100")
    assert severe(report) == set(), report.to_text()


def test_tfconsistency(nb: Notebook) -> None:
    report = nb.magic("%tfconsistency conv_model conv_window.example[0]")
    assert severe(report) == set(), report.to_text()
