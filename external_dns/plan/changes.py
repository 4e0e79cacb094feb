"""Changes: what a plan asks the registry and provider to do.

`update_old[i]` and `update_new[i]` are pairs. JSON keys follow external-dns (`create`, `updateOld`,
`updateNew`, `delete`, each omitted when empty).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from external_dns.endpoint.endpoint import Endpoint, endpoints_from_json, endpoints_to_json
from external_dns.endpoint.gojson import struct_fields

_JSON_KEYS = (("create", "create"), ("update_old", "updateOld"), ("update_new", "updateNew"), ("delete", "delete"))


@dataclass
class Changes:
    create: list[Endpoint] = field(default_factory=list)
    update_old: list[Endpoint] = field(default_factory=list)
    update_new: list[Endpoint] = field(default_factory=list)
    delete: list[Endpoint] = field(default_factory=list)

    def has_changes(self) -> bool:
        """True when there is something to apply: any create or delete, or an update pair whose new side is
        not deep-equal to its old side (external-dns `HasChanges`)."""
        if self.create or self.delete:
            return True
        return self.update_new != self.update_old

    def is_empty(self) -> bool:
        return not (self.create or self.update_old or self.update_new or self.delete)

    def all_endpoints(self) -> list[Endpoint]:
        return [*self.create, *self.update_old, *self.update_new, *self.delete]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for attr, key in _JSON_KEYS:
            eps: list[Endpoint] = getattr(self, attr)
            if eps:
                out[key] = endpoints_to_json(eps)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Changes:
        if not isinstance(data, Mapping):
            raise ValueError("changes must be a JSON object")
        data = struct_fields(data, [key for _attr, key in _JSON_KEYS])  # "Create" too, as Go's decoder
        kwargs: dict[str, list[Endpoint]] = {}
        for attr, key in _JSON_KEYS:
            raw = data.get(key) or []
            if not isinstance(raw, list):
                raise ValueError(f"changes field '{key}' must be a list")
            kwargs[attr] = endpoints_from_json(raw)
        return cls(**kwargs)
