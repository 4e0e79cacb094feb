"""The DynamoDB registry with the Route53 provider, both against the same real moto server: table checks,
the Go-compatible item layout, ownership (never taking over another owner's item), write ordering, orphan
cleanup, migration from TXT ownership, and full controller syncs with no-op re-syncs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import boto3
import botocore.config
import pytest

from external_dns.controller.controller import Controller
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.aws import AWSConfig, AWSProvider
from external_dns.registry.dynamodb import DynamoDBRegistry, DynamoDBTableError, item_key, split_key
from external_dns.registry.registry import Registry
from external_dns.registry.txt import TXTRegistry
from tests.helpers import endpoints
from tests.helpers.sources import StaticSource

pytestmark = pytest.mark.integration
ONE_ATTEMPT = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"})
TABLE = "external-dns"
MANAGED = ("A", "AAAA", "CNAME", "TXT")


def ep(name: str, *targets: str, rtype: str = "A", resource: str = "service/default/web", set_id: str = "") -> Endpoint:
    return endpoints.ep(name, rtype, *targets, set_id=set_id, resource=resource)


@pytest.fixture
def ddb(moto_server: str) -> Any:
    return boto3.client("dynamodb", endpoint_url=moto_server, config=ONE_ATTEMPT)


@pytest.fixture
def r53(moto_server: str) -> Any:
    return boto3.client("route53", endpoint_url=moto_server, config=ONE_ATTEMPT)


def create_table(ddb: Any, name: str = TABLE, key: str = "k", key_type: str = "S", range_key: bool = False) -> None:
    schema = [{"AttributeName": key, "KeyType": "HASH"}]
    attrs = [{"AttributeName": key, "AttributeType": key_type}]
    if range_key:
        schema.append({"AttributeName": "r", "KeyType": "RANGE"})
        attrs.append({"AttributeName": "r", "AttributeType": "S"})
    ddb.create_table(TableName=name, KeySchema=schema, AttributeDefinitions=attrs, BillingMode="PAY_PER_REQUEST")


@pytest.fixture
def zone(r53: Any) -> str:
    zone_id: str = r53.create_hosted_zone(Name="example.com", CallerReference="ddb")["HostedZone"]["Id"]
    return zone_id


@pytest.fixture
def provider(moto_server: str, zone: str) -> AWSProvider:
    return AWSProvider(AWSConfig(endpoint_url=moto_server, batch_change_interval=0))


def registry(provider: AWSProvider, ddb: Any, owner: str = "default", **kw: Any) -> DynamoDBRegistry:
    kw.setdefault("managed_record_types", MANAGED)
    return DynamoDBRegistry(provider, owner, ddb, TABLE, **kw)


def controller(reg: Registry, desired: Iterable[Endpoint]) -> Controller:
    return Controller(StaticSource(list(desired)), reg, "sync", managed_record_types=list(MANAGED))


def items(ddb: Any) -> dict[str, dict[str, Any]]:
    return {i["k"]["S"]: i for i in ddb.scan(TableName=TABLE, ConsistentRead=True)["Items"]}


def record_names(r53: Any, zone: str) -> set[tuple[str, str]]:
    sets = r53.list_resource_record_sets(HostedZoneId=zone, MaxItems="300")["ResourceRecordSets"]
    return {(s["Name"].rstrip("."), s["Type"]) for s in sets if s["Type"] not in ("SOA", "NS")}


# -- table -------------------------------------------------------------------------------------------------
def test_missing_table_is_a_clear_error(provider: AWSProvider, ddb: Any) -> None:
    with pytest.raises(DynamoDBTableError, match="'external-dns' does not exist"):
        registry(provider, ddb)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"key": "id"}, 'must have attribute "k" of type "S"'),
    ({"key_type": "N"}, 'must have attribute "k" of type "S"'),
    ({"range_key": True}, "must not have a range key"),
])
def test_wrong_key_schema_is_a_clear_error(provider: AWSProvider, ddb: Any, kwargs: dict[str, Any],
                                           message: str) -> None:
    create_table(ddb, **kwargs)
    with pytest.raises(DynamoDBTableError, match=message):
        registry(provider, ddb)


def test_key_format() -> None:
    assert item_key(Endpoint("app.example.com", "A")) == "app.example.com#A#"
    assert split_key("api.example.com#A#set#with#hashes") == ("api.example.com", "A", "set#with#hashes")


# -- syncs -------------------------------------------------------------------------------------------------
def test_sync_writes_records_and_go_compatible_items(provider: AWSProvider, ddb: Any, r53: Any, zone: str) -> None:
    create_table(ddb)
    reg = registry(provider, ddb)
    desired = [ep("app.example.com", "1.2.3.4", resource="service/default/nginx"),
               ep("api.example.com", "10.0.0.1", set_id="us").with_provider_specific("aws/weight", "10")]
    result = controller(reg, desired).run_once()
    assert result.applied
    assert record_names(r53, zone) == {("app.example.com", "A"), ("api.example.com", "A")}  # no TXT at all
    assert items(ddb)["app.example.com#A#"] == {
        "k": {"S": "app.example.com#A#"}, "o": {"S": "default"},
        "l": {"M": {"resource": {"S": "service/default/nginx"}}}}
    assert items(ddb)["api.example.com#A#us"]["o"] == {"S": "default"}
    # a fresh registry (new process) reads ownership back and plans nothing
    again = controller(registry(provider, ddb), desired).run_once()
    assert not again.changes.has_changes()
    owned = {e.dns_name: e.labels for e in registry(provider, ddb).records() if e.record_type == "A"}
    assert owned["app.example.com"] == {"owner": "default", "resource": "service/default/nginx"}


def test_update_changes_labels_and_delete_removes_item_after_the_record(provider: AWSProvider, ddb: Any,
                                                                        r53: Any, zone: str) -> None:
    create_table(ddb)
    reg = registry(provider, ddb)
    controller(reg, [ep("app.example.com", "1.2.3.4")]).run_once()
    controller(reg, [ep("app.example.com", "1.2.3.5", resource="service/default/other")]).run_once()
    assert items(ddb)["app.example.com#A#"]["l"] == {"M": {"resource": {"S": "service/default/other"}}}
    controller(reg, []).run_once()
    assert items(ddb) == {} and record_names(r53, zone) == set()


def test_item_of_another_owner_is_never_taken_over(provider: AWSProvider, ddb: Any, r53: Any, zone: str) -> None:
    create_table(ddb)
    ddb.put_item(TableName=TABLE, Item={"k": {"S": "taken.example.com#A#"}, "o": {"S": "other"}, "l": {"M": {}}})
    reg = registry(provider, ddb)
    desired = [ep("taken.example.com", "1.2.3.4"), *[ep(f"free{i}.example.com", "1.2.3.4") for i in range(30)]]
    controller(reg, desired).run_once()
    got = items(ddb)
    assert got["taken.example.com#A#"]["o"] == {"S": "other"}
    assert ("taken.example.com", "A") not in record_names(r53, zone)
    assert len([k for k, v in got.items() if v["o"] == {"S": "default"}]) == 30
    assert len(record_names(r53, zone)) == 30


def test_record_owned_by_another_owner_is_left_alone(provider: AWSProvider, ddb: Any, r53: Any, zone: str) -> None:
    create_table(ddb)
    controller(registry(provider, ddb, owner="c1"), [ep("app.example.com", "1.2.3.4")]).run_once()
    result = controller(registry(provider, ddb, owner="c2"), [ep("app.example.com", "5.5.5.5")]).run_once()
    assert not result.changes.has_changes()
    controller(registry(provider, ddb, owner="c2"), []).run_once()
    assert items(ddb)["app.example.com#A#"]["o"] == {"S": "c1"}
    assert ("app.example.com", "A") in record_names(r53, zone)


def test_items_are_written_before_and_deleted_after_the_provider(provider: AWSProvider, ddb: Any) -> None:
    create_table(ddb)
    seen: list[set[str]] = []

    class Spy(AWSProvider):
        def apply_changes(self, changes: Changes) -> None:
            seen.append(set(items(ddb)))
            super().apply_changes(changes)

    spy = Spy(provider.config, provider.clients)
    reg = registry(spy, ddb)
    controller(reg, [ep("app.example.com", "1.2.3.4")]).run_once()
    assert seen[-1] == {"app.example.com#A#"}  # inserted before the record was written
    controller(reg, []).run_once()
    assert seen[-1] == {"app.example.com#A#"}  # still there while the record is deleted
    assert items(ddb) == {}


def test_orphaned_items_are_removed(provider: AWSProvider, ddb: Any) -> None:
    create_table(ddb)
    ddb.put_item(TableName=TABLE, Item={"k": {"S": "gone.example.com#A#"}, "o": {"S": "default"}, "l": {"M": {}}})
    ddb.put_item(TableName=TABLE, Item={"k": {"S": "theirs.example.com#A#"}, "o": {"S": "x"}, "l": {"M": {}}})
    controller(registry(provider, ddb), [ep("app.example.com", "1.2.3.4")]).run_once()
    assert set(items(ddb)) == {"app.example.com#A#", "theirs.example.com#A#"}


def test_migration_from_txt_registry(provider: AWSProvider, ddb: Any, r53: Any, zone: str) -> None:
    desired = [ep("app.example.com", "1.2.3.4"), ep("www.example.com", "1.2.3.5")]
    txt = TXTRegistry(provider, owner_id="default", managed_record_types=MANAGED)
    controller(txt, desired).run_once()
    assert ("a-app.example.com", "TXT") in record_names(r53, zone)
    create_table(ddb)
    reg = registry(provider, ddb)
    first = controller(reg, desired).run_once()
    assert first.applied
    assert set(items(ddb)) == {"app.example.com#A#", "www.example.com#A#"}
    assert items(ddb)["app.example.com#A#"]["l"] == {"M": {"resource": {"S": "service/default/web"}}}
    assert record_names(r53, zone) == {("app.example.com", "A"), ("www.example.com", "A")}  # TXT removed
    assert not controller(reg, desired).run_once().changes.has_changes()


def test_failed_write_drops_the_cache(provider: AWSProvider, ddb: Any) -> None:
    create_table(ddb)
    reg = registry(provider, ddb)
    controller(reg, [ep("app.example.com", "1.2.3.4")]).run_once()
    ddb.delete_table(TableName=TABLE)
    with pytest.raises(Exception, match="ResourceNotFound"):
        reg.apply_changes(Changes(create=[ep("new.example.com", "1.2.3.4")]))
    create_table(ddb)
    assert reg.records()  # re-read from the (new, empty) table: the record is now unowned
    assert all("owner" not in e.labels for e in reg.records() if e.record_type == "A")


def test_items_outside_the_providers_zones_are_not_orphans(provider: AWSProvider, ddb: Any) -> None:
    create_table(ddb)
    ddb.put_item(TableName=TABLE, Item={"k": {"S": "app.elsewhere.org#A#"}, "o": {"S": "default"}, "l": {"M": {}}})
    controller(registry(provider, ddb), [ep("app.example.com", "1.2.3.4")]).run_once()
    assert set(items(ddb)) == {"app.example.com#A#", "app.elsewhere.org#A#"}
