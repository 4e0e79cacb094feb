"""What a new user meets first (issue 28 item 3), through the real CLI on the manifest source and a zone file:
objects annotated under the pre-v0.22 prefix (`external-dns.alpha.kubernetes.io/`) are named in a warning,
and a sync that would delete every record this owner holds in a zone, however small, is refused (exit 3,
nothing written) until `--force`."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.helpers.cli import Env, service

pytestmark = pytest.mark.integration

ALPHA = "external-dns.alpha.kubernetes.io/"


def alpha_service(name: str, hostname: str, ip: str) -> str:
    return service(name, hostname, ip).replace("external-dns.kubernetes.io/", ALPHA)


@pytest.fixture
def env(tmp_path: Path) -> Env:
    e = Env(tmp_path)
    e.write("web.yaml", service("web", "www.example.org", "192.0.2.10"))
    e.write("api.yaml", service("api", "api.example.org", "192.0.2.20"))
    e.run()
    assert ("www.example.org", "A") in e.records() and ("api.example.org", "A") in e.records()
    return e


def test_alpha_annotations_are_named_and_the_zone_is_not_wiped(env: Env) -> None:
    """The manifests move to the old prefix (as copied from an older guide): the sources read nothing, the
    2-record zone (under the thresholds' 10-record minimum) would be emptied. Refused, and the log says why."""
    before = env.zone_file.read_bytes()
    env.write("web.yaml", alpha_service("web", "www.example.org", "192.0.2.10"))
    env.write("api.yaml", alpha_service("api", "api.example.org", "192.0.2.20"))
    report = env.manifests.parent / "plan.json"
    proc = env.run(f"--plan-output-file=json={report}", expect=3)
    doc = json.loads(report.read_text())  # the refused plan, as a PR comment bot reads it
    assert (doc["safe"], doc["unsafe_zones"], doc["owner_id"]) == (False, ["example.org."], "cli-test")
    assert doc["zones"]["example.org."]["safety"]["problems"][0]["reason"] == "deletes-all"
    for name in ("web", "api"):
        assert (f"service/default/{name}: {ALPHA}hostname: annotations under {ALPHA} are not read: "
                f"--annotation-prefix is external-dns.kubernetes.io/") in proc.stderr, proc.stderr
    assert ("The plan deletes every record this owner holds in the zone (2/2) and creates none, force required"
            in proc.stderr), proc.stderr
    assert env.zone_file.read_bytes() == before
    # naming the prefix reads them again: nothing to do
    proc = env.run(f"--annotation-prefix={ALPHA}")
    assert "All records are already up to date" in proc.stderr and "are not read" not in proc.stderr


def test_an_empty_source_needs_force_and_force_applies_it(env: Env) -> None:
    for name in ("web.yaml", "api.yaml"):
        (env.manifests / name).unlink()
    env.write("other.yaml", textwrap.dedent("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: unrelated, namespace: default}
        """))
    before = env.zone_file.read_bytes()
    assert "force required" in env.run(expect=3).stderr
    assert env.zone_file.read_bytes() == before
    env.run("--force")
    records = env.records()
    assert ("www.example.org", "A") not in records and ("api.example.org", "A") not in records
    assert ("example.org", "NS") in records  # what is not ours stays


def test_deleting_some_of_our_records_is_no_wipe(env: Env) -> None:
    (env.manifests / "api.yaml").unlink()
    env.run()
    assert ("api.example.org", "A") not in env.records() and ("www.example.org", "A") in env.records()
