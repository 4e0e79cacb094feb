"""cmd/config.py: the one typed, frozen configuration made from the flags. Every flag fills exactly one field of
one group, with the type the field declares; a default is declared once, at the flag; secrets stay out of
the config's repr; nothing in the package reads a configuration with `getattr(..., default)`."""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path
from typing import Any

import pytest

from external_dns.cmd.config import Config, build_parser, parse_config
from external_dns.cmd.flags import flag_dest
from external_dns.cmd.wiring import kube_api_client, leader_election_options

PACKAGE = Path(__file__).resolve().parents[2] / "external_dns"
ALL_FLAGS = ["--source=manifest", "--provider=inmemory", "--policy=sync"]


def groups() -> dict[str, type[Any]]:
    return dict(typing.get_type_hints(Config))


def fields_by_dest() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, cls in groups().items():
        for field in dataclasses.fields(cls):
            out.setdefault(flag_dest(field.metadata["flag"]), []).append(f"{name}.{field.name}")
    return out


def test_every_flag_fills_exactly_one_field() -> None:
    parser_dests = {a.dest for a in build_parser().parser._actions if a.option_strings} - {"help", "version"}
    by_dest = fields_by_dest()
    assert sorted(parser_dests - set(by_dest)) == []  # a flag no typed field holds
    assert sorted(set(by_dest) - parser_dests) == []  # a field naming no flag
    assert {dest: where for dest, where in by_dest.items() if len(where) > 1} == {}


def _matches(value: Any, hint: Any) -> bool:
    if typing.get_origin(hint) is tuple:
        return isinstance(value, tuple) and all(isinstance(v, typing.get_args(hint)[0]) for v in value)
    if hint is float:
        return isinstance(value, float)
    return isinstance(value, hint) and not (hint is int and isinstance(value, bool))


@pytest.mark.parametrize("environ", [{}, {"EXTERNAL_DNS_INTERVAL": "2m", "EXTERNAL_DNS_DOMAIN_FILTER": "a.org,b.org",
                                         "EXTERNAL_DNS_WORKERS": "3", "EXTERNAL_DNS_KUBE_API_QPS": "7"}])
def test_values_have_the_declared_types(environ: dict[str, str]) -> None:
    cfg = parse_config(["--min-ttl=1m", "--zone-id-filter=Z1", "--rfc2136-port=53"], environ)
    for name, cls in groups().items():
        hints = typing.get_type_hints(cls)
        group = getattr(cfg, name)
        for field in dataclasses.fields(cls):
            value = getattr(group, field.name)
            assert _matches(value, hints[field.name]), (name, field.name, value, hints[field.name])


def test_frozen_with_slots_and_no_secret_in_repr() -> None:
    cfg = parse_config([*ALL_FLAGS, "--rfc2136-tsig-secret=tsig-s3cret", "--pdns-api-key=pdns-s3cret",
                        "--txt-encrypt-aes-key=aes-s3cret", "--aws-assume-role-external-id=ext-s3cret",
                        "--rfc2136-kerberos-password=krb-s3cret"], {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.core.policy = "upsert-only"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del cfg.core.policy
    assert not hasattr(cfg, "__dict__") and not hasattr(cfg.core, "__dict__")
    assert "s3cret" not in repr(cfg) and "policy='sync'" in repr(cfg.core)
    changed = dataclasses.replace(cfg, core=dataclasses.replace(cfg.core, policy="upsert-only"))
    assert changed.core.policy == "upsert-only" and cfg.core.policy == "sync"  # a copy; the original stays
    assert changed != cfg and dataclasses.replace(changed, core=cfg.core) == cfg
    assert hash(dataclasses.replace(changed, core=cfg.core)) == hash(cfg)
    with pytest.raises(TypeError, match="unexpected fields nope"):
        type(cfg.log)(level="info", format="text", nope=1)  # type: ignore[call-arg]
    secrets = {flag_dest(f.metadata["flag"]) for cls in groups().values() for f in dataclasses.fields(cls)
               if not f.repr}
    assert secrets == build_parser().secrets  # every secret flag is a hidden field, and only those


def test_one_kubernetes_request_timeout_for_every_client() -> None:
    """The lease client and the sources' client read the same flag (the lease's fell back to 10 s, the
    sources' to 30 s, the flag's default)."""
    cfg = parse_config(ALL_FLAGS, {})
    assert cfg.kube.request_timeout == 30.0 == leader_election_options(cfg).request_timeout
    cfg = parse_config([*ALL_FLAGS, "--kube-api-request-timeout=7s"], {})
    assert leader_election_options(cfg).request_timeout == 7.0


def test_kube_client_takes_the_typed_flags(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kc"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://k.example:6443'}}]\n"
                          "users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
                          "current-context: x\n")
    client = kube_api_client(parse_config([f"--kubeconfig={kubeconfig}", "--kube-api-request-timeout=9s"], {}))
    try:
        assert client.configuration.host == "https://k.example:6443"
    finally:
        client.close()


def _getattr_with_default(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) == 3]


def test_no_configuration_is_read_with_getattr_defaults() -> None:
    found = {str(p.relative_to(PACKAGE)): lines for p in sorted((PACKAGE / "cmd").glob("*.py"))
             if (lines := _getattr_with_default(p))}
    assert found == {}
