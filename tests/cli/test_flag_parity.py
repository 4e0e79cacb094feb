"""Flag parity with upstream external-dns: a transcribed list of upstream's flags (names and defaults) for the
providers and sources we have, and the ones we leave out on purpose. The test fails when one of ours goes
missing, when a default drifts, and when docs/flags-parity.md stops listing a left-out flag.

Transcribed (facts only) from upstream's flag definitions (`pkg/apis/externaldns/types.go`, the version with
`--events-emit` and `--prefer-alias`), `docs/flags.md`, and for the newer flags from the project's reference
(/work/shared/reference/external-dns.md: `--kube-api-*`, `--webhook-provider-max-body-size`, `--policy` with no
default) and upstream's docs (`--create-ptr`, `--target-template`, `--fqdn-target-template`).
Defaults are written as upstream prints them: Go durations, "true"/"false", lists as tuples.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pytest

from external_dns.cmd.config import build_parser
from external_dns.cmd.flags import _Bool, duration, parse_bool
from external_dns.durations import parse_duration

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = object()  # upstream has no default: the flag must be given
UNCHECKED = object()  # upstream's default was not transcribed (see the note beside the flag)

# Upstream flags of the providers (aws, rfc2136, webhook, inmemory, pdns), registries (txt, dynamodb, noop) and
# sources (service, ingress, crd, node, pod, gateway-*route) we have, and the general ones.
UPSTREAM: dict[str, Any] = {
    # Kubernetes connection
    "--server": "", "--kubeconfig": "", "--request-timeout": "30s",
    "--kube-api-request-timeout": "30s", "--kube-api-qps": "5", "--kube-api-burst": "10",
    # sources
    "--source": REQUIRED, "--namespace": "", "--annotation-filter": "", "--label-filter": "",
    "--annotation-prefix": "external-dns.kubernetes.io/",
    "--fqdn-template": (), "--target-template": "", "--fqdn-target-template": "",
    "--combine-fqdn-annotation": "false", "--ignore-hostname-annotation": "false",
    "--ignore-ingress-tls-spec": "false", "--ignore-ingress-rules-spec": "false",
    "--ingress-class": (), "--publish-internal-services": "false", "--publish-host-ip": "false",
    "--always-publish-not-ready-addresses": "false", "--service-type-filter": (),
    "--resolve-service-load-balancer-hostname": "false", "--listen-endpoint-events": "false",
    "--expose-internal-ipv6": "false", "--exclude-unschedulable": "true",
    "--ignore-non-host-network-pods": "false", "--pod-source-domain": "",
    "--gateway-name": "", "--gateway-namespace": "", "--gateway-label-filter": "",
    "--crd-source-apiversion": "externaldns.k8s.io/v1alpha1", "--crd-source-kind": "DNSEndpoint",
    "--default-targets": (), "--force-default-targets": "false", "--prefer-alias": "false",
    "--exclude-target-net": (), "--target-net-filter": (), "--nat64-networks": (), "--min-ttl": "0s",
    "--create-ptr": "false", "--events-emit": (), "--compatibility": "", "--gateway-listener-sets": "false",
    # filters and record types
    "--domain-filter": (), "--exclude-domains": (), "--regex-domain-filter": "", "--regex-domain-exclusion": "",
    "--zone-id-filter": (), "--managed-record-types": ("A", "AAAA", "CNAME"), "--exclude-record-types": (),
    # provider, policy, registry
    "--provider": REQUIRED, "--provider-cache-time": "0s", "--policy": REQUIRED, "--registry": "txt",
    "--txt-owner-id": "default", "--txt-prefix": "", "--txt-suffix": "", "--txt-wildcard-replacement": "",
    "--txt-encrypt-enabled": "false", "--txt-encrypt-aes-key": "", "--txt-cache-interval": "0s",
    "--migrate-from-txt-owner": "", "--dynamodb-region": "", "--dynamodb-table": "external-dns",
    # Cloudflare, Google Cloud DNS and Azure providers (defaults from types.go's defaultConfig)
    "--cloudflare-proxied": "false", "--cloudflare-dns-records-per-page": "100", "--cloudflare-record-comment": "",
    "--cloudflare-regional-services": "false", "--cloudflare-region-key": "", "--batch-change-size": "200",
    "--batch-change-interval": "1s", "--google-project": "", "--google-batch-change-size": "1000",
    "--google-batch-change-interval": "1s", "--google-zone-visibility": "",
    "--azure-config-file": "/etc/kubernetes/azure.json", "--azure-resource-group": "", "--azure-subscription-id": "",
    "--azure-user-assigned-identity-client-id": "", "--azure-zones-cache-duration": "0s",
    "--azure-maxretries-count": "3", "--zone-name-filter": (),
    # run loop, logging, metrics
    "--interval": "1m0s", "--min-event-sync-interval": "5s", "--once": "false", "--dry-run": "false",
    "--events": "false", "--log-format": "text", "--log-level": "info", "--metrics-address": ":7979",
    "--version": None,
    # AWS Route53
    "--aws-zone-type": "", "--aws-zone-tags": (), "--aws-profile": (), "--aws-assume-role": "",
    "--aws-assume-role-external-id": "", "--aws-batch-change-size": "1000", "--aws-batch-change-size-bytes": "32000",
    "--aws-batch-change-size-values": "1000", "--aws-batch-change-interval": "1s",
    "--aws-evaluate-target-health": "true", "--aws-api-retries": "3", "--aws-prefer-cname": "false",
    "--aws-zones-cache-duration": "0s", "--aws-zone-match-parent": "false",
    # RFC2136
    "--rfc2136-host": (), "--rfc2136-port": "0", "--rfc2136-zone": (), "--rfc2136-create-ptr": "false", "--rfc2136-axfr": "false",
    "--rfc2136-insecure": "false", "--rfc2136-tsig-keyname": "", "--rfc2136-tsig-secret": "",
    "--rfc2136-tsig-secret-alg": "", "--rfc2136-tsig-axfr": "false", "--rfc2136-min-ttl": "0s",
    "--rfc2136-gss-tsig": "false", "--rfc2136-kerberos-username": "", "--rfc2136-kerberos-password": "",
    "--rfc2136-kerberos-realm": "", "--rfc2136-batch-change-size": "50", "--rfc2136-use-tls": "false",
    "--rfc2136-skip-tls-verify": "false", "--rfc2136-load-balancing-strategy": "disabled",
    "--tls-ca": "", "--tls-client-cert": "", "--tls-client-cert-key": "",
    # inmemory, PowerDNS
    "--inmemory-zone": (),
    "--pdns-server": "http://localhost:8081", "--pdns-server-id": "localhost", "--pdns-api-key": "",
    "--pdns-skip-tls-verify": "false",
    # webhook provider (client and --webhook-server)
    "--webhook-provider-url": "http://localhost:8888", "--webhook-provider-read-timeout": "5s",
    "--webhook-provider-write-timeout": "10s", "--webhook-provider-max-body-size": "33554432",
    "--webhook-server": "false",
    # Server-side header and idle timeouts of the webhook server: upstream's defaults were not found in the
    # sources available here (neither docs/flags.md nor pkg/apis/externaldns/types.go of the stored versions
    # defines them); ours are 5s and 60s. `--expose-internal-ipv6` false: upstream flipped it in v0.18.
    "--webhook-provider-read-header-timeout": UNCHECKED, "--webhook-provider-idle-timeout": "30s",
}

# Where our default differs from upstream's on purpose (docs/flags-parity.md says why).
DEFAULT_DIFFERS: dict[str, str] = {
    "--rfc2136-tsig-secret-alg": "hmac-sha256: upstream's empty default is refused as an unsupported algorithm",
}

# Upstream flags we leave out on purpose: they belong to providers, registries or sources we do not have.
LEFT_OUT: dict[str, str] = {
    **{f: "Gloo source" for f in ("--gloo-namespace",)},
    **{f: "Skipper source" for f in ("--skipper-routegroup-groupversion",)},
    **{f: "Traefik source" for f in ("--traefik-enable-legacy", "--traefik-disable-legacy", "--traefik-disable-new")},
    **{f: "Cloud Foundry source" for f in ("--cf-api-endpoint", "--cf-username", "--cf-password")},
    "--txt-new-format-only": "removed upstream in v0.18 (an unknown flag there too); only new-format TXT is written here",
    **{f: "OpenShift route source" for f in ("--openshift-router-name",)},
    **{f: "connector source" for f in ("--connector-source-server",)},
    "--crd-registry-namespace": "CRD registry (--registry=crd)",
    **{f: "Alibaba Cloud provider" for f in ("--alibaba-cloud-config-file", "--alibaba-cloud-zone-type")},
    **{f: "AWS Cloud Map (aws-sd) provider and registry" for f in ("--aws-sd-service-cleanup", "--aws-sd-create-tag")},
    **{f: "Cloudflare for SaaS custom hostnames" for f in (
        "--cloudflare-custom-hostnames", "--cloudflare-custom-hostnames-min-tls-version",
        "--cloudflare-custom-hostnames-certificate-authority")},
    **{f: "CoreDNS provider" for f in ("--coredns-prefix", "--coredns-strictly-owned")},
    **{f: "Akamai provider" for f in ("--akamai-serviceconsumerdomain", "--akamai-client-token",
                                      "--akamai-client-secret", "--akamai-access-token", "--akamai-edgerc-path",
                                      "--akamai-edgerc-section")},
    **{f: "Oracle Cloud provider" for f in ("--oci-config-file", "--oci-compartment-ocid", "--oci-zone-scope",
                                            "--oci-auth-instance-principal", "--oci-zones-cache-duration")},
    **{f: "OVH provider" for f in ("--ovh-endpoint", "--ovh-api-rate-limit", "--ovh-enable-cname-relative")},
    **{f: "NS1 provider" for f in ("--ns1-endpoint", "--ns1-ignoressl", "--ns1-min-ttl")},
    **{f: "DigitalOcean provider" for f in ("--digitalocean-api-page-size",)},
    **{f: "GoDaddy provider" for f in ("--godaddy-api-key", "--godaddy-api-secret", "--godaddy-api-ttl",
                                       "--godaddy-api-ote")},
    **{f: "Exoscale provider" for f in ("--exoscale-apienv", "--exoscale-apizone", "--exoscale-apikey",
                                        "--exoscale-apisecret", "--exoscale-zones-cache-duration")},
    **{f: "TransIP provider" for f in ("--transip-account", "--transip-keyfile")},
    **{f: "Pi-hole provider" for f in ("--pihole-server", "--pihole-password", "--pihole-tls-skip-verify",
                                       "--pihole-api-version")},
    **{f: "Plural provider" for f in ("--plural-cluster", "--plural-provider")},
}


def _ours() -> dict[str, argparse.Action]:
    parser = build_parser().parser
    return {name: action for action in parser._actions for name in action.option_strings}


def _normalise(upstream: Any, action: argparse.Action) -> Any:
    """Upstream's printed default in our parser's representation."""
    if isinstance(upstream, tuple) or (upstream == "" and isinstance(action.default, list)):
        return list(upstream)  # a repeatable flag of ours where upstream has a single string
    if isinstance(action, _Bool):
        return parse_bool(upstream)
    if action.type is duration:
        return parse_duration(upstream)
    if action.type in (int, float):
        return action.type(upstream)
    return upstream


def test_the_transcription_is_one_list() -> None:
    assert not set(UPSTREAM) & set(LEFT_OUT)
    assert set(DEFAULT_DIFFERS) <= set(UPSTREAM)


@pytest.mark.parametrize("flag", sorted(UPSTREAM))
def test_upstream_flag_exists_with_its_default(flag: str) -> None:
    ours = _ours()
    assert flag in ours, f"upstream flag {flag} is missing"
    expected = UPSTREAM[flag]
    action = ours[flag]
    if expected is REQUIRED:
        assert action.default in ("", None, []), f"{flag}: upstream requires it; ours defaults to {action.default!r}"
        return
    if expected is None or expected is UNCHECKED or flag in DEFAULT_DIFFERS:
        return
    assert action.default == _normalise(expected, action), f"{flag}: upstream default {expected!r}"


@pytest.mark.parametrize("flag", sorted(DEFAULT_DIFFERS))
def test_documented_default_differences_really_differ(flag: str) -> None:
    """A difference that was closed must leave DEFAULT_DIFFERS (and docs/migration.md)."""
    action = _ours()[flag]
    assert action.default != _normalise(UPSTREAM[flag], action)


def test_left_out_flags_are_listed_in_the_docs() -> None:
    text = (ROOT / "docs" / "flags-parity.md").read_text()
    start = text.index("## Upstream flags left out on purpose")
    section = text[start:text.index("\n## ", start + 1) if "\n## " in text[start + 1:] else len(text)]
    missing = [f for f in LEFT_OUT if f"`{f}`" not in section]
    assert not missing, f"docs/flags-parity.md does not list these left-out flags: {missing}"


def test_left_out_flags_are_really_absent() -> None:
    """A flag we add later must move from LEFT_OUT to UPSTREAM (so its default gets checked)."""
    present = sorted(set(LEFT_OUT) & set(_ours()))
    assert not present, f"now implemented, move to UPSTREAM: {present}"


def test_help_names_every_upstream_flag() -> None:
    help_text = build_parser().parser.format_help()
    for flag in UPSTREAM:
        assert re.search(rf"(^|[\s,]){re.escape(flag)}([\s=,]|$)", help_text, re.M), flag
