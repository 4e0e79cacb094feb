"""Re-export: logging set-up lives in `external_dns.logging_setup` (any command may configure it)."""

from external_dns.logging_setup import LEVELS, configure_logging, logfmt_renderer

__all__ = ["LEVELS", "configure_logging", "logfmt_renderer"]
