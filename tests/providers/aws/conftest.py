"""Fixtures of the Route53 tests: a boto3 Route53 client on the moto server, zone helpers, a provider
factory (no batch interval), and a recorder of the change batches the server received."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

import boto3
import botocore.config
import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.providers.aws import AWSConfig, AWSProvider

_REFS = itertools.count()
ONE_ATTEMPT = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"})


@pytest.fixture
def r53(moto_server: str) -> Any:
    return boto3.client("route53", endpoint_url=moto_server, config=ONE_ATTEMPT)


def create_zone(r53: Any, name: str, private: bool = False, tags: dict[str, str] | None = None) -> str:
    """Create a hosted zone; returns its bare id."""
    kwargs: dict[str, Any] = {"Name": name, "CallerReference": f"ref-{next(_REFS)}"}
    if private:
        kwargs["HostedZoneConfig"] = {"PrivateZone": True, "Comment": "private"}
        kwargs["VPC"] = {"VPCRegion": "us-east-1", "VPCId": "vpc-12345"}
    zone_id: str = r53.create_hosted_zone(**kwargs)["HostedZone"]["Id"].rsplit("/", 1)[-1]
    if tags:
        r53.change_tags_for_resource(ResourceType="hostedzone", ResourceId=zone_id,
                                     AddTags=[{"Key": k, "Value": v} for k, v in tags.items()])
    return zone_id


def rrsets(r53: Any, zone_id: str) -> list[dict[str, Any]]:
    """Every record set of a zone except SOA/NS, straight from the server."""
    out: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"HostedZoneId": zone_id, "MaxItems": "300"}
    for _ in range(1000):
        page = r53.list_resource_record_sets(**kwargs)
        out.extend(r for r in page["ResourceRecordSets"] if r["Type"] not in ("SOA", "NS"))
        if not page["IsTruncated"]:
            break
        kwargs["StartRecordName"], kwargs["StartRecordType"] = page["NextRecordName"], page["NextRecordType"]
    return out


def by_name_type(r53: Any, zone_id: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(r["Name"].rstrip("."), r["Type"], r.get("SetIdentifier", "")): r for r in rrsets(r53, zone_id)}


@pytest.fixture
def make_provider(moto_server: str) -> Callable[..., AWSProvider]:
    def make(page_size: int = 300, **kwargs: Any) -> AWSProvider:
        kwargs.setdefault("batch_change_interval", 0.0)
        kwargs.setdefault("endpoint_url", moto_server)
        return AWSProvider(AWSConfig(**kwargs), page_size=page_size)

    return make


class CallRecorder:
    """Records the parameters of selected API calls a real client sends (nothing is intercepted)."""

    def __init__(self, client: Any, *operations: str) -> None:
        self.calls: dict[str, list[dict[str, Any]]] = {op: [] for op in operations}
        for op in operations:
            client.meta.events.register(f"provide-client-params.route53.{op}", self._make(op))

    def _make(self, op: str) -> Callable[..., None]:
        def record(params: dict[str, Any], **_: Any) -> None:
            self.calls[op].append(params)

        return record

    def batch_sizes(self) -> list[int]:
        return [len(p["ChangeBatch"]["Changes"]) for p in self.calls.get("ChangeResourceRecordSets", [])]

    def count(self, op: str) -> int:
        return len(self.calls[op])


def record_calls(provider: AWSProvider, *operations: str) -> CallRecorder:
    return CallRecorder(provider.clients[""], *operations)


def E(name: str, rtype: str, targets: Iterable[str] = (), ttl: int = 0, **kwargs: Any) -> Endpoint:
    """An Endpoint from a plain list of targets."""
    return Endpoint(name, rtype, Targets(list(targets)), ttl, **kwargs)
