"""The `external-dns` command (also `python -m external_dns`): parse flags, set up logging, wire the pipeline
(provider -> registry -> sources -> Controller) and run it once (`--once`) or every `--interval`.

Sub-commands: a first positional word selects one from `SUBCOMMANDS` (name -> "module:function", the
function takes the remaining arguments and returns an exit code); `run` (the default when the first word
is a flag or there is none) is the controller itself.

Exit codes: 0 success (and clean shutdown on SIGTERM/SIGINT); 1 when a `--once` sync failed (source,
registry or provider error) or the long-running process could not start (metrics port taken, informer
caches not synced within 60 s; once running, failed zones are retried with back-off, never fatal); 2 for configuration errors, printed as one line
`external-dns: error: <message naming the flag>` on stderr (also an unusable plan file); 3 when a plan
failed the safety checks without `--force` (nothing applied); 4 when `apply` found a zone changed since
the plan was made (nothing applied). `plan` / `apply` sub-commands and `--once`: cmd/plan_apply.py.

Source builders (`SOURCE_BUILDERS`) get `(cfg, context)`; the context is a dict with `stop` (a
threading.Event set at shutdown), `kube_client` (a zero-argument callable returning the shared
`kubernetes.client.ApiClient` built from the flags, created on first call) and `informer_factory` (a
zero-argument callable returning the process-wide `SharedInformerFactory`, created on first call; the
long-running process starts it and waits for its caches before the first sync, and shuts it down).

Without `--once` the long-running, zone-keyed controller runs (controller/process.py: workers, scheduling,
`--events`, leader election, health server, shutdown within 10 s of SIGTERM/SIGINT).
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import structlog

from external_dns.cmd.build import REGISTRY_BUILDERS, build_provider, load_builder
from external_dns.cmd.config import load_config
from external_dns.cmd.flags import ConfigError, env_name, parse_bool
from external_dns.controller.controller import Controller
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.logging_setup import configure_logging
from external_dns.providers.provider import CachedProvider, Provider
from external_dns.registry.registry import Registry
from external_dns.sources.source import Source

log = structlog.get_logger(__name__)

# name -> "module:function(argv: list[str]) -> int"
SUBCOMMANDS: dict[str, str] = {
    "webhook-server": "external_dns.providers.webhook.cli:webhook_server_main",
    "plan": "external_dns.cmd.plan_apply:plan_main",
    "apply": "external_dns.cmd.plan_apply:apply_main",
}


def _config_error(message: str) -> int:
    print(f"external-dns: error: {message}", file=sys.stderr, flush=True)
    return 2


def build_domain_filter(cfg: argparse.Namespace) -> DomainFilter:
    try:
        return DomainFilter(include=cfg.domain_filter or [], exclude=cfg.exclude_domains or [],
                            regex=cfg.regex_domain_filter or "", regex_exclusion=cfg.regex_domain_exclusion or "")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


class _KubeClient:
    """Builds the Kubernetes client on first use, once."""

    def __init__(self, cfg: argparse.Namespace) -> None:
        self._cfg = cfg
        self._lock = threading.Lock()
        self._client: Any = None

    def __call__(self) -> Any:
        with self._lock:
            if self._client is None:
                from external_dns.controller.kube import kube_api_client

                self._client = kube_api_client(self._cfg)
            return self._client

    @property
    def created(self) -> bool:
        with self._lock:
            return self._client is not None


def build_source(cfg: argparse.Namespace, context: Mapping[str, Any]) -> Source:
    """Every `--source`, combined and wrapped by the sources' pipeline (MultiSource, target filter, min TTL)."""
    from external_dns.sources.build import build_source_pipeline

    return build_source_pipeline(cfg, context)


def build_controller(cfg: argparse.Namespace, context: Mapping[str, Any]) -> Controller:
    """provider (cached with --provider-cache-time) -> registry -> sources -> Controller."""
    domain_filter = build_domain_filter(cfg)
    provider: Provider = build_provider(cfg)
    if getattr(cfg, "provider_cache_time", 0.0) > 0:
        provider = CachedProvider(provider, cfg.provider_cache_time)
    registry: Registry = load_builder(REGISTRY_BUILDERS, "registry", cfg.registry)(cfg, provider)
    source = build_source(cfg, context)
    controller = Controller(
        source,
        registry,
        cfg.policy,
        domain_filter=domain_filter,
        managed_record_types=cfg.managed_record_types,
        exclude_record_types=cfg.exclude_record_types or [],
        old_owner_id=cfg.migrate_from_txt_owner,
        dry_run=cfg.dry_run,
    )
    from external_dns.cmd.plan_apply import install_safety_gate

    install_safety_gate(controller, cfg)  # per-zone thresholds and root-NS guard before every write
    return controller


