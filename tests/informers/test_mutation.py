"""The cache mutation detector (informers/mutation.py), driven directly: an object changed while cached is reported
once, by key, when it leaves the cache or on check_all(); strict mode raises; unchanged objects pass."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from external_dns.informers.mutation import ENV, CacheMutationError, MutationDetector, enabled_by_env


def svc(name: str) -> dict[str, object]:
    return {"metadata": {"name": name, "namespace": "default", "labels": {"app": name}}}


def test_unchanged_objects_pass_and_are_released() -> None:
    det = MutationDetector("services")
    obj = svc("web")
    det.track("default/web", obj)
    assert det.check_all() == []
    det.release(obj)
    obj["metadata"]["labels"] = {}  # type: ignore[index]
    assert det.check_all() == []  # released: no longer watched
    assert det.mutations == []


def test_a_mutation_is_reported_on_release_by_key() -> None:
    det = MutationDetector("services")
    obj = svc("web")
    det.track("default/web", obj)
    obj["metadata"]["labels"]["app"] = "changed"  # type: ignore[index]
    with capture_logs() as logs:
        det.release(obj)
    assert det.mutations == ["default/web"]
    assert [(e["informer"], e["key"], e["log_level"]) for e in logs] == [("services", "default/web", "error")]


def test_check_all_reports_each_change_once() -> None:
    det = MutationDetector("services")
    a, b = svc("a"), svc("b")
    det.track("default/a", a)
    det.track("default/b", b)
    b["spec"] = {"type": "LoadBalancer"}
    assert det.check_all() == ["default/b"]
    assert det.check_all() == []  # re-fingerprinted after the report
    a["spec"] = {}
    assert det.check_all() == ["default/a"]
    assert det.mutations == ["default/b", "default/a"]


def test_release_of_an_untracked_or_missing_object_is_a_no_op() -> None:
    det = MutationDetector("services")
    det.release(None)
    det.release(svc("never-tracked"))
    assert det.mutations == []


def test_strict_mode_raises_naming_informer_and_key() -> None:
    det = MutationDetector("ingresses", strict=True)
    obj = svc("web")
    det.track("default/web", obj)
    obj["metadata"]["name"] = "other"  # type: ignore[index]
    with pytest.raises(CacheMutationError, match="ingresses: cached object default/web was mutated"):
        det.release(obj)


@pytest.mark.parametrize(("value", "on"), [("true", True), ("1", True), ("YES", True), ("false", False), ("", False)])
def test_enabled_by_env(monkeypatch: pytest.MonkeyPatch, value: str, on: bool) -> None:
    monkeypatch.setenv(ENV, value)
    assert enabled_by_env() is on
