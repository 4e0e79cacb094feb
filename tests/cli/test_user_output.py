"""What a user reads from a run: the start-up config line (flag=value pairs, secrets masked), each planned
change logged once, plan outputs with the TTL a record will get, log values without Python reprs."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.logging_setup import configure_logging, go_value, logfmt_renderer
from external_dns.plan.changes import Changes
from external_dns.plan.output import ZonePlan, emit_outputs, render
from tests.helpers.cli import Env, service

pytestmark = pytest.mark.integration


@pytest.fixture
def env(tmp_path: Path) -> Env:
    e = Env(tmp_path)
    e.write("web.yaml", service("web", "www.example.org", "192.0.2.10"))
    return e


def test_config_line_is_flag_value_pairs_with_secrets_masked(env: Env) -> None:
    proc = env.run("--dry-run", "--interval=90s", "--rfc2136-tsig-secret=s3cr3t", "--managed-record-types=A",
                   "--managed-record-types=TXT")
    [line] = [ln for ln in proc.stderr.splitlines() if "msg=config" in ln]
    assert "s3cr3t" not in proc.stderr
    assert 'rfc2136-tsig-secret="******"' in line
    assert " interval=1m30s " in line and " policy=sync " in line and " dry-run=true" in line
    assert ' managed-record-types="A,TXT" ' in line  # ',' is quoted, as logrus quotes it
    assert "{" not in line and "[" not in line and "'" not in line
    assert "txt-cache-interval" not in line, "flags at their default are not listed"
    assert len(line) < 600


def test_each_planned_change_is_logged_once(env: Env) -> None:
    proc = env.run()
    mentions = [ln for ln in proc.stderr.splitlines() if "www.example.org A" in ln]
    assert len(mentions) == 1, mentions
    assert "Desired change: CREATE www.example.org A 192.0.2.10" in mentions[0]


def test_plan_output_shows_the_ttl_the_zone_gives(env: Env) -> None:
    proc = env.run("--dry-run", "--plan-output=markdown")
    assert "| Create | www.example.org | A |  | 300 | 192.0.2.10 |" in proc.stdout
    assert "| 0 |" not in proc.stdout


def _plan(default_ttl: int) -> list[ZonePlan]:
    changes = Changes(create=[Endpoint(dns_name="a.example.org", record_type="A", targets=Targets(["192.0.2.1"]))],
                      update_old=[Endpoint(dns_name="b.example.org", record_type="A", targets=Targets(["192.0.2.2"]),
                                           record_ttl=60)],
                      update_new=[Endpoint(dns_name="b.example.org", record_type="A", targets=Targets(["192.0.2.3"]))])
    return [ZonePlan(zone="example.org", changes=changes, default_ttl=default_ttl)]


def test_rows_show_the_default_ttl_for_records_without_one() -> None:
    assert "Create a.example.org A 300 192.0.2.1" in render("log", _plan(300))
    assert "Update b.example.org A 60 192.0.2.2 -> 300 192.0.2.3" in render("log", _plan(300))
    assert json.loads(render("json", _plan(300)))["zones"]["example.org."]["changes"][0]["new"]["ttl"] == 300
    assert "Create a.example.org A 0 192.0.2.1" in render("log", _plan(0))


def test_provider_default_ttls(tmp_path: Path) -> None:
    from external_dns.providers.inmemory import InMemoryProvider
    from external_dns.providers.zonefile import ZoneFileProvider

    assert InMemoryProvider().record_default_ttl("example.org") == 0
    assert ZoneFileProvider(str(tmp_path), default_ttl=120).record_default_ttl("example.org") == 120


def test_log_output_without_a_file_adds_no_lines(capsys: pytest.CaptureFixture[str]) -> None:
    emit_outputs(["log"], {}, _plan(300))
    captured = capsys.readouterr()
    assert "a.example.org" not in captured.out + captured.err


@pytest.mark.parametrize(
    ("value", "shown"),
    [("bücher.example", '"bücher.example"'), ("plain-1.2_x/y@z^+", "plain-1.2_x/y@z^+"), ("a:b", '"a:b"'),
     (["a", "b"], '"[a b]"'), ({"k": None, "a": True}, '"map[a:true k:<nil>]"'), (False, "false"), (2.0, "2"),
     ("", ""), (ValueError("bad thing"), '"bad thing"'), ('say "hi"', '"say \\"hi\\""')],
)
def test_log_values_as_logrus_prints_them(value: object, shown: str) -> None:
    line = logfmt_renderer(None, "info", {"timestamp": "T", "level": "info", "event": "m", "k": value})
    assert line == f'time="T" level=info msg=m k={shown}'
    assert "'" not in go_value(value) or "'" in str(value)


def test_stdlib_and_json_lines_keep_non_ascii() -> None:
    out = io.StringIO()
    configure_logging("info", "text", stream=out)
    logging.getLogger("urllib3").warning("Zürich %s", "down")
    assert out.getvalue().startswith('time="') and 'level=warning msg="Zürich down" logger=urllib3' in out.getvalue()
    out = io.StringIO()
    configure_logging("info", "json", stream=out)
    structlog.get_logger("t").info("Zürich", name="bücher.example")
    doc = json.loads(out.getvalue())
    assert doc["msg"] == "Zürich" and "bücher" in out.getvalue()
