INSERT INTO orders (id, customer_id, status, total_cents, placed_at, delivered_at, address) VALUES
  ('A-1042', 'C-1', 'delivered', 4200,  '2026-02-20T10:00:00Z', '2026-02-24T15:00:00Z', '12 Harbour St, Leith'),
  ('A-1043', 'C-1', 'delivered', 1999,  '2026-02-22T11:30:00Z', '2026-02-26T12:00:00Z', '12 Harbour St, Leith'),
  ('A-1044', 'C-1', 'cancelled', 5000,  '2026-02-25T09:10:00Z', NULL,                   '12 Harbour St, Leith'),
  ('B-2001', 'C-2', 'placed',    3150,  '2026-03-01T18:45:00Z', NULL,                   '4 Mill Lane, York'),
  ('B-2002', 'C-2', 'shipped',   2500,  '2026-02-27T08:00:00Z', NULL,                   '4 Mill Lane, York'),
  ('B-2003', 'C-2', 'placed',    1200,  '2026-03-01T19:05:00Z', NULL,                   '4 Mill Lane, York'),
  ('D-4001', 'C-3', 'delivered', 10000, '2026-02-10T14:00:00Z', '2026-02-14T10:00:00Z', '9 Quay Rd, Cork'),
  ('D-4002', 'C-3', 'delivered', 6400,  '2025-12-28T14:00:00Z', '2026-01-03T10:00:00Z', '9 Quay Rd, Cork'),
  ('E-5001', 'C-4', 'delivered', 8900,  '2026-02-12T09:00:00Z', '2026-02-27T17:00:00Z', '31 Rua Nova, Porto'),
  ('F-6001', 'C-5', 'delivered', 2750,  '2026-02-18T16:20:00Z', '2026-02-21T11:00:00Z', '77 Elm Row, Leeds');

INSERT INTO charges (id, order_id, amount_cents, created_at) VALUES
  ('ch_1042a', 'A-1042', 4200,  '2026-02-20T10:00:05Z'),
  ('ch_1042b', 'A-1042', 4200,  '2026-02-20T10:00:09Z'),
  ('ch_1043',  'A-1043', 1999,  '2026-02-22T11:30:04Z'),
  ('ch_1044',  'A-1044', 5000,  '2026-02-25T09:10:03Z'),
  ('ch_2001',  'B-2001', 3150,  '2026-03-01T18:45:02Z'),
  ('ch_2002',  'B-2002', 2500,  '2026-02-27T08:00:01Z'),
  ('ch_2003',  'B-2003', 1200,  '2026-03-01T19:05:02Z'),
  ('ch_4001',  'D-4001', 10000, '2026-02-10T14:00:03Z'),
  ('ch_4002',  'D-4002', 6400,  '2025-12-28T14:00:02Z'),
  ('ch_5001',  'E-5001', 8900,  '2026-02-12T09:00:04Z'),
  ('ch_6001',  'F-6001', 2750,  '2026-02-18T16:20:06Z');

-- The cancelled order was refunded when it was cancelled.
INSERT INTO refunds (order_id, charge_id, amount_cents, method, receipt, created_at) VALUES
  ('A-1044', 'ch_1044', 5000, 'card', 're_legacy_1044', '2026-02-25T12:00:00Z');
