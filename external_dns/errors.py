"""Error types shared across layers. This module imports nothing from the package, so any layer may raise
or catch these without importing the layer that defines the flags."""

from __future__ import annotations


def error_text(exc: BaseException) -> str:
    """`str(exc)`, or the exception's type when that is empty (a bare MemoryError would print nothing)."""
    text = str(exc)
    if isinstance(exc, MemoryError):
        return f"out of memory (MemoryError{': ' + text if text else ''})"
    return text or type(exc).__name__


class ConfigError(Exception):
    """An invalid flag, flag combination or start-up setting; the CLI prints it and exits 2."""
