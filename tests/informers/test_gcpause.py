"""The cyclic GC paused while a large LIST body is parsed (informers/gcpause.py): process-wide, counted across
nested and concurrent pausers, and the collector left as it was found."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from external_dns.informers.gcpause import gc_paused


@pytest.fixture(autouse=True)
def gc_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_nested_pauses_enable_again_only_at_the_outermost_exit() -> None:
    gc.enable()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_an_exception_inside_still_restores_the_collector() -> None:
    gc.enable()
    with pytest.raises(ValueError, match="bad body"), gc_paused():
        raise ValueError("bad body")
    assert gc.isenabled()


def test_concurrent_pausers_keep_it_paused_until_the_last_leaves() -> None:
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with gc_paused():
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(5)
    with gc_paused():
        pass
    assert not gc.isenabled()  # the other thread is still parsing
    release.set()
    thread.join(5)
    assert gc.isenabled()
