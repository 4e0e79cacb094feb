"""cmd/scope.py: a scope that matches nothing is a warning naming it, not a silent "all records are up to date"
(the real program for each case; the overlap rule on its own)."""

from __future__ import annotations

from pathlib import Path

import pytest

from external_dns.cmd.scope import unmatched_filters
from tests.helpers.cli import run_cli

RUN = ["--once", "--source=manifest", "--manifest-dir=examples/manifests", "--policy=sync", "--progress=none"]


@pytest.mark.parametrize(("filters", "zones", "unmatched"), [
    (["example.org"], ["example.org"], []),
    (["www.example.org", ".example.org", "EXAMPLE.ORG."], ["example.org"], []),  # inside, suffix form, spelling
    (["org"], ["example.org"], []),  # a filter around the zone selects its names too
    (["example.com", "example.org"], ["example.org"], ["example.com"]),
    (["notexample.org"], ["example.org"], ["notexample.org"]),  # a label boundary, not a string suffix
    (["example.org"], [], ["example.org"]),
    (["example.org"], [""], []),  # one nameless zone holds everything
])
def test_unmatched_filters(filters: list[str], zones: list[str], unmatched: list[str]) -> None:
    assert unmatched_filters(filters, zones) == unmatched


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "level=warning" in line]


@pytest.mark.integration
def test_inmemory_without_a_zone_warns() -> None:
    proc = run_cli([*RUN, "--provider=inmemory"])
    assert any("--provider=inmemory has no zone" in w and "--inmemory-zone" in w for w in warnings(proc.stderr))


@pytest.mark.integration
def test_a_zonefile_dir_without_zone_files_warns_naming_it(tmp_path: Path) -> None:
    proc = run_cli([*RUN, "--provider=zonefile", f"--zonefile-dir={tmp_path}"])
    assert any(f"--zonefile-dir={tmp_path} holds no zone file" in w for w in warnings(proc.stderr)), proc.stderr
    proc = run_cli([*RUN, "--provider=zonefile", f"--zonefile-dir={tmp_path}", "--zonefile-create-zone=example.org"])
    assert warnings(proc.stderr) == []


@pytest.mark.integration
def test_a_domain_filter_matching_no_zone_warns_naming_it() -> None:
    proc = run_cli([*RUN, "--provider=inmemory", "--inmemory-zone=example.org", "--domain-filter=example.com",
                    "--domain-filter=www.example.org"])
    assert warnings(proc.stderr) == [w for w in warnings(proc.stderr) if "--domain-filter=example.com matches no "
                                     "zone of --provider=inmemory (its zones: example.org)" in w]
    assert len(warnings(proc.stderr)) == 1
    proc = run_cli([*RUN, "--provider=inmemory", "--inmemory-zone=example.org", "--domain-filter=example.org"])
    assert warnings(proc.stderr) == []
