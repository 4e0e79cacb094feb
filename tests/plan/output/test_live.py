"""LivePlanOutputs: --plan-output / --plan-output-file in the long-running mode (the latest plan of every
zone; redone only when it changes; shown before the safety check and in dry-run; never breaks a sync)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from external_dns.controller.controller import Controller, RunOnceError
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.plan.output.live import LivePlanOutputs
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from tests.helpers import endpoints
from tests.helpers.sources import StaticSource


def ep(name: str, target: str) -> Endpoint:
    return endpoints.ep(name, "A", target)


def creates(*names: str) -> Changes:
    return Changes(create=[ep(n, "192.0.2.1") for n in names])


def test_files_hold_the_latest_plan_of_every_zone(tmp_path: Path) -> None:
    md, js = tmp_path / "plan.md", tmp_path / "plan.json"
    out = LivePlanOutputs(["log"], {"markdown": str(md), "json": str(js)})
    assert out.active
    out("a.test", creates("x.a.test"), [], [])
    out("b.test", creates("y.b.test"), [], [])
    doc = json.loads(js.read_text())
    assert sorted(doc["zones"]) == ["a.test.", "b.test."] and doc["has_changes"] is True
    assert "| Create | x.a.test | A |" in md.read_text() and "| Create | y.b.test | A |" in md.read_text()

    # the same plan again is not rewritten
    md.unlink()
    out("a.test", creates("x.a.test"), [], [])
    assert not md.exists()
    # a zone whose plan becomes empty leaves the files; when none is left they say so
    out("a.test", Changes(), [], [])
    assert sorted(json.loads(js.read_text())["zones"]) == ["b.test."]
    assert "x.a.test" not in md.read_text() and "y.b.test" in md.read_text()
    out("b.test", Changes(), [], [])
    doc = json.loads(js.read_text())
    assert {k: doc[k] for k in ("has_changes", "version", "zones", "safe")} == \
        {"has_changes": False, "version": 1, "zones": {}, "safe": True}
    assert "No changes were planned" in md.read_text()


def test_stdout_formats_print_a_zone_when_its_plan_changes() -> None:
    buf = io.StringIO()
    out = LivePlanOutputs(["log", "markdown"], {}, stdout=buf)
    out("a.test", creates("x.a.test"), [], [])
    out("a.test", creates("x.a.test"), [], [])  # unchanged: not printed again
    assert buf.getvalue().count("| Create | x.a.test | A |") == 1
    out("a.test", Changes(), [], [])  # nothing to show
    out("a.test", creates("x.a.test", "z.a.test"), [], [])
    assert buf.getvalue().count("| Create | x.a.test | A |") == 2 and "z.a.test" in buf.getvalue()


def test_log_alone_adds_nothing_and_a_bad_file_never_breaks_a_sync(tmp_path: Path) -> None:
    assert not LivePlanOutputs(["log"], {}).active
    out = LivePlanOutputs(["log"], {"html": str(tmp_path / "missing-dir" / "plan.html")})
    out("a.test", creates("x.a.test"), [], [])  # logged, not raised


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_refused_plan_is_still_written(tmp_path: Path, dry_run: bool) -> None:
    md = tmp_path / "plan.md"
    provider = InMemoryProvider(["a.test"])
    controller = Controller(StaticSource([ep("x.a.test", "192.0.2.7")]), TXTRegistry(provider, owner_id="live"),
                            "sync", dry_run=dry_run)
    controller.plan_observers.append(LivePlanOutputs(["log"], {"markdown": str(md)}, owner_id="live"))

    def refuse(*_: object) -> None:
        raise RuntimeError("unsafe")

    controller.add_pre_apply_check(refuse)
    if dry_run:
        controller.run_once(zone="a.test")
    else:
        with pytest.raises(RunOnceError):
            controller.run_once(zone="a.test")
    assert "| Create | x.a.test | A |  | 0 | 192.0.2.7 |" in md.read_text()
    assert provider.records() == []


@pytest.mark.integration
def test_long_running_dry_run_writes_the_plan_file(tmp_path: Path) -> None:
    """The real CLI without --once: --plan-output-file is honoured, in dry-run, and the zone is untouched."""
    import signal
    import subprocess
    import sys

    from tests.helpers.cli import ROOT, Env, clean_env, dns_endpoint, read_until

    env = Env(tmp_path)
    env.write("web.yaml", dns_endpoint("web", "www.example.org", "192.0.2.10"))
    md = tmp_path / "plan.md"
    args = [a for a in env.args("--dry-run", f"--plan-output-file=markdown={md}") if a != "--once"]
    proc = subprocess.Popen([sys.executable, "-m", "external_dns", *args, "--interval=1h",
                             "--metrics-address=127.0.0.1:0"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            env=clean_env(), cwd=ROOT)
    output = b""
    try:
        output = read_until(proc.stderr, b"Dry run: no changes were applied", 60)
        assert "| Create | www.example.org | A |  | 300 | 192.0.2.10 |" in md.read_text()
        assert not env.zone_file.exists(), "dry-run writes nothing"
        proc.send_signal(signal.SIGTERM)
        output += proc.communicate(timeout=30)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 0, output.decode()


def test_files_show_each_zones_verdict(tmp_path: Path) -> None:
    """The long-running outputs carry the verdict the safety gate gives the plan (here a wipe of the zone's
    records of this owner), the owner ID and the time."""
    from external_dns.plan.safety import SafetyConfig

    js = tmp_path / "plan.json"
    mine = [endpoints.ep(f"h{i}.a.test", "A", "192.0.2.1", owner="live") for i in range(2)]
    out = LivePlanOutputs(["log"], {"json": str(js)}, owner_id="live", safety=SafetyConfig(), clock=lambda: 0.0)
    out("a.test", Changes(delete=[e.copy() for e in mine]), mine, [])
    doc = json.loads(js.read_text())
    assert (doc["safe"], doc["owner_id"], doc["generated_at"]) == (False, "live", "1970-01-01T00:00:00Z")
    assert doc["zones"]["a.test."]["safety"]["problems"][0]["reason"] == "deletes-all"
    out("a.test", Changes(delete=[mine[0].copy()]), mine, [])
    assert json.loads(js.read_text())["safe"] is True
