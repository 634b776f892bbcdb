"""Renderers: pure functions from a report to text, HTML or a matplotlib figure.

No renderer imports TensorFlow; none reads the environment.
"""
