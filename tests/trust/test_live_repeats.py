"""`assay validate --live model:<name> --live-repeats N`: a task the live agent fails in every try is
marked a withdrawn candidate, with why; one verified try keeps it."""

from __future__ import annotations

from modelkit import ScriptedModel, StandIn, solution_replies
from settingskit import use_model_at
from worldkit import SHOP

from assay.runs import open_benchmark
from assay.trust.validate import validate_world

TASK = "refund-double-charge"


def test_a_model_that_never_solves_the_task_makes_it_a_withdrawn_candidate(monkeypatch):
    with StandIn(ScriptedModel({})) as stand_in:  # every reply: finish at once
        use_model_at(monkeypatch, stand_in.url)
        (task,) = validate_world(SHOP, [TASK], live="model:stand-in", live_repeats=3).tasks
    live = task.proofs["live"]
    assert task.withdrawn_candidate is True and task.passed is True  # the task itself is fair
    assert live.reasons[0] == "withdrawn candidate: model:stand-in failed in all 3 tries"
    assert len(live.notes) == 3
    assert len(stand_in.bodies) == 3  # one model call per try: it finished at once


def test_one_verified_try_keeps_the_task(monkeypatch):
    task_spec = open_benchmark(SHOP).tasks[TASK]
    scripts = {task_spec.customer.request: solution_replies(task_spec)}
    with StandIn(ScriptedModel(scripts)) as stand_in:
        use_model_at(monkeypatch, stand_in.url)
        (task,) = validate_world(SHOP, [TASK], live="model:stand-in", live_repeats=3).tasks
    assert task.withdrawn_candidate is False
    assert task.proofs["live"].status == "passed"
    assert len(task.proofs["live"].notes) == 1  # it stopped after the first verified try
