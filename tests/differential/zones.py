"""The DNS side of the differential tests: a zone's records as a comparable set, read by AXFR from BIND, seeded
with the records a scenario starts from, and the difference of two zones written out for a failure message.

Ownership TXT records are compared like every other record, value included. Encrypted ones carry a random
nonce, so `Record.comparable` compares their decrypted plaintext (the labels) instead: the same labels
encrypted twice are the same ownership.
"""

from __future__ import annotations

import base64
import gzip
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import dns.rdatatype
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from tests.servers.bind import BindServer

NONCE_SIZE = 12


@dataclass(frozen=True, order=True)
class Record:
    """One resource record: absolute name without the final dot, type, TTL and rdata text."""

    name: str
    rtype: str
    ttl: int
    rdata: str

    def __str__(self) -> str:
        return f"{self.name} {self.ttl} {self.rtype} {self.rdata}"


def decrypt_txt(rdata: str, key: bytes) -> str | None:
    """The plaintext of an encrypted ownership TXT value (external-dns's format: base64 of nonce, AES-256-GCM
    ciphertext of the gzipped labels and tag), or None when it is not one."""
    value = rdata.strip('"')
    try:
        raw = base64.b64decode(value, validate=True)
        if len(raw) <= NONCE_SIZE:
            return None
        return gzip.decompress(AESGCM(key).decrypt(raw[:NONCE_SIZE], raw[NONCE_SIZE:], None)).decode()
    except Exception:  # not base64, not ours, not gzip: an ordinary TXT value
        return None


def comparable(records: Iterable[Record], aes_key: bytes | None = None) -> list[Record]:
    """Sorted records; with `aes_key`, encrypted TXT values replaced by `decrypted:<plaintext>`."""
    out = []
    for r in records:
        if aes_key is not None and r.rtype == "TXT":
            plain = decrypt_txt(r.rdata, aes_key)
            if plain is not None:
                r = Record(r.name, r.rtype, r.ttl, f"decrypted:{plain}")
        out.append(r)
    return sorted(out)


def snapshot(bind: BindServer, zones: Sequence[str] | None = None) -> list[Record]:
    """Every record of the zones (all of the server's by default) but the apex SOA and NS and the name
    server's own address, which every zone starts with."""
    out: list[Record] = []
    for zone in zones or bind.zones:
        for name, rtype, ttl, values in bind.axfr(zone):
            if (name == zone and rtype in ("SOA", "NS")) or (name == f"ns1.{zone}" and rtype == "A"):
                continue
            out.extend(Record(name, rtype, ttl, v) for v in values)
    return sorted(out)


def serials(bind: BindServer) -> dict[str, int]:
    """Each zone's SOA serial: a run that sent no UPDATE leaves them all as they were."""
    out = {}
    for zone in bind.zones:
        for name, rtype, _ttl, values in bind.axfr(zone):
            if name == zone and rtype == "SOA":
                out[zone] = int(values[0].split()[2])
    return out


def seed(bind: BindServer, records: Iterable[Record]) -> None:
    """Add `records` to the server's zones (one UPDATE per zone), as a person or another tool wrote them."""
    by_zone: dict[str, list[Record]] = {}
    for r in records:
        by_zone.setdefault(bind.zone_of(r.name), []).append(r)
    for zone, recs in by_zone.items():
        upd = bind.update(zone)
        for r in recs:
            upd.add(r.name + ".", r.ttl, dns.rdatatype.from_text(r.rtype), r.rdata)
        bind.send(upd)


def diff(left_name: str, left: Sequence[Record], right_name: str, right: Sequence[Record]) -> str:
    """Records only in one of the two zones, one per line ('' when the zones are the same)."""
    only_left = sorted(set(left) - set(right))
    only_right = sorted(set(right) - set(left))
    lines = [f"only {left_name}: {r}" for r in only_left] + [f"only {right_name}: {r}" for r in only_right]
    return "\n".join(lines)
