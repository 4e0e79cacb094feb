"""Webhook provider flags: the client side (`--webhook-provider-*`, names and defaults as external-dns) and
the `external-dns webhook-server` sub-command's listen addresses."""

from __future__ import annotations

import argparse

from external_dns.cmd.flags import ConfigError, FlagParser, duration

MEDIA_TYPE = "application/external.dns.webhook+json;version=1"


def add_flags(p: FlagParser) -> None:
    p.group("webhook provider")
    p.add("--webhook-provider-url", default="http://localhost:8888", help="base URL of the webhook provider")
    p.add("--webhook-provider-read-timeout", type=duration, default=5.0, help="read timeout (duration)")
    p.add("--webhook-provider-write-timeout", type=duration, default=10.0, help="write timeout (duration)")
    p.add("--webhook-provider-read-header-timeout", type=duration, default=5.0,
          help="webhook server: most time to read a request's headers (duration)")
    p.add("--webhook-provider-idle-timeout", type=duration, default=60.0,
          help="webhook server: how long an idle keep-alive connection stays open (duration)")
    p.add("--webhook-provider-max-body-size", type=int, default=33554432,
          help="largest response (client) or request (server) body in bytes; 0 = no cap")
    p.add("--webhook-server", type=bool, default=False,
          help="run as a webhook server for --provider (same as the webhook-server sub-command)")
    p.add("--webhook-server-address", default="127.0.0.1:8888",
          help="webhook-server: where the provider API listens (host:port)")
    p.add("--webhook-server-health-address", default="",
          help="webhook-server: extra listener for /healthz and /metrics only (host:port; empty = none; "
               "both paths are always on the main listener too)")


def validate(cfg: argparse.Namespace) -> None:
    if cfg.webhook_provider_max_body_size < 0:
        raise ConfigError("--webhook-provider-max-body-size must not be negative")
    for flag in ("webhook_provider_read_header_timeout", "webhook_provider_idle_timeout"):
        if getattr(cfg, flag) < 0:
            raise ConfigError(f"--{flag.replace('_', '-')} must not be negative")
    if getattr(cfg, "provider", "") == "webhook":
        url = cfg.webhook_provider_url
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"--webhook-provider-url must be an http(s) URL, got {url!r}")
        if cfg.webhook_provider_read_timeout <= 0 or cfg.webhook_provider_write_timeout <= 0:
            raise ConfigError("--webhook-provider-read-timeout and --webhook-provider-write-timeout must be positive")
