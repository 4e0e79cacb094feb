"""The process-wide shared informer factory, built on first use: a light module, so that `--once` (which needs
the factory only when an in-cluster source asks for it) does not import the long-running process."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from external_dns.informers import SharedInformerFactory


class LazyInformerFactory:
    """The process-wide SharedInformerFactory, built on first call from the Kubernetes client getter."""

    def __init__(self, kube_client: Callable[[], Any], default_resync: float = 0.0) -> None:
        self._kube_client = kube_client
        self._default_resync = default_resync
        self._lock = threading.Lock()
        self._factory: SharedInformerFactory | None = None

    def __call__(self) -> SharedInformerFactory:
        with self._lock:
            if self._factory is None:
                from external_dns.informers import SharedInformerFactory as Factory

                self._factory = Factory(self._kube_client(), default_resync=self._default_resync)
            return self._factory

    @property
    def created(self) -> bool:
        with self._lock:
            return self._factory is not None
