"""endpoint/: the Endpoint record-set model and everything that compares, filters and validates it.

Re-exports the public API of endpoint.py, targets.py, names.py, domain_filter.py, target_filter.py,
validation.py and utils.py; labels.py (owned by the registry) is re-exported when present.
"""

from external_dns.endpoint.domain_filter import DomainFilter, DomainFilterInterface, MatchAllDomainFilters
from external_dns.endpoint.endpoint import (
    AWS_SD_DESCRIPTION_LABEL,
    DEFAULT_MANAGED_RECORD_TYPES,
    KNOWN_RECORD_TYPES,
    OWNED_RECORD_LABEL_KEY,
    OWNER_LABEL_KEY,
    PROVIDER_SPECIFIC_ALIAS,
    PROVIDER_SPECIFIC_RECORD_TYPE,
    RECORD_TYPE_A,
    RECORD_TYPE_AAAA,
    RECORD_TYPE_CNAME,
    RECORD_TYPE_DNAME,
    RECORD_TYPE_MX,
    RECORD_TYPE_NAPTR,
    RECORD_TYPE_NS,
    RECORD_TYPE_PTR,
    RECORD_TYPE_SRV,
    RECORD_TYPE_TXT,
    RESOURCE_LABEL_KEY,
    TXT_ENCRYPTION_NONCE,
    Endpoint,
    ProviderSpecificProperty,
    deep_copy_endpoints,
    endpoints_from_json,
    endpoints_to_json,
    new_endpoint,
    new_ptr_endpoint,
)
from external_dns.endpoint.names import normalize_dns_name, to_ascii_name, to_unicode_name
from external_dns.endpoint.target_filter import TargetNetFilter
from external_dns.endpoint.targets import (
    Targets,
    new_targets,
    parse_ip,
    sorted_targets,
    targets_is_less,
    targets_same,
)
from external_dns.endpoint.utils import (
    endpoints_for_hostname,
    filter_endpoints_by_owner_id,
    merge_endpoints,
    remove_duplicates,
    suitable_type,
)
from external_dns.endpoint.validation import (
    MAX_LABEL_LENGTH,
    MAX_NAME_LENGTH,
    InvalidDNSNameError,
    MXTarget,
    SRVTarget,
    dns_name_problem,
    is_valid_dns_name,
    new_mx_record,
    new_srv_record,
    validate_dns_name,
)

__all__ = [
    "AWS_SD_DESCRIPTION_LABEL",
    "DEFAULT_MANAGED_RECORD_TYPES",
    "KNOWN_RECORD_TYPES",
    "MAX_LABEL_LENGTH",
    "MAX_NAME_LENGTH",
    "OWNED_RECORD_LABEL_KEY",
    "OWNER_LABEL_KEY",
    "PROVIDER_SPECIFIC_ALIAS",
    "PROVIDER_SPECIFIC_RECORD_TYPE",
    "RECORD_TYPE_A",
    "RECORD_TYPE_AAAA",
    "RECORD_TYPE_CNAME",
    "RECORD_TYPE_DNAME",
    "RECORD_TYPE_MX",
    "RECORD_TYPE_NAPTR",
    "RECORD_TYPE_NS",
    "RECORD_TYPE_PTR",
    "RECORD_TYPE_SRV",
    "RECORD_TYPE_TXT",
    "RESOURCE_LABEL_KEY",
    "TXT_ENCRYPTION_NONCE",
    "DomainFilter",
    "DomainFilterInterface",
    "Endpoint",
    "InvalidDNSNameError",
    "MXTarget",
    "MatchAllDomainFilters",
    "ProviderSpecificProperty",
    "SRVTarget",
    "TargetNetFilter",
    "Targets",
    "deep_copy_endpoints",
    "dns_name_problem",
    "endpoints_for_hostname",
    "endpoints_from_json",
    "endpoints_to_json",
    "filter_endpoints_by_owner_id",
    "is_valid_dns_name",
    "merge_endpoints",
    "new_endpoint",
    "new_mx_record",
    "new_ptr_endpoint",
    "new_srv_record",
    "new_targets",
    "normalize_dns_name",
    "parse_ip",
    "remove_duplicates",
    "sorted_targets",
    "suitable_type",
    "targets_is_less",
    "targets_same",
    "to_ascii_name",
    "to_unicode_name",
    "validate_dns_name",
]

# labels.py belongs to the registry engineer; re-export its API once it exists.
try:
    from external_dns.endpoint.labels import (  # type: ignore[import-not-found,attr-defined,unused-ignore]
        InvalidHeritageError,
        parse_labels,
        serialize_labels,
    )
except ImportError:  # pragma: no cover - until labels.py lands
    pass
else:
    __all__ += ["InvalidHeritageError", "parse_labels", "serialize_labels"]
