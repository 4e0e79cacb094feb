"""The canonical hosted zones of AWS load balancers, CloudFront and Global Accelerator (providers/aws/canonical.py),
which an ALIAS record to them names."""

from __future__ import annotations

from external_dns.providers.aws.canonical import CLOUDFRONT_ZONE, canonical_hosted_zone


def test_canonical_zones() -> None:
    assert canonical_hosted_zone("k8s-web-123.us-east-1.elb.amazonaws.com") == "Z35SXDOTRQ7X7K"
    assert canonical_hosted_zone("dualstack.k8s-web-123.us-east-1.elb.amazonaws.com.") == "Z35SXDOTRQ7X7K"
    assert canonical_hosted_zone("nlb-1.elb.eu-west-1.amazonaws.com") == "Z2IFOLAFXWLO4F"
    assert canonical_hosted_zone("d111111abcdef8.cloudfront.net") == CLOUDFRONT_ZONE
    assert canonical_hosted_zone("a1234.awsglobalaccelerator.com") == "Z2BJ6XQ5FK7U4H"
    assert canonical_hosted_zone("www.example.com") == ""
    assert canonical_hosted_zone("bucket.s3.amazonaws.com") == ""
