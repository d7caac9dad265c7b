CREATE TABLE customers (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed'))
);

CREATE TABLE orders (
    id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    status TEXT NOT NULL CHECK (status IN ('placed', 'shipped', 'delivered', 'cancelled')),
    total_cents INTEGER NOT NULL,
    placed_at TEXT NOT NULL,
    delivered_at TEXT,
    address TEXT NOT NULL
);

CREATE TABLE charges (
    id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(id),
    amount_cents INTEGER NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE refunds (
    id INTEGER PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(id),
    charge_id TEXT REFERENCES charges(id),
    amount_cents INTEGER NOT NULL,
    method TEXT NOT NULL CHECK (method IN ('card', 'credit')),
    receipt TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE store_credits (
    id INTEGER PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    amount_cents INTEGER NOT NULL,
    reason TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE shipments (
    order_id TEXT PRIMARY KEY REFERENCES orders(id),
    carrier TEXT NOT NULL,
    tracking TEXT NOT NULL
);
