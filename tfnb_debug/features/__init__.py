"""Each feature's public API, report and runner: ``trace_shapes``, ``record_gradients``, ``run_checked``, ...

A feature module runs its collectors, hands the plain facts to its rules and returns
a frozen report. The root modules of the package (``tfnb_debug.features.shapes``, ...) re-export
their public names.
"""
