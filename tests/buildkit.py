"""Drafts a scripted model submits to `assay build`, and the stand-in that serves them."""

from __future__ import annotations

from typing import Any

FAIR = """\
title = "Send an open order to a new street"
role = "support"
max_turns = 10

[customer]
# The customer moved.
request = "Please send order B-2001 to 12 Quay Road, Whitby."

[[checks]]
name = "B-2001 goes to the new address"
sql = "SELECT address FROM orders WHERE id = 'B-2001'"
expect = "12 Quay Road, Whitby"

[solution]
steps = [
  { call = "update_address", args = { order_id = "B-2001", address = "12 Quay Road, Whitby" } },
  { finish = "Order B-2001 will go to 12 Quay Road, Whitby." },
]

[[wrong]]
name = "updates the wrong order"
steps = [
  { call = "update_address", args = { order_id = "B-2003", address = "12 Quay Road, Whitby" } },
  { finish = "Done." },
]
"""

# Passes with nothing done: the check wants the address the order already has.
IDLE = """\
title = "Keep an order's address"
role = "support"

[customer]
request = "Please make sure order B-2003 still goes to 4 Mill Lane, York."

[[checks]]
name = "B-2003 goes to Mill Lane"
sql = "SELECT address FROM orders WHERE id = 'B-2003'"
expect = "4 Mill Lane, York"

[solution]
steps = [{ call = "find_order", args = { order_id = "B-2003" } }, { finish = "It does." }]

[[wrong]]
name = "moves it"
steps = [
  { call = "update_address", args = { order_id = "B-2003", address = "1 Elm St, Leeds" } },
  { finish = "Done." },
]
"""

# The repair: the customer now asks for a change the checks can see.
IDLE_REPAIRED = (
    IDLE.replace("still goes to 4 Mill Lane, York", "goes to 3 Harbour Row, Scarborough")
    .replace('expect = "4 Mill Lane, York"', 'expect = "3 Harbour Row, Scarborough"')
    .replace(
        '{ call = "find_order", args = { order_id = "B-2003" } }, { finish = "It does." }',
        '{ call = "update_address", args = { order_id = "B-2003", address = '
        '"3 Harbour Row, Scarborough" } }, { finish = "Done." }',
    )
)

BROKEN = 'title = "Half a task\nrole = support\n'

WRITES = FAIR.replace("12 Quay Road, Whitby", "9 Pier St, Filey").replace(
    "SELECT address FROM orders WHERE id = 'B-2001'",
    "UPDATE orders SET address = '9 Pier St, Filey' WHERE id = 'B-2001'",
)

# The same customer request as worlds/shop's update-address task.
DUPLICATE = FAIR.replace(
    "Please send order B-2001 to 12 Quay Road, Whitby.",
    "I moved. Please send order B-2003 to 18 Mill Lane, York instead.",
).replace('title = "Send an open order to a new street"', 'title = "Move an order"')


def submit(*drafts: str) -> dict[str, Any]:
    return {"calls": [("submit_task", {"toml": text}) for text in drafts]}


class InOrder:
    """A model that answers each request with the next scripted reply."""

    def __init__(self, replies: list[dict[str, Any]]):
        self.replies = list(replies)
        self.asked: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.asked.append(body)
        return self.replies.pop(0) if self.replies else {"content": "nothing more"}
