"""The manifest source: files, documents, lists, JSON, bad input reported while the rest still syncs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import structlog
import structlog.testing
import yaml

from external_dns.sources.manifest import ManifestReadError, ManifestSource
from external_dns.sources.options import SourceOptions
from tests.sources.helpers import ann, dnsendpoint, endpoint_slice, ingress, node, pod, service, summary

REPO = Path(__file__).resolve().parents[2]


def write(path: Path, *docs: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(list(docs)))
    return path


def names(src: ManifestSource) -> set[str]:
    return {e.dns_name for e in src.endpoints()}


def test_reads_all_kinds_recursively(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", service("web", annotations=ann(hostname="web.example.org"), lb_ips=("1.1.1.1",)),
          ingress("ing", hosts=("ing.example.org",)))
    write(tmp_path / "sub" / "deeper" / "c.yml",
          dnsendpoint(endpoints=[{"dnsName": "crd.example.org", "recordType": "A", "targets": ["3.3.3.3"]}]))
    (tmp_path / "d.json").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "List",
         "items": [service("j", annotations=ann(hostname="json.example.org"), lb_ips=("4.4.4.4",))]}))
    (tmp_path / "notes.txt").write_text("kind: Service")
    write(tmp_path / ".hidden" / "x.yaml", service("h", annotations=ann(hostname="hidden.example.org"),
                                                   lb_ips=("5.5.5.5",)))
    src = ManifestSource(tmp_path)
    eps = src.endpoints()
    assert summary(eps) == {
        ("web.example.org", "A", ("1.1.1.1",), 0), ("ing.example.org", "A", ("1.2.3.4",), 0),
        ("crd.example.org", "A", ("3.3.3.3",), 0), ("json.example.org", "A", ("4.4.4.4",), 0)}
    assert src.problems == []
    assert {e.labels["resource"] for e in eps} == {"service/default/web", "ingress/default/ing",
                                                   "crd/default/rec", "service/default/j"}
    assert [p.name for p in src.files()] == ["a.yaml", "d.json", "c.yml"]


def test_other_kinds_and_api_groups_ignored(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml",
          {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}},
          {**service("wrong-group", annotations=ann(hostname="x.example.org"), lb_ips=("1.1.1.1",)),
           "apiVersion": "example.com/v1"},
          {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}})
    src = ManifestSource(tmp_path)
    assert src.endpoints() == [] and src.problems == []


def test_missing_namespace_is_default(tmp_path: Path) -> None:
    svc = service("web", annotations=ann(hostname="a.example.org"), lb_ips=("1.1.1.1",))
    del svc["metadata"]["namespace"]
    write(tmp_path / "a.yaml", svc)
    [ep] = ManifestSource(tmp_path, SourceOptions(namespace="default")).endpoints()
    assert ep.labels["resource"] == "service/default/web"


def test_malformed_yaml_fails_the_read_and_names_every_file(tmp_path: Path) -> None:
    # A file that stops parsing must not turn into deletes of what it described: the whole read fails.
    write(tmp_path / "good.yaml", service("web", annotations=ann(hostname="good.example.org"), lb_ips=("1.1.1.1",)))
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(service("ok", annotations=ann(hostname="first.example.org"), lb_ips=("2.2.2.2",)))
                   + "---\nkind: Service\nmetadata: {name: [unclosed\n")
    (tmp_path / "broken.json").write_text('{"kind": "Service",')
    src = ManifestSource(tmp_path)
    with pytest.raises(ManifestReadError, match="2 manifest file"):
        src.endpoints()
    by_ref = {p.ref: p for p in src.problems}
    assert set(by_ref) == {f"{bad} document 2", str(tmp_path / "broken.json")}
    yaml_problem = by_ref[f"{bad} document 2"]
    end_line = len(bad.read_text().splitlines()) + 1
    assert yaml_problem.severity == "error"
    assert f"invalid YAML at line {end_line} column 1" in yaml_problem.message
    assert "invalid JSON at line 1" in by_ref[str(tmp_path / "broken.json")].message


def test_bad_documents_and_objects(tmp_path: Path) -> None:
    bad_svc = service("bad", annotations=ann(hostname="bad.example.org"), lb_ips=("1.1.1.1",))
    bad_svc["spec"]["externalIPs"] = "1.1.1.1"
    no_name = service("x", annotations=ann(hostname="noname.example.org"), lb_ips=("1.1.1.1",))
    del no_name["metadata"]["name"]
    write(tmp_path / "a.yaml",
          ["not", "an", "object"],
          bad_svc,
          no_name,
          {"apiVersion": "v1", "kind": "List", "items": ["x", service(
              "fine", annotations=ann(hostname="fine.example.org", ttl="abc"), lb_ips=("1.1.1.1",))]},
          {"apiVersion": "v1", "kind": "ServiceList", "items": "nope"})
    write(tmp_path / "b.yaml", service("fine", annotations=ann(hostname="dup.example.org"), lb_ips=("9.9.9.9",)))
    src = ManifestSource(tmp_path)
    with pytest.raises(ManifestReadError, match="3 manifest file"):  # documents 1, 4 item 0 and 5 unreadable
        src.endpoints()
    got = sorted((p.ref, p.field, p.severity) for p in src.problems)
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    assert got == sorted([
        (f"{a} document 1", "", "error"),
        ("service/default/bad", "spec.externalIPs", "error"),
        (f"{a} document 3", "metadata.name", "error"),
        (f"{a} document 4 item 0", "", "error"),
        ("service/default/fine", "external-dns.kubernetes.io/ttl", "warning"),
        (f"{a} document 5", "items", "error"),
        (f"{b} document 1", "metadata.name", "error"),
    ])


def test_node_port_and_headless_from_manifests(tmp_path: Path) -> None:
    np = service("np", type="NodePort", annotations=ann(hostname="np.example.org"),
                 spec={"ports": [{"port": 80, "nodePort": 30080}]})
    hl = service("hl", type="ClusterIP", cluster_ip="None", annotations=ann(hostname="hl.example.org"))
    write(tmp_path / "a.yaml", np, hl, node("n1", external=("1.1.1.1",)), pod("hl-0", hostname="hl-0"),
          endpoint_slice("hl", [("hl-0", "10.0.0.5", True)]))
    assert summary(ManifestSource(tmp_path).endpoints()) == {
        ("np.example.org", "A", ("1.1.1.1",), 0),
        ("_np._tcp.np.example.org", "SRV", ("0 50 30080 np.example.org.",), 0),
        ("hl.example.org", "A", ("10.0.0.5",), 0),
        ("hl-0.hl.example.org", "A", ("10.0.0.5",), 0)}


def test_changes_are_seen_on_next_call(tmp_path: Path) -> None:
    f = write(tmp_path / "a.yaml", service("web", annotations=ann(hostname="a.example.org"), lb_ips=("1.1.1.1",)))
    src = ManifestSource(tmp_path)
    assert names(src) == {"a.example.org"}
    f.unlink()
    assert names(src) == set()


def test_missing_directory_is_a_problem(tmp_path: Path) -> None:
    src = ManifestSource(tmp_path / "nope")
    with pytest.raises(ManifestReadError):  # never "no objects, delete everything"
        src.endpoints()
    [p] = src.problems
    assert p.field == "--manifest-dir" and p.severity == "error"


def test_problems_are_logged(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("kind: [\n")
    with structlog.testing.capture_logs() as logs, pytest.raises(ManifestReadError):
        ManifestSource(tmp_path).endpoints()
    errors = [e for e in logs if e["log_level"] == "error"]
    assert len(errors) == 1
    assert "bad.yaml document 1" in errors[0]["event"] and "invalid YAML" in errors[0]["event"]


def test_examples_directory() -> None:
    """The demo manifests of `make run` give the records the demo shows."""
    src = ManifestSource(REPO / "examples" / "manifests")
    eps = src.endpoints()
    assert src.problems == []
    assert summary(eps) == {
        ("www.example.org", "A", ("192.0.2.10",), 300),
        ("www.example.org", "AAAA", ("2001:db8::10",), 300),
        ("api.example.org", "CNAME", ("lb-1234.elb.example.net",), 0),
        ("api-v2.example.org", "CNAME", ("lb-1234.elb.example.net",), 0),
        ("legacy.example.org", "CNAME", ("old-datacenter.example.net",), 0),
        ("internal.example.org", "A", ("10.96.0.20",), 0),
        ("shop.example.org", "A", ("192.0.2.20",), 0),
        ("checkout.example.org", "A", ("192.0.2.20",), 0),
        ("mail.example.org", "A", ("192.0.2.30",), 300),
        ("docs.example.org", "CNAME", ("www.example.org",), 0),
    }


def test_rewritten_file_is_parsed_again(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    write(f, service("web", annotations=ann(hostname="aa.example.org"), lb_ips=("1.1.1.1",)))
    src = ManifestSource(tmp_path)
    first = src.endpoints()
    assert names(src) == {"aa.example.org"}
    assert src.endpoints()[0].ref_objects[0] is first[0].ref_objects[0]  # unchanged file: not parsed again
    # same size, same instant: only the content differs
    write(f, service("web", annotations=ann(hostname="bb.example.org"), lb_ips=("1.1.1.1",)))
    assert names(src) == {"bb.example.org"}
    f.write_text("kind: [\n")
    with pytest.raises(ManifestReadError):
        src.endpoints()
    assert len(src.problems) == 1
    assert len(src._parsed) == 1
