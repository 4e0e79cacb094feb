"""cmd/flags.py, the flag conventions every group uses: EXTERNAL_DNS_<FLAG> environment defaults under the
command line, `--flag`/`--flag=false`/`--no-flag` booleans, repeatable flags (comma-split unless told not to,
the first use replacing the default), one-line usage errors naming the flag (exit 2) that never echo a
mistyped secret, the start-up config fields (only flags off their default, secrets masked, Go durations)."""

from __future__ import annotations

import argparse

import pytest

from external_dns.cmd.config import load_config
from external_dns.cmd.flags import ConfigError, FlagParser, duration, env_name, one_of, parse_bool


def parser() -> FlagParser:
    p = FlagParser(prog="external-dns")
    p.group("test")
    p.add("--dry-run", type=bool, default=False, help="write nothing")
    p.add("--interval", type=duration, default=60.0, help="between syncs")
    p.add("--domain-filter", repeat=True, help="domains")
    p.add("--managed-record-types", repeat=True, default=["A", "CNAME"], help="types")
    p.add("--fqdn-template", repeat=True, split=False, help="templates")
    p.add("--policy", default="sync", choices=("sync", "upsert-only"), help="policy")
    p.add("--request-timeout", type=duration, default=30.0, aliases=("--timeout",), help="timeout")
    p.add("--tsig-secret", default="", secret=True, help="secret")
    return p


def test_env_name() -> None:
    assert env_name("--txt-owner-id") == "EXTERNAL_DNS_TXT_OWNER_ID"


@pytest.mark.parametrize(("text", "value"), [("true", True), ("T", True), ("1", True), ("on", True),
                                             ("false", False), ("0", False), ("", False), ("No", False)])
def test_parse_bool(text: str, value: bool) -> None:
    assert parse_bool(text) is value


def test_parse_bool_refuses_other_words() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="invalid boolean 'now'"):
        parse_bool("now")


@pytest.mark.parametrize(("argv", "value"), [([], False), (["--dry-run"], True), (["--dry-run=false"], False),
                                             (["--dry-run=true"], True), (["--dry-run", "--no-dry-run"], False)])
def test_boolean_flags(argv: list[str], value: bool) -> None:
    assert parser().parse(argv, environ={}).dry_run is value


def test_repeatable_flags_split_on_commas_and_replace_the_default() -> None:
    ns = parser().parse(["--domain-filter=a.example,b.example", "--domain-filter=c.example",
                         "--managed-record-types=TXT", "--fqdn-template={{.Name}}.a,{{.Name}}.b"], environ={})
    assert ns.domain_filter == ["a.example", "b.example", "c.example"]
    assert ns.managed_record_types == ["TXT"]  # the first use replaces the default, it does not extend it
    assert ns.fqdn_template == ["{{.Name}}.a,{{.Name}}.b"]
    assert parser().parse([], environ={}).managed_record_types == ["A", "CNAME"]


def test_environment_gives_defaults_and_the_command_line_wins() -> None:
    env = {"EXTERNAL_DNS_INTERVAL": "2m", "EXTERNAL_DNS_DRY_RUN": "true", "EXTERNAL_DNS_DOMAIN_FILTER": "a,b",
           "EXTERNAL_DNS_TIMEOUT": "5s"}
    ns = parser().parse([], environ=env)
    assert ns.interval == 120.0 and ns.dry_run is True and ns.domain_filter == ["a", "b"]
    assert ns.request_timeout == 5.0  # an alias's variable sets the flag too
    ns = parser().parse(["--interval=10s", "--no-dry-run", "--domain-filter=c"], environ=env)
    assert ns.interval == 10.0 and ns.dry_run is False and ns.domain_filter == ["c"]


@pytest.mark.parametrize(("env", "message"), [
    ({"EXTERNAL_DNS_INTERVAL": "soon"}, "environment variable EXTERNAL_DNS_INTERVAL: "),
    ({"EXTERNAL_DNS_POLICY": "sink"}, "environment variable EXTERNAL_DNS_POLICY: invalid value 'sink'"),
    ({"EXTERNAL_DNS_DRY_RUN": "maybe"}, "environment variable EXTERNAL_DNS_DRY_RUN: invalid boolean"),
])
def test_a_bad_environment_value_names_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parser().parse([], environ=env)


@pytest.mark.parametrize(("argv", "needle"), [
    (["--interval=soon"], "argument --interval"),
    (["--policy=synk"], "argument --policy: invalid value 'synk' (one of: sync, upsert-only; did you mean sync?)"),
    (["--dry-run=now"], "argument --dry-run: invalid boolean 'now'"),
    (["--polcy=sync"], "unrecognized arguments: --polcy (did you mean --policy?)"),
])
def test_usage_errors_are_one_line_naming_the_flag(argv: list[str], needle: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parser().parse(argv, environ={})
    err = capsys.readouterr().err
    assert exited.value.code == 2 and needle in err
    assert err.startswith("external-dns: error: ") and err.endswith(", try --help\n") and err.count("\n") == 1


def test_a_mistyped_secret_flag_is_not_echoed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parser().parse(["--tsig-secrett=hunter2"], environ={})
    err = capsys.readouterr().err
    assert "hunter2" not in err and "--tsig-secrett (did you mean --tsig-secret?)" in err


def test_help_shows_go_defaults_and_no_secret(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parser().parse(["--help"], environ={"EXTERNAL_DNS_TSIG_SECRET": "hunter2"})
    out = capsys.readouterr().out
    assert "(default: 1m0s)" in out and "(default: A,CNAME)" in out and "hunter2" not in out


def test_config_fields_list_flags_off_their_default_with_secrets_masked() -> None:
    flags, cfg = load_config(["--source=manifest", "--manifest-dir=/m", "--provider=inmemory", "--policy=sync",
                              "--interval=90s", "--txt-encrypt-aes-key=" + "k" * 32, "--txt-owner-id=default"],
                             environ={})
    fields = flags.config_fields(cfg)
    assert fields["interval"] == "1m30s" and fields["txt-encrypt-aes-key"] == "******"
    assert fields["source"] == "manifest" and "txt-owner-id" not in fields  # given, but the default
    assert flags.config_fields(cfg, prefixes=("txt-",)) == {"txt-encrypt-aes-key": "******"}
    assert flags.masked(cfg)["txt_encrypt_aes_key"] == "******"


def test_one_of_suggests_a_close_choice() -> None:
    assert one_of("upsert", ("sync", "upsert-only")) == "(one of: sync, upsert-only; did you mean upsert-only?)"
    assert one_of("SYNC", ("sync", "upsert-only")) == "(one of: sync, upsert-only; did you mean sync?)"
    assert one_of("zzz", ("", "a", "b")) == "(one of: a, b)"
