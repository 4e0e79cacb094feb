"""The DynamoDB registry's table serves every zone, so an AccessDenied on it (an IAM policy without
dynamodb:Scan or the item writes) stops every zone alike: no retry can fix it, and as Go (where any registry
error ends the controller loop) the long-running process ends with one fatal line naming the table and the
refusal, and exit 1. Against a moto server that checks credentials and IAM policies."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from external_dns.controller.outcomes import is_fatal_error
from external_dns.providers.aws.errors import AWSAuthError
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry.dynamodb import DynamoDBRegistry
from tests.helpers.cli import ROOT, dns_endpoint, ends_fatally, running
from tests.servers.moto import start_moto_process

pytestmark = pytest.mark.integration

TABLE = "external-dns"
SETUP_ACTIONS = 4  # create_user, put_user_policy, create_access_key, create_table: unchecked, then every call is


@pytest.fixture
def denied(request: pytest.FixtureRequest) -> Iterator[tuple[str, dict[str, str]]]:
    """A moto server checking every request after the set-up, the table, and the environment of an IAM user
    allowed to describe the table and nothing else on it (`request.param` False: not even that)."""
    allowed = ["dynamodb:DescribeTable"] if getattr(request, "param", True) else ["route53:*"]
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "EXTERNAL_DNS_"))}
    with start_moto_process(env={**base, "INITIAL_NO_AUTH_ACTION_COUNT": str(SETUP_ACTIONS)}) as url:
        admin: dict[str, Any] = {"endpoint_url": url, "region_name": "us-east-1", "aws_access_key_id": "testing",
                                 "aws_secret_access_key": "testing"}
        iam = boto3.client("iam", **admin)
        iam.create_user(UserName="external-dns")
        policy = {"Version": "2012-10-17",
                  "Statement": [{"Effect": "Allow", "Action": allowed, "Resource": "*"}]}
        iam.put_user_policy(UserName="external-dns", PolicyName="describe-only", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName="external-dns")["AccessKey"]
        boto3.client("dynamodb", **admin).create_table(
            TableName=TABLE, KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
        yield url, {**base, "AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": key["AccessKeyId"],
                    "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"], "AWS_DEFAULT_REGION": "us-east-1"}


def test_access_denied_on_the_table_is_a_fatal_refusal(denied: tuple[str, dict[str, str]]) -> None:
    url, env = denied
    client = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                          aws_access_key_id=env["AWS_ACCESS_KEY_ID"], aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"])
    registry = DynamoDBRegistry(InMemoryProvider(zones=["example.org"]), "default", client, TABLE)  # described
    with pytest.raises(AWSAuthError) as caught:
        registry.records()
    assert is_fatal_error(caught.value)
    assert str(caught.value).startswith(f"reading DynamoDB table '{TABLE}': AccessDenied: ")
    assert "dynamodb:Scan" in str(caught.value) and "<" not in str(caught.value)


def test_the_long_running_process_ends_on_it(denied: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    _url, env = denied
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "web.yaml").write_text(dns_endpoint("web", "www.example.org", "192.0.2.10"))
    args = ["--source=manifest", f"--manifest-dir={manifests}", "--provider=inmemory", "--inmemory-zone=example.org",
            "--registry=dynamodb", f"--dynamodb-table={TABLE}", "--txt-owner-id=default", "--policy=sync",
            "--interval=1s", "--metrics-address=127.0.0.1:0"]
    fatal, text = ends_fatally(args, {**env, "PYTHONPATH": str(ROOT)}, "dynamodb-denied")
    assert "reading DynamoDB table" in fatal and "AccessDenied" in fatal and "provider=inmemory" in fatal, fatal
    assert "Traceback" not in text and env["AWS_SECRET_ACCESS_KEY"] not in text


@pytest.mark.parametrize("denied", [False], indirect=True)
def test_at_start_up_it_is_a_configuration_error(denied: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    """Refused before anything runs (DescribeTable, when the registry is built): exit 2 with one line, as the
    other configuration errors found at start-up (a missing table, a wrong key schema)."""
    _url, env = denied
    args = ["--source=manifest", f"--manifest-dir={tmp_path}", "--provider=inmemory", "--inmemory-zone=example.org",
            "--registry=dynamodb", f"--dynamodb-table={TABLE}", "--txt-owner-id=default", "--policy=sync",
            "--metrics-address=127.0.0.1:0"]
    with running(args, {**env, "PYTHONPATH": str(ROOT)}, "dynamodb-denied-start") as (proc, tail):
        code = proc.wait(timeout=30)
    text = tail.text()
    assert code == 2, text
    assert (f"external-dns: error: describing DynamoDB table '{TABLE}': AccessDenied: " in text
            and "dynamodb:DescribeTable" in text and "Traceback" not in text), text
