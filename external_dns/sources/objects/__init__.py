"""Object -> endpoints logic on raw Kubernetes dicts, independent of where the objects come from."""

from external_dns.sources.objects.common import FieldError, ObjectEndpoints
from external_dns.sources.objects.dnsendpoint import dnsendpoint_endpoints, merge_dnsendpoint_endpoints
from external_dns.sources.objects.ingress import (
    ingress_class_matches,
    ingress_endpoints,
    merge_ingress_endpoints,
)
from external_dns.sources.objects.service import merge_service_endpoints, service_endpoints

__all__ = [
    "FieldError",
    "ObjectEndpoints",
    "dnsendpoint_endpoints",
    "ingress_class_matches",
    "ingress_endpoints",
    "merge_dnsendpoint_endpoints",
    "merge_ingress_endpoints",
    "merge_service_endpoints",
    "service_endpoints",
]
