"""Default timings of the DNSRecord controller, in a module of their own so that the flag definitions can
read them without importing the controller (and the Kubernetes client) in every process."""

DEFAULT_MIN_REQUEUE_TIME = 5.0
DEFAULT_REQUEUE_TIME = 900.0
DEFAULT_VALID_FOR = 840.0
DEFAULT_WRITE_COUNTER_LIMIT = 20
