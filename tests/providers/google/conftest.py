"""The Cloud DNS fake with a service account whose key file points google-auth at the fake's token endpoint
(`GOOGLE_APPLICATION_CREDENTIALS`, as a user's key file would), and a provider factory reaching the fake
through `--google-api-endpoint`'s setting."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from external_dns.providers.google import GoogleConfig, GoogleProvider
from tests.fakes.google import GoogleDNSFake

SA_EMAIL = "external-dns@test-project.iam.gserviceaccount.com"
SA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def write_key_file(path: Path, token_uri: str) -> Path:
    pem = SA_KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()
    path.write_text(json.dumps({"type": "service_account", "project_id": "test-project", "private_key_id": "k1",
                                "private_key": pem, "client_email": SA_EMAIL, "client_id": "1",
                                "token_uri": token_uri}))
    return path


@pytest.fixture
def gfake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[GoogleDNSFake]:
    with GoogleDNSFake() as srv:
        srv.register_service_account(SA_EMAIL, SA_KEY.public_key())
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(write_key_file(tmp_path / "sa.json",
                                                                                srv.url + "/token")))
        monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "gcloud"))  # never the user's gcloud login
        srv.add_zone("org", "example.org")
        srv.add_zone("com", "example.com")
        yield srv


MakeGoogle = Callable[..., GoogleProvider]


@pytest.fixture
def make_google(gfake: GoogleDNSFake) -> MakeGoogle:
    def make(**kw: object) -> GoogleProvider:
        kw.setdefault("api_endpoint", gfake.url + "/")
        kw.setdefault("batch_change_interval", 0.0)
        kw.setdefault("max_retries", 1)
        return GoogleProvider(GoogleConfig(**kw))  # type: ignore[arg-type]
    return make
