"""NoopRegistry pass-through and the registry builders of cmd/build.py."""

from __future__ import annotations

import argparse

import pytest

from external_dns.cmd.build import REGISTRY_BUILDERS, load_builder
from external_dns.cmd.flags import ConfigError
from external_dns.plan.changes import Changes
from external_dns.registry import NoopRegistry, TXTRegistry
from tests.registry.fakes import DictProvider, ep, owner_txt, txt


def test_noop_passes_through_without_ownership() -> None:
    p = DictProvider([ep("a.example.com", "A", "1.1.1.1"), txt("a-a.example.com", owner_txt("x"))])
    reg = NoopRegistry(p)
    assert reg.owner_id() == ""
    got = reg.records()
    assert sorted((e.dns_name, e.record_type) for e in got) == [("a-a.example.com", "TXT"), ("a.example.com", "A")]
    assert all(e.labels == {} for e in got)
    reg.apply_changes(Changes(create=[ep("b.example.com", "A", "2.2.2.2")]))
    assert [e.dns_name for e in p.applied[-1].create] == ["b.example.com"]  # no TXT added
    assert p.applied[-1].create[0].labels == {}


def cfg(**overrides: object) -> argparse.Namespace:
    base: dict[str, object] = {
        "registry": "txt", "txt_owner_id": "default", "txt_prefix": "", "txt_suffix": "",
        "txt_wildcard_replacement": "", "txt_encrypt_enabled": False, "txt_encrypt_aes_key": "",
        "txt_cache_interval": 0.0, "migrate_from_txt_owner": "", "managed_record_types": ["A", "AAAA", "CNAME"],
        "exclude_record_types": [],
    }
    base.update(overrides)
    return argparse.Namespace(**base)


def test_build_txt_from_flags() -> None:
    build = load_builder(REGISTRY_BUILDERS, "registry", "txt")
    p = DictProvider()
    reg = build(cfg(txt_owner_id="c1", txt_prefix="TXT.", txt_cache_interval=30.0,
                    managed_record_types=["A", "MX"], migrate_from_txt_owner="c0"), p)
    assert isinstance(reg, TXTRegistry)
    assert reg.owner_id() == "c1" and reg.cache_interval == 30.0 and reg.old_owner_id == "c0"
    assert reg.managed_record_types == ("A", "MX")
    reg.apply_changes(Changes(create=[ep("x.example.com", "MX", "10 mail.example.com")]))
    assert p.names("TXT") == {"txt.mx-x.example.com"}


def test_build_noop() -> None:
    reg = load_builder(REGISTRY_BUILDERS, "registry", "noop")(cfg(registry="noop"), DictProvider())
    assert isinstance(reg, NoopRegistry)


@pytest.mark.parametrize(
    ("overrides", "flag"),
    [
        ({"txt_owner_id": ""}, "--txt-owner-id"),
        ({"txt_prefix": "a.", "txt_suffix": "-b"}, "--txt-prefix"),
        ({"txt_encrypt_aes_key": "short"}, "--txt-encrypt-aes-key"),
        ({"txt_encrypt_enabled": True}, "--txt-encrypt-aes-key"),
    ],
)
def test_build_txt_errors_name_the_flag(overrides: dict[str, object], flag: str) -> None:
    build = load_builder(REGISTRY_BUILDERS, "registry", "txt")
    with pytest.raises(ConfigError, match=flag):
        build(cfg(**overrides), DictProvider())


def test_build_txt_with_base64_key_encrypts() -> None:
    build = load_builder(REGISTRY_BUILDERS, "registry", "txt")
    p = DictProvider()
    reg = build(cfg(txt_encrypt_enabled=True, txt_encrypt_aes_key="ZPitL0NGVQBZbTD6DwXJzD8RiStSazzYXQsdUowLURY="), p)
    reg.apply_changes(Changes(create=[ep("x.example.com", "A", "1.1.1.1")]))
    value = p.store[("a-x.example.com", "TXT", "")].targets[0]
    assert "heritage" not in value
    assert reg.records()[0].labels["owner"] == "default"
