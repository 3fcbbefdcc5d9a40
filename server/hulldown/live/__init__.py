"""The live shell: per-match runtimes, stream tailing and the fan-out hub."""
