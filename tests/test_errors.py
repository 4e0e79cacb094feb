"""errors.py: the shared error types and the one way an exception becomes a message."""

from __future__ import annotations

from external_dns.cmd import flags
from external_dns.errors import ConfigError, error_text


def test_error_text_is_never_empty() -> None:
    assert error_text(ValueError("bad ttl")) == "bad ttl"
    assert error_text(ConnectionError()) == "ConnectionError"
    assert error_text(MemoryError()) == "out of memory (MemoryError)"
    assert error_text(MemoryError("zone too big")) == "out of memory (MemoryError: zone too big)"


def test_config_error_is_one_type_wherever_it_is_imported_from() -> None:
    assert flags.ConfigError is ConfigError  # the old path re-exports it
    assert issubclass(ConfigError, Exception)
