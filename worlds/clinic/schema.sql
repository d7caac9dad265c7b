-- The clinic keeps its records in the EHR, the portal and the phone line (reserved sandbox_*
-- tables); its own database holds only staff notes.
CREATE TABLE staff_notes (id INTEGER PRIMARY KEY, author TEXT NOT NULL, text TEXT NOT NULL);
