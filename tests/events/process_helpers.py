"""Shared by the long-running-process Event tests: the process options, a LoadBalancer Service with an
address, and running a ControllerProcess in a thread until the test is done."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from external_dns.cmd.config import parse_config
from external_dns.cmd.wiring import process_options
from external_dns.controller.process import ControllerProcess, ProcessOptions
from tests.kubeapi.server import KubeAPIServer


def event_process_options(events_emit: list[str]) -> ProcessOptions:
    """Options of a process that sends Events (`--events`, `--events-emit`), one long interval, 2 workers."""
    return process_options(parse_config(["--metrics-address=127.0.0.1:0", "--interval=1h", "--workers=2",
                                         "--min-event-sync-interval=0s", "--events",
                                         *(f"--events-emit={e}" for e in events_emit)], {}))


def create_lb_service(kubeapi: KubeAPIServer, annotations: dict[str, str]) -> None:
    """default/web: a LoadBalancer Service with `annotations` and the address 192.0.2.7 in its status."""
    kubeapi.create({"apiVersion": "v1", "kind": "Service",
                    "metadata": {"name": "web", "namespace": "default", "annotations": annotations},
                    "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}})
    kubeapi.patch("v1", "Service", "default", "web", {"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.7"}]}}},
                  subresource="status")


@contextmanager
def running(process: ControllerProcess, api: Any) -> Iterator[list[int]]:
    """Run `process` in a thread for the body; then stop it, join it and close `api`. The list yielded gets the
    process's exit code once it has stopped."""
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(process.run()), name="process-under-test")
    thread.start()
    try:
        yield codes
    finally:
        process.stop_event.set()
        thread.join(15)
        api.close()
