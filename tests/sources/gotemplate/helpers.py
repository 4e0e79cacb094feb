"""A Kubernetes object as a template sees it and the template run on it, for the tests of Go's text/template builtins
(expected values are Go's own: text/template's exec_test.go and funcs' tests, Go 1.26)."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.sources.gotemplate.lexer import TemplateError
from external_dns.sources.template import GoTemplate

OBJ: dict[str, Any] = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "prod", "uid": "4f6c-uid", "generation": 7, "generateName": "web-",
                 "labels": {"app": "shop", "tier": "front"}, "annotations": {"team": "dns"},
                 "finalizers": ["a", "b"], "resourceVersion": "42"},
    "spec": {"si": [3, 4, 5], "s": "xyz", "flag": True, "ps": "a string", "it": "It'd be nice.",
             "script": '<script>alert("XSS");</script>', "nothing": None},
}


def run(text: str, obj: dict[str, Any] | None = None) -> str:
    return GoTemplate(text).execute(obj or OBJ, "Deployment", "service")


def fails(text: str) -> str:
    with pytest.raises(TemplateError) as err:
        run(text)
    return str(err.value)
