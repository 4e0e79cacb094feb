"""`gc_paused()`: the cyclic garbage collector paused while a large LIST body is parsed.

`json.loads` of a big list allocates hundreds of thousands of acyclic containers; every few hundred of them
trigger a collection that walks the whole (possibly large) heap, which made a 10k-Service parse 3-4x
slower in a process that already caches objects. Pausing is process-wide and counted across threads:
the one implementation is external_dns.gcsettings.gc_paused, which the RFC2136 zone reads share.
"""

from __future__ import annotations

from external_dns.gcsettings import gc_paused

__all__ = ["gc_paused"]
