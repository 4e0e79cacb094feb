"""Renders the external-dns-py Helm chart offline (helm-python-sdk's bundled Helm) into raw object dicts.

Other tests use it too, e.g. to bind a test token to the chart's ClusterRole:

    objects = render_chart({"sources": ["service", "ingress", "crd"]})
    role = find(objects, "ClusterRole")

`render_chart(values)` raises `helm_python.HelmError` (HelmValuesError for values the schema rejects,
HelmRenderError for a template `fail`), with Helm's message naming the key.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import helm_python as helm
import yaml

ROOT = Path(__file__).resolve().parents[2]
CHART_DIR = ROOT / "charts" / "external-dns-py"
VALUES_DIR = Path(__file__).resolve().parent / "values"
RELEASE = "edns"
NAMESPACE = "dns"
# The three realistic value files, beside the chart's defaults (None).
VALUE_FILES = ("route53-service-ingress.yaml", "rfc2136-crd-tsig.yaml", "webhook-sidecar.yaml")


@cache
def _chart() -> helm.Chart:
    return helm.Chart.load(CHART_DIR)


def load_values(name: str | None) -> dict[str, Any]:
    """The values of tests/charts/values/<name> ({} for None: the chart's defaults)."""
    if name is None:
        return {}
    data = yaml.safe_load((VALUES_DIR / name).read_text())
    assert isinstance(data, dict), f"{name}: values must be a mapping"
    return data


def render_manifests(values: dict[str, Any] | None = None, *, name: str = RELEASE,
                     namespace: str = NAMESPACE) -> dict[str, str]:
    """Template path -> rendered text (NOTES.txt included), as `helm template` would produce them."""
    return _chart().render(values or {}, name=name, namespace=namespace, is_install=True)


def render_chart(values: dict[str, Any] | None = None, *, name: str = RELEASE,
                 namespace: str = NAMESPACE) -> list[dict[str, Any]]:
    """Every Kubernetes object the chart renders for `values` (templates only; CRDs: `crd_objects()`)."""
    objects: list[dict[str, Any]] = []
    for path, text in sorted(render_manifests(values, name=name, namespace=namespace).items()):
        if path.endswith("NOTES.txt"):
            continue
        for doc in yaml.safe_load_all(text):
            if doc is None:
                continue
            assert isinstance(doc, dict), f"{path}: a rendered document is not a mapping: {doc!r}"
            objects.append(doc)
    return objects


def crd_objects() -> list[dict[str, Any]]:
    """The CustomResourceDefinitions the chart installs from crds/."""
    out: list[dict[str, Any]] = []
    for crd in _chart().crds:
        for doc in yaml.safe_load_all(crd["data"]):
            if doc is not None:
                out.append(doc)
    return out


def find(objects: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    """The one object of `kind` (and `name`, when given); AssertionError naming what is missing."""
    found = [o for o in objects if o.get("kind") == kind
             and (name is None or o.get("metadata", {}).get("name") == name)]
    assert len(found) == 1, f"expected one {kind}{' ' + name if name else ''}, found {len(found)}"
    return found[0]


def find_all(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o.get("kind") == kind]


def containers(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The Deployment's containers by name."""
    pod = find(objects, "Deployment")["spec"]["template"]["spec"]
    return {c["name"]: c for c in pod["containers"]}


def permissions(rules: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    """RBAC rules flattened to (apiGroup, resource, verb) triples: equal sets grant the same access."""
    out: set[tuple[str, str, str]] = set()
    for rule in rules:
        assert not rule.get("resourceNames"), f"unexpected resourceNames in {rule}"
        for group in rule.get("apiGroups", []):
            for resource in rule.get("resources", []):
                for verb in rule.get("verbs", []):
                    out.add((group, resource, verb))
    return out


def iter_rules(objects: list[dict[str, Any]], *kinds: str) -> Iterator[dict[str, Any]]:
    for kind in kinds:
        for obj in find_all(objects, kind):
            yield from obj.get("rules", [])
