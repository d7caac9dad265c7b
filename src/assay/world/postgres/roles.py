"""What the two kinds of role may do in a world's template database, and so in every copy of it.

Checks connect as the check role (SELECT on the world's tables); tools as the task run's own role,
a member of the world role (reading and writing rows). Neither owns anything. What every role may
do by default and neither needs is revoked from PUBLIC here: copies inherit it, the rest of the
server does not.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql

# Shared catalogs and views that list the server's databases, roles and sessions.
HIDDEN_VIEWS = (
    "pg_database",
    "pg_stat_database",
    "pg_stat_database_conflicts",
    "pg_stat_activity",
    "pg_shdescription",
    "pg_db_role_setting",
    "pg_roles",
    "pg_user",
    "pg_auth_members",
)
# Functions with effects that outlive a check's rolled-back transaction, or reach other sessions.
EFFECTFUL = (
    "SELECT p.oid::regprocedure::text FROM pg_proc p"
    " WHERE p.pronamespace = 'pg_catalog'::regnamespace AND ("
    " p.proname ~ 'advisory'"
    " OR p.proname IN ('lo_create', 'lo_creat', 'lo_from_bytea', 'lo_import', 'lo_put', 'lo_unlink',"
    " 'lo_open', 'lowrite', 'lo_truncate', 'lo_truncate64', 'pg_notify', 'txid_current',"
    " 'pg_current_xact_id', 'pg_cancel_backend', 'pg_terminate_backend'))"
    " ORDER BY 1"
)


def grant_and_revoke(connection: Any, check_role: str, world_role: str) -> None:
    """Grants on the world's tables, and what PUBLIC loses in this database (needs a superuser)."""
    check, world = sql.Identifier(check_role), sql.Identifier(world_role)
    statements = [
        sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {}").format(check),
        sql.SQL(
            "GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA public TO {}"
        ).format(world),
        sql.SQL("GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {}").format(
            world
        ),
        sql.SQL("REVOKE CREATE ON SCHEMA public FROM PUBLIC"),
    ]
    statements += [
        sql.SQL("REVOKE SELECT ON pg_catalog.{} FROM PUBLIC").format(sql.Identifier(view))
        for view in HIDDEN_VIEWS
    ]
    statements += [
        sql.SQL("REVOKE EXECUTE ON FUNCTION pg_catalog.{} FROM PUBLIC").format(sql.SQL(signature))
        for (signature,) in connection.execute(EFFECTFUL).fetchall()
    ]
    for statement in statements:
        connection.execute(statement)
