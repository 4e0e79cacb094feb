"""AWS flags: the Route53 provider (`--aws-*`, `--zone-id-filter`) and the DynamoDB registry
(`--dynamodb-table`, `--dynamodb-region`), names and defaults as external-dns. Validated when
`--provider=aws` / `--registry=dynamodb`. `--aws-assume-role-external-id` is masked in the config log."""

from __future__ import annotations

from typing import TYPE_CHECKING

from external_dns.cmd.flags import ConfigError, FlagGroup, FlagParser, duration, flag, flag_group
from external_dns.durations import format_go_duration as go

if TYPE_CHECKING:
    from external_dns.cmd.config import Config

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


@flag_group
class AWSFlags(FlagGroup):
    """The Route53 provider's flags."""

    zone_id_filter: tuple[str, ...] = flag("--zone-id-filter")
    zone_type: str = flag("--aws-zone-type")
    zone_tags: tuple[str, ...] = flag("--aws-zone-tags")
    zone_match_parent: bool = flag("--aws-zone-match-parent")
    profiles: tuple[str, ...] = flag("--aws-profile")
    assume_role: str = flag("--aws-assume-role")
    assume_role_external_id: str = flag("--aws-assume-role-external-id", secret=True)
    batch_change_size: int = flag("--aws-batch-change-size")
    batch_change_size_bytes: int = flag("--aws-batch-change-size-bytes")
    batch_change_size_values: int = flag("--aws-batch-change-size-values")
    batch_change_interval: float = flag("--aws-batch-change-interval")
    evaluate_target_health: bool = flag("--aws-evaluate-target-health")
    api_retries: int = flag("--aws-api-retries")
    prefer_cname: bool = flag("--aws-prefer-cname")
    zones_cache_duration: float = flag("--aws-zones-cache-duration")


@flag_group
class DynamoDBFlags(FlagGroup):
    """The DynamoDB registry's table."""

    table: str = flag("--dynamodb-table")
    region: str = flag("--dynamodb-region")


def validate(cfg: Config) -> None:
    aws = cfg.aws
    if cfg.core.provider == "aws":
        for name, count in (("--aws-batch-change-size", aws.batch_change_size),
                            ("--aws-batch-change-size-bytes", aws.batch_change_size_bytes),
                            ("--aws-batch-change-size-values", aws.batch_change_size_values),
                            ("--aws-api-retries", aws.api_retries)):
            if count < 1:
                raise ConfigError(f"{name} must be at least 1, got {count}")
        for name, seconds in (("--aws-batch-change-interval", aws.batch_change_interval),
                              ("--aws-zones-cache-duration", aws.zones_cache_duration)):
            if seconds < 0:
                raise ConfigError(f"{name} must not be negative, got {go(seconds)}")
        for tag in aws.zone_tags:
            if tag and not tag.partition("=")[0].strip():
                raise ConfigError(f"--aws-zone-tags: invalid tag {tag!r} (use key=value or key)")
    if cfg.core.registry == "dynamodb" and not cfg.dynamodb.table:
        raise ConfigError("--dynamodb-table must not be empty with --registry=dynamodb")
