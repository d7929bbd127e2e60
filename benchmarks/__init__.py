"""Performance at scale: ``python -m benchmarks`` (see README.md)."""
