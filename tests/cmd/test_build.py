"""The registry builders of cmd/build.py: --registry=txt and noop from the flags, and the flag named in each error."""

from __future__ import annotations

import pytest

from external_dns.cmd.build import REGISTRY_BUILDERS, load_builder
from external_dns.cmd.config import Config, parse_config
from external_dns.cmd.flags import ConfigError
from external_dns.plan.changes import Changes
from external_dns.registry import NoopRegistry, TXTRegistry
from tests.registry.fakes import DictProvider, ep


def cfg(*flags: str) -> Config:
    return parse_config(flags, {})


def test_build_txt_from_flags() -> None:
    build = load_builder(REGISTRY_BUILDERS, "registry", "txt")
    p = DictProvider()
    reg = build(cfg("--txt-owner-id=c1", "--txt-prefix=TXT.", "--txt-cache-interval=30s",
                    "--managed-record-types=A,MX", "--migrate-from-txt-owner=c0"), p)
    assert isinstance(reg, TXTRegistry)
    assert reg.owner_id() == "c1" and reg.cache_interval == 30.0 and reg.old_owner_id == "c0"
    assert reg.managed_record_types == ("A", "MX")
    reg.apply_changes(Changes(create=[ep("x.example.com", "MX", "10 mail.example.com")]))
    assert p.names("TXT") == {"txt.mx-x.example.com"}


def test_build_noop() -> None:
    reg = load_builder(REGISTRY_BUILDERS, "registry", "noop")(cfg("--registry=noop"), DictProvider())
    assert isinstance(reg, NoopRegistry)


@pytest.mark.parametrize(
    ("flags", "flag"),
    [
        (["--txt-owner-id="], "--txt-owner-id"),
        (["--txt-prefix=a.", "--txt-suffix=-b"], "--txt-prefix"),
        (["--txt-encrypt-aes-key=short"], "--txt-encrypt-aes-key"),
        (["--txt-encrypt-enabled"], "--txt-encrypt-aes-key"),
    ],
)
def test_build_txt_errors_name_the_flag(flags: list[str], flag: str) -> None:
    build = load_builder(REGISTRY_BUILDERS, "registry", "txt")
    with pytest.raises(ConfigError, match=flag):
        build(cfg(*flags), DictProvider())


def test_build_txt_with_base64_key_encrypts() -> None:
    build = load_builder(REGISTRY_BUILDERS, "registry", "txt")
    p = DictProvider()
    reg = build(cfg("--txt-encrypt-enabled", "--txt-encrypt-aes-key=ZPitL0NGVQBZbTD6DwXJzD8RiStSazzYXQsdUowLURY="), p)
    reg.apply_changes(Changes(create=[ep("x.example.com", "A", "1.1.1.1")]))
    value = p.store[("a-x.example.com", "TXT", "")].targets[0]
    assert "heritage" not in value
    assert reg.records()[0].labels["owner"] == "default"