def _install_signal_handlers(stop: threading.Event) -> Callable[[], None]:
    """SIGTERM/SIGINT set `stop`; returns a function restoring the previous handlers.

    The Python-level handler does nothing: it may run while the main thread holds the log stream's lock or
    the Event's lock, so it must not log or set the Event itself. The interpreter writes the signal number
    to a wake-up pipe (`signal.set_wakeup_fd`); a watcher thread reads it, logs and sets `stop`."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)

    def watch() -> None:
        while True:
            data = os.read(read_fd, 1)
            if not data or data[0] == 0:  # 0: our own shutdown byte (no signal has number 0)
                return
            log.info(f"Received {signal.Signals(data[0]).name}. Terminating...")
            stop.set()

    watcher = threading.Thread(target=watch, name="signal-watcher", daemon=True)
    watcher.start()
    previous_wakeup = signal.set_wakeup_fd(write_fd)
    previous = {sig: signal.signal(sig, lambda _signum, _frame: None) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for sig, old in previous.items():
            signal.signal(sig, old)
        signal.set_wakeup_fd(previous_wakeup)
        os.write(write_fd, b"\0")
        watcher.join(timeout=5)
        os.close(write_fd)
        os.close(read_fd)

    return restore


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


def run(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> int:
    """The controller: parse, wire, run once or loop. Returns the exit code. With `--webhook-server` the
    process is the `webhook-server` sub-command instead (as external-dns's flag of the same name)."""
    if _wants_webhook_server(argv, environ):
        module, _, func = SUBCOMMANDS["webhook-server"].partition(":")
        result: int = getattr(importlib.import_module(module), func)(list(argv))
        return result
    try:
        parser, cfg = load_config(argv, environ)
    except ConfigError as exc:
        return _config_error(str(exc))
    except SystemExit as exc:  # argparse: usage errors (2) and --help (0)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        configure_logging(cfg.log_level, cfg.log_format)
    except ValueError as exc:
        return _config_error(str(exc))
    log.info("config", config=parser.masked(cfg))

    stop = threading.Event()
    from external_dns.controller.process import ControllerProcess, LazyInformerFactory

    kube_client = _KubeClient(cfg)
    informer_factory = LazyInformerFactory(kube_client)
    context: dict[str, Any] = {"stop": stop, "kube_client": kube_client, "informer_factory": informer_factory}
    try:
        controller = build_controller(cfg, context)
    except ConfigError as exc:
        return _config_error(str(exc))
    except Exception as exc:
        log.error(f"failed to start: {exc}", error_type=type(exc).__name__)
        return 1

    if cfg.once:  # all zones planned, shown and safety-checked before any is applied (cmd/plan_apply.py)
        from external_dns.cmd.plan_apply import run_once_safely

        try:
            return run_once_safely(controller, cfg)
        finally:
            if informer_factory.created:  # in-cluster sources started their informers: stop them
                informer_factory().shutdown(5.0)

    process = ControllerProcess(cfg, controller, stop=stop, kube_client=kube_client,
                                informer_factory=informer_factory)
    restore = _install_signal_handlers(stop)
    try:
        return process.run()
    except ConfigError as exc:
        process.shutdown()
        return _config_error(str(exc))
    finally:
        stop.set()
        restore()


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and not args[0].startswith("-"):
        name = args[0]
        if name == "run":
            return run(args[1:])
        if name not in SUBCOMMANDS:
            known = ", ".join(["run", *sorted(SUBCOMMANDS)])
            return _config_error(f"unknown sub-command {name!r} (available: {known})")
        module, _, func = SUBCOMMANDS[name].partition(":")
        result: int = getattr(importlib.import_module(module), func)(args[1:])
        return result
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
