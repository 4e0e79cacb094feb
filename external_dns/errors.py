"""Error types shared across layers. This module imports nothing from the package, so any layer may raise
or catch these without importing the layer that defines the flags."""

from __future__ import annotations


class ConfigError(Exception):
    """An invalid flag, flag combination or start-up setting; the CLI prints it and exits 2."""
