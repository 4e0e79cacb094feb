"""Concurrent writers of one zone file: four `external-dns --once` processes with different owner IDs, and
threads of one process, all writing the same zone at the same time, lose nothing (every writer holds the
zone file's flock and re-reads the zone under it)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.zonefile import ZoneFileProvider, lock_path, zone_file_lock
from tests.helpers.cli import ROOT, clean_env, zone_records

ZONE = "example.org"
WRITERS = 4
PER_WRITER = 400


def manifest(owner: int, n: int) -> str:
    eps = "".join(f"  - dnsName: w{owner}-h{i:04d}.{ZONE}\n    recordType: A\n    targets: [\"10.{owner}.{i // 256}.{i % 256}\"]\n"
                  for i in range(n))
    return (f"apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: writer-{owner}\n"
            f"  namespace: default\nspec:\n  endpoints:\n{eps}")


def test_four_simultaneous_once_runs_lose_nothing(tmp_path: Path) -> None:
    zones = tmp_path / "zones"
    ZoneFileProvider(str(zones), create_zones=[ZONE]).zones()  # the zone exists before the race
    procs = []
    for w in range(WRITERS):
        manifests = tmp_path / f"m{w}"
        manifests.mkdir()
        (manifests / "records.yaml").write_text(manifest(w, PER_WRITER))
        # each run writes the zone once (whatever --apply-batch-size says), at the same time as the others;
        # many interleaved writes per process: test_processes_writing_in_turns_lose_nothing
        args = ["--once", "--source=manifest", f"--manifest-dir={manifests}", "--provider=zonefile",
                f"--zonefile-dir={zones}", f"--txt-owner-id=owner-{w}", "--policy=sync", "--apply-batch-size=10"]
        procs.append(subprocess.Popen([sys.executable, "-m", "external_dns", *args], env=clean_env(), cwd=ROOT,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for p in procs:
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, f"exit {p.returncode}\n{out}\n{err}"
    records = zone_records(zones / f"{ZONE}.zone")
    for w in range(WRITERS):
        for i in range(PER_WRITER):
            assert records.get((f"w{w}-h{i:04d}.{ZONE}", "A")) == [f"10.{w}.{i // 256}.{i % 256}"], (w, i)
            txt = records.get((f"a-w{w}-h{i:04d}.{ZONE}", "TXT"))
            assert txt is not None and f"external-dns/owner=owner-{w}" in txt[0], (w, i)
    a_records = [k for k in records if k[1] == "A"]
    assert len(a_records) == WRITERS * PER_WRITER


# one process's writes: one record per apply_changes call, every call a locked read-modify-write of the file
WRITER = """
import sys
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.zonefile import ZoneFileProvider
directory, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = ZoneFileProvider(directory)
for i in range(count):
    p.apply_changes(Changes(create=[Endpoint(f"{prefix}{i}.example.org", "A", Targets(["192.0.2.1"]))]))
"""


def test_processes_writing_in_turns_lose_nothing(tmp_path: Path) -> None:
    """Four processes each writing the zone file 60 times, interleaved (without the lock, records are lost in
    every run)."""
    ZoneFileProvider(str(tmp_path), create_zones=[ZONE]).zones()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), f"p{w}-", "60"], env=clean_env(),
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(WRITERS)]
    for p in procs:
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, f"exit {p.returncode}\n{out}\n{err}"
    names = {e.dns_name for e in ZoneFileProvider(str(tmp_path)).records() if e.record_type == "A"}
    assert names == {f"p{w}-{i}.{ZONE}" for w in range(WRITERS) for i in range(60)}


def test_threads_and_a_foreign_writer_lose_nothing(tmp_path: Path) -> None:
    """Two providers (as two processes would) writing in turns: each sees the other's writes, because the
    file's key moved, and never writes back a stale copy."""
    first = ZoneFileProvider(str(tmp_path), create_zones=[ZONE])
    second = ZoneFileProvider(str(tmp_path))
    first.zones()
    errors: list[BaseException] = []

    def write(p: ZoneFileProvider, prefix: str) -> None:
        try:
            for i in range(40):
                p.apply_changes(Changes(create=[Endpoint(f"{prefix}{i}.{ZONE}", "A", Targets(["192.0.2.1"]))]))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(p, prefix)) for p, prefix in ((first, "a"), (second, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    names = {e.dns_name for e in ZoneFileProvider(str(tmp_path)).records() if e.record_type == "A"}
    assert names == {f"{p}{i}.{ZONE}" for p in "ab" for i in range(40)}


def test_lock_is_exclusive_across_descriptors(tmp_path: Path) -> None:
    """flock locks belong to the open file description: a second open of the lock file must wait."""
    path = str(tmp_path / f"{ZONE}.zone")
    with zone_file_lock(path):
        probe = subprocess.run(
            [sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR);"
             "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)", lock_path(path)],
            capture_output=True, text=True, check=False, timeout=30)
        assert probe.returncode != 0 and "BlockingIOError" in probe.stderr
