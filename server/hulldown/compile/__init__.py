"""The compiled build: the pure core (``match/``, ``rules/``) compiled to C extensions by mypyc in a
copy of the package, run by putting that copy first on ``PYTHONPATH`` (docs/compiled-core.md)."""
