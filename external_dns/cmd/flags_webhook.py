"""Webhook provider flags: the client side (`--webhook-provider-*`, names and defaults as external-dns) and
the `external-dns webhook-server` sub-command's listen addresses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

MEDIA_TYPE = "application/external.dns.webhook+json;version=1"


def add_flags(p: FlagParser) -> None:
    p.group("webhook provider")
    p.add("--webhook-provider-url", default="http://localhost:8888", help="base URL of the webhook provider")
    p.add("--webhook-provider-read-timeout", type=duration, default=5.0, help="read timeout (duration)")
    p.add("--webhook-provider-write-timeout", type=duration, default=10.0, help="write timeout (duration)")
    p.add("--webhook-provider-read-header-timeout", type=duration, default=5.0,
          help="webhook server: most time to read a request's headers (duration)")
    p.add("--webhook-provider-idle-timeout", type=duration, default=30.0,
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


@flag_group
class WebhookFlags(FlagGroup):
    """The webhook provider (client) and the webhook-server sub-command."""

    url: str = flag("--webhook-provider-url")
    read_timeout: float = flag("--webhook-provider-read-timeout")
    write_timeout: float = flag("--webhook-provider-write-timeout")
    read_header_timeout: float = flag("--webhook-provider-read-header-timeout")
    idle_timeout: float = flag("--webhook-provider-idle-timeout")
    max_body_size: int = flag("--webhook-provider-max-body-size")
    server: bool = flag("--webhook-server")
    server_address: str = flag("--webhook-server-address")
    server_health_address: str = flag("--webhook-server-health-address")


def validate(cfg: Config) -> None:
    hook = cfg.webhook
    if hook.max_body_size < 0:
        raise ConfigError("--webhook-provider-max-body-size must not be negative")
    for name, value in (("--webhook-provider-read-header-timeout", hook.read_header_timeout),
                        ("--webhook-provider-idle-timeout", hook.idle_timeout)):
        if value < 0:
            raise ConfigError(f"{name} must not be negative")
    if cfg.core.provider == "webhook":
        url = hook.url
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"--webhook-provider-url must be an http(s) URL, got {url!r}")
        if hook.read_timeout <= 0 or hook.write_timeout <= 0:
            raise ConfigError("--webhook-provider-read-timeout and --webhook-provider-write-timeout must be positive")
