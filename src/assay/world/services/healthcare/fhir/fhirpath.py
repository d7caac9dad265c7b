"""A strict FHIRPath syntax check: fhirpathpy's own parser recovers from syntax errors silently."""

from __future__ import annotations


def syntax_problem(path: str) -> str | None:
    """Why `path` is not FHIRPath (the first syntax error, or input left unread), else None."""
    from antlr4 import CommonTokenStream, InputStream, Token
    from antlr4.error.ErrorListener import ErrorListener
    from fhirpathpy.parser.generated.FHIRPathLexer import FHIRPathLexer
    from fhirpathpy.parser.generated.FHIRPathParser import FHIRPathParser

    errors: list[str] = []

    class Collect(ErrorListener):
        def syntaxError(self, recognizer, offending, line, column, msg, e):
            errors.append(f"column {column + 1}: {msg}")

    lexer = FHIRPathLexer(InputStream(path))
    lexer.removeErrorListeners()
    lexer.addErrorListener(Collect())
    parser = FHIRPathParser(CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(Collect())
    parser.expression()
    if errors:
        return errors[0]
    left = parser.getCurrentToken()
    if left.type != Token.EOF:
        return f"column {left.column + 1}: unexpected {left.text!r}"
    return None
