"""Collect: instrumentation that reads TensorFlow/Keras and returns plain records.

The bottom layer: nothing here imports diagnostics/, reports, render/, magics/
or widgets/ (tests/test_architecture.py checks it).  See docs/architecture.md.
"""
