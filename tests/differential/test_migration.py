"""Migration both ways on one zone, with the same owner ID and TXT settings: what one program wrote, the other
adopts without sending anything, and when the objects go it deletes exactly the records the first one wrote
(and their ownership TXT), leaving another owner's records and hand-made ones alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential.cluster import Cluster
from tests.differential.harness import ProgramFailed, on_cluster
from tests.differential.objects import ingress
from tests.differential.programs import Program, Run
from tests.differential.scenarios import AES_KEY, lb, owned_txt
from tests.differential.zones import Record, comparable, seed, serials, snapshot

pytestmark = pytest.mark.integration

FOREIGN = (Record("legacy.example.org", "A", 300, "192.0.2.98"),
           owned_txt("legacy.example.org", "A", "service/team-b/legacy"),
           Record("manual.example.org", "CNAME", 300, "web.example.org."),
           Record("example.org", "MX", 300, "10 mx.example.net."))
EXPECTED = {("web.example.org", "A"), ("web.example.org", "AAAA"), ("alias.example.org", "CNAME"),
            ("shop.example.org", "A"), ("cart.example.com", "A")}
VARIANTS = {
    "default": (),
    "prefix-record-type": ("--txt-prefix=%{record_type}-own.",),
    "encrypted": ("--txt-encrypt-enabled", f"--txt-encrypt-aes-key={AES_KEY.decode()}"),
}


def _objects(ns: str) -> list[dict[str, object]]:
    return [lb(ns, "web", "web.example.org", ["192.0.2.10", "2001:db8::10"]),
            lb(ns, "alias", "alias.example.org", hostnames=["lb-1.elb.example.net"], ttl="120"),
            ingress(ns, "shop", hosts=["shop.example.org", "cart.example.com"], lb_ips=["192.0.2.40"])]


def _once(program: Program, kubeconfig: str, ns: str, extra: tuple[str, ...]) -> Run:
    run = program.run([*program.flags(kubeconfig, ns), "--once", "--source=service", "--source=ingress",
                       "--registry=txt", "--txt-owner-id=migrate", "--policy=sync", "--log-level=debug", *extra])
    if run.returncode != 0:
        raise ProgramFailed(run.describe())
    return run


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("direction", ["go-then-py", "py-then-go"])
def test_takeover_plans_nothing_then_deletes_only_the_first_programs_records(
        direction: str, variant: str, go_side: Program, py_side: Program, diff_cluster: Cluster,
        tmp_path: Path) -> None:
    extra = VARIANTS[variant]
    # one zone: the writer's BIND; the other program is pointed at the same server
    first, second = (go_side, py_side) if direction == "go-then-py" else (py_side, go_side)
    second = Program(second.name, second.command, first.bind, second.env)
    bind = first.bind
    bind.reset()
    seed(bind, FOREIGN)
    ns = f"migrate-{direction}-{variant}"
    kubeconfig = diff_cluster.write_kubeconfig(tmp_path / "kubeconfig", ns)
    diff_cluster.create_namespace(ns)
    key = AES_KEY if variant == "encrypted" else None
    with on_cluster(diff_cluster, _objects(ns)) as objects:
        _once(first, kubeconfig, ns, extra)
        written = snapshot(bind)
        ours = set(written) - set(FOREIGN)
        assert {(r.name, r.rtype) for r in ours if r.rtype != "TXT"} == EXPECTED, written
        assert len([r for r in ours if r.rtype == "TXT"]) == len(EXPECTED), written
        before = serials(bind)
        _once(second, kubeconfig, ns, extra)
        assert serials(bind) == before, f"{second.name} changed the zone on takeover"
        assert comparable(snapshot(bind), key) == comparable(written, key)
        objects.clear()
        _once(second, kubeconfig, ns, extra)
        # encrypted: Go deletes an ownership TXT by rebuilding its value from the decrypted labels and the stored
        # nonce, so it removes ours only because our compression is byte for byte Go's (endpoint/goflate.py)
        left = snapshot(bind)
        assert left == sorted(FOREIGN), f"{second.name} left or removed the wrong records"
