"""The text of new files: a verifier that fails on purpose, and a task with every section sketched."""

from __future__ import annotations

import json
from string import Template

TODO_LABEL = "TODO: define success condition"


TASK = Template(
    """# A task: one request to an agent, and the read-only checks that judge what it leaves behind.
# Replace every TODO, then run `assay validate` on the world until every proof passes.
title = $title
split = $split# train | dev | holdout (runs only with --split holdout, always scored)
role = $role# whose tools the agent may call: [roles] in world.toml
max_turns = 20
# max_contacts = 1                # messages to the customer before one counts as an interruption
# time_limit_s = 120              # wall-clock limit of one task run

[customer]
request = "TODO: the customer's request, in their own words."
# default_reply = "I'm not sure, sorry."
# replies = [ { match = ["email"], say = "It's dana@example.com." } ]
# changes = [ { at = "first_write", say = "Sorry, make it store credit instead." } ]  # first_write | turn:N | after:<tool>

# [[faults]]                      # a tool call that fails, or succeeds with an unknown outcome
# tool = $tool
# call = 1                        # the 1st call of that tool
# effect = "unknown"              # unknown | fail

[[checks]]                        # a goal: the request was done (type = "goal" is the default)
name = $todo
sql = "SELECT 0"                  # one read-only query returning one value; fails until replaced
expect = 1
# params = { order = "A-1042" }   # bound as :order, never pasted into the text
# op = "eq"                       # eq ne gt ge lt le
# expect = { sql = "SELECT …", db = "initial" }  # derive the wanted value from the starting state
# weight = 1
# axis = "correctness"

# [[checks]]                      # a rule: something that must never happen
# name = "Nothing was sent to the payment provider"
# type = "rule"
# sql = "SELECT count(*) FROM sandbox_requests WHERE service = 'payments'"
# expect = 0

# [[checks]]                      # optional: corroborating; moves the score, never fails the task
# name = "The customer was told"
# type = "optional"
# assert = "answer"
# contains = ["refund"]

# [[checks]]                      # a Python verifier: `assay verifier add ID --world … --task …`
# name = "…"
# assert = "python"
# verifier = "VER-001"

[solution]                        # the reference solution: it must be verified
steps = [
  # { call = $tool, args = { } },
  # { say = "Which email address should I use?" },
  { finish = "TODO: what the agent says when it is done." },
]

# [[wrong]]                       # a wrong solution: careless work that must not be verified
# name = "says it is done without doing it"
# steps = [ { finish = "Done." } ]
"""
)


def not_implemented(verifier_id: str) -> str:
    return f'Verifier "{verifier_id}" is not implemented yet.'


def verifier_module(verifier_id: str, name: str, task_id: str, function: str) -> str:
    """A verifier whose one check fails, so that an unfinished verifier never passes a run."""
    return f"""{_python(f"{verifier_id}: {name}")}

from __future__ import annotations

from assay import check, verifier


@verifier({_python(verifier_id)}, name={_python(name)}, task={_python(task_id)})
def {function}(final, initial, ctx):
    # Work out what should have happened from `initial`; read what did happen from `final`.
    return [
        check(
            {_python(TODO_LABEL)},
            False,
            {_python(not_implemented(verifier_id))},
        ),
    ]
"""


def task_file(title: str, split: str, role: str, tool: str) -> str:
    """A task that loads, and fails validation until its TODOs are replaced."""
    return TASK.substitute(
        title=_text(title),
        split=(_text(split) + " ").ljust(26),
        role=(_text(role) + " ").ljust(27),
        tool=_text(tool),
        todo=_text(TODO_LABEL),
    )


def _text(value: str) -> str:
    """A string literal that both Python and TOML read back as `value`."""
    return json.dumps(value, ensure_ascii=False)


def _python(value: str) -> str:
    """A Python string literal for `value`, quoted the way the formatter prefers."""
    return _text(value) if '"' not in value else repr(value)
