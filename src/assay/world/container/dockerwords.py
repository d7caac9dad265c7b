"""Docker's word rules for instruction arguments: quotes, escapes and `$VAR` substitution."""

from __future__ import annotations

from collections.abc import Mapping

NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
NAME_CHARS = NAME_START + "0123456789"
MODIFIERS = (":-", ":+", "-", "+")


class WordError(ValueError):
    """Arguments that Docker could not read either: an unclosed quote or `${`."""


def words(text: str, variables: Mapping[str, str], escape: str = "\\") -> list[str]:
    """The whitespace-separated words of text, quotes removed and variables substituted."""
    return _Lexer(text, variables, escape, split=True, quotes=True).run()


def word(text: str, variables: Mapping[str, str], escape: str = "\\") -> str:
    """Text as one word (spaces kept), quotes removed and variables substituted."""
    found = _Lexer(text.strip(), variables, escape, split=False, quotes=True).run()
    return found[0] if found else ""


def substituted(text: str, variables: Mapping[str, str], escape: str = "\\") -> str:
    """Text with variables substituted and quotes left as they are (an exec-form JSON element)."""
    found = _Lexer(text, variables, escape, split=False, quotes=False).run()
    return found[0] if found else ""


def heredoc_text(text: str, variables: Mapping[str, str], escape: str = "\\") -> str:
    """A heredoc's body with `$VAR` and `${VAR}` expanded, as a shell expands an unquoted heredoc:
    the escape character keeps a `$` or itself literal, and stays before anything else."""
    out: list[str] = []
    lexer = _Lexer(text, variables, escape, split=False, quotes=False)
    while lexer.at < len(text):
        char = text[lexer.at]
        if char == escape and text[lexer.at + 1 : lexer.at + 2] in ("$", escape):
            out.append(text[lexer.at + 1])
            lexer.at += 2
        elif char == "$":
            out.append(lexer._variable())
        else:
            out.append(char)
            lexer.at += 1
    return "".join(out)


class _Lexer:
    def __init__(
        self, text: str, variables: Mapping[str, str], escape: str, *, split: bool, quotes: bool
    ):
        self.text = text
        self.variables = variables
        self.escape = escape
        self.split = split
        self.quotes = quotes
        self.at = 0

    def run(self) -> list[str]:
        found: list[str] = []
        current: list[str] = []
        started = False  # `""` is a word even though it adds no characters
        while self.at < len(self.text):
            char = self.text[self.at]
            if self.split and char in " \t\r\n":
                if started:
                    found.append("".join(current))
                    current, started = [], False
                self.at += 1
                continue
            started = True
            current.append(self._piece(char))
        if started:
            found.append("".join(current))
        return found

    def _piece(self, char: str) -> str:
        if self.quotes and char == "'":
            end = self.text.find("'", self.at + 1)
            if end < 0:
                raise WordError("a single quote is not closed")
            piece, self.at = self.text[self.at + 1 : end], end + 1
            return piece
        if self.quotes and char == '"':
            return self._double_quoted()
        if char == self.escape and self.quotes and self.at + 1 < len(self.text):
            self.at += 2
            return self.text[self.at - 1]
        if char == "$":
            return self._variable()
        self.at += 1
        return char

    def _double_quoted(self) -> str:
        piece: list[str] = []
        self.at += 1
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == '"':
                self.at += 1
                return "".join(piece)
            if char == self.escape and self.at + 1 < len(self.text):
                following = self.text[self.at + 1]
                # Inside double quotes only the quote, `$` and the escape itself are escaped.
                escaped = following in ('"', "$", self.escape)
                piece.append(following if escaped else char)
                self.at += 2 if escaped else 1
            elif char == "$":
                piece.append(self._variable())
            else:
                piece.append(char)
                self.at += 1
        raise WordError("a double quote is not closed")

    def _variable(self) -> str:
        following = self.text[self.at + 1 : self.at + 2]
        if following == "{":
            return self._braced()
        if following and following in NAME_START:
            end = self.at + 1
            while end < len(self.text) and self.text[end] in NAME_CHARS:
                end += 1
            name, self.at = self.text[self.at + 1 : end], end
            return self.variables.get(name, "")
        self.at += 1
        return "$"

    def _braced(self) -> str:
        close = self._closing_brace(self.at + 2)
        inner, self.at = self.text[self.at + 2 : close], close + 1
        name_end = 0
        while name_end < len(inner) and inner[name_end] in NAME_CHARS:
            name_end += 1
        name, rest = inner[:name_end], inner[name_end:]
        if not name:
            raise WordError(f"'${{{inner}}}' names no variable")
        if not rest:
            return self.variables.get(name, "")
        modifier = next((m for m in MODIFIERS if rest.startswith(m)), None)
        if modifier is None:
            raise WordError(f"'${{{inner}}}' is not ${{VAR}}, ${{VAR:-x}} or ${{VAR:+x}}")
        alternative = word(rest[len(modifier) :], self.variables, self.escape)
        value = self.variables.get(name)
        present = value is not None and (bool(value) or not modifier.startswith(":"))
        if modifier.endswith("-"):
            return value if present and value is not None else alternative
        return alternative if present else ""

    def _closing_brace(self, start: int) -> int:
        depth = 1
        for index in range(start, len(self.text)):
            if self.text[index] == "{":
                depth += 1
            elif self.text[index] == "}":
                depth -= 1
                if depth == 0:
                    return index
        raise WordError("a '${' is not closed")
