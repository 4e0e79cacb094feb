"""`external-dns webhook-server --provider=<ours> ...`: serve one of our providers over the webhook protocol.

`webhook_server_main(argv)` is what the CLI's main dispatches to. It takes the same flags as the controller
(provider flags included; `--source` and `--policy` are not needed), listens on `--webhook-server-address`
(default 127.0.0.1:8888, as external-dns), optionally serves /healthz and /metrics on
`--webhook-server-health-address`, and runs until SIGTERM/SIGINT (or `stop` is set). Exit codes: 0 after a
clean stop, 1 when the provider cannot be built or the address cannot be bound, 2 for a configuration error.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence

import structlog

from external_dns.cmd import flags_core
from external_dns.cmd.build import PROVIDER_BUILDERS, build_provider
from external_dns.cmd.config import FLAG_GROUPS, Config, build_parser, parse_config
from external_dns.cmd.signals import install_signal_handlers
from external_dns.cmd.usage import WEBHOOK_SERVER
from external_dns.errors import ConfigError
from external_dns.logging_setup import configure_logging, print_line
from external_dns.providers.provider import ProviderError
from external_dns.providers.webhook.server import WebhookServer

log = structlog.get_logger(__name__)

def _validate(cfg: Config) -> None:
    if not cfg.core.provider:
        raise ConfigError(f"--provider must be set to the provider to serve (one of: "
                          f"{', '.join(sorted(set(PROVIDER_BUILDERS) - {'webhook'}))})")
    if cfg.core.provider == "webhook":
        raise ConfigError("webhook-server cannot serve --provider=webhook (pick the provider to expose)")
    for group in FLAG_GROUPS:
        if group is flags_core:  # sources/policy/registry do not apply here
            continue
        try:
            group.validate(cfg)
        except ConfigError as exc:
            # Controller-only requirements (sources, policy) never block the server.
            if "source" in str(exc) or "policy" in str(exc):
                continue
            raise


def webhook_server_main(argv: Sequence[str], stop: threading.Event | None = None) -> int:
    parser = build_parser(WEBHOOK_SERVER)
    try:
        cfg = parse_config(list(argv), parser=parser)
        _validate(cfg)
        configure_logging(cfg.log.level, cfg.log.format)
    except (ConfigError, ValueError) as exc:
        print(f"external-dns webhook-server: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # argparse usage errors (2) and --help (0)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    log.info("config", **parser.config_fields(cfg, ("provider", "rfc2136", "webhook", "aws", "pdns")))
    try:
        provider = build_provider(cfg)
    except (ProviderError, ConfigError) as exc:
        log.error("cannot build provider", provider=cfg.core.provider, error=str(exc))
        print(f"external-dns webhook-server: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ConfigError) else 1
    stop = stop or threading.Event()
    hook = cfg.webhook
    server = WebhookServer(provider, hook.server_address, hook.server_health_address, hook.max_body_size,
                           read_header_timeout=hook.read_header_timeout, idle_timeout=hook.idle_timeout)
    restore = install_signal_handlers(stop, lambda sig: log.info("received signal, shutting down", signal=sig.name))
    try:
        try:
            server.start()
        except ValueError as exc:  # a malformed address or a port outside 0-65535: a configuration error
            print(f"external-dns webhook-server: error: {exc}", file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"external-dns webhook-server: cannot listen on {hook.server_address}: {exc}",
                  file=sys.stderr)
            return 1
        print_line(f"webhook server listening on {server.url}")  # a reader that went away never stops the server
        while not stop.wait(timeout=3600.0):
            pass  # woken by a signal or by the caller's stop event
        return 0
    finally:
        server.stop()
        restore()
