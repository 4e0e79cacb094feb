"""AWS Route53 provider: `AWSProvider` (provider.py) configured by `AWSConfig` (config.py); hosted zones
(zones.py), record conversion and validation (records.py), change batching (batching.py), alias target
zones (canonical.py), error mapping (errors.py)."""

from external_dns.providers.aws.config import AWSConfig
from external_dns.providers.aws.provider import AWSProvider

__all__ = ["AWSConfig", "AWSProvider"]
