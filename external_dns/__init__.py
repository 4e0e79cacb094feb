"""external-dns-py: keeps DNS records at DNS providers in step with what runs in a Kubernetes cluster."""

__version__ = "0.1.0"
