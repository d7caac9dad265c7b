"""Services record every request, mark duplicates, and refuse what a real provider would."""

from __future__ import annotations

import json

import pytest
from worldkit import DESK_WORLD, write_world

from assay import ServiceError


@pytest.fixture
def live(any_shop, reset):
    """A fresh copy of worlds/shop on the backend under test."""
    return reset(any_shop.world)


@pytest.fixture
def desk_live(tmp_path, open_world, reset):
    """`desk_live(**files)`: a fresh copy of a desk world with those files replaced."""
    return lambda **files: reset(open_world(write_world(tmp_path, **files)).world)


def requests(live):
    live.flush()
    return live.db.rows(
        "SELECT service, operation, payload, response, status, turn, at, duplicate_of FROM sandbox_requests ORDER BY id"
    )


def test_every_request_is_recorded_with_turn_and_time(live):
    live.turn = 3
    live.clock.advance()
    answer = live.services["email"].request(
        "send", {"to": "a@example.com", "subject": "s", "body": "b"}
    )
    assert answer == {"id": "msg_0001", "status": "queued", "to": "a@example.com"}
    (row,) = requests(live)
    assert row["service"] == "email"
    assert row["operation"] == "send"
    assert json.loads(row["payload"]) == {"body": "b", "subject": "s", "to": "a@example.com"}
    assert json.loads(row["response"])["id"] == "msg_0001"
    assert (row["status"], row["turn"], row["at"], row["duplicate_of"]) == (
        "ok",
        3,
        "2026-03-02T09:01:00Z",
        None,
    )


def test_the_same_request_again_is_a_duplicate(live):
    email = live.services["email"]
    for body in ("hello", "other", "hello"):
        email.request("send", {"to": "a@example.com", "subject": "s", "body": body})
    assert [row["duplicate_of"] for row in requests(live)] == [None, None, 1]


def test_payments_duplicates_are_keyed_by_charge_and_amount(live):
    payments = live.services["payments"]
    payments.request("refund", {"charge": "ch_4001", "amount": 1000})
    payments.request("refund", {"charge": "ch_4001", "amount": 1000, "reason": "again"})
    payments.request("refund", {"charge": "ch_4001", "amount": 500})
    assert [row["duplicate_of"] for row in requests(live)] == [None, 1, None]


def test_payments_refuse_refunds_beyond_the_charge_and_record_the_refusal(live):
    payments = live.services["payments"]
    payments.request("refund", {"charge": "ch_1043", "amount": 1000})
    with pytest.raises(ServiceError, match="refund of 1000 exceeds the 999 left on ch_1043"):
        payments.request("refund", {"charge": "ch_1043", "amount": 1000})
    with pytest.raises(ServiceError, match="no charge ch_nope"):
        payments.request("refund", {"charge": "ch_nope", "amount": 1})
    rows = requests(live)
    assert [row["status"] for row in rows] == ["ok", "error", "error"]
    assert json.loads(rows[1]["response"])["error"]["code"] == "payments.exceeds_charge"
    assert payments.request("balance", {"charge": "ch_1043"}) == {
        "charge": "ch_1043",
        "amount": 1999,
        "refunded": 1000,
    }


def test_payments_charge_then_refund(live):
    payments = live.services["payments"]
    charge = payments.request("charge", {"customer": "C-1", "amount": 700})
    assert charge == {"id": "ch_0001", "status": "succeeded", "amount": 700}
    assert payments.request("refund", {"charge": "ch_0001", "amount": 700})["id"] == "re_0001"
    with pytest.raises(ServiceError, match="positive integer"):
        payments.request("charge", {"customer": "C-1", "amount": -5})


def test_email_refuses_a_bad_recipient(live):
    with pytest.raises(ServiceError, match="cannot send to 'nobody'"):
        live.services["email"].request("send", {"to": "nobody"})


def test_recorder_accepts_anything(desk_live):
    live = desk_live()
    assert live.services["log"].request("ping", {"n": 1}) == {"id": "req_0001", "status": "ok"}


def test_custom_service_kind_from_a_world_file(tmp_path, desk_live):
    world_toml = DESK_WORLD.replace('log = "recorder"', 'log = "crm.py:Crm"')
    (tmp_path / "crm.py").write_text(
        "from assay import Service\n\n"
        "class Crm(Service):\n"
        "    kind = 'crm'\n"
        "    def handle(self, operation, payload):\n"
        "        return {'ticket': self.next_id('tk'), 'op': operation}\n"
    )
    live = desk_live(world_toml=world_toml)
    assert live.services["log"].request("open", {}) == {"ticket": "tk_0001", "op": "open"}
    assert requests(live)[0]["service"] == "log"
