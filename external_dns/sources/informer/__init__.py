"""In-cluster sources on the shared informers: Service (`service.py`), Ingress (`ingress.py`) and
DNSEndpoint (`crd.py`), their common base (`base.py`: cache-only endpoints, event handlers, problem
reporting, RBAC access checks), admission indexes (`filters.py`), slimming transformers (`slim.py`) with
compact read-only leaf mappings (`compact.py`), the builders registered in cmd/build.py (`build.py`) and the
process hook giving them the event recorder and reporting name conflicts (`hooks.py`). The object ->
endpoints logic is sources/objects/, unchanged; the RBAC rules they need are sources/rbac.py.
"""
