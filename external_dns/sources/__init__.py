"""sources/: where desired endpoints come from.

Owns the Source interface (source.py), annotation parsing, label selectors, the FQDN template engine, the
object -> endpoints logic for Services, Ingresses and DNSEndpoints (objects/), the manifest source and the
source wrappers (multi/dedup, target filter, post-processor). Import submodules directly; this package
imports nothing on its own so that `cmd` can load only what a configuration uses.
"""
