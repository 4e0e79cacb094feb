"""Route53 on moto: a create over a record set someone else wrote (a hand-made TXT at our ownership TXT's name)
is refused with a warning, with its group; the rest of the zone is written (issue 27's rule: never joined or
replaced; moto's CREATE replaced the hand-made record set, Route53's refuses the whole batch)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from external_dns.providers.aws import AWSProvider
from tests.helpers.endpoints import ep
from tests.helpers.sync import sync
from tests.providers.aws.conftest import by_name_type, create_zone

pytestmark = pytest.mark.integration


def test_a_hand_made_txt_at_our_ownership_name_is_left_alone(r53: Any, make_provider: Callable[..., AWSProvider]
                                                             ) -> None:
    zone_id = create_zone(r53, "example.org")
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{
        "Action": "CREATE", "ResourceRecordSet": {"Name": "a-www.example.org.", "Type": "TXT", "TTL": 600,
                                                  "ResourceRecords": [{"Value": '"v=hand-made"'}]}}]})
    logs = sync(make_provider(), [ep("www.example.org", "A", "192.0.2.1"), ep("ok.example.org", "A", "192.0.2.2")])
    held = by_name_type(r53, zone_id)
    assert held[("a-www.example.org", "TXT", "")]["ResourceRecords"] == [{"Value": '"v=hand-made"'}]
    assert held[("a-www.example.org", "TXT", "")]["TTL"] == 600
    assert ("www.example.org", "A", "") not in held
    assert ("ok.example.org", "A", "") in held and ("a-ok.example.org", "TXT", "") in held
    assert any(str(line["event"]).startswith("Not creating a-www.example.org TXT") for line in logs)
