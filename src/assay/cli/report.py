"""`assay report`: stored runs, and their comparison, as one HTML file that opens offline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.options import StoreOption
from assay.errors import UsageError


def report(
    runs: Annotated[
        list[str],
        typer.Argument(
            metavar="RUN...",
            help="Benchmark runs (ids or starts of ids, or bundle files); each after the first is "
            "compared with it.",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", metavar="FILE", help="The HTML file to write.")
    ] = Path("report.html"),
    reveal: Annotated[
        bool, typer.Option("--reveal", help="Show details and evidence of a scored run.")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Write one self-contained HTML report of runs: figures, charts, grid, failures, trajectories."""
    from assay.report.requirements import require_report_libraries

    require_report_libraries("assay report")
    from assay.report.comparison import load_comparison
    from assay.report.pages import load_run_page
    from assay.report.render import render_report
    from assay.runs.bundle import opened
    from assay.runs.store import open_store

    with opened(runs, store) as (where, ids), open_store(where) as records:
        pages = [load_run_page(records, run, reveal=reveal) for run in ids]
        first = pages[0].run.id
        comparisons = [load_comparison(records, first, page.run.id) for page in pages[1:]]
    html = render_report(pages, comparisons)
    try:
        out.write_text(html, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"--out: cannot write {out}: {error.strerror or error}") from None
    typer.echo(f"wrote {out} ({len(html.encode()) // 1024} KiB, {len(pages)} runs)", err=True)
