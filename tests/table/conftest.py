"""The player's-table browser tests use the viewer tests' Chromium fixture."""

from ..viewer.test_viewer_browser import browser

__all__ = ["browser"]
