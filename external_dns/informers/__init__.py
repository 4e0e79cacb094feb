"""Shared informers (client-go `tools/cache` for Python): reflector (paged LIST + WATCH with bookmarks,
backoff and relist), thread-safe indexed store, transformers, SharedIndexInformer with per-handler
buffered delivery and resync, SharedInformerFactory. `external-dns informer-probe` prints their events.

Objects are raw JSON dicts, never the client's model classes; cached objects are read-only for handlers.
Usage (a source or the controller)::

    factory = SharedInformerFactory(api_client, default_resync=0,
                                    transformers=(*DEFAULT_TRANSFORMERS,
                                                  keep_annotation_prefixes("external-dns.alpha.kubernetes.io/")))
    services = factory.informer_for(SERVICES, namespace=None, label_selector="team=a")
    services.add_indexers({"host": lambda o: [...]})           # before start only
    reg = services.add_event_handler(ResourceEventHandlerFuncs(
        on_add=lambda o: queue.add("sync"), on_update=lambda old, new: queue.add("sync"),
        on_delete=lambda o: queue.add("sync")))                 # o may be a DeletedFinalStateUnknown
    factory.start()
    factory.wait_for_cache_sync(60, registrations=[reg])       # or reg.has_synced()
    services.get_store().list(); services.get_indexer().by_index("namespace", "ns")
    factory.shutdown(timeout=5)
"""

from external_dns.informers.backoff import Backoff
from external_dns.informers.factory import SharedInformerFactory
from external_dns.informers.handlers import (
    FilteringResourceEventHandler,
    ResourceEventHandler,
    ResourceEventHandlerFuncs,
)
from external_dns.informers.informer import SharedIndexInformer
from external_dns.informers.keys import (
    DeletedFinalStateUnknown,
    deletion_handling_key,
    meta_namespace_key,
    split_key,
)
from external_dns.informers.listener import Listener
from external_dns.informers.reflector import Reflector, ReflectorOptions
from external_dns.informers.resource import (
    DNSENDPOINTS,
    DNSRECORDS,
    ENDPOINTSLICES,
    INGRESSES,
    LEASES,
    NAMESPACES,
    NODES,
    PODS,
    SERVICES,
    Resource,
)
from external_dns.informers.store import (
    NAMESPACE_INDEX,
    Indexer,
    InformerStartedError,
    namespace_index,
)
from external_dns.informers.transform import (
    DEFAULT_TRANSFORMERS,
    Transformer,
    drop_fields,
    drop_last_applied_configuration,
    drop_managed_fields,
    keep_annotation_prefixes,
)

HandlerRegistration = Listener

__all__ = [
    "DEFAULT_TRANSFORMERS", "DNSENDPOINTS", "DNSRECORDS", "ENDPOINTSLICES", "INGRESSES", "LEASES",
    "NAMESPACES", "NAMESPACE_INDEX", "NODES", "PODS", "SERVICES", "Backoff", "DeletedFinalStateUnknown",
    "FilteringResourceEventHandler", "HandlerRegistration", "Indexer", "InformerStartedError", "Listener",
    "Reflector", "ReflectorOptions", "Resource", "ResourceEventHandler", "ResourceEventHandlerFuncs",
    "SharedIndexInformer", "SharedInformerFactory", "Transformer", "deletion_handling_key",
    "drop_fields", "drop_last_applied_configuration", "drop_managed_fields", "keep_annotation_prefixes",
    "meta_namespace_key", "namespace_index", "split_key",
]
