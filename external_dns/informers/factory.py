"""SharedInformerFactory: one `SharedIndexInformer` per (resource, namespace, label selector, field
selector), shared by every caller asking for the same thing.

`start()` starts the informers not started yet (it may be called again after more are requested);
`wait_for_cache_sync(timeout)` waits for the started informers (and, given registrations, for those
handlers); `shutdown(timeout)` stops and joins every thread within the bound.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

import structlog

from external_dns.informers.informer import SharedIndexInformer
from external_dns.informers.listener import Listener
from external_dns.informers.reflector import ReflectorOptions
from external_dns.informers.resource import Resource
from external_dns.informers.transform import DEFAULT_TRANSFORMERS, Transformer

log = structlog.get_logger(__name__)

InformerKey = tuple[Resource, str | None, str | None, str | None]


class SharedInformerFactory:
    """Creates and owns shared informers. `namespace` is the default for `informer_for`;
    `transformers` (default: drop managedFields and last-applied-configuration) apply to every informer."""

    def __init__(self, api_client: Any, default_resync: float = 0.0, namespace: str | None = None,
                 transformers: Iterable[Transformer] = DEFAULT_TRANSFORMERS,
                 options: ReflectorOptions | None = None, detect_mutation: bool | None = None) -> None:
        self.api_client = api_client
        self.default_resync = default_resync
        self.namespace = namespace or None
        self.transformers = tuple(transformers)
        self.options = options
        self.detect_mutation = detect_mutation
        self._lock = threading.Lock()
        self._informers: dict[InformerKey, SharedIndexInformer] = {}
        self._shutting_down = False

    def informer_for(self, resource: Resource, namespace: str | None = None, label_selector: str | None = None,
                     field_selector: str | None = None, resync_period: float | None = None) -> SharedIndexInformer:
        ns = (namespace or self.namespace) if resource.namespaced else None
        key: InformerKey = (resource, ns or None, label_selector or None, field_selector or None)
        with self._lock:
            informer = self._informers.get(key)
            if informer is None:
                informer = SharedIndexInformer(
                    self.api_client, resource, namespace=key[1], label_selector=key[2], field_selector=key[3],
                    resync_period=self.default_resync if resync_period is None else resync_period,
                    transformers=self.transformers, options=self.options, detect_mutation=self.detect_mutation)
                self._informers[key] = informer
            return informer

    def informers(self) -> list[SharedIndexInformer]:
        with self._lock:
            return list(self._informers.values())

    def start(self) -> None:
        """Start every informer not started yet (non-blocking); nothing after shutdown."""
        with self._lock:
            if self._shutting_down:
                return
            informers = list(self._informers.values())
        for informer in informers:
            informer.start()

    def wait_for_cache_sync(self, timeout: float, registrations: Iterable[Listener] = ()) -> bool:
        """True when every started informer (and every given handler registration) synced in `timeout`."""
        deadline = time.monotonic() + timeout
        for informer in self.informers():
            if informer.is_stopped():
                return False
            if not informer.wait_for_cache_sync(max(0.0, deadline - time.monotonic())):
                log.warning("informer cache not synced in time", informer=informer.name, timeout=timeout)
                return False
        for registration in registrations:
            if not registration.wait_for_sync(max(0.0, deadline - time.monotonic())):
                log.warning("event handler not synced in time", informer=registration.name, timeout=timeout)
                return False
        return True

    def wait_for_cache_sync_each(self, timeout: float) -> dict[str, bool]:
        """Per-informer sync result (client-go returns a map)."""
        deadline = time.monotonic() + timeout
        return {i.name: i.wait_for_cache_sync(max(0.0, deadline - time.monotonic())) for i in self.informers()}

    def shutdown(self, timeout: float = 5.0) -> bool:
        """Stop every informer and join its threads; True when all ended within `timeout` seconds."""
        with self._lock:
            self._shutting_down = True
            informers = list(self._informers.values())
        deadline = time.monotonic() + timeout
        for informer in informers:  # signal all first, so they wind down in parallel
            informer.reflector.stop()
        ok = True
        for informer in informers:
            ok = informer.shutdown(max(0.0, deadline - time.monotonic())) and ok
        return ok
