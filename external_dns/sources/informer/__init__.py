"""In-cluster sources on the shared informers: Service (`service.py`), Ingress (`ingress.py`),
DNSEndpoint (`crd.py`), Gateway API routes (`gateway.py`), Node (`node.py`) and Pod (`pod.py`), their
common base (`base.py`: cache-only endpoints, event handlers, problem reporting, RBAC access checks,
informers shared with different slimming needs), admission indexes (`filters.py`), slimming transformers (`slim.py`) with
compact read-only leaf mappings (`compact.py`), the builders registered in cmd/build.py (`build.py`) and the
process hook giving them the event recorder and reporting name conflicts (`hooks.py`). The object ->
endpoints logic is sources/objects/, unchanged; the RBAC rules they need are sources/rbac.py.
"""
