"""proceedings: runnable, tested implementations of nineteen NeurIPS 2026 research systems."""

__version__ = "0.1.0"
