"""The error of SQL that cannot be carried over to PostgreSQL."""


class TranslationError(ValueError):
    """The statement cannot be read as SQLite SQL, has no PostgreSQL translation, or its
    parameters do not match."""
