"""Horus Heresy 3rd edition rules (edition id ``hh3``)."""

from .edition import RULES

__all__ = ["RULES"]
