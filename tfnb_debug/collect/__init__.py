"""Collect: instrumentation that returns plain facts; see docs/architecture.md."""
