"""A changed --txt-encrypt-aes-key (issue 27, item 18): ownership TXTs encrypted with another key (or read
without any key) are still ownership records, of an owner we cannot name. Their records are left alone (never
updated, deleted or taken over), their names are not free for our TXTs, and each zone says so once, with
counts. Both read paths: the full read and the per-zone maps."""

from __future__ import annotations

import base64
import os

import pytest
from structlog.testing import capture_logs

from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from external_dns.registry.encrypted import UNDECRYPTABLE_OWNER, looks_encrypted
from tests.registry.fakes import ep, plan_cycle, reads

OLD_KEY = "passphrasewhichneedstobe32bytes!"
NEW_KEY = "anotherpassphraseof32bytes-long!"
ZONE = "example.org"
READS = reads(ZONE)


def written_with_old_key() -> InMemoryProvider:
    p = InMemoryProvider([ZONE])
    old = TXTRegistry(p, owner_id="me", txt_encrypt_enabled=True, txt_encrypt_aes_key=OLD_KEY)
    old.apply_changes(Changes(create=[ep("a.example.org", "A", "192.0.2.1"), ep("b.example.org", "A", "192.0.2.2"),
                                      ep("gone.example.org", "A", "192.0.2.3")]))
    p.apply_changes(Changes(delete=[ep("gone.example.org", "A", "192.0.2.3")]))  # its TXT stays, orphaned
    return p


@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("key", [NEW_KEY, ""])
def test_records_of_another_key_are_left_alone_and_said_once(read: str, key: str) -> None:
    p = written_with_old_key()
    before = {(e.dns_name, e.record_type): list(e.targets) for e in p.records()}
    kwargs = {"txt_encrypt_enabled": True, "txt_encrypt_aes_key": key} if key else {}
    reg = TXTRegistry(p, owner_id="me", **kwargs)  # type: ignore[arg-type]
    with capture_logs() as logs:
        owners = {e.dns_name: e.labels.get("owner") for e in READS[read](reg)}
        # nothing desired: nothing deleted; the same desired: nothing rewritten; a record under the orphan TXT's
        # name: not created (its TXT is another key's, not free)
        for desired in ([], [ep("a.example.org", "A", "192.0.2.9")], [ep("gone.example.org", "A", "192.0.2.3")]):
            assert not plan_cycle(reg, desired, READS[read]).has_changes() or desired[0].dns_name == "gone.example.org"
        READS[read](reg)
    assert owners == {"a.example.org": UNDECRYPTABLE_OWNER, "b.example.org": UNDECRYPTABLE_OWNER}
    assert {(e.dns_name, e.record_type): list(e.targets) for e in p.records()} == before
    warnings = [line for line in logs if "ownership TXT records" in str(line["event"])]
    assert len(warnings) == 1 and warnings[0]["count"] == 3 and warnings[0]["zone"] == ZONE
    assert ("was it changed?" in str(warnings[0]["event"])) == bool(key)


def test_the_right_key_reads_them_as_ours() -> None:
    p = written_with_old_key()
    reg = TXTRegistry(p, owner_id="me", txt_encrypt_enabled=True, txt_encrypt_aes_key=OLD_KEY)
    assert {e.dns_name: e.labels.get("owner") for e in reg.records()} == {"a.example.org": "me", "b.example.org": "me"}


def test_what_looks_encrypted() -> None:
    p = written_with_old_key()
    values = [e.targets[0] for e in p.records() if e.record_type == "TXT"]
    assert values and all(looks_encrypted(v) for v in values)
    for plain in ("v=spf1 -all", '"heritage=external-dns,external-dns/owner=x"', "c2hvcnQ=", "", "A" * 70,
                  "google-site-verification=" + "a" * 43, "A" * 68):
        assert not looks_encrypted(plain), plain
    assert not looks_encrypted('"' + "A" * 72 + '"') and not looks_encrypted("t" * 4096)  # base64, not random
    assert looks_encrypted('"' + base64.b64encode(os.urandom(54)).decode() + '"')


@pytest.mark.parametrize("read", list(READS))
def test_an_encrypted_looking_value_elsewhere_is_an_ordinary_txt(read: str) -> None:
    """Only at a name an ownership TXT takes (one naming a record type) does such a value count as another
    key's ownership record: a desired TXT holding a random token at its own name is ours and stays visible."""
    p = InMemoryProvider([ZONE])
    reg = TXTRegistry(p, owner_id="me")
    token = base64.b64encode(os.urandom(60)).decode()
    reg.apply_changes(Changes(create=[ep("token.example.org", "TXT", token)]))
    owners = {(e.dns_name, e.record_type): e.labels.get("owner") for e in READS[read](reg)}
    assert owners[("token.example.org", "TXT")] == "me"
