"""The external-dns webhook provider protocol, both sides: `WebhookProvider` (client, `--provider=webhook`)
and `WebhookServer` (exposes any of our providers to a Go external-dns; `external-dns webhook-server`)."""

from external_dns.providers.webhook.protocol import MEDIA_TYPE

__all__ = ["MEDIA_TYPE"]
