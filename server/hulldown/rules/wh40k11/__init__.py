"""Warhammer 40,000 11th edition rules (edition id ``40k11``)."""

from .edition import RULES

__all__ = ["RULES"]
