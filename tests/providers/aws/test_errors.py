"""AWS error handling that moto cannot produce (throttling, 5xx, refused batches): a real botocore client
with `botocore.stub.Stubber` answering, as test-servers.md advises."""

from __future__ import annotations

from typing import Any

import boto3
import botocore.config
import botocore.exceptions
import pytest
from botocore.stub import ANY, Stubber

from external_dns.controller.outcomes import is_fatal_error
from external_dns.plan.changes import Changes
from external_dns.providers.aws import AWSConfig, AWSProvider
from external_dns.providers.aws.errors import AWSAuthError, wrap
from external_dns.providers.provider import ProviderError, SoftError
from tests.providers.aws.conftest import E

ZONES = {"HostedZones": [{"Id": "/hostedzone/Z1", "Name": "example.com.", "CallerReference": "r",
                          "Config": {"PrivateZone": False}}], "IsTruncated": False, "MaxItems": "100",
         "Marker": ""}


@pytest.fixture
def stubbed() -> Any:
    client = boto3.client("route53", region_name="us-east-1", endpoint_url="http://127.0.0.1:9",
                          config=botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}))
    with Stubber(client) as stub:
        yield client, stub
        stub.assert_no_pending_responses()


def make(client: Any) -> AWSProvider:
    return AWSProvider(AWSConfig(batch_change_interval=0), clients={"": client})


def test_throttling_on_zone_listing_is_a_soft_error(stubbed: Any) -> None:
    client, stub = stubbed
    stub.add_client_error("list_hosted_zones", "Throttling", "Rate exceeded", http_status_code=400)
    with pytest.raises(SoftError, match="Throttling"):
        make(client).records()


def test_access_denied_is_a_hard_error(stubbed: Any) -> None:
    client, stub = stubbed
    stub.add_client_error("list_hosted_zones", "AccessDenied", "no", http_status_code=403)
    with pytest.raises(ProviderError) as info:
        make(client).records()
    assert not isinstance(info.value, SoftError)
    assert isinstance(info.value, AWSAuthError) and is_fatal_error(info.value)  # the long-running process exits 1


def test_an_invalid_change_batch_or_one_zone_denied_is_not_a_credential_error() -> None:
    refused = botocore.exceptions.ClientError({"Error": {"Code": "InvalidChangeBatch", "Message": "no"}}, "x")
    assert not isinstance(wrap("change", refused), AWSAuthError)
    denied: Any = {"Error": {"Code": "AccessDenied", "Message": "not on Z2"}, "ResponseMetadata": {"HTTPStatusCode": 403}}
    # an IAM policy may allow some zones only: that zone fails (retried), the others go on
    assert not isinstance(wrap("zone b.example", botocore.exceptions.ClientError(denied, "x")), AWSAuthError)
    assert isinstance(wrap("list", botocore.exceptions.ClientError(denied, "x"), every_zone=True), AWSAuthError)
    assert isinstance(wrap("list", botocore.exceptions.NoCredentialsError()), AWSAuthError)
    # a 403 whose code botocore could not read (nested in <Errors>, as the query protocol writes it)
    nested: Any = {"Error": {"Code": "", "Message": ""}, "ResponseMetadata": {"HTTPStatusCode": 403},
                   "Errors": {"Error": {"Code": "InvalidClientTokenId", "Message": "bad token"}}}
    found = wrap("failed to list hosted zones", botocore.exceptions.ClientError(nested, "x"))
    assert isinstance(found, AWSAuthError) and str(found).endswith("InvalidClientTokenId: bad token")
    bare: Any = {"Error": {}, "ResponseMetadata": {"HTTPStatusCode": 403}}
    found = wrap("list", botocore.exceptions.ClientError(bare, "x"))
    assert isinstance(found, AWSAuthError) and str(found) == "list: HTTP 403"


