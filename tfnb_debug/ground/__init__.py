"""The ground every layer stands on: errors, the finding catalog, reports, text and number formatting.

These modules import no other part of tfnb_debug (``reports`` renders itself through
``render/`` lazily, on display), so any layer may import them.
"""
