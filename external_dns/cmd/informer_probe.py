"""`external-dns informer-probe` (also `python -m external_dns.cmd.informer_probe`): print an informer's
events as JSON lines.

    external-dns informer-probe --kubeconfig F --resource services|ingresses|dnsendpoints \
        [--namespace NS] [--label-selector S] [--field-selector S]

stdout: one JSON object per event, flushed per line (see `probe.py`); logs go to stderr. SIGTERM or SIGINT
stops it cleanly with exit status 0; a configuration error (unreadable kubeconfig, a label selector that
does not parse) exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
import threading

import structlog
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config

from external_dns.cmd.signals import install_signal_handlers
from external_dns.controller.kube import new_api_client
from external_dns.informers.factory import SharedInformerFactory
from external_dns.informers.probe import JsonLinesHandler
from external_dns.informers.resource import BY_NAME
from external_dns.logging_setup import configure_logging
from external_dns.sources.selector import SelectorError, parse_selector

log = structlog.get_logger("external_dns.informers.probe")
PROG = "external-dns informer-probe"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG,
                                     description="Print an informer's events as JSON lines.")
    parser.add_argument("--kubeconfig", default="", help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config)")
    parser.add_argument("--context", default=None, help="kubeconfig context (default: the current one)")
    parser.add_argument("--resource", required=True, choices=sorted(BY_NAME), help="resource to watch")
    parser.add_argument("--namespace", default="", help="watch one namespace (default: all)")
    parser.add_argument("--label-selector", default="", help="server-side label selector")
    parser.add_argument("--field-selector", default="", help="server-side field selector")
    parser.add_argument("--log-level", default="info", help="stderr log level (default: info)")
    return parser.parse_args(argv)


def _api_client(kubeconfig: str, context: str | None) -> k8s_client.ApiClient:
    configuration = k8s_client.Configuration()
    k8s_config.load_kube_config(config_file=kubeconfig or None, context=context,
                                client_configuration=configuration, persist_config=False)
    return new_api_client(configuration)


def main(argv: list[str] | None = None) -> int:
    stop = threading.Event()
    # first, so an early signal is a clean stop as well; the handler itself neither logs nor sets the Event
    # (it may land while this thread holds the log stream's lock): a watcher thread does (cmd/signals.py)
    restore = install_signal_handlers(stop, lambda sig: log.info("signal received; stopping", signal=sig.name))
    try:
        return _probe(stop, sys.argv[1:] if argv is None else argv)
    finally:
        restore()


def _probe(stop: threading.Event, argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        configure_logging(args.log_level, "text", sys.stderr)
    except ValueError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    try:
        parse_selector(args.label_selector)  # a typo is a usage error, not a LIST the server refuses for ever
    except SelectorError as exc:
        print(f"{PROG}: error: --label-selector: {exc}", file=sys.stderr)
        return 2
    try:
        api = _api_client(args.kubeconfig, args.context)
    except Exception as exc:
        print(f"{PROG}: error: cannot load kubeconfig {args.kubeconfig or '(default)'}: {exc}", file=sys.stderr)
        return 2
    factory = SharedInformerFactory(api)
    informer = factory.informer_for(BY_NAME[args.resource], namespace=args.namespace or None,
                                    label_selector=args.label_selector or None,
                                    field_selector=args.field_selector or None)
    informer.add_event_handler(JsonLinesHandler(sys.stdout, on_broken_pipe=stop))
    if stop.is_set():
        return 0
    factory.start()
    try:
        while not stop.wait(1.0):
            pass
    finally:
        ok = factory.shutdown(timeout=5.0)
        api.close()
    if not ok:
        log.warning("some informer threads did not stop in time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
