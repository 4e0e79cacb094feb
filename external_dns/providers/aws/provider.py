"""The AWS Route53 provider (external-dns `provider/aws`).

- `zones()` / `get_domain_filter()`: the filtered hosted zones (zones.py); the domain filter is built from
  them, so names outside every zone are never planned.
- `records()`: every record set of every zone, `MaxItems=300` pages, bounded pagination that also survives
  servers repeating a page (record sets are de-duplicated by name, type and set identifier).
- `adjust_endpoints()`: makes desired endpoints look like what `records()` returns (alias TTL 300,
  `aws/evaluate-target-health` normalised, CNAME to an AWS load balancer / CloudFront -> A + AAAA alias
  unless `--aws-prefer-cname`, names lower case, TXT values quoted), so a re-sync plans nothing.
- `apply_changes()`: changes are split per zone (every matching private zone + the longest public one),
  validated by us (records.py; one invalid record drops only its ownership group), packed into batches
  (batching.py), sent with `--aws-batch-change-interval` between batches; a failed batch is retried group
  by group so one bad record does not block the rest. Anything left unapplied ends in a SoftError naming
  the zones, so the controller retries next loop. `dry_run` logs `Desired change: ...` and writes nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import botocore.exceptions
import structlog

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import (
    PROVIDER_SPECIFIC_ALIAS,
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_TXT,
    Endpoint,
)
from external_dns.endpoint.names import name_key
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.aws import errors
from external_dns.providers.aws.batching import Limits, Route53Change, batch_changes, group_changes
from external_dns.providers.aws.canonical import canonical_hosted_zone
from external_dns.providers.aws.config import AWSConfig, route53_clients
from external_dns.providers.aws.pinning import ZonePins
from external_dns.providers.aws.records import (
    ALIAS_TTL,
    DEFAULT_TTL,
    EVALUATE_TARGET_HEALTH,
    GEOPROX_BIAS,
    InvalidRecordError,
    endpoint_from_rrset,
    is_alias_endpoint,
    quote_txt,
    routing_policy,
    rrset_for,
)
from external_dns.providers.aws.zones import HostedZone, ZoneLister, suitable_zones
from external_dns.providers.provider import Provider, ProviderError, SoftError

log = structlog.get_logger(__name__)

RECORDS_PAGE_SIZE = 300
_MAX_PAGES = 1_000_000


def _needs_replace(old: Endpoint, new: Endpoint) -> bool:
    """An update Route53 cannot UPSERT: DELETE old + CREATE new."""
    return (
        old.record_type != new.record_type
        or is_alias_endpoint(old) != is_alias_endpoint(new)
        or old.set_identifier != new.set_identifier
        or routing_policy(old) != routing_policy(new)
    )


class AWSProvider(Provider):
    """Route53 behind the Provider interface. `clients` maps profile -> boto3 Route53 client (built from the
    configuration and the AWS environment when not given); `page_size` is ListResourceRecordSets' MaxItems
    (300, the Route53 maximum)."""

    def record_default_ttl(self, zone: str) -> int:
        return DEFAULT_TTL  # Route53 records written without a TTL get 300, as external-dns

    def __init__(self, config: AWSConfig, clients: Mapping[str, Any] | None = None,
                 page_size: int = RECORDS_PAGE_SIZE) -> None:
        self.config = config
        self.page_size = page_size
        self.clients: Mapping[str, Any] = clients if clients is not None else route53_clients(config)
        self.zone_lister = ZoneLister(config, self.clients)
        self.limits = Limits(config.batch_change_size, config.batch_change_size_bytes,
                             config.batch_change_size_values)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        # (name, type) pairs seen per zone id in the last records() listing, for the CNAME conflict check.
        self._existing: dict[str, set[tuple[str, str]]] = {}
        # aws/hosted-zone-id pins taken from the desired records by adjust_endpoints (pinning.py).
        self.pins = ZonePins()

    def __repr__(self) -> str:
        return f"AWSProvider(profiles={list(self.clients)}, zone_type={self.config.zone_type!r})"

    def close(self) -> None:
        """Interrupt a pending `--aws-batch-change-interval` wait."""
        self._stop.set()

    # -- zones ----------------------------------------------------------------------------------------------
    def hosted_zones(self) -> list[HostedZone]:
        return self.zone_lister.zones()

    def zones(self) -> Sequence[str]:
        names: list[str] = []
        for zone in self.hosted_zones():
            if zone.name not in names:
                names.append(zone.name)
        return tuple(names)

    def get_domain_filter(self) -> DomainFilter:
        try:
            zones = self.hosted_zones()
        except ProviderError as exc:
            log.error(f"failed to list zones: {exc}")
            return DomainFilter()
        names: list[str] = []
        for zone in zones:
            for name in (zone.name + ".", "." + zone.name + "."):
                if name not in names:
                    names.append(name)
        log.debug(f"Applying provider record filter for domains: {names}")
        if not names:
            # No zone at all: nothing may be planned (an empty include list would match everything).
            return DomainFilter(regex=r"[^\s\S]")  # matches nothing (RE2 has no lookahead)
        return DomainFilter(include=names)

    def _client(self, zone: HostedZone) -> Any:
        return self.clients[zone.profile]

    # -- reading --------------------------------------------------------------------------------------------
    def records(self) -> list[Endpoint]:
        endpoints: list[Endpoint] = []
        existing: dict[str, set[tuple[str, str]]] = {}
        for zone in self.hosted_zones():
            zone_eps = self._zone_records(zone)
            existing[zone.id] = {(ep.dns_name.lower(), ep.record_type) for ep in zone_eps}
            endpoints.extend(zone_eps)
        with self._lock:
            self._existing = existing
        return endpoints

    def _zone_records(self, zone: HostedZone) -> list[Endpoint]:
        client = self._client(zone)
        kwargs: dict[str, Any] = {"HostedZoneId": zone.id, "MaxItems": str(self.page_size)}
        seen_rrsets: set[tuple[str, str, str]] = set()
        seen_starts: set[tuple[str, str, str]] = set()
        out: list[Endpoint] = []
        try:
            for _ in range(_MAX_PAGES):
                page = client.list_resource_record_sets(**kwargs)
                for rrset in page.get("ResourceRecordSets", []):
                    key = (rrset["Name"], rrset["Type"], rrset.get("SetIdentifier", ""))
                    if key in seen_rrsets:
                        continue
                    seen_rrsets.add(key)
                    ep = endpoint_from_rrset(rrset)
                    if ep is not None:
                        out.append(ep)
                if not page.get("IsTruncated"):
                    break
                start = (page.get("NextRecordName", ""), page.get("NextRecordType", ""),
                         page.get("NextRecordIdentifier", ""))
                if not start[0] or start in seen_starts:
                    raise SoftError(f"listing records of zone {zone.name} ({zone.id}): the server repeated "
                                    f"page start {start}; stopping instead of looping")
                seen_starts.add(start)
                kwargs["StartRecordName"], kwargs["StartRecordType"] = start[0], start[1]
                if start[2]:
                    kwargs["StartRecordIdentifier"] = start[2]
                else:
                    kwargs.pop("StartRecordIdentifier", None)
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as exc:
            raise errors.wrap(f"failed to list records of zone {zone.name} ({zone.id})", exc) from None
        return out

    # -- adjusting ------------------------------------------------------------------------------------------
    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        out: list[Endpoint] = []
        endpoints = self.pins.take(endpoints)
        for original in endpoints:
            ep = original.copy()
            ep.dns_name = name_key(ep.dns_name)
            if ep.record_type == RECORD_TYPE_CNAME:
                out.extend(self._adjust_cname(ep))
                continue
            if ep.record_type in (RECORD_TYPE_A, RECORD_TYPE_AAAA):
                alias = ep.get_alias_property()
                if alias is True or alias == ep.record_type:
                    self._make_alias(ep)
                else:
                    ep.delete_provider_specific_property(PROVIDER_SPECIFIC_ALIAS)
                    ep.delete_provider_specific_property(EVALUATE_TARGET_HEALTH)
            elif ep.record_type == RECORD_TYPE_TXT:
                ep.targets = Targets([quote_txt(t) for t in ep.targets])
            self._adjust_routing(ep)
            out.append(ep)
        return out

    def _make_alias(self, ep: Endpoint) -> None:
        ep.set_provider_specific_property(PROVIDER_SPECIFIC_ALIAS, "true")
        if ep.record_ttl > 0:
            ep.record_ttl = ALIAS_TTL
        value, ok = ep.get_bool_provider_specific_property(EVALUATE_TARGET_HEALTH)
        eth = value if ok else self.config.evaluate_target_health
        ep.set_provider_specific_property(EVALUATE_TARGET_HEALTH, "true" if eth else "false")
        ep.targets = Targets([name_key(t) for t in ep.targets])

    def _adjust_cname(self, ep: Endpoint) -> list[Endpoint]:
        alias = ep.get_alias_property()
        if alias is None:
            auto = (not self.config.prefer_cname and bool(ep.targets)
                    and canonical_hosted_zone(ep.targets[0]) != "")
            alias = auto
        if alias is False:
            ep.set_provider_specific_property(PROVIDER_SPECIFIC_ALIAS, "false")
            ep.delete_provider_specific_property(EVALUATE_TARGET_HEALTH)
            ep.targets = Targets([t.rstrip(".") for t in ep.targets])
            self._adjust_routing(ep)
            return [ep]
        types = [alias] if isinstance(alias, str) else [RECORD_TYPE_A, RECORD_TYPE_AAAA]
        out: list[Endpoint] = []
        for rtype in types:
            copy = ep.copy()
            copy.record_type = rtype
            self._make_alias(copy)
            self._adjust_routing(copy)
            out.append(copy)
        return out

    @staticmethod
    def _adjust_routing(ep: Endpoint) -> None:
        if routing_policy(ep) == "geoproximity" and ep.get_provider_specific_property(GEOPROX_BIAS) is None:
            ep.set_provider_specific_property(GEOPROX_BIAS, "0")

    # -- writing --------------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        zones = self.hosted_zones()
        per_zone: dict[str, list[Route53Change]] = {}
        bad_groups: dict[str, dict[str, str]] = {}  # zone id -> group -> reason
        by_id = {z.id: z for z in zones}

        def add(action: str, ep: Endpoint) -> None:
            targets = self.pins.restrict(ep, suitable_zones(ep.dns_name, zones))
            if not targets:
                log.debug("Skipping record: no hosted zone holds it", dns_name=ep.dns_name)
            for zone in targets:
                try:
                    rrset = rrset_for(ep, zone.id)
                except InvalidRecordError as exc:
                    change = Route53Change(action, {"Name": ep.dns_name, "Type": ep.record_type}, ep)
                    bad_groups.setdefault(zone.id, {})[change.group] = str(exc)
                    continue
                per_zone.setdefault(zone.id, []).append(Route53Change(action, rrset, ep))

        for ep in changes.create:
            add("CREATE", ep)
        for old, new in zip(changes.update_old, changes.update_new, strict=False):
            if _needs_replace(old, new):
                add("DELETE", old)
                add("CREATE", new)
            else:
                add("UPSERT", new)
        for ep in changes.delete:
            add("DELETE", ep)

        with self._lock:
            existing = {k: set(v) for k, v in self._existing.items()}
        taken: dict[str, set[str]] = {}  # zone id -> groups refused: a create over a record set someone else wrote
        for zone_id, zone_changes in per_zone.items():
            for group, reason in _cname_conflicts(zone_changes, existing.get(zone_id, set())).items():
                bad_groups.setdefault(zone_id, {}).setdefault(group, reason)
            taken[zone_id] = _taken(zone_changes, existing.get(zone_id, set()), by_id[zone_id].name)

        failed: list[str] = []
        for zone_id in sorted(set(per_zone) | set(bad_groups), key=lambda z: by_id[z].name):
            zone = by_id[zone_id]
            bad = bad_groups.get(zone_id, {})
            for group, reason in sorted(bad.items()):
                log.error(f"Invalid change in zone {zone.name}, not submitted: {reason}", zone=zone.name,
                          group=group)
            todo = [c for c in per_zone.get(zone_id, []) if c.group not in bad and c.group not in taken.get(zone_id, ())]
            ok = self._submit_zone(zone, todo)
            if bad:
                failed.append(f"{zone.name} (invalid: {'; '.join(bad[g] for g in sorted(bad))})")
            elif not ok:
                failed.append(zone.name)
        if failed:
            raise SoftError(f"failed to submit all changes for the following zones: {failed}")

    def _submit_zone(self, zone: HostedZone, changes: list[Route53Change]) -> bool:
        """Send one zone's changes; True when all went through."""
        if not changes:
            return True
        zlog = log.bind(zone=zone.name, zone_id=zone.id)
        batches, dropped = batch_changes(changes, self.limits)
        all_ok = not dropped
        for d in dropped:
            zlog.warning(f"Dropping change group {d.group}: it exceeds a Route53 request limit on its own "
                         f"({d.reason})", changes=[c.describe() for c in d.changes])
        if self.config.dry_run:
            for batch in batches:
                for change in batch:
                    zlog.info(f"Desired change: {change.describe()}", dry_run=True)
            return all_ok
        for index, batch in enumerate(batches):
            if index > 0 and self.config.batch_change_interval > 0 and self._stop.wait(
                    self.config.batch_change_interval):
                zlog.warning("Stopped before all change batches were sent")
                return False
            for change in batch:
                zlog.debug(f"Desired change: {change.describe()}")
            try:
                self._send(zone, batch)
            except ProviderError as exc:
                zlog.error(f"Failure in zone {zone.name} when submitting change batch: {exc}")
                if not self._send_groups(zone, batch, zlog):
                    all_ok = False
                continue
            zlog.info(f"{len(batch)} record(s) were successfully updated")
        return all_ok

    def _send_groups(self, zone: HostedZone, batch: list[Route53Change], zlog: Any) -> bool:
        ok = True
        for group in group_changes(batch):
            try:
                self._send(zone, group)
            except ProviderError as exc:
                ok = False
                zlog.error(f"Failed submitting change (error: {exc}), it will be retried in a separate change "
                           "batch in the next iteration", changes=[c.describe() for c in group])
            else:
                zlog.info(f"{len(group)} record(s) were successfully updated")
        return ok

    def _send(self, zone: HostedZone, batch: list[Route53Change]) -> None:
        try:
            self._client(zone).change_resource_record_sets(
                HostedZoneId=zone.id, ChangeBatch={"Changes": [c.to_api() for c in batch]})
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as exc:
            raise errors.wrap(f"zone {zone.name}", exc) from None


