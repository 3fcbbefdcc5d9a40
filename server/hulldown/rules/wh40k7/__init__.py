"""Warhammer 40,000 7th edition vehicle rules (edition id ``40k7``, seed 001)."""

from .edition import RULES

__all__ = ["RULES"]
