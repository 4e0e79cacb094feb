"""Re-export: the Kubernetes event recorder moved to `external_dns.events.recorder`."""

from external_dns.events.recorder import *  # noqa: F403
from external_dns.events.recorder import __all__ as __all__
