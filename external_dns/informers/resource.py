"""`Resource`: what an informer lists and watches (group, version, plural, kind, scope) and its API paths.

Constants cover the kinds external-dns reads. A resource is a small frozen value, so it can key the
factory's informer map together with the namespace and the selectors.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Resource:
    """One API resource: `group` is "" for the core API."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool = True

    @property
    def api_version(self) -> str:
        """The `apiVersion` of the objects ("v1", "networking.k8s.io/v1")."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def name(self) -> str:
        """The resource's full name as kubectl spells it ("services", "ingresses.networking.k8s.io")."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def path(self, namespace: str | None = None) -> str:
        """The collection path: the namespaced one when `namespace` is given for a namespaced resource."""
        prefix = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if namespace and self.namespaced:
            return f"{prefix}/namespaces/{namespace}/{self.plural}"
        return f"{prefix}/{self.plural}"


SERVICES = Resource("", "v1", "services", "Service")
PODS = Resource("", "v1", "pods", "Pod")
NODES = Resource("", "v1", "nodes", "Node", namespaced=False)
NAMESPACES = Resource("", "v1", "namespaces", "Namespace", namespaced=False)
INGRESSES = Resource("networking.k8s.io", "v1", "ingresses", "Ingress")
ENDPOINTSLICES = Resource("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice")
LEASES = Resource("coordination.k8s.io", "v1", "leases", "Lease")
DNSENDPOINTS = Resource("externaldns.k8s.io", "v1alpha1", "dnsendpoints", "DNSEndpoint")
DNSRECORDS = Resource("kuadrant.io", "v1alpha1", "dnsrecords", "DNSRecord")
# Gateway API: Gateway, HTTPRoute and GRPCRoute in the standard channel (v1); TLSRoute, TCPRoute and
# UDPRoute in the experimental channel (v1alpha2), the versions external-dns reads.
GATEWAYS = Resource("gateway.networking.k8s.io", "v1", "gateways", "Gateway")
HTTPROUTES = Resource("gateway.networking.k8s.io", "v1", "httproutes", "HTTPRoute")
GRPCROUTES = Resource("gateway.networking.k8s.io", "v1", "grpcroutes", "GRPCRoute")
TLSROUTES = Resource("gateway.networking.k8s.io", "v1alpha2", "tlsroutes", "TLSRoute")
TCPROUTES = Resource("gateway.networking.k8s.io", "v1alpha2", "tcproutes", "TCPRoute")
UDPROUTES = Resource("gateway.networking.k8s.io", "v1alpha2", "udproutes", "UDPRoute")
# ListenerSet: the standard channel since Gateway API v1.5 (--gateway-listener-sets)
LISTENERSETS = Resource("gateway.networking.k8s.io", "v1", "listenersets", "ListenerSet")

BY_NAME: dict[str, Resource] = {
    r.plural: r for r in (SERVICES, PODS, NODES, NAMESPACES, INGRESSES, ENDPOINTSLICES, LEASES, DNSENDPOINTS,
                          DNSRECORDS, GATEWAYS, HTTPROUTES, GRPCROUTES, TLSROUTES, TCPROUTES, UDPROUTES,
                          LISTENERSETS)
}
