"""Policies: which kinds of change a plan may carry out (`--policy`), as external-dns `plan/policy.go`.

`sync` passes everything, `upsert-only` drops deletes, `create-only` keeps only creates. Each `apply`
returns a new Changes and never mutates its argument.
"""

from __future__ import annotations

from typing import Protocol

from external_dns.plan.changes import Changes


class Policy(Protocol):
    """Filters a set of changes (the built-in ones also carry their `--policy` `name`)."""

    def apply(self, changes: Changes) -> Changes: ...


class SyncPolicy:
    """Full synchronisation: changes pass unchanged."""

    name = "sync"

    def apply(self, changes: Changes) -> Changes:
        return Changes(
            create=list(changes.create),
            update_old=list(changes.update_old),
            update_new=list(changes.update_new),
            delete=list(changes.delete),
        )


class UpsertOnlyPolicy:
    """Creates and updates only: deletions are stripped."""

    name = "upsert-only"

    def apply(self, changes: Changes) -> Changes:
        return Changes(
            create=list(changes.create),
            update_old=list(changes.update_old),
            update_new=list(changes.update_new),
        )


class CreateOnlyPolicy:
    """Creates only: updates and deletions are stripped."""

    name = "create-only"

    def apply(self, changes: Changes) -> Changes:
        return Changes(create=list(changes.create))


POLICIES: dict[str, Policy] = {
    SyncPolicy.name: SyncPolicy(),
    UpsertOnlyPolicy.name: UpsertOnlyPolicy(),
    CreateOnlyPolicy.name: CreateOnlyPolicy(),
}


def get_policy(name: str) -> Policy:
    """The policy called `name`; ValueError `unknown policy: <name>` otherwise."""
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy: {name}") from None
