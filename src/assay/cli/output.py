"""How results reach stdout: `--format table|plain|json`, and a console that never wraps a pipe."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from assay.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

FORMATS = ("table", "plain", "json")
# piped output is read by tools and by people with wide windows: a row is never wrapped or cut
UNWRAPPED_WIDTH = 100_000

FormatOption = Annotated[
    str | None,
    typer.Option(
        "--format",
        metavar="table|plain|json",
        help="table (default; never wrapped when piped), plain (a header line, then one row per "
        "line, tab-separated) or json (the same as --json).",
    ),
]


def output_format(chosen: str | None, as_json: bool) -> str:
    """The format `--format` and `--json` ask for together; UsageError when they disagree."""
    if chosen is not None and chosen not in FORMATS:
        raise UsageError(f"--format: {chosen!r} is not one of {', '.join(FORMATS)}")
    if as_json and chosen not in (None, "json"):
        raise UsageError(f"--format: {chosen} disagrees with --json; give one of them")
    return "json" if as_json else chosen or "table"


def stdout_console() -> Console:
    """Rich on stdout: the terminal's width on a terminal, unbounded when piped or redirected."""
    from rich.console import Console
    from rich.highlighter import NullHighlighter

    console = Console(width=None if sys.stdout.isatty() else UNWRAPPED_WIDTH)
    if console.color_system is None:  # no colours: highlighting would style text nobody sees
        console.highlighter = NullHighlighter()
    return console


def plain_console() -> Console:
    """Rich on stdout with no highlighting; Rich is imported when a command prints, not at start."""
    from rich.console import Console

    return Console(highlight=False)


def print_plain(table: Table) -> None:
    """A Rich table as a header line and one line per row, columns separated by tabs."""
    columns = table.columns
    lines = ["\t".join(_plain(column.header, " ") for column in columns)]
    rows = zip(*(list(column.cells) for column in columns), strict=True)
    lines += ["\t".join(_plain(cell) for cell in row) for row in rows]
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


def _plain(cell: object, joint: str = "; ") -> str:
    from rich.text import Text

    text = cell.plain if isinstance(cell, Text) else Text.from_markup(str(cell)).plain
    # a cell of several lines (failed checks, a two-word heading) stays on its row
    return joint.join(part for part in text.replace("\t", " ").splitlines() if part.strip())
