"""AWS flags: the Route53 provider (`--aws-*`, `--zone-id-filter`) and the DynamoDB registry
(`--dynamodb-table`, `--dynamodb-region`), names and defaults as external-dns. Validated when
`--provider=aws` / `--registry=dynamodb`. `--aws-assume-role-external-id` is masked in the config log."""

from __future__ import annotations

import argparse

from external_dns.cmd.flags import ConfigError, FlagParser, duration

ZONE_TYPES = ("", "public", "private")


def add_flags(p: FlagParser) -> None:
    p.group("AWS Route53 provider")
    p.add("--zone-id-filter", repeat=True, help="only zones whose id ends with one of these (repeatable)")
    p.add("--aws-zone-type", default="", choices=ZONE_TYPES, help="only public or only private zones")
    p.add("--aws-zone-tags", repeat=True, help="only zones with these tags, key=value or key (repeatable)")
    p.add("--aws-zone-match-parent", type=bool, default=False,
          help="also manage zones that are parents of a --domain-filter")
    p.add("--aws-profile", repeat=True, help="AWS profile(s) to use (repeatable; default: the environment)")
    p.add("--aws-assume-role", default="", help="IAM role ARN to assume")
    p.add("--aws-assume-role-external-id", default="", secret=True, help="external id for --aws-assume-role")
    p.add("--aws-batch-change-size", type=int, default=1000, help="most changes per Route53 request")
    p.add("--aws-batch-change-size-bytes", type=int, default=32000,
          help="most characters of values per Route53 request (UPSERT counts twice)")
    p.add("--aws-batch-change-size-values", type=int, default=1000,
          help="most values per Route53 request (UPSERT counts twice)")
    p.add("--aws-batch-change-interval", type=duration, default=1.0, help="pause between change batches")
    p.add("--aws-evaluate-target-health", type=bool, default=True,
          help="default EvaluateTargetHealth of alias records")
    p.add("--aws-api-retries", type=int, default=3, help="attempts per AWS API call (adaptive retry mode)")
    p.add("--aws-prefer-cname", type=bool, default=False,
          help="never turn CNAMEs to AWS load balancers into alias records automatically")
    p.add("--aws-zones-cache-duration", type=duration, default=0.0,
          help="cache the hosted zone list for this long (0 = off)")

    p.group("DynamoDB registry")
    p.add("--dynamodb-table", default="external-dns", help="DynamoDB table of the dynamodb registry")
    p.add("--dynamodb-region", default="", help="region of the DynamoDB table (default: the environment's)")


def validate(cfg: argparse.Namespace) -> None:
    if getattr(cfg, "provider", "") == "aws":
        for flag in ("aws_batch_change_size", "aws_batch_change_size_bytes", "aws_batch_change_size_values",
                     "aws_api_retries"):
            if getattr(cfg, flag) < 1:
                raise ConfigError(f"--{flag.replace('_', '-')} must be at least 1, got {getattr(cfg, flag)}")
        for flag in ("aws_batch_change_interval", "aws_zones_cache_duration"):
            if getattr(cfg, flag) < 0:
                raise ConfigError(f"--{flag.replace('_', '-')} must not be negative, got {getattr(cfg, flag)}")
        for tag in cfg.aws_zone_tags or []:
            if tag and not tag.partition("=")[0].strip():
                raise ConfigError(f"--aws-zone-tags: invalid tag {tag!r} (use key=value or key)")
    if getattr(cfg, "registry", "") == "dynamodb" and not cfg.dynamodb_table:
        raise ConfigError("--dynamodb-table must not be empty with --registry=dynamodb")
