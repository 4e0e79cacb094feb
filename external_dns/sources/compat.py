"""`--compatibility`: the annotations of the controllers ExternalDNS replaced, read as external-dns does
(`source/compatibility.go`, and its pod source for kOps). Only Services and Pods carry them:

* `mate`: a Service's `zalando.org/dnsname` annotation names one host;
* `molecule`: a Service labelled `dns=route53` names hosts in its `domainName` annotation (a comma list);
* `kops-dns-controller`: `dns.alpha.kubernetes.io/external` and `dns.alpha.kubernetes.io/internal` (comma
  lists). A LoadBalancer Service points both at its load balancer; a NodePort Service points `external` at
  the ExternalIP addresses (and, with --expose-internal-ipv6, the IPv6 InternalIPs) and `internal` at the
  InternalIP addresses of the nodes labelled `node-role.kubernetes.io/node` (both annotations at once: none,
  as kOps's dns-controller). On a Pod, `internal` names the pod IP and `external` its node's addresses.

A Service's legacy names are read only when its own annotations give no endpoint (then `--fqdn-template`
applies as usual); a Pod's are added to the others.
"""

from __future__ import annotations

COMPATIBILITY_MODES = ("mate", "molecule", "kops-dns-controller")

MATE_HOSTNAME = "zalando.org/dnsname"
MOLECULE_HOSTNAME = "domainName"
MOLECULE_LABEL = ("dns", "route53")
KOPS_EXTERNAL = "dns.alpha.kubernetes.io/external"
KOPS_INTERNAL = "dns.alpha.kubernetes.io/internal"
KOPS_NODE_ROLE = "node-role.kubernetes.io/node"


def legacy_annotation_keys(mode: str) -> tuple[str, ...]:
    """The annotations outside the prefix that `mode` reads (the informer caches keep them)."""
    return {"mate": (MATE_HOSTNAME,), "molecule": (MOLECULE_HOSTNAME,),
            "kops-dns-controller": (KOPS_EXTERNAL, KOPS_INTERNAL)}.get(mode, ())


def split_hosts(value: str) -> list[str]:
    """A comma list of host names, blanks removed anywhere (as external-dns: `a.org, b.org`)."""
    return [h for h in "".join(value.split()).split(",") if h]
