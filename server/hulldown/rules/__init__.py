"""The pure rules core: geometry, dice and one module per edition.

Nothing in this package performs I/O, reads the clock or uses global randomness.
"""
