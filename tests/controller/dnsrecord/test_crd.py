"""The DNSRecord CRD manifest agrees with the controller: validation bounds, CEL immutability rules, printer
columns; and the test API server serving it refuses the same immutable-field changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from external_dns.controller.dnsrecord.types import OWNER_ID_MAX, OWNER_ID_MIN, ROOT_HOST_MAX
from tests.controller.dnsrecord.helpers import a_record, record
from tests.kubeapi.errors import ApiError
from tests.kubeapi.server import KubeAPIServer

CRD = Path(__file__).resolve().parents[3] / "charts" / "external-dns-py" / "crds" / "dnsrecords.yaml"


def crd() -> dict[str, Any]:
    doc = yaml.safe_load(CRD.read_text())
    assert isinstance(doc, dict)
    return doc


def test_schema_bounds_and_cel_rules() -> None:
    version = crd()["spec"]["versions"][0]
    assert version["name"] == "v1alpha1" and version["subresources"] == {"status": {}}
    spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["required"] == ["rootHost"]
    owner, root = spec["properties"]["ownerID"], spec["properties"]["rootHost"]
    assert (owner["minLength"], owner["maxLength"]) == (OWNER_ID_MIN, OWNER_ID_MAX)
    assert (root["minLength"], root["maxLength"]) == (1, ROOT_HOST_MAX)
    assert {"rule": "self == oldSelf", "message": "RootHost is immutable"} in root["x-kubernetes-validations"]
    assert {"rule": "self == oldSelf", "message": "OwnerID is immutable"} in owner["x-kubernetes-validations"]
    messages = [r["message"] for r in spec["x-kubernetes-validations"]]
    assert messages.count("OwnerID is immutable") == 2  # can be neither set nor unset after creation
    status = version["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]
    assert {"observedGeneration", "conditions", "queuedAt", "validFor", "writeCounter", "endpoints", "ownerID",
            "zoneID", "zoneDomainName"} <= set(status)
    assert status["queuedAt"]["format"] == "date-time"


def test_printer_columns() -> None:
    columns = {c["name"]: c["jsonPath"] for c in crd()["spec"]["versions"][0]["additionalPrinterColumns"]}
    assert columns["Ready"] == '.status.conditions[?(@.type=="Ready")].status'
    assert columns["Root Host"] == ".spec.rootHost"
    assert columns["Owner ID"] == ".status.ownerID"
    assert columns["Zone Domain"] == ".status.zoneDomainName"
    assert columns["Zone ID"] == ".status.zoneID"
    assert columns["Write Counter"] == ".status.writeCounter"


@pytest.mark.integration
def test_served_immutability(kubeapi: KubeAPIServer) -> None:
    obj = kubeapi.create(record("app", "app.example.com", [a_record("app.example.com", "1.2.3.4")], owner="owner-1"))
    changed = {**obj, "spec": {**obj["spec"], "rootHost": "other.example.com"}}
    with pytest.raises(ApiError, match="RootHost is immutable"):
        kubeapi.update(changed)
    changed = {**obj, "spec": {**obj["spec"], "ownerID": "owner-2"}}
    with pytest.raises(ApiError, match="OwnerID is immutable"):
        kubeapi.update(changed)
