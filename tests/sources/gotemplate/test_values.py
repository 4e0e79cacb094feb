"""The getters of Go's typed objects on template data (sources/gotemplate/values.py, issue 28 item 13): `.GetName`,
`.GetLabels`, `.GetObjectKind.GroupVersionKind`, ... on an object, never on any map."""

from __future__ import annotations

import pytest

from tests.sources.gotemplate.helpers import fails, run


@pytest.mark.parametrize(("text", "want"), [
    ("{{.GetName}}.{{.GetNamespace}}.example.org", "web.prod.example.org"),
    ("{{.ObjectMeta.GetName}}-{{.Metadata.GetNamespace}}", "web-prod"),
    ("{{.GetUID}} {{.GetGeneration}} {{.GetGenerateName}} {{.GetResourceVersion}}", "4f6c-uid 7 web- 42"),
    ('{{index .GetLabels "app"}}.{{index .GetAnnotations "team"}}', "shop.dns"),
    ("{{range .GetFinalizers}}{{.}}{{end}}", "ab"),
    ("{{len .GetOwnerReferences}}{{.GetSelfLink}}", "0"),
    ("{{.GetObjectKind.GroupVersionKind.Kind}}/{{.TypeMeta.GroupVersionKind.Group}}"
     "/{{.GetObjectKind.GroupVersionKind.Version}}", "Deployment/apps/v1"),
    ("{{.GetObjectMeta.GetName}}", "web"),
    ("{{if .GetLabels.tier}}{{.GetLabels.tier}}{{end}}", "front"),
])
def test_object_getters(text: str, want: str) -> None:
    assert run(text) == want


def test_getters_are_the_objects_not_any_maps() -> None:
    assert "no entry for key" in fails("{{.Spec.GetName}}")  # a spec has no such method
    assert "no entry for key" in fails("{{.Labels.GetName}}")  # nor a map of labels
    assert "no entry for key" in fails("{{.GetCreationTimestamp}}")  # timestamps are not offered
    bare = {"metadata": {"name": "n"}}
    assert run("{{.GetName}}{{.GetNamespace}}{{len .GetLabels}}{{.GetGeneration}}", bare) == "n00"
