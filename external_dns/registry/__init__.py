"""Ownership registries: the `Registry` interface, the TXT registry, the noop registry and the TXT name
mapper. (The DynamoDB registry lives in `registry/dynamodb*.py`, imported on demand.)"""

from external_dns.registry.mapper import AffixNameMapper
from external_dns.registry.noop import NoopRegistry
from external_dns.registry.registry import Registry
from external_dns.registry.txt import TXTRegistry

__all__ = ["AffixNameMapper", "NoopRegistry", "Registry", "TXTRegistry"]
