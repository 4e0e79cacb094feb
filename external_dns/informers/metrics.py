"""Prometheus metrics of the informers (label `informer`: resource name plus namespace and selectors).

`external_dns_informer_lists_total`, `..._watches_total`, `..._watch_restarts_total{reason}`,
`..._relists_410_total`, `..._last_resync_timestamp_seconds`, `..._store_size`, `..._backoffs_total`.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge

_P = "external_dns_informer_"

LISTS = Counter(_P + "lists", "LIST requests made by informer reflectors (pages included).", ["informer"])
WATCHES = Counter(_P + "watches", "WATCH requests opened by informer reflectors.", ["informer"])
WATCH_RESTARTS = Counter(_P + "watch_restarts", "Watches that ended and were re-opened, by reason.",
                         ["informer", "reason"])
RELISTS_410 = Counter(_P + "relists_410", "Relists caused by 410 Gone/Expired.", ["informer"])
BACKOFFS = Counter(_P + "backoffs", "Backoff steps taken after failed list or watch requests.", ["informer"])
LAST_RESYNC = Gauge(_P + "last_resync_timestamp_seconds",
                    "Unix time of the last full list (initial or relist) or periodic handler resync.", ["informer"])
STORE_SIZE = Gauge(_P + "store_size", "Objects in the informer's cache.", ["informer"])
