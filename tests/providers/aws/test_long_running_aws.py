"""The long-running CLI with `--provider=aws` against a moto server that checks credentials
(INITIAL_NO_AUTH_ACTION_COUNT=0): Route53 refuses an unknown access key (403 InvalidClientTokenId), which no
retry can fix, so the process logs one fatal line naming the provider and the cause and exits 1 (as
ExternalDNS's fatal non-soft errors), without printing the secret."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers.cli import ROOT, dns_endpoint, ends_fatally
from tests.servers.moto import start_moto_process

pytestmark = pytest.mark.integration

SECRET = "sEcReT-KeY-0123456789"


def test_refused_aws_credentials_end_the_long_running_process(tmp_path: Path) -> None:
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "web.yaml").write_text(dns_endpoint("web", "www.example.com", "192.0.2.10"))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "EXTERNAL_DNS_"))}
    with start_moto_process(env={**base, "INITIAL_NO_AUTH_ACTION_COUNT": "0"}) as url:
        env = {**base, "AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": "AKIDUNKNOWN", "AWS_SECRET_ACCESS_KEY": SECRET,
               "AWS_DEFAULT_REGION": "us-east-1", "PYTHONPATH": str(ROOT)}
        args = ["--source=manifest", f"--manifest-dir={manifests}", "--provider=aws", "--policy=sync",
                "--interval=1s", "--metrics-address=127.0.0.1:0"]
        fatal, text = ends_fatally(args, env, "aws-refused", 60)
    assert "provider=aws" in fatal and "InvalidClientTokenId" in fatal, fatal
    assert "Shut down" in text and "Traceback" not in text and SECRET not in text
