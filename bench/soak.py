"""Soak: the long-running controller under random DNSEndpoint churn, API-server faults and BIND restarts.

Not part of `make bench` or CI (it runs for minutes): `.venv/bin/python -m bench.soak --minutes 30`.

Set-up: the test Kubernetes API server (tests/kubeapi) and one `named` (tests/servers/bind) serving
example.org; foreign records written by hand before the start (some at names the churn also asks for);
the real CLI as a subprocess (`--source=crd --provider=rfc2136 --policy=sync`, long-running, events on).
During the run: DNSEndpoint objects created, updated and deleted at random (about 5 % of their endpoints
invalid: huge TTLs, emoji names, CNAMEs with two targets -- they must be skipped, never block the zone),
and every few seconds one fault: API 500s / 429s, cut or silenced watches, a compacted history (410), an
API-server restart, a BIND restart, or BIND stopped (SIGSTOP) for a few seconds.
At the end the churn stops and the zone must converge to exactly the desired records (each with its
ownership TXT), with every foreign record byte-for-byte untouched. Prints a table of what happened.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.limits import endpoint_problem
from external_dns.endpoint.targets import Targets
from tests.helpers.cli import clean_env
from tests.kubeapi.server import KubeAPIServer
from tests.servers.bind import NAMED, BindServer, _drop_root, _zone_ready, start_bind

ROOT = Path(__file__).resolve().parents[1]
ZONE = "example.org"
OWNER = "soak"
API, KIND = "externaldns.k8s.io/v1alpha1", "DNSEndpoint"
FOREIGN = {f"foreign-{i}": f"198.51.100.{i + 1}" for i in range(20)}
CONTESTED = {f"shared-{i}": f"203.0.113.{i + 1}" for i in range(5)}  # foreign, and also asked for by churn


# -- BIND faults ----------------------------------------------------------------------------------------------
def restart_bind(srv: BindServer) -> None:
    """Stop named (SIGTERM: journals flushed) and start it again on the same port with the same files."""
    proc = srv.process
    assert proc is not None
    proc.terminate()
    proc.wait(timeout=10)
    conf = srv.workdir / "named.conf"
    deadline = time.monotonic() + 30
    while True:
        log = open(srv.workdir / "named.log", "ab")  # noqa: SIM115 - handed to the child
        try:
            srv.process = subprocess.Popen([NAMED, "-f", "-4", "-c", str(conf), *_drop_root(srv.workdir)],
                                           stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                           cwd=srv.workdir)
        finally:
            log.close()
        while time.monotonic() < deadline:
            if srv.process.poll() is not None:
                break  # the port may still be held by the old process: try again
            if _zone_ready(srv.host, srv.port, ZONE):
                return
            time.sleep(0.1)
        if time.monotonic() >= deadline:
            raise RuntimeError(f"named did not come back:\n{srv.log()[-2000:]}")
        time.sleep(0.5)


def stall_bind(srv: BindServer, seconds: float) -> None:
    assert srv.process is not None
    os.kill(srv.process.pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(srv.process.pid, signal.SIGCONT)


# -- desired state --------------------------------------------------------------------------------------------
def _random_endpoint(rng: random.Random, names: list[str]) -> dict[str, Any]:
    name = rng.choice(names)
    roll = rng.random()
    if roll < 0.02:
        return {"dnsName": f"{name}.{ZONE}", "recordType": "A", "targets": ["192.0.2.1"],
                "recordTTL": 99999999999999}
    if roll < 0.04:
        return {"dnsName": f"\U0001f600{name}.{ZONE}", "recordType": "A", "targets": ["192.0.2.1"]}
    if roll < 0.05:
        return {"dnsName": f"{name}.{ZONE}", "recordType": "CNAME", "targets": ["a.example.net", "b.example.net"]}
    kind = rng.choice(["A", "A", "A", "CNAME", "TXT", "AAAA"])
    ttl = rng.choice([0, 0, 60, 300, 3600])
    if kind == "A":
        targets = sorted({f"192.0.2.{rng.randint(1, 254)}" for _ in range(rng.randint(1, 3))})
    elif kind == "AAAA":
        targets = [f"2001:db8::{rng.randint(1, 65535):x}"]
    elif kind == "CNAME":
        targets = [f"lb-{rng.randint(1, 50)}.example.net"]
    else:
        targets = [f"v={rng.randint(1, 10**6)} soak"]
    ep: dict[str, Any] = {"dnsName": f"{name}.{ZONE}", "recordType": kind, "targets": targets}
    if ttl:
        ep["recordTTL"] = ttl
    return ep


def _object(name: str, endpoints: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": API, "kind": KIND, "metadata": {"name": name, "namespace": "default"},
            "spec": {"endpoints": endpoints}}


def expected_records(kube: KubeAPIServer) -> dict[tuple[str, str], list[set[str]]]:
    """(name, type) -> the target sets the zone may hold: valid endpoints of all objects, merged as the CRD
    source merges them (same name, type and TTL: targets united). Several candidates when objects disagree
    (the plan's conflict resolution keeps the one already written); none at contested (foreign) names."""
    merged: dict[tuple[str, str, int], set[str]] = {}
    for obj in kube.list(API, KIND, "default"):
        for raw in obj["spec"].get("endpoints") or []:
            ep = Endpoint(dns_name=raw["dnsName"], record_type=raw["recordType"],
                          targets=Targets(raw.get("targets") or []), record_ttl=raw.get("recordTTL") or 0)
            if endpoint_problem(ep) is not None:
                continue
            host = ep.dns_name.rstrip(".").lower()
            if host.split(".")[0] in CONTESTED:
                continue
            if ep.record_type == "CNAME":  # one canonical name: every distinct target is its own candidate
                merged.setdefault((host, "CNAME", hash(ep.targets[0].lower())), set()).add(ep.targets[0].lower())
                continue
            merged.setdefault((host, ep.record_type, ep.record_ttl), set()).update(t.lower() for t in ep.targets)
    out: dict[tuple[str, str], list[set[str]]] = {}
    for (host, rtype, _ttl), targets in merged.items():
        out.setdefault((host, rtype), []).append(targets)
    return out


def matches(expected: dict[tuple[str, str], list[set[str]]], ours: dict[tuple[str, str], set[str]]) -> list[str]:
    """What differs between the zone and the candidates ([] = converged). A name asking for a CNAME and
    other types holds either the CNAME or the others (the plan picks), never both."""
    problems = [f"unexpected {k}" for k in ours if k not in expected]
    problems += [f"{k} holds {sorted(v)}" for k, v in ours.items() if k in expected and v not in expected[k]]
    for key in expected:
        if key in ours:
            continue
        name, rtype = key
        others = [k for k in expected if k[0] == name and k != key]
        cname_conflict = (rtype == "CNAME" and others) or any(k[1] == "CNAME" for k in others)
        if cname_conflict and any(k in ours for k in [*others, key]):
            continue
        problems.append(f"missing {key}")
    for name in {k[0] for k in ours}:
        types = {k[1] for k in ours if k[0] == name}
        if "CNAME" in types and len(types) > 1:
            problems.append(f"{name} holds a CNAME and other types")
    return problems


def zone_state(srv: BindServer) -> tuple[dict[tuple[str, str], set[str]], dict[tuple[str, str], set[str]],
                                          dict[tuple[str, str], list[str]]]:
    """(our records, our ownership TXT records, foreign records) from an AXFR."""
    ours: dict[tuple[str, str], set[str]] = {}
    txt: dict[tuple[str, str], set[str]] = {}
    foreign: dict[tuple[str, str], list[str]] = {}
    rows = srv.axfr(ZONE)
    owned_names = set()
    for name, rtype, _ttl, values in rows:
        if rtype == "TXT" and any("heritage=external-dns" in v for v in values):
            txt[(name, rtype)] = set(values)
            owned_names.add(name)
    for name, rtype, _ttl, values in rows:
        first = name.split(".")[0]
        if (name, rtype) in txt or (name == ZONE and rtype in ("SOA", "NS")) or name == f"ns1.{ZONE}":
            continue
        if first in FOREIGN or first in CONTESTED:
            foreign[(name, rtype)] = sorted(values)
            continue
        ours[(name, rtype)] = {v.lower().rstrip(".") if rtype == "CNAME" else v.lower() for v in values}
    return ours, txt, foreign


def _normalise_expected(exp: dict[tuple[str, str], list[set[str]]]) -> dict[tuple[str, str], list[set[str]]]:
    out: dict[tuple[str, str], list[set[str]]] = {}
    for (name, rtype), candidates in exp.items():
        if rtype == "TXT":
            out[(name, rtype)] = [{f'"{t}"' for t in c} for c in candidates]
        elif rtype == "CNAME":
            out[(name, rtype)] = [{t.rstrip(".") for t in c} for c in candidates]
        else:
            out[(name, rtype)] = candidates
    return out


# -- the run ---------------------------------------------------------------------------------------------------
class Soak:
    def __init__(self, minutes: float, seed: int, fault_every: float) -> None:
        self.minutes = minutes
        self.rng = random.Random(seed)
        self.fault_every = fault_every
        self.ops: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.names = [f"h{i}" for i in range(120)] + list(CONTESTED)

    def churn_once(self, kube: KubeAPIServer) -> None:
        rng = self.rng
        objs = kube.list(API, KIND, "default")
        roll = rng.random()
        try:
            if roll < 0.45 or len(objs) < 5:
                name = f"obj-{rng.randint(0, 10**9)}"
                kube.create(_object(name, [_random_endpoint(rng, self.names) for _ in range(rng.randint(1, 3))]))
                self.ops["create"] += 1
            elif roll < 0.8:
                obj = rng.choice(objs)
                eps = obj["spec"].get("endpoints") or []
                if eps and rng.random() < 0.5:
                    eps[rng.randrange(len(eps))] = _random_endpoint(rng, self.names)
                else:
                    eps.append(_random_endpoint(rng, self.names))
                obj["spec"]["endpoints"] = eps[:4]
                kube.update(obj)
                self.ops["update"] += 1
            else:
                obj = rng.choice(objs)
                kube.delete(API, KIND, "default", obj["metadata"]["name"])
                self.ops["delete"] += 1
        except Exception as exc:  # a 409 from a racing status write: count and go on
            self.ops[f"write error ({type(exc).__name__})"] += 1

    def fault(self, kube: KubeAPIServer, srv: BindServer) -> None:
        actions: list[tuple[str, Callable[[], object]]] = [
            ("API 500 x5", lambda: kube.fail_next(5, status=500)),
            ("API 429 x3", lambda: kube.fail_next(3, status=429)),
            ("watches cut", kube.cut_watches),
            ("watches silenced 5s", lambda: kube.silence_watches(5)),
            ("history compacted (410)", kube.compact),
            ("API server restart", kube.restart),
            ("BIND restart", lambda: restart_bind(srv)),
            ("BIND stopped 5s", lambda: stall_bind(srv, 5)),
        ]
        name, act = self.rng.choice(actions)
        act()
        self.faults[name] += 1

    def run(self) -> dict[str, Any]:
        tmp = Path(tempfile.mkdtemp(prefix="soak-"))
        kube = KubeAPIServer().start()
        srv = start_bind((ZONE,), with_tls=False)
        proc: subprocess.Popen[bytes] | None = None
        log_path = tmp / "controller.log"
        try:
            kube.ensure_namespace("default")
            upd = srv.update(ZONE)
            for name, ip in {**FOREIGN, **CONTESTED}.items():
                upd.add(name, 300, "A", ip)
                upd.add(name, 300, "TXT", f'"hand-made {name}"')
            srv.send(upd)
            _, _, foreign_before = zone_state(srv)
            kubeconfig = kube.write_kubeconfig(tmp / "kubeconfig")
            args = [sys.executable, "-m", "external_dns", "--source=crd", "--provider=rfc2136",
                    *[a for a in srv.rfc2136_flags() if not a.startswith("--rfc2136-tsig-secret=")],
                    f"--kubeconfig={kubeconfig}", "--policy=sync", f"--txt-owner-id={OWNER}",
                    "--managed-record-types=A", "--managed-record-types=AAAA", "--managed-record-types=CNAME",
                    "--managed-record-types=TXT", "--interval=20s", "--min-event-sync-interval=1s",
                    "--metrics-address=127.0.0.1:0", "--log-level=info",
                    # random churn deletes a large share of a small zone: the safety thresholds are for humans
                    "--delete-threshold=1", "--update-threshold=1"]
            env = clean_env({"EXTERNAL_DNS_RFC2136_TSIG_SECRET": srv.key_secret})
            with open(log_path, "wb") as log:
                proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
            started = time.monotonic()
            end = started + self.minutes * 60
            next_fault = started + self.fault_every
            while time.monotonic() < end:
                if proc.poll() is not None:
                    raise RuntimeError(f"controller exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
                self.churn_once(kube)
                if time.monotonic() >= next_fault:
                    self.fault(kube, srv)
                    next_fault = time.monotonic() + self.fault_every
                time.sleep(self.rng.uniform(0.1, 0.6))
            churn_end = time.monotonic()
            expected = _normalise_expected(expected_records(kube))
            converged_after: float | None = None
            mismatch: list[str] = []
            while time.monotonic() - churn_end < 180:
                ours, txt, foreign = zone_state(srv)
                mismatch = matches(expected, ours)
                if not mismatch:
                    converged_after = time.monotonic() - churn_end
                    break
                time.sleep(1)
            ours, txt, foreign = zone_state(srv)
            owned = {name for name, _ in txt}
            missing_owner = [k for k in ours if not any(o.endswith(k[0]) for o in owned)]
            log_text = log_path.read_text(errors="replace")
            rss = _peak_rss_kib(proc.pid)
            return {
                "minutes": self.minutes,
                "ops": dict(self.ops),
                "faults": dict(self.faults),
                "objects at end": len(kube.list(API, KIND, "default")),
                "record sets desired at end": len(expected),
                "records in zone at end": len(ours),
                "ownership TXT in zone": len(txt),
                "converged after churn stopped (s)": None if converged_after is None else round(converged_after, 1),
                "mismatch": mismatch[:10],
                "records without ownership TXT": len(missing_owner),
                "foreign records touched": sum(1 for k, v in foreign_before.items() if foreign.get(k) != v),
                "syncs applied": log_text.count("Applied: "),
                "syncs with nothing to do": log_text.count("already up to date"),
                "error lines": len(re.findall(r"level=error", log_text)),
                "invalid endpoints skipped (log lines)": log_text.count("due to invalid configuration"),
                "Traceback in log": log_text.count("Traceback"),
                "controller peak RSS (MiB)": round(rss / 1024, 1) if rss else None,
                "controller log": str(log_path),
            }
        finally:
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
            srv.stop()
            kube.stop()


def _peak_rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--fault-every", type=float, default=15.0, help="seconds between faults")
    opts = ap.parse_args(argv)
    result = Soak(opts.minutes, opts.seed, opts.fault_every).run()
    print("| measure | value |\n| --- | --- |")
    for key, value in result.items():
        print(f"| {key} | {value} |")
    ok = (result["converged after churn stopped (s)"] is not None and result["foreign records touched"] == 0
          and result["records without ownership TXT"] == 0)
    print("\nresult:", "PASS" if ok else "FAIL")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
