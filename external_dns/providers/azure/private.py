"""The Azure Private DNS provider (`--provider=azure-private-dns`, external-dns `provider/azure/azure_private_dns.go`)
on azure-mgmt-privatedns: the Azure DNS provider (provider.py) with the Private DNS client and models. Types as
external-dns: A, AAAA, CNAME, MX, TXT (no NS in a private zone)."""

from __future__ import annotations

from typing import Any

from external_dns.providers.apizones import APIZone
from external_dns.providers.azure.provider import AzureProvider, make_client


class AzurePrivateDNSProvider(AzureProvider):
    """Azure Private DNS behind the Provider interface; `client` is a `PrivateDnsManagementClient`."""

    types = ("A", "AAAA", "CNAME", "MX", "TXT")

    def __repr__(self) -> str:
        return f"AzurePrivateDNSProvider(resource_group={self.config.resource_group!r})"

    def _make_client(self) -> Any:
        from azure.mgmt.privatedns import PrivateDnsManagementClient

        return make_client(self.config, PrivateDnsManagementClient)

    def _zone_pages(self) -> Any:
        return self.client.private_zones.list_by_resource_group(self.config.resource_group)

    def _record_pages(self, zone: APIZone, suffix: str | None = None) -> Any:
        return self.client.record_sets.list(self.config.resource_group, zone.id, top=self.config.page_size,
                                            recordsetnamesuffix=suffix)

    def _put_record_set(self, zone: APIZone, relative: str, rtype: str, params: Any, **precondition: str) -> Any:
        from azure.core import MatchConditions

        # This SDK takes azure-core's match conditions rather than raw If-Match / If-None-Match values.
        if "if_match" in precondition:
            condition = {"etag": precondition["if_match"], "match_condition": MatchConditions.IfNotModified}
        else:
            condition = {"match_condition": MatchConditions.IfMissing}
        return self.client.record_sets.create_or_update(self.config.resource_group, zone.id, rtype, relative, params,
                                                        **condition)

    def _delete_record_set(self, zone: APIZone, relative: str, rtype: str, etag: str) -> Any:
        from azure.core import MatchConditions

        return self.client.record_sets.delete(self.config.resource_group, zone.id, rtype, relative, etag=etag,
                                              match_condition=MatchConditions.IfNotModified)

    @staticmethod
    def _props(rs: Any) -> Any:
        return rs.properties

    def _new_record_set(self, **kw: Any) -> Any:
        models = self._models()
        return models.RecordSet(properties=models.RecordSetProperties(**kw))

    def _models(self) -> Any:
        from azure.mgmt.privatedns import models

        return models



