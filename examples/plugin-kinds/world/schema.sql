CREATE TABLE appointments (
    id TEXT PRIMARY KEY,
    patient TEXT NOT NULL,
    phone TEXT NOT NULL,
    starts_at TEXT NOT NULL
);
