"""Problems of bad input (sources/problems.py): what a problem says, bounded whatever the value's size, the object
reference it names, one log line per problem at its severity with only the fields it has."""

from __future__ import annotations

from typing import Any

import pytest
from structlog.testing import capture_logs

from external_dns.sources.problems import ERROR, MAX_MESSAGE, MAX_VALUE, Problem, log_problems, object_ref


def test_str_names_the_place_field_value_and_message() -> None:
    p = Problem("service/default/web", "metadata.annotations[ttl]", "abc", "not a duration")
    assert str(p) == "service/default/web: metadata.annotations[ttl]='abc': not a duration"
    assert str(Problem("file.yaml#3", "", "", "not a mapping")) == "file.yaml#3: not a mapping"
    assert str(Problem("node//n1", "status.addresses", "", "none usable")) == "node//n1: status.addresses: none usable"


def test_huge_values_and_messages_are_cut_with_their_length() -> None:
    p = Problem("service/default/web", "f" * (MAX_VALUE + 5), "v" * 4_000_000, "m" * (MAX_MESSAGE + 1))
    assert p.value == "v" * MAX_VALUE + "... (4000000 characters)"
    assert p.field == "f" * MAX_VALUE + f"... ({MAX_VALUE + 5} characters)"
    assert p.message == "m" * MAX_MESSAGE + f"... ({MAX_MESSAGE + 1} characters)"
    assert len(str(p)) < 3 * MAX_VALUE + MAX_MESSAGE


def test_the_object_is_kept_but_not_compared() -> None:
    obj = {"metadata": {"name": "web"}}
    with_obj = Problem("service/default/web", "spec", "", "bad", obj=obj)
    assert with_obj.obj is obj
    assert with_obj == Problem("service/default/web", "spec", "", "bad")
    assert "metadata" not in repr(with_obj)


@pytest.mark.parametrize(("obj", "kind", "ref"), [
    ({"kind": "Service", "metadata": {"name": "web", "namespace": "default"}}, "", "service/default/web"),
    ({"kind": "Service", "metadata": {"name": "web", "namespace": "default"}}, "Ingress", "ingress/default/web"),
    ({"kind": "Node", "metadata": {"name": "n1"}}, "", "node//n1"),
    ({"metadata": "broken"}, "", "object//"),
    ({}, "DNSEndpoint", "dnsendpoint//"),
])
def test_object_ref(obj: dict[str, Any], kind: str, ref: str) -> None:
    assert object_ref(obj, kind) == ref


def test_log_problems_one_line_each_at_its_level_without_empty_fields() -> None:
    problems = [Problem("service/default/web", "metadata.annotations[ttl]", "abc", "not a duration"),
                Problem("manifests/a.yaml#2", "", "", "does not parse", severity=ERROR)]
    with capture_logs() as logs:
        log_problems(problems)
    assert logs == [
        {"event": str(problems[0]), "log_level": "warning", "ref": "service/default/web",
         "field": "metadata.annotations[ttl]", "value": "abc"},
        {"event": str(problems[1]), "log_level": "error", "ref": "manifests/a.yaml#2"},
    ]
