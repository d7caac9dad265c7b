"""MkDocs hooks: the API and CLI reference pages are generated from the code at build time.

`docs/api/openapi.json` is the FastAPI app's own OpenAPI document, and the endpoint table on
`api/reference.md` and the command tables on `cli.md` are written from the app and the Typer
command, so none of them can go stale.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
SOURCE = str(ROOT / "src")


def _this_checkout() -> None:
    """Document this checkout, whatever is installed: MkDocs puts sys.path back as it was once a
    hook module is loaded, so the path goes first again before assay is first imported."""
    if sys.path[:1] != [SOURCE]:
        sys.path.insert(0, SOURCE)


OPENAPI_PAGE = "api/reference.md"
OPENAPI_MARKER = "<!-- openapi-endpoints -->"
CLI_PAGE = "cli.md"
CLI_MARKER = "<!-- cli-reference -->"
METHODS = ("get", "post", "put", "patch", "delete")

_openapi: dict[str, Any] = {}


def on_files(files: Any, config: Any) -> Any:
    """Add `api/openapi.json`, made from the app the API serves."""
    _this_checkout()
    _openapi.clear()
    _openapi.update(openapi_document())
    text = json.dumps(_openapi, indent=2, sort_keys=True) + "\n"
    files.append(File.generated(config, "api/openapi.json", content=text))
    return files


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if page.file.src_uri == OPENAPI_PAGE:
        return markdown.replace(OPENAPI_MARKER, endpoint_table(_openapi))
    if page.file.src_uri == CLI_PAGE:
        return markdown.replace(CLI_MARKER, cli_reference())
    return markdown


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document of an API serving the example world, built in a scratch store."""
    from assay.api import open_api

    with tempfile.TemporaryDirectory(prefix="assay-docs-") as scratch:
        before = os.environ.get("ASSAY_HOME")
        os.environ["ASSAY_HOME"] = scratch  # snapshots and the store stay out of the checkout
        try:
            app, _ = open_api(
                [ROOT / "worlds" / "shop"], store=f"{scratch}/api.db", operator_key="docs"
            )
            return app.openapi()
        finally:
            if before is None:
                os.environ.pop("ASSAY_HOME", None)
            else:
                os.environ["ASSAY_HOME"] = before


def endpoint_table(document: dict[str, Any]) -> str:
    """One row per operation: method, path, what it does, the statuses it answers with."""
    rows = ["| method | path | what it does | answers |", "|---|---|---|---|"]
    for path, item in document["paths"].items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            described = operation.get("description", "").split("\n\n")[0]
            summary = described or operation.get("summary", "")
            statuses = ", ".join(sorted(operation.get("responses", {})))
            rows.append(f"| `{method.upper()}` | `{path}` | {_cell(summary)} | {statuses} |")
    return "\n".join(rows) + "\n"


def cli_reference() -> str:
    """A section per command: its help, its arguments and options with their defaults."""
    import typer

    from assay.cli.app import app

    root = typer.main.get_command(app)
    return "\n".join(
        _command_section(path, command) for path, command in _commands(root, ["assay"])
    )


def _commands(group: Any, prefix: list[str]) -> list[tuple[list[str], Any]]:
    found = []
    for name in sorted(group.commands):
        command = group.commands[name]
        if hasattr(command, "commands"):
            found.extend(_commands(command, [*prefix, name]))
        else:
            found.append(([*prefix, name], command))
    return found


def _command_section(path: list[str], command: Any) -> str:
    arguments = [p for p in command.params if p.param_type_name == "argument"]
    usage = " ".join([*path, *(f"{p.name.upper()}" for p in arguments), "[OPTIONS]"])
    lines = [f"## `{' '.join(path)}`", "", _text(command.help or ""), "", f"`{usage}`", ""]
    options = [p for p in command.params if p.param_type_name == "option" and not p.hidden]
    if options:
        lines += ["| option | meaning | default |", "|---|---|---|"]
        for option in options:
            names = ", ".join(f"`{name}`" for name in [*option.opts, *option.secondary_opts])
            default = "" if option.default in (None, False, ()) else f"`{option.default}`"
            lines.append(f"| {names} | {_cell(option.help or '')} | {default} |")
        lines.append("")
    return "\n".join(lines)


def _text(text: str) -> str:
    """Help text as Markdown prose: `<` escaped so `<task>` shows instead of vanishing as HTML."""
    return text.strip().replace("&", "&amp;").replace("<", "&lt;")


def _cell(text: str) -> str:
    return " ".join(_text(text).split()).replace("|", "\\|")
