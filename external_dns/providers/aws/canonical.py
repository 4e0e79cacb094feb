"""The canonical hosted zones of AWS load balancers, CloudFront, Global Accelerator and API endpoints: which
Route53 hosted zone an alias record must name for a given target host (external-dns
`canonicalHostedZone`). `canonical_hosted_zone(host)` returns "" for hosts that cannot be alias targets.
"""

from __future__ import annotations

import structlog

from external_dns.endpoint.names import name_key

log = structlog.get_logger(__name__)

# Classic and application load balancers: `<name>-<id>.<region>.elb.amazonaws.com`.
_ELB_ZONES = {
    "us-east-1": "Z35SXDOTRQ7X7K",
    "us-east-2": "Z3AADJGX6KTTL2",
    "us-west-1": "Z368ELLRRE2KJ0",
    "us-west-2": "Z1H1FL5HABSF5",
    "ca-central-1": "ZQSVJUPU6J1EY",
    "ap-east-1": "Z3DQVH9N71FHZ0",
    "ap-south-1": "ZP97RAFLXTNZK",
    "ap-northeast-1": "Z14GRHDCWA56QT",
    "ap-northeast-2": "ZWKZPGTI48KDX",
    "ap-northeast-3": "Z5LXEXXYW11ES",
    "ap-southeast-1": "Z1LMS91P8CMLE5",
    "ap-southeast-2": "Z1GM3OXH4ZPM65",
    "eu-central-1": "Z215JYRZR1TBD5",
    "eu-west-1": "Z32O12XQLNTSW2",
    "eu-west-2": "ZHURV8PSTC4K8",
    "eu-west-3": "Z3Q77PNBQS71R4",
    "eu-north-1": "Z23TAZ7KTK3JBO",
    "eu-south-1": "Z3ULH7SSC9OV64",
    "sa-east-1": "Z2P70J7HTTTPLU",
    "me-south-1": "ZS929ML54UICD",
    "af-south-1": "Z268VQBMOI5EKX",
    "cn-north-1": "Z1GDH35T77C1KE",
    "cn-northwest-1": "ZM7IZAIOVVDZF",
    "us-gov-west-1": "Z33AYJ8TM3BH4J",
    "us-gov-east-1": "Z166TLBEWOO7G0",
}

# Network load balancers: `<name>-<id>.elb.<region>.amazonaws.com`.
_NLB_ZONES = {
    "us-east-1": "Z26RNL4JYFTOTI",
    "us-east-2": "ZLMOA37VPKANP",
    "us-west-1": "Z24FKFUX50B4VW",
    "us-west-2": "Z18D5FSROUN65G",
    "ca-central-1": "Z2EPGBW3API2WT",
    "ap-east-1": "Z12Y7K3UBGUAD1",
    "ap-south-1": "ZVDDRBQ08TROA",
    "ap-northeast-1": "Z31USIVHYNEOWT",
    "ap-northeast-2": "ZIBE1TIR4HY56",
    "ap-northeast-3": "Z1GWIQ4HH19I5X",
    "ap-southeast-1": "ZKVM4W9LS7TM",
    "ap-southeast-2": "ZCT6FZBF4DROD",
    "eu-central-1": "Z3F0SRJ5LGBH90",
    "eu-west-1": "Z2IFOLAFXWLO4F",
    "eu-west-2": "ZD4D7Y8KGAS4G",
    "eu-west-3": "Z1CMS0P5QUZ6D5",
    "eu-north-1": "Z1UDT6IFJ4EJM",
    "eu-south-1": "Z23146JA1KNAFP",
    "sa-east-1": "ZTK26PT1VY4CU",
    "me-south-1": "Z3QSRYVP46NYYV",
    "af-south-1": "Z203XCE67M25HM",
    "cn-north-1": "Z3QFB96KMJ7ED6",
    "cn-northwest-1": "ZQEIKTCZ8352D",
    "us-gov-west-1": "ZMG1MZ2THAWF1",
    "us-gov-east-1": "Z1ZSMQQ6Q24QQ8",
}

CLOUDFRONT_ZONE = "Z2FDTNDATAQYW2"
GLOBAL_ACCELERATOR_ZONE = "Z2BJ6XQ5FK7U4H"


def _build_table() -> dict[str, str]:
    table: dict[str, str] = {
        "cloudfront.net": CLOUDFRONT_ZONE,
        "awsglobalaccelerator.com": GLOBAL_ACCELERATOR_ZONE,
    }
    for region, zone in _ELB_ZONES.items():
        suffix = "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"
        table[f"{region}.elb.{suffix}"] = zone
    for region, zone in _NLB_ZONES.items():
        suffix = "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"
        table[f"elb.{region}.{suffix}"] = zone
    return table


CANONICAL_ZONES: dict[str, str] = _build_table()
# Longest suffix first, so `elb.us-east-1.amazonaws.com` wins over shorter entries.
_SUFFIXES = sorted(CANONICAL_ZONES, key=len, reverse=True)
_CANDIDATE_ENDINGS = ("amazonaws.com", "amazonaws.com.cn", "cloudfront.net", "awsglobalaccelerator.com")


def canonical_hosted_zone(host: str) -> str:
    """The hosted zone id an alias to `host` must carry, or "" when `host` is not a known AWS alias target."""
    name = name_key(host)
    if not name.endswith(_CANDIDATE_ENDINGS):
        return ""
    for suffix in _SUFFIXES:
        if name == suffix or name.endswith("." + suffix):
            return CANONICAL_ZONES[suffix]
    if name.endswith(("amazonaws.com", "amazonaws.com.cn")):
        log.warning(f"Could not find canonical hosted zone for domain {host}. "
                    "This may be because your region is not supported yet.", host=host)
    return ""
