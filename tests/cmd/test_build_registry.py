"""cmd/build_registry.py: the registry flags become a registry over the provider; a mistake is a
ConfigError naming the flag."""

from __future__ import annotations

import pytest

from external_dns.cmd.build import REGISTRY_BUILDERS, load_builder
from external_dns.cmd.build_registry import build_noop, build_txt
from external_dns.cmd.config import load_config, parse_config
from external_dns.errors import ConfigError
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import NoopRegistry, TXTRegistry


def test_txt_registry_from_the_flags() -> None:
    _parser, cfg = load_config(["--source=manifest", "--manifest-dir=/nonexistent", "--provider=inmemory",
                                "--policy=sync", "--txt-owner-id=team-a", "--txt-prefix=own-%{record_type}-",
                                "--txt-cache-interval=1m", "--managed-record-types=A", "--managed-record-types=TXT",
                                "--migrate-from-txt-owner=old"], environ={})
    provider = InMemoryProvider(["example.org"])
    registry = load_builder(REGISTRY_BUILDERS, "registry", "txt")(cfg, provider)
    assert isinstance(registry, TXTRegistry) and registry.provider is provider
    assert registry.owner_id() == "team-a" and registry.cache_interval == 60.0
    assert registry.managed_record_types == ("A", "TXT")
    assert registry.mapper.to_txt_name("www.example.org", "A") == "own-a-www.example.org"


def test_noop_registry() -> None:
    provider = InMemoryProvider(["example.org"])
    assert isinstance(build_noop(parse_config(["--registry=noop"], {}), provider), NoopRegistry)


@pytest.mark.parametrize(("flags", "flag"), [
    (["--txt-owner-id="], "--txt-owner-id"),
    (["--txt-prefix=p-", "--txt-suffix=-s"], "--txt-prefix/--txt-suffix"),
    (["--txt-encrypt-enabled", "--txt-encrypt-aes-key=short"], "--txt-encrypt-aes-key"),
])
def test_a_mistake_names_the_flag(flags: list[str], flag: str) -> None:
    with pytest.raises(ConfigError, match=f"^{flag}: "):
        build_txt(parse_config(flags, {}), InMemoryProvider(["example.org"]))


def test_an_unknown_registry_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"^--registry: unknown registry 'etcd' \(one of: dynamodb, noop, txt\)"):
        load_builder(REGISTRY_BUILDERS, "registry", "etcd")
