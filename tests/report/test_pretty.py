"""Values as pages print them: JSON, with an HL7 message one segment a line."""

from __future__ import annotations

from assay.report.render import pretty


def test_an_hl7_message_breaks_at_each_segment_not_at_a_literal_cr():
    shown = pretty({"message": "MSH|^~\\&|LAB\rPID|1||123\r\nOBX|1"})
    assert "\\r" not in shown
    assert shown.splitlines()[1:4] == ['  "message": "MSH|^~\\\\&|LAB', "PID|1||123", 'OBX|1"']


def test_an_escaped_backslash_before_r_is_left_alone():
    assert pretty("C:\\reports") == '"C:\\\\reports"'
