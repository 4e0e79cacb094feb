"""One differential scenario, run: the objects on the API server, both zones seeded alike, both programs
`--once` with the same flags, the zones read back (`Outcome`), then again (nothing may be sent), then the
scenario's change and once more."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.differential.cluster import Cluster, Obj, put
from tests.differential.programs import Program, Run, run_both
from tests.differential.scenarios import Scenario
from tests.differential.zones import Record, comparable, diff, seed, serials, snapshot


class ProgramFailed(AssertionError):
    """A program exited non-zero (its output is in the message)."""


@dataclass
class Step:
    """Both zones after one run of both programs."""

    name: str
    go: list[Record]
    py: list[Record]
    go_run: Run
    py_run: Run

    def difference(self) -> str:
        return diff("go", self.go, "py", self.py)


@dataclass
class Outcome:
    steps: list[Step] = field(default_factory=list)
    # zones whose SOA serial moved during the second run of a program (it sent an UPDATE on a no-op)
    noop_writes: dict[str, list[str]] = field(default_factory=dict)

    def step(self, name: str) -> Step:
        return next(s for s in self.steps if s.name == name)


@dataclass
class Sides:
    go: Program
    py: Program
    cluster: Cluster
    namespace: str
    kubeconfig: str


class Objects:
    """The objects a scenario made on the cluster (also those a change made), deleted again by `clear`."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.made: dict[tuple[str, str, str], Obj] = {}

    @staticmethod
    def key(obj: Obj) -> tuple[str, str, str]:
        return obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"]

    def put(self, obj: Obj) -> None:
        """Create `obj`, replacing an object of that name (a change)."""
        if self.key(obj) in self.made:
            self.cluster.delete(obj)
        put(self.cluster, obj)
        self.made[self.key(obj)] = obj

    def delete(self, obj: Obj) -> None:
        self.cluster.delete(obj)
        self.made.pop(self.key(obj), None)

    def clear(self) -> None:
        for obj in reversed(list(self.made.values())):
            self.cluster.delete(obj)
        self.made.clear()


@contextlib.contextmanager
def on_cluster(cluster: Cluster, objects: Sequence[Obj]) -> Iterator[Objects]:
    tracked = Objects(cluster)
    try:
        for obj in objects:
            tracked.put(obj)
        yield tracked
    finally:
        tracked.clear()


def _run(sides: Sides, scenario: Scenario, name: str) -> Step:
    flags = scenario.program_flags()
    go_run, py_run = run_both(sides.go, sides.py, [*sides.go.flags(sides.kubeconfig, sides.namespace), *flags],
                              [*sides.py.flags(sides.kubeconfig, sides.namespace), *flags])
    for r in (go_run, py_run):
        if r.returncode != 0:
            raise ProgramFailed(f"{scenario.id} / {name}: {r.describe()}")
    return Step(name, comparable(snapshot(sides.go.bind), scenario.aes_key),
                comparable(snapshot(sides.py.bind), scenario.aes_key), go_run, py_run)


def run_scenario(sides: Sides, scenario: Scenario, then: Callable[[Outcome], None] | None = None) -> Outcome:
    """Run `scenario` (see the module docstring); `then` is called with the outcome while the objects are still
    on the API server (for a check that runs a program once more)."""
    for program in (sides.go, sides.py):
        program.bind.reset()
        seed(program.bind, scenario.seed)
    sides.cluster.create_namespace(sides.namespace)
    out = Outcome()
    objects = scenario.objects(sides.namespace)
    with on_cluster(sides.cluster, objects) as tracked:
        out.steps.append(_run(sides, scenario, "first run"))
        before = {p.name: serials(p.bind) for p in (sides.go, sides.py)}
        out.steps.append(_run(sides, scenario, "second run (no-op)"))
        for p in (sides.go, sides.py):
            after = serials(p.bind)
            moved = [z for z, s in after.items() if before[p.name].get(z) != s]
            if moved:
                out.noop_writes[p.name] = moved
        change = scenario.change(sides.namespace)
        for obj in change.delete:
            tracked.delete(obj)
        for obj in change.put:
            tracked.put(obj)
        out.steps.append(_run(sides, scenario, "after the change"))
        if then is not None:
            then(out)
    return out


def write_kubeconfig(cluster: Cluster, directory: Path, namespace: str) -> str:
    return cluster.write_kubeconfig(directory / "kubeconfig", namespace)
