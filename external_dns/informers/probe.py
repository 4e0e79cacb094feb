"""The CLI probe's handler: one JSON object per line on a stream, flushed per line.

`{"event": "add"|"update"|"delete", "key": "ns/name", "resourceVersion": "<the object's>"}` per event,
then `{"event": "synced", "count": N}` once the handler has received every initial add.
"""

from __future__ import annotations

import json
import threading
from typing import TextIO

from external_dns.informers.handlers import DeleteArg
from external_dns.informers.keys import Obj, deletion_handling_key, resource_version


class JsonLinesHandler:
    def __init__(self, out: TextIO, on_broken_pipe: threading.Event | None = None) -> None:
        self.out = out
        self.broken = on_broken_pipe or threading.Event()
        self._lock = threading.Lock()
        self.adds_before_sync = 0
        self.synced = False

    def _emit(self, record: dict[str, object]) -> None:
        line = json.dumps(record, separators=(", ", ": ")) + "\n"
        with self._lock:
            try:
                self.out.write(line)
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.broken.set()

    def on_add(self, obj: Obj) -> None:
        if not self.synced:
            self.adds_before_sync += 1
        self._emit({"event": "add", "key": deletion_handling_key(obj), "resourceVersion": resource_version(obj)})

    def on_update(self, old: Obj, new: Obj) -> None:
        if resource_version(old) == resource_version(new):
            return  # periodic resync: nothing changed
        self._emit({"event": "update", "key": deletion_handling_key(new), "resourceVersion": resource_version(new)})

    def on_delete(self, obj: DeleteArg) -> None:
        self._emit({"event": "delete", "key": deletion_handling_key(obj), "resourceVersion": resource_version(obj)})

    def on_synced(self) -> None:
        self.synced = True
        self._emit({"event": "synced", "count": self.adds_before_sync})
