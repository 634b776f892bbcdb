"""Plain records of what the collectors saw: frozen dataclasses of shapes, numbers and NumPy summaries.

Collectors (``collect/``) fill them, rules (``diagnostics/``) read them, renderers draw
them. They hold no live tensors and import only the ground (``ground/``).
"""
