"""Cloudflare settings and credentials (providers/cloudflare/config.py) as external-dns reads them: CF_API_TOKEN
(or `file:<path>`), else CF_API_KEY with CF_API_EMAIL, then the SDK's own variables; secrets kept out of repr;
the annotation keys under the configured prefix; regional services on when a region key is set."""

from __future__ import annotations

from pathlib import Path

import pytest

from external_dns.errors import ConfigError
from external_dns.providers.cloudflare.config import CloudflareConfig, Credentials


@pytest.mark.parametrize(("env", "want"), [
    ({"CF_API_TOKEN": " tok ", "CF_API_KEY": "k", "CF_API_EMAIL": "e"}, Credentials(api_token="tok")),
    ({"CF_API_KEY": " k ", "CF_API_EMAIL": "a@b.c", "CLOUDFLARE_API_TOKEN": "t"}, Credentials("", "k", "a@b.c")),
    ({"CF_API_KEY": "k", "CLOUDFLARE_API_TOKEN": "sdk"}, Credentials(api_token="sdk")),  # a key alone is not enough
    ({"CLOUDFLARE_API_KEY": "k", "CLOUDFLARE_EMAIL": "a@b.c"}, Credentials("", "k", "a@b.c")),
])
def test_credentials_in_external_dns_order(env: dict[str, str], want: Credentials) -> None:
    assert Credentials.from_env(env) == want


def test_a_token_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("from-file\n")
    assert Credentials.from_env({"CF_API_TOKEN": f"file:{path}"}).api_token == "from-file"
    with pytest.raises(ConfigError, match="failed to read CF_API_TOKEN from file"):
        Credentials.from_env({"CF_API_TOKEN": f"file:{tmp_path / 'missing'}"})


def test_no_credentials_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError, match="set either CF_API_TOKEN or both CF_API_KEY and CF_API_EMAIL"):
        Credentials.from_env({"CF_API_EMAIL": "a@b.c"})


def test_secrets_out_of_repr() -> None:
    shown = repr(CloudflareConfig(credentials=Credentials("tok-secret", "key-secret", "a@b.c")))
    assert "tok-secret" not in shown and "key-secret" not in shown and "a@b.c" in shown


def test_annotation_keys_and_regional_services() -> None:
    cfg = CloudflareConfig(annotation_prefix="custom.io/")
    assert (cfg.proxied_key, cfg.comment_key, cfg.tags_key, cfg.region_key_prop, cfg.prefix_key) == (
        "custom.io/cloudflare-proxied", "custom.io/cloudflare-record-comment", "custom.io/cloudflare-tags",
        "custom.io/cloudflare-region-key", "custom.io/cloudflare-")
    assert not cfg.regional
    assert CloudflareConfig(region_key="eu").regional and CloudflareConfig(regional_services=True).regional
