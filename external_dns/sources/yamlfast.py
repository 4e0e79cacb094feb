"""A faster safe YAML loader with PyYAML's safe semantics.

`FastSafeLoader` is PyYAML's `CSafeLoader` (libyaml parses and composes; the pure-Python `SafeLoader` when
PyYAML was built without libyaml) with a leaner construction step: plain strings, maps and sequences - nearly
all of a Kubernetes manifest - are built directly from the composed nodes, everything else (integers,
booleans, nulls, floats, timestamps, binary, `<<` merge keys, explicit tags, unhashable keys) goes through
the safe constructor as before, so the result and the errors are the same. An aliased map or sequence is
built once and shared, as the safe constructor does (aliases never expand into copies).
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_BASE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"


class FastSafeLoader(_BASE):  # type: ignore[misc]
    """`yaml.load_all(text, Loader=FastSafeLoader)`: the same documents as with `CSafeLoader`."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        # implicit resolvers by first character, the wildcard ones appended (as `resolve` tries them)
        table = self.yaml_implicit_resolvers
        wildcard = list(table.get(None, []))
        self._implicit = {k: [*v, *wildcard] for k, v in table.items() if k is not None}
        self._wildcard = wildcard

    if not getattr(_BASE, "yaml_path_resolvers", None):
        # Without path resolvers the composer's per-node resolver bookkeeping does nothing: the composer
        # (libyaml's, in C) calls these for every node, so cheap builtins stand in for the no-op methods.
        descend_resolver = slice
        ascend_resolver = tuple

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            """BaseResolver.resolve without path resolvers: the implicit resolvers of the value's first
            character (then the wildcard ones), else the default tag of the kind."""
            if kind is ScalarNode:
                if implicit[0]:
                    for tag, regexp in self._implicit.get(value[:1], self._wildcard):
                        if regexp.match(value):
                            return str(tag)
                return _STR
            if kind is SequenceNode:
                return _SEQ
            if kind is MappingNode:
                return _MAP
            return str(super().resolve(kind, value, implicit))

    def construct_document(self, node: Node) -> Any:
        data = self._build(node)
        # what the base class does after building: finish deferred objects, forget the document's nodes
        me: Any = self
        while me.state_generators:
            generators, me.state_generators = me.state_generators, []
            for generator in generators:
                for _dummy in generator:
                    pass
        me.constructed_objects = {}
        me.recursive_objects = {}
        me.deep_construct = False
        return data

    def _build(self, node: Node) -> Any:
        cls = type(node)
        if cls is ScalarNode:
            return node.value if node.tag == _STR else self.construct_object(node, deep=True)
        memo = self.constructed_objects
        if node in memo:
            return memo[node]
        if cls is MappingNode and node.tag == _MAP and not any(k.tag == _MERGE for k, _v in node.value):
            mapping: dict[Any, Any] = {}
            memo[node] = mapping  # before the values: a recursive alias gets this same object
            for key_node, value_node in node.value:
                key = self._build(key_node)
                try:
                    hash(key)
                except TypeError:
                    raise ConstructorError("while constructing a mapping", node.start_mark,
                                           "found unhashable key", key_node.start_mark) from None
                mapping[key] = self._build(value_node)
            return mapping
        if cls is SequenceNode and node.tag == _SEQ:
            seq: list[Any] = []
            memo[node] = seq
            seq.extend(self._build(child) for child in node.value)
            return seq
        return self.construct_object(node, deep=True)