def test_an_xml_error_a_json_protocol_client_could_not_read() -> None:
    """An IAM refusal written as XML to a JSON-protocol client (DynamoDB; moto answers so): botocore gives the
    status as the code and the document as the message; the code and message are read from the document."""
    body = ('<?xml version="1.0" encoding="utf-8"?>\n<ErrorResponse><Errors><Error><Code>AccessDenied</Code>'
            "<Message>User: u is not authorized to perform: dynamodb:Scan &amp; more</Message>"
            "<Type>Sender</Type></Error></Errors></ErrorResponse>")
    answer: Any = {"Error": {"Code": "403", "Message": body}, "ResponseMetadata": {"HTTPStatusCode": 403}}
    one_zone = wrap("reading", botocore.exceptions.ClientError(answer, "Scan"))
    assert not isinstance(one_zone, AWSAuthError)
    assert str(one_zone) == "reading: AccessDenied: User: u is not authorized to perform: dynamodb:Scan & more"
    assert isinstance(wrap("reading", botocore.exceptions.ClientError(answer, "Scan"), every_zone=True), AWSAuthError)


def test_domain_filter_falls_back_to_match_all_on_error(stubbed: Any) -> None:
    client, stub = stubbed
    stub.add_client_error("list_hosted_zones", "ServiceUnavailable", "down", http_status_code=503)
    assert not make(client).get_domain_filter().is_configured()


def test_refused_batch_is_retried_group_by_group(stubbed: Any) -> None:
    client, stub = stubbed
    stub.add_response("list_hosted_zones", ZONES)
    stub.add_client_error("change_resource_record_sets", "InvalidChangeBatch",
                          "Tried to create resource record set [name='bad.example.com.', type='A'] but it already exists",
                          http_status_code=400)
    ok = {"ChangeInfo": {"Id": "/change/C1", "Status": "PENDING", "SubmittedAt": "2026-01-01T00:00:00Z"}}
    stub.add_client_error("change_resource_record_sets", "InvalidChangeBatch", "already exists",
                          http_status_code=400, expected_params={"HostedZoneId": "Z1", "ChangeBatch": ANY})
    stub.add_response("change_resource_record_sets", ok,
                      {"HostedZoneId": "Z1", "ChangeBatch": {"Changes": [
                          {"Action": "CREATE", "ResourceRecordSet": {
                              "Name": "good.example.com", "Type": "A", "TTL": 300,
                              "ResourceRecords": [{"Value": "1.2.3.5"}]}}]}})
    changes = Changes(create=[E("bad.example.com", "A", ["1.2.3.4"]),
                              E("good.example.com", "A", ["1.2.3.5"])])
    with pytest.raises(SoftError, match=r"failed to submit all changes for the following zones: \['example.com'\]"):
        make(client).apply_changes(changes)


def test_identifier_paging_uses_next_record_identifier(stubbed: Any) -> None:
    client, stub = stubbed
    stub.add_response("list_hosted_zones", ZONES)

    def w(sid: str) -> dict[str, Any]:
        return {"Name": "w.example.com.", "Type": "A", "SetIdentifier": sid, "Weight": 1, "TTL": 60,
                "ResourceRecords": [{"Value": "1.2.3.4"}]}

    stub.add_response("list_resource_record_sets", {
        "ResourceRecordSets": [w("a")], "IsTruncated": True, "MaxItems": "1",
        "NextRecordName": "w.example.com.", "NextRecordType": "A", "NextRecordIdentifier": "b"},
        {"HostedZoneId": "Z1", "MaxItems": "300"})
    stub.add_response("list_resource_record_sets", {
        "ResourceRecordSets": [w("b")], "IsTruncated": False, "MaxItems": "1"},
        {"HostedZoneId": "Z1", "MaxItems": "300", "StartRecordName": "w.example.com.", "StartRecordType": "A",
         "StartRecordIdentifier": "b"})
    eps = make(client).records()
    assert sorted(e.set_identifier for e in eps) == ["a", "b"]
