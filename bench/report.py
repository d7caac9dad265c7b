"""Report figures: a report of 1,000 task runs, its size and how long headless Chromium takes to
open it; and the same run as a bundle.

Run `python bench/report.py`; it prints one JSON object. Goal (not asserted anywhere): the report
opens in ≤ 2 s and weighs ≤ 10 MB.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from browserkit import chromium

from assay.report.pages import load_run_page
from assay.report.render import render_report
from assay.runs import open_benchmark, prepare
from assay.runs.bundle import write_bundle
from assay.runs.record import record_run
from assay.runs.store import open_store

TASK_RUNS = 1000
SHOP = Path(__file__).resolve().parents[1] / "worlds" / "shop"


def stored_run(folder: Path) -> tuple[str, str]:
    """A store holding one run of TASK_RUNS real task runs of the example world."""
    url = f"sqlite:///{folder / 'records.db'}"
    benchmark = open_benchmark(SHOP)
    tasks = [task.id for task in benchmark.world.tasks.values() if task.split != "holdout"]
    repeats = -(-TASK_RUNS // len(tasks))
    with open_store(url) as store:
        planned = prepare(benchmark, "reference", tasks, repeats=repeats)
        outcome = record_run(store, benchmark, "reference", planned, repeats=repeats)
    return url, outcome.benchmark_run.id


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        url, run_id = stored_run(Path(folder))
        started = time.perf_counter()
        with open_store(url) as store:
            page = load_run_page(store, run_id)
            html = render_report([page])
            written = time.perf_counter() - started
            bundle = Path(folder) / "run.bundle.json.gz"
            write_bundle(store, run_id, bundle)
        report = Path(folder) / "report.html"
        report.write_text(html, encoding="utf-8")
        with chromium() as browser:
            tab = browser.new_page()
            opened = time.perf_counter()
            tab.goto(report.as_uri(), wait_until="load")
            tab.locator("details.task-run").last.wait_for(state="attached")
            load_s = time.perf_counter() - opened
        print(
            json.dumps(
                {
                    "task_runs": len(page.task_runs),
                    "report_mb": round(report.stat().st_size / 1e6, 2),
                    "report_written_s": round(written, 2),
                    "chromium_load_s": round(load_s, 2),
                    "bundle_mb": round(bundle.stat().st_size / 1e6, 2),
                }
            )
        )


if __name__ == "__main__":
    main()
