"""The manifests the real-CLI provider tests (BIND, PowerDNS) sync: a LoadBalancer Service (web.example.org,
its address and TTL chosen by the test) and a DNSEndpoint with MX, SRV, TXT and CNAME records."""

from __future__ import annotations

from pathlib import Path

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
  annotations:
    external-dns.kubernetes.io/hostname: web.example.org
    external-dns.kubernetes.io/ttl: "{ttl}"
spec:
  type: LoadBalancer
  ports: [{{name: http, port: 80, protocol: TCP}}]
status:
  loadBalancer:
    ingress: [{{ip: {ip}}}]
"""

RECORDS = """\
apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: records
  namespace: default
spec:
  endpoints:
    - dnsName: inbox.example.com
      recordType: MX
      targets: ["10 mail.example.net", "20 backup.example.net"]
    - dnsName: _sip._udp.example.com
      recordType: SRV
      recordTTL: 120
      targets: ["10 60 5060 sip.example.net."]
    - dnsName: note.example.org
      recordType: TXT
      targets: ['v=1 "quoted" and spaced']
    - dnsName: alias.example.com
      recordType: CNAME
      targets: [web.example.org]
"""


def write(manifests: Path, ip: str = "192.0.2.10", ttl: str = "300", records: bool = True) -> None:
    """service.yaml with `ip` and `ttl`; records.yaml written, or removed when `records` is False."""
    (manifests / "service.yaml").write_text(SERVICE.format(ip=ip, ttl=ttl))
    rec = manifests / "records.yaml"
    if records:
        rec.write_text(RECORDS)
    elif rec.exists():
        rec.unlink()
