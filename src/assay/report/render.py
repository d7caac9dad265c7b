"""Pages from templates: jinja2 with the templates and the style sheet shipped in the package."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from assay.report.charts import change_chart
from assay.report.comparison import RunComparison
from assay.report.conversation import conversation
from assay.report.pages import RunPage
from assay.runs.headline import axis_text, readable_k, verdict_line
from assay.runs.stamps import now

STYLE = "report.css"
FILTERS = "report_filters.js"  # the one script a report runs: its hash is in the page's CSP
SEGMENT_END = re.compile(r"(?<!\\)\\r(?:\\n)?")  # an escaped CR (or CRLF) in JSON text


@dataclass(frozen=True)
class ComparedPage:
    """A comparison with its chart of per-task changes."""

    compared: RunComparison
    chart: str | None


def compared_page(compared: RunComparison) -> ComparedPage:
    salt = f"{compared.a.id}-{compared.b.id}"
    return ComparedPage(compared, change_chart(compared.comparison.tasks, salt))


def render_report(pages: Sequence[RunPage], comparisons: Sequence[RunComparison] = ()) -> str:
    """One self-contained HTML document: the style inlined, the charts inline SVG, and one script
    (the filters) that the page's Content-Security-Policy admits by its hash, and nothing else."""
    script = asset(FILTERS)
    return (
        environment()
        .get_template("report.html")
        .render(
            pages=pages,
            comparisons=[compared_page(compared) for compared in comparisons],
            generated_at=now(),
            href=lambda result: f"#{result.id}",
            run_href=lambda run_id: f"#{run_id}",
            page_href=None,
            style=asset(STYLE),
            offline=True,
            script=script,
            script_hash=script_digest(script),
        )
    )


@cache
def environment(*packages: str) -> Any:
    """The jinja2 environment over the templates of `packages` (first wins), then the report's."""
    from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined

    loaders = [PackageLoader(package) for package in (*packages, "assay.report")]
    env = Environment(
        loader=ChoiceLoader(loaders),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(num=number, signed=signed, pretty=pretty, action=action_text, axis=axis_text)
    env.globals.update(
        Markup=_markup(),
        verdict_line=verdict_line,
        readable_k=readable_k,
        conversation=conversation,
    )
    return env


def script_digest(script: str) -> str:
    """The CSP source that admits exactly `script` inlined: `'sha256-<base64>'`."""
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return f"'sha256-{digest}'"


def asset(name: str) -> str:
    """A static file shipped with the report package, as text."""
    return files("assay.report").joinpath("static", name).read_text(encoding="utf-8")


def number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def signed(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:+.{digits}f}"


def pretty(value: Any) -> str:
    """Indented JSON; a carriage return inside a text (HL7 v2 ends each segment with one) breaks
    the line there, so a message reads one segment a line rather than as literal `\\r`."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return SEGMENT_END.sub("\n", text)


def action_text(action: dict[str, Any] | None) -> str:
    """One line for a trajectory step's action: the tool call, the message, or the finish."""
    if not action:
        return "no action (the task run ended)"
    if "call" in action:
        call = action["call"]
        args = json.dumps(call.get("args", {}), ensure_ascii=False, default=str)
        return f"call {call.get('tool')}({args})"
    if "say" in action:
        return f"say: {action['say']}"
    if "finish" in action:
        return f"finish: {action['finish']}"
    return json.dumps(action, ensure_ascii=False, default=str)


def _markup() -> Callable[[str], Any]:
    from markupsafe import Markup

    return Markup
