"""`external-dns [run]`: the controller command. Parses the flags, sets up logging, wires the pipeline
(cmd/wiring.py) and runs it once (`--once`, controller/once.py) or as the long-running process
(controller/process.py) until SIGTERM/SIGINT. `--webhook-server` turns the process into the
`webhook-server` command, as external-dns's flag of the same name.

Exit codes: 0 success (and a clean shutdown); 1 a `--once` sync failed, the long-running process could
not start (metrics port taken, informer caches not synced within 60 s) or met a failure no retry can fix (a
refused credential, `FatalStop`); 2 a configuration error, printed as one line naming the flag; 3 an unsafe
plan without `--force`; 4 a stale plan file (`apply`).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import structlog

from external_dns.cmd.config import Config, load_config
from external_dns.cmd.flags import env_name, parse_bool
from external_dns.cmd.scope import warn_scope
from external_dns.cmd.signals import install_signal_handlers
from external_dns.cmd.usage import RUN, Command, overview
from external_dns.cmd.wiring import (
    KubeClient,
    build_controller,
    once_options,
    process_features,
    process_options,
)
from external_dns.controller.controller import Controller
from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.errors import ConfigError, error_text
from external_dns.gcsettings import settle_after_startup, settle_before_exit
from external_dns.logging_setup import configure_logging, print_line

log = structlog.get_logger(__name__)

EXIT_FATAL = 1  # as a sync that failed: a refused credential ended the long-running process


def config_error(message: str) -> int:
    print_line(f"external-dns: error: {message}", sys.stderr)  # unread (a closed pipe): the exit code says it
    return 2


def run_once_safely(controller: Controller, cfg: Config) -> int:
    """`--once` through the plan-first engine, with Kubernetes Events when in-cluster sources are used."""
    from external_dns.controller.features import attach_events, once_event_recorder
    from external_dns.controller.once import run_once

    options = once_options(cfg)
    recorder = once_event_recorder(controller, options.dry_run, cfg.controller.events_emit)
    attach_events(controller, recorder)
    try:
        return run_once(controller, options)
    finally:
        if recorder is not None and not recorder.stop(5.0):
            log.warning("not every Kubernetes Event could be sent before exiting")


def _wants_webhook_server(argv: Sequence[str], environ: Mapping[str, str] | None) -> bool:
    """`--webhook-server` (or EXTERNAL_DNS_WEBHOOK_SERVER=true): serve the provider instead of syncing. A bad
    value is left to the full parse, which reports it."""
    text = (os.environ if environ is None else environ).get(env_name("--webhook-server"), "false")
    for arg in argv:
        if arg in ("--webhook-server", "--no-webhook-server"):
            text = str(arg == "--webhook-server")
        elif arg.startswith("--webhook-server="):
            text = arg.partition("=")[2]
    try:
        return parse_bool(text)
    except argparse.ArgumentTypeError:
        return False


def run(argv: Sequence[str], environ: Mapping[str, str] | None = None, command: Command = RUN) -> int:
    """The controller: parse, wire, run once or loop. Returns the exit code. With `--webhook-server` the
    process is the `webhook-server` sub-command instead (as external-dns's flag of the same name). `command`
    names the program in --help and errors (`plan` runs through here)."""
    if _wants_webhook_server(argv, environ):
        from external_dns.cmd.webhook_server import webhook_server_main

        return webhook_server_main(list(argv))
    try:
        parser, cfg = load_config(argv, environ, command)
    except ConfigError as exc:
        if not argv and command is RUN:  # a bare `external-dns` (no flags, none in the environment either)
            print_line(overview(), sys.stderr)
        return config_error(str(exc))
    except SystemExit as exc:  # argparse: usage errors (2) and --help (0)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        configure_logging(cfg.log.level, cfg.log.format)
    except ValueError as exc:
        return config_error(str(exc))
    log.info("config", **parser.config_fields(cfg))  # flag=value pairs, as logfmt fields

    stop = threading.Event()
    kube_client = KubeClient(cfg)
    informer_factory = LazyInformerFactory(kube_client)
    context: dict[str, Any] = {"stop": stop, "kube_client": kube_client, "informer_factory": informer_factory}
    try:
        controller = build_controller(cfg, context)
    except ConfigError as exc:
        return config_error(str(exc))
    except Exception as exc:
        log.error(f"failed to start: {error_text(exc)}", error_type=type(exc).__name__)
        return 1
    warn_scope(cfg, controller.registry.provider)
    settle_after_startup(one_shot=cfg.core.once)  # start-up objects leave the collector's scans (gcsettings.py)

    if cfg.core.once:  # all zones planned, shown and safety-checked before any is applied (controller/once.py)
        if informer_factory.created:
            # The sources' informers list now, while the process settles and reads the zones (Go's sources
            # start theirs when built); the first read would start them otherwise (5k Services: -0.1 s wall).
            informer_factory().start()
        try:
            return run_once_safely(controller, cfg)
        finally:
            if informer_factory.created:  # in-cluster sources started their informers: stop them
                informer_factory().shutdown(5.0)
            settle_before_exit()  # the run's objects skip the collections of the interpreter's shutdown

    from external_dns.controller.process import ControllerProcess  # the long-running mode only

    process = ControllerProcess(process_options(cfg), controller, stop=stop, kube_client=kube_client,
                                informer_factory=informer_factory, features=process_features(cfg))
    fatal = FatalStop(stop, cfg.core.provider)
    process.zone_controller.on_fatal = process.on_fatal = fatal  # the DNSRecord controller's too (its feature)
    restore = install_signal_handlers(stop, lambda sig: log.info(f"Received {sig.name}. Terminating..."))
    try:
        code = process.run()
    except ConfigError as exc:
        process.shutdown()
        return config_error(str(exc))
    finally:
        stop.set()
        restore()
    return EXIT_FATAL if fatal.error is not None and code == 0 else code


class FatalStop:
    """A failure no retry can fix (the provider refused our credentials: controller/outcomes.is_fatal_error)
    ends the long-running process: one `level=fatal` line naming the provider, the zone and the cause, then
    the usual clean shutdown (in-flight syncs finish, the Lease is released) and exit 1. As Go's controller
    loop, where a non-soft error is fatal (log.Fatal); Kubernetes restarts the pod with back-off."""

    def __init__(self, stop: threading.Event, provider: str) -> None:
        self.stop = stop
        self.provider = provider
        self.error: BaseException | None = None
        self._lock = threading.Lock()

    def __call__(self, zone: str, exc: BaseException) -> None:
        with self._lock:
            first, self.error = self.error is None, self.error or exc
        if first:  # the other zones' workers may meet the same refusal: one line is enough
            log.critical(f"Failed to do run once: {error_text(exc)}", provider=self.provider,
                         **({"zone": zone} if zone else {}))  # no zone: listing the zones failed
        self.stop.set()


