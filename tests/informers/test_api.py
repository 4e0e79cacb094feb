"""Raw LIST and WATCH requests (informers/api.py): error answers as ApiStatusError with the Status reason, causes
and Retry-After, LIST pages and WATCH streams parsed as raw JSON against the test API server, a stream closed from
another thread, Kubernetes MicroTime."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import kubernetes.client
import pytest

from external_dns.informers.api import ApiStatusError, WatchStream, call_json, format_micro_time, list_page
from tests.kubeapi.server import KubeAPIServer

TIMEOUT = (5.0, 10.0)


def svc(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default"},
            "spec": {"ports": [{"port": 80, "protocol": "TCP"}]}}


def test_status_errors_with_reason_causes_and_retry_after() -> None:
    gone = ApiStatusError.from_status({"kind": "Status", "code": 410, "reason": "Expired", "message": "too old"})
    assert gone.is_expired and not gone.retriable_watch and str(gone) == "410 Expired: too old"
    large = ApiStatusError.from_status({"code": 504, "reason": "Timeout", "message": "Too large resource version",
                                        "details": {"causes": [{"reason": "ResourceVersionTooLarge"}],
                                                    "retryAfterSeconds": 1}})
    assert large.is_too_large_resource_version and large.causes == ("ResourceVersionTooLarge",)
    assert large.retry_after == 1.0
    throttled = ApiStatusError.from_response(429, "Too Many Requests", b'{"kind": "Status", "reason": "TooManyRequests"}',
                                             "3")
    assert throttled.status == 429 and throttled.retriable_watch and throttled.retry_after == 3.0  # header first
    proxy = ApiStatusError.from_response(502, "Bad Gateway", b"<html>upstream down</html>", "soon")
    assert (proxy.status, proxy.reason, proxy.message, proxy.retry_after) == (
        502, "Bad Gateway", "<html>upstream down</html>", None)  # not a Status body: its text, a bad header ignored
    assert ApiStatusError.from_response(500, "Internal", b"", None).message == "Internal"


def test_micro_time() -> None:
    assert format_micro_time(datetime(2026, 1, 2, 3, 4, 5, 6)) == "2026-01-02T03:04:05.000006Z"  # naive is UTC
    plus_one = datetime(2026, 1, 2, 4, 4, 5, tzinfo=timezone(timedelta(hours=1)))
    assert format_micro_time(plus_one) == "2026-01-02T03:04:05.000000Z"
    assert format_micro_time(datetime(2026, 1, 2, tzinfo=UTC)).endswith("T00:00:00.000000Z")


@pytest.mark.integration
def test_list_watch_and_close_against_the_test_server(kubeapi: KubeAPIServer,
                                                      kube_api_client: kubernetes.client.ApiClient) -> None:
    kubeapi.create(svc("a"))
    kubeapi.create(svc("b"))
    page = list_page(kube_api_client, "/api/v1/services", [("limit", "1")], TIMEOUT)
    assert [o["metadata"]["name"] for o in page["items"]] == ["a"] and page["metadata"].get("continue")
    rest = list_page(kube_api_client, "/api/v1/services", [("continue", page["metadata"]["continue"])], TIMEOUT)
    assert [o["metadata"]["name"] for o in rest["items"]] == ["b"]
    stream = WatchStream(kube_api_client, "/api/v1/services",
                         [("watch", "1"), ("resourceVersion", rest["metadata"]["resourceVersion"]),
                          ("timeoutSeconds", "30")], TIMEOUT)
    events: list[dict[str, Any]] = []
    got = threading.Event()

    def read() -> None:
        for event in stream:
            events.append(event)
            got.set()

    reader = threading.Thread(target=read)
    reader.start()
    kubeapi.create(svc("c"))
    assert got.wait(10)
    stream.close()  # from this thread: the reader returns at once
    reader.join(5)
    stream.release()
    assert not reader.is_alive()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "c")]


@pytest.mark.integration
def test_errors_and_call_json(kubeapi: KubeAPIServer, kube_api_client: kubernetes.client.ApiClient) -> None:
    with pytest.raises(ApiStatusError) as info:
        list_page(kube_api_client, "/api/v1/nosuchthings", [], TIMEOUT)
    assert info.value.status == 404
    created = call_json(kube_api_client, "POST", "/api/v1/namespaces/default/services",
                        json.loads(json.dumps(svc("d"))), timeout=TIMEOUT)
    assert created["metadata"]["name"] == "d" and created["metadata"]["resourceVersion"]
