"""The state both loops of the scheduling protocol keep: waiting requests, idle drives, the loop."""

from __future__ import annotations

import pytest

from tapesched.solvers.online.protocol import Decision, Dismount, Start
from tapesched.solvers.online.state import DispatchState
from tapesched.toolkit.model import Piece, Request


def read(rid: str, *tapes: str) -> Request:
    return Request(rid, 0.0, 1.0, "read", tuple(Piece(tape, 0.0, 10.0) for tape in tapes))


def test_requests_wait_in_the_order_they_are_added_by_rank_and_by_tape():
    state = DispatchState([0], 1)
    a, b, c = read("a", "T1"), read("b", "T2", "T1"), read("c", "T2")
    waiting = state.waiting
    assert [state.add(r) for r in (a, b, c)] == [0, 1, 2]
    assert list(waiting) == [a, b, c] and waiting[0] == a and list(reversed(waiting)) == [c, b, a]
    assert state.waiting_on("T1") == (a, b) and state.waiting_on("T2") == (b, c)
    assert state.remove(1) == b
    assert list(waiting) == [a, c] and len(waiting) == 2
    assert state.waiting_on("T1") == (a,) and state.waiting_on("T2") == (c,)
    assert not state.is_waiting(1) and state.is_waiting(2)
    assert state.add(b) == 3
    assert list(waiting) == [a, c, b] and state.waiting_on("T2") == (c, b)
    state.remove(0)
    assert state.waiting_on("T1") == (b,) and "T1" in state.by_tape
    state.remove(3)
    assert state.waiting_on("T1") == () and "T1" not in state.by_tape


def test_idle_drives_are_counted_per_library_with_those_holding_a_tape():
    state = DispatchState([0, 1, 1], 2)
    assert state.idle == [True, True, True] and state.idle_count == [1, 2]
    assert state.set_idle(1, True, True) == 0
    assert state.idle_holding == {1}
    assert state.set_idle(1, False, True) == -1
    assert state.idle_set == {0, 2} and state.idle_holding == set() and state.idle_count == [1, 1]
    assert state.set_idle(1, False, False) == 0
    assert state.set_idle(1, True, False) == 1
    assert state.idle_count == [1, 2] and state.idle_holding == set()


class _Script:
    """Returns its decisions in turn, recording what it was shown each time."""

    def __init__(self, *decisions: object) -> None:
        self.decisions = list(decisions)
        self.seen: list[list[str]] = []

    def decide(self, now, waiting, platform):
        self.seen.append([r.id for r in waiting])
        return self.decisions.pop(0)


def test_the_loop_asks_until_the_scheduler_waits_each_decision_carried_out_first():
    state = DispatchState([0], 1)
    a, b = read("a", "T1"), read("b", "T2")
    ranks = {r.id: state.add(r) for r in (a, b)}
    done: list[Decision] = []

    def carry_out(decision: Decision) -> None:
        done.append(decision)
        if isinstance(decision, Start):
            state.remove(ranks[decision.request.id])

    script = _Script(Start(b), Dismount("d0"), Start(a), None, Start(a))
    state.decide(script, 5.0, None, carry_out)  # type: ignore[arg-type]
    assert done == [Start(b), Dismount("d0"), Start(a)]
    assert script.seen == [["a", "b"], ["a"], ["a"], []]
    assert script.decisions == [Start(a)]


def test_the_loop_refuses_what_is_not_a_decision():
    state = DispatchState([0], 1)
    with pytest.raises(TypeError, match="'go': not a Start, a Dismount or None"):
        state.decide(_Script("go"), 0.0, None, lambda decision: None)  # type: ignore[arg-type]
