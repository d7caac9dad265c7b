"""Healthcare service kinds: a FHIR server, a payer portal and a voice line, with state in reserved
`sandbox_*` tables of the world database."""
