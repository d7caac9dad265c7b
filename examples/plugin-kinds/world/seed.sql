INSERT INTO appointments (id, patient, phone, starts_at) VALUES
    ('A-1', 'Ada Byron', '+447700900123', '2026-03-03 10:30'),
    ('A-2', 'Alan Mathison', '+447700900456', '2026-03-04 15:00');
