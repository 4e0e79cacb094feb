"""The long-running CLI with `--provider=cloudflare --provider-cache-time=10m` against the fake: the first pass
lists the zone once; later passes within the cache time send nothing; a changed object costs its writes (one
batch, and a read by name of what it deletes or rewrites) and no listing; SIGTERM ends it with exit 0 and the
token never shows in the log."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakes.cloudflare import CloudflareFake
from tests.helpers.cli import clean_env, dns_endpoint, running

pytestmark = pytest.mark.integration
TOKEN = "cf-long-running-token"


def eventually(check: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)  # observing another process's writes: there is nothing to wait on
    return False


def test_passes_within_the_cache_time_send_nothing_and_a_change_costs_its_writes(tmp_path: Path) -> None:
    with CloudflareFake(token=TOKEN) as fake:
        fake.add_zone("example.org")
        for i in range(250):  # three pages of 100
            fake.add_record("example.org", f"other{i}.example.org", "A", "198.51.100.1")
        manifests = tmp_path / "manifests"
        manifests.mkdir()
        record = manifests / "web.yaml"
        record.write_text(dns_endpoint("web", "www.example.org", "192.0.2.10"))
        env = clean_env({"CLOUDFLARE_BASE_URL": fake.url + "/client/v4", "CF_API_TOKEN": TOKEN})
        args = ["--source=manifest", f"--manifest-dir={manifests}", "--provider=cloudflare", "--policy=sync",
                "--txt-owner-id=lr-cf", "--interval=1s", "--provider-cache-time=10m", "--batch-change-interval=0s",
                "--metrics-address=127.0.0.1:0", "--log-level=debug"]

        def www() -> set[str]:
            return {v[2] for v in fake.values("example.org") if v[0] == "www.example.org"}

        with running(args, env, "cloudflare-long-running") as (proc, tail):
            assert eventually(lambda: www() == {"192.0.2.10"}, 60), "\n".join(tail.lines)
            assert fake.count("GET", "/dns_records") == 3  # the one listing: three pages
            fake.reset_calls()
            assert tail.wait_for("All records are already up to date", 30, occurrences=2), "\n".join(tail.lines)
            assert fake.calls == []  # passes within --provider-cache-time: no request at all
            record.write_text(dns_endpoint("web", "www.example.org", "192.0.2.11"))
            assert eventually(lambda: www() == {"192.0.2.11"}, 60), "\n".join(tail.lines)
            time.sleep(1.5)  # a later pass or two: still nothing to send
            assert fake.count("POST", "/batch") == 1
            assert fake.count("GET", "/dns_records") <= 1  # at most the name it rewrites, never a listing
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0
        assert TOKEN not in "\n".join(tail.lines)