def _taken(changes: list[Route53Change], existing: set[tuple[str, str]], zone: str) -> set[str]:
    """Groups with a CREATE of a record set (without a set identifier) that the zone as last read already
    holds and the batch does not delete: written by someone else (the plan never creates what it read as ours).
    Route53 refuses such a CREATE (moto replaces the record set); refused here with a warning, with the group's
    other changes (its ownership TXT), and the rest of the zone goes on (issue 27: never joined or replaced)."""
    deleted = {(c.rrset["Name"], c.rrset["Type"]) for c in changes if c.action == "DELETE"}
    out: set[str] = set()
    for c in changes:
        key = (c.rrset["Name"], c.rrset["Type"])
        if c.action == "CREATE" and "SetIdentifier" not in c.rrset and key in existing and key not in deleted:
            if c.group not in out:
                log.warning(f"Not creating {key[0]} {key[1]} in zone {zone}: a record set of that name and type "
                            "exists that this owner did not write; left as it is (with the changes at that name "
                            "and its ownership record)", zone=zone, group=c.group)
            out.add(c.group)
    return out


def _cname_conflicts(changes: list[Route53Change], existing: set[tuple[str, str]]) -> dict[str, str]:
    """Groups that would put a CNAME next to other data at the same name (Route53 refuses it; moto does
    not): group -> reason."""
    types: dict[str, set[str]] = {}
    for name, rtype in existing:
        types.setdefault(name, set()).add(rtype)
    for c in changes:
        name, rtype = c.rrset["Name"], c.rrset["Type"]
        if c.action == "DELETE":
            types.get(name, set()).discard(rtype)
    for c in changes:
        if c.action != "DELETE":
            types.setdefault(c.rrset["Name"], set()).add(c.rrset["Type"])
    out: dict[str, str] = {}
    for c in changes:
        name = c.rrset["Name"]
        present = types.get(name, set())
        if c.action != "DELETE" and RECORD_TYPE_CNAME in present and len(present) > 1:
            out[c.group] = (f"record {name} {c.rrset['Type']}: a CNAME cannot coexist with other records at the "
                            f"same name (types {sorted(present)})")
    return out
