"""Templates of `--fqdn-template`, `--target-template` and `--fqdn-target-template`: the Go text/template
language with external-dns's functions (sources/gotemplate/), run on a view of the raw object.

Data (external-dns's typed objects and its unstructured view in one): `.Name`, `.Namespace`, `.Kind`,
`.APIVersion`, `.Labels`, `.Annotations`, `.Metadata` / `.ObjectMeta`, `.TypeMeta`, `.Spec`, `.Status`,
`.Object` (the whole object), other top-level fields (`.Data`) and promoted metadata (`.UID`). Go struct
field names find their JSON keys case-insensitively (`.Spec.Type`, `.Status.LoadBalancer.Ingress`);
labels, annotations, selectors and data are looked up exactly.

Methods, as on Go's typed objects: the ObjectMeta getters on the object and on `.ObjectMeta` / `.Metadata`
(`.GetName`, `.GetNamespace`, `.GetLabels`, `.GetAnnotations`, `.GetUID`, `.GetGenerateName`,
`.GetResourceVersion`, `.GetGeneration`, `.GetSelfLink`, `.GetFinalizers`, `.GetOwnerReferences`,
`.GetManagedFields`, `.GetDeletionGracePeriodSeconds`, `.GetObjectMeta`), `.GetObjectKind` and
`.TypeMeta.GroupVersionKind` (`.Group`, `.Version`, `.Kind`). The timestamps' getters are not offered (a
metav1.Time prints in Go's time format, never part of a DNS name).

Output: split on `,`; items trimmed, one trailing dot removed, empty ones dropped, de-duplicated and sorted
(external-dns's execTemplate). Departures from Go, on purpose: printing a missing key, nil, a list or a
map is an error for that object instead of `<no value>` / `[...]` text (which is never a valid name).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from external_dns.sources.gotemplate.lexer import TemplateError
from external_dns.sources.gotemplate.values import NO_METHOD, Methods, StrMap

if TYPE_CHECKING:
    from external_dns.sources.gotemplate.parse import Node

__all__ = ["FQDNTemplate", "GoTemplate", "TemplateError", "join_templates", "object_view",
           "parse_fqdn_template", "parse_template"]

_USER_MAPS = ("labels", "annotations")


def _str_maps(mapping: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    out = dict(mapping)
    for key in keys:
        value = out.get(key)
        out[key] = StrMap(value) if isinstance(value, Mapping) else StrMap()
    return out


# ObjectMeta's getter -> (its field, Go's zero value when the field is absent: a nil slice or map has length
# 0 and ranges over nothing; a nil *int64 is nil)
_META_GETTERS: dict[str, tuple[str, Any]] = {
    "GetName": ("name", ""), "GetNamespace": ("namespace", ""), "GetGenerateName": ("generateName", ""),
    "GetUID": ("uid", ""), "GetResourceVersion": ("resourceVersion", ""), "GetGeneration": ("generation", 0),
    "GetSelfLink": ("selfLink", ""), "GetLabels": ("labels", StrMap()), "GetAnnotations": ("annotations", StrMap()),
    "GetFinalizers": ("finalizers", ()), "GetOwnerReferences": ("ownerReferences", ()),
    "GetManagedFields": ("managedFields", ()), "GetDeletionGracePeriodSeconds": ("deletionGracePeriodSeconds", None),
}


class _ObjectMeta(dict[str, Any], Methods):
    """`.ObjectMeta` / `.Metadata`: the metadata's fields, and ObjectMeta's getters."""

    def method(self, name: str) -> Any:
        if name == "GetObjectMeta":
            return self
        getter = _META_GETTERS.get(name)
        if getter is None:
            return NO_METHOD
        value = self.get(getter[0])
        return getter[1] if value is None else value


class _TypeMeta(dict[str, Any], Methods):
    """`.TypeMeta` (and what `.GetObjectKind` gives): Kind and APIVersion, and `GroupVersionKind`."""

    def method(self, name: str) -> Any:
        if name == "GetObjectKind":
            return self
        if name == "GroupVersionKind":
            group, _, version = str(self.get("APIVersion") or "").rpartition("/")
            return {"Group": group, "Version": version, "Kind": self.get("Kind") or ""}
        return NO_METHOD


class _ObjectView(Mapping[str, Any], Methods):
    """The template's root data, built on first use: most templates read `.Name` and `.Namespace` only, so
    the maps (labels, annotations, metadata, the promoted fields) are made only when a template asks."""

    __slots__ = ("_full", "_kind", "_obj")

    def __init__(self, obj: Mapping[str, Any], kind: str) -> None:
        self._obj, self._kind = obj, obj.get("kind") or kind
        self._full: dict[str, Any] | None = None

    def _quick(self, key: str) -> Any:
        if key == "Name" or key == "Namespace":
            meta = self._obj.get("metadata")
            return (meta.get(key.lower()) if isinstance(meta, Mapping) else None) or ""
        if key == "Kind":
            return self._kind
        return _NOT_QUICK

    def _all(self) -> dict[str, Any]:
        if self._full is None:
            self._full = _full_view(self._obj, self._kind)
        return self._full

    def __getitem__(self, key: str) -> Any:
        value = self._quick(key)
        return self._all()[key] if value is _NOT_QUICK else value

    def method(self, name: str) -> Any:
        """The object's getters (promoted from its ObjectMeta and TypeMeta, as on Go's typed objects)."""
        if name in ("GetName", "GetNamespace"):
            return self._quick(name[3:])
        if name == "GetObjectKind":
            return self._all()["TypeMeta"]
        meta = self._all()["ObjectMeta"]
        return meta.method(name) if isinstance(meta, _ObjectMeta) else NO_METHOD

    def __contains__(self, key: object) -> bool:
        return key in ("Name", "Namespace", "Kind") or key in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


_NOT_QUICK = object()


def object_view(obj: Mapping[str, Any], kind: str = "") -> Mapping[str, Any]:
    """The data a template sees for a raw Kubernetes object (built lazily, see _ObjectView)."""
    return _ObjectView(obj, kind)


def _full_view(obj: Mapping[str, Any], kind: str) -> dict[str, Any]:
    meta = _ObjectMeta(_str_maps(obj.get("metadata") or {}, _USER_MAPS))
    spec = obj.get("spec") or {}
    if isinstance(spec, Mapping) and isinstance(spec.get("selector"), Mapping) and all(
            isinstance(v, str) for v in spec["selector"].values()):
        spec = _str_maps(spec, ("selector",))
    view: dict[str, Any] = {}
    # promoted metadata (Go's embedded ObjectMeta: .UID, .CreationTimestamp) and other top-level fields
    view.update({k: v for k, v in meta.items() if k not in _USER_MAPS})
    view.update({k: (StrMap(v) if k in ("data", "stringData") and isinstance(v, Mapping) else v)
                 for k, v in obj.items() if k not in ("metadata", "spec", "status", "kind", "apiVersion")})
    view.update({
        "Name": meta.get("name", ""),
        "Namespace": meta.get("namespace", ""),
        "Kind": kind,
        "APIVersion": obj.get("apiVersion", ""),
        "Labels": meta["labels"],
        "Annotations": meta["annotations"],
        "Metadata": meta,
        "ObjectMeta": meta,
        "TypeMeta": _TypeMeta(Kind=kind, APIVersion=obj.get("apiVersion", "")),
        "Spec": spec,
        "Status": obj.get("status") or {},
        "Object": obj,
    })
    return view


def _names(output: str) -> list[str]:
    out: set[str] = set()
    for item in output.split(","):
        name = item.strip()
        if name.endswith("."):
            name = name[:-1]
        if name:
            out.add(name)
    return sorted(out)


class GoTemplate:
    """A parsed template. `render(obj)` -> the names (or targets) it produces; TemplateError when the
    object lacks a field the template reads, or a limit is reached."""

    def __init__(self, text: str) -> None:
        # The engine is imported with the first template: a run without one never loads it (start-up time).
        from external_dns.sources.gotemplate.execute import run
        from external_dns.sources.gotemplate.parse import parse_program

        self.text = text
        program = parse_program(text)
        self._nodes: tuple[Node, ...] = program.main
        self._templates = program.templates
        self._run = run

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"

    def execute(self, obj: Mapping[str, Any], kind: str = "", source: str = "") -> str:
        """The raw output for `obj`; `source` is what `isSource` compares with (e.g. "service")."""
        try:
            return self._run(self._nodes, object_view(obj, kind), source, self._templates)
        except TemplateError as exc:
            raise TemplateError(f"template {self.text!r}: {exc}") from None

    def render(self, obj: Mapping[str, Any], kind: str = "", source: str = "") -> list[str]:
        """Output split on `,`, trimmed, trailing dot removed, empty dropped, de-duplicated, sorted."""
        return _names(self.execute(obj, kind, source))

    def pairs(self, obj: Mapping[str, Any], kind: str = "", source: str = "") -> tuple[list[tuple[str, str]],
                                                                                       list[str]]:
        """`host:target` items of an --fqdn-target-template: the pairs, and the items skipped (no `:`, or
        an empty side: a field not yet populated), as external-dns skips them."""
        good: list[tuple[str, str]] = []
        skipped: list[str] = []
        for item in self.render(obj, kind, source):
            host, sep, target = item.partition(":")
            host, target = host.strip(), target.strip()
            if not sep or not host or not target:
                skipped.append(item)
            else:
                good.append((host, target))
        return good, skipped


FQDNTemplate = GoTemplate  # the name the sources and tests import


def join_templates(text: str | Sequence[str] | None) -> str:
    """One template from a flag value: several values (a repeated flag) are joined with `,` as Go does."""
    if text is None:
        return ""
    if isinstance(text, str):
        return text
    return ",".join(t for t in text if t and t.strip())


def parse_template(text: str | Sequence[str] | None) -> GoTemplate | None:
    """None for an empty/blank template, else the parsed template (TemplateError when it does not parse)."""
    joined = join_templates(text)
    if not joined.strip():
        return None
    return GoTemplate(joined)


parse_fqdn_template = parse_template
