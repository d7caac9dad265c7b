"""The viewer's pages as a FastAPI router over a store; `assay view` serves it alone, `assay serve`
mounts it at /view behind the operator key. Every page is read-only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from assay.errors import UsageError
from assay.report.comparison import load_comparison
from assay.report.pages import load_run_page
from assay.report.render import STYLE, asset, compared_page, environment
from assay.report.selection import selected, task_run_filters
from assay.runs.record import load_outcome
from assay.runs.store import Store, UnknownRun
from assay.score.result import TaskRunResult
from assay.view.filters import run_filters


def viewer_router(store: Store) -> APIRouter:
    """The viewer's routes over `store`; their names start with `view_` for `url_for`."""
    router = APIRouter(include_in_schema=False)
    _add_run_pages(router, store)
    _add_compare_pages(router, store)

    @router.get(f"/assets/{STYLE}", name="view_style")
    def style() -> Response:
        headers = {"Cache-Control": "max-age=3600"}
        return Response(asset(STYLE), media_type="text/css", headers=headers)

    return router


def _add_run_pages(router: APIRouter, store: Store) -> None:
    """The list of runs, a run's page and a task run's page."""

    @router.get("/", name="view_runs")
    def runs(
        request: Request,
        world: str | None = None,
        agent: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: str | None = None,
    ) -> Response:
        try:
            filters = run_filters(world, agent, since, until, limit)
        except UsageError as error:
            return _error(request, 422, str(error))
        listed = store.recent(**filters.query())  # type: ignore[arg-type]
        return _page(request, "view_runs.html", runs=listed, filters=filters)

    @router.get("/runs/{run_id}", name="view_run")
    def run(
        request: Request,
        run_id: str,
        outcome: str | None = None,
        split: str | None = None,
        task: str | None = None,
        axis: str | None = None,
        rule: str | None = None,
        text: str | None = None,
    ) -> Response:
        try:
            filters = task_run_filters(
                outcome=outcome, split=split, task=task, axis=axis, rule=rule, text=text
            )
            whole = load_run_page(store, run_id)
        except UnknownRun as error:
            return _error(request, 404, str(error))
        except UsageError as error:
            return _error(request, 422, str(error))
        page = selected(whole, filters)
        link = _task_run_link(request, page.run.id)
        values = {"page": page, "whole": whole, "filters": filters}
        return _page(request, "view_run.html", **values, href=link, page_href=link)

    @router.get("/runs/{run_id}/task-runs/{task_run_id}", name="view_task_run")
    def task_run(request: Request, run_id: str, task_run_id: str) -> Response:
        try:
            outcome = load_outcome(store, run_id, task=task_run_id, trajectories=True)
        except UnknownRun as error:
            return _error(request, 404, str(error))
        found = [result for result in outcome.task_runs if result.id == task_run_id]
        if not found:
            message = f"run {outcome.benchmark_run.id} has no finished task run {task_run_id!r}"
            return _error(request, 404, message)
        return _page(request, "view_task_run.html", run=outcome.benchmark_run, result=found[0])


def _add_compare_pages(router: APIRouter, store: Store) -> None:
    """Two runs side by side: picked, compared, and one task's task runs in each."""

    @router.get("/compare", name="view_compare")
    def compare(request: Request, a: str | None = None, b: str | None = None) -> Response:
        if not a or not b:
            return _page(request, "view_pick.html", runs=store.recent(100), a=a or "", b=b or "")
        try:
            item = compared_page(load_comparison(store, a, b))
        except UsageError as error:  # an unknown run, or runs of two worlds
            status = 404 if isinstance(error, UnknownRun) else 422
            return _error(request, status, str(error))

        def task_href(task_id: str) -> str:
            path = _path(request, "view_compare_task", task_id=task_id)
            return f"{path}?{urlencode({'a': a, 'b': b})}"

        return _page(request, "view_compare.html", item=item, task_href=task_href)

    @router.get("/compare/tasks/{task_id}", name="view_compare_task")
    def compare_task(request: Request, task_id: str, a: str = "", b: str = "") -> Response:
        try:
            sides = [load_outcome(store, run_id, task=task_id) for run_id in (a, b)]
        except UnknownRun as error:
            return _error(request, 404, str(error))
        except UsageError as error:
            return _error(request, 422, str(error))
        if not any(side.task_runs for side in sides):
            return _error(request, 404, f"neither run has a finished task run of {task_id!r}")
        links = {
            side.benchmark_run.id: _task_run_link(request, side.benchmark_run.id) for side in sides
        }
        return _page(request, "view_compare_task.html", task_id=task_id, sides=sides, links=links)


def _page(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    page = environment("assay.view").get_template(template)
    values.setdefault("page_href", None)
    html = page.render(
        url=lambda name, **params: _path(request, name, **params),
        run_href=lambda run_id: _path(request, "view_run", run_id=run_id),
        style_href=_path(request, "view_style"),
        offline=False,
        **values,
    )
    return HTMLResponse(html, status_code=status)


def _error(request: Request, status: int, message: str) -> HTMLResponse:
    return _page(request, "view_error.html", status=status, status_code=status, message=message)


def _task_run_link(request: Request, run_id: str) -> Callable[[TaskRunResult], str]:
    def link(result: TaskRunResult) -> str:
        return _path(request, "view_task_run", run_id=run_id, task_run_id=result.id)

    return link


def _path(request: Request, name: str, **params: str) -> str:
    """The path of a viewer page, wherever the viewer is mounted: links stay on the same host."""
    return request.url_for(name, **params).path
