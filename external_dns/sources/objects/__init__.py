"""Object -> endpoints logic on raw Kubernetes dicts, independent of where the objects come from.

Per object: `service_endpoints`, `ingress_endpoints`, `dnsendpoint_endpoints`, `route_endpoints` (Gateway
API routes), `node_endpoints`, `pod_endpoints` (each -> ObjectEndpoints (endpoints, problems)). Per source
(all objects of a kind, merged as external-dns's sources do): `collect_service_endpoints`,
`collect_ingress_endpoints`, `collect_dnsendpoint_endpoints`, `collect_route_endpoints`,
`collect_node_endpoints`, `collect_pod_endpoints`.
"""

from external_dns.sources.objects.common import FieldError, ObjectEndpoints
from external_dns.sources.objects.dnsendpoint import (
    collect_dnsendpoint_endpoints,
    dnsendpoint_endpoints,
    dnsendpoint_needs_status_update,
    merge_dnsendpoint_endpoints,
)
from external_dns.sources.objects.gateway import (
    GatewayLookup,
    GatewayOptions,
    collect_route_endpoints,
    route_endpoints,
)
from external_dns.sources.objects.ingress import (
    collect_ingress_endpoints,
    ingress_class_matches,
    ingress_endpoints,
    merge_ingress_endpoints,
)
from external_dns.sources.objects.node import collect_node_endpoints, node_endpoints
from external_dns.sources.objects.pod import PodOptions, collect_pod_endpoints, pod_endpoints
from external_dns.sources.objects.service import (
    collect_service_endpoints,
    merge_service_endpoints,
    service_endpoints,
)

__all__ = [
    "FieldError",
    "GatewayLookup",
    "GatewayOptions",
    "ObjectEndpoints",
    "PodOptions",
    "collect_dnsendpoint_endpoints",
    "collect_ingress_endpoints",
    "collect_node_endpoints",
    "collect_pod_endpoints",
    "collect_route_endpoints",
    "collect_service_endpoints",
    "dnsendpoint_endpoints",
    "dnsendpoint_needs_status_update",
    "ingress_class_matches",
    "ingress_endpoints",
    "merge_dnsendpoint_endpoints",
    "merge_ingress_endpoints",
    "merge_service_endpoints",
    "node_endpoints",
    "pod_endpoints",
    "route_endpoints",
    "service_endpoints",
]
