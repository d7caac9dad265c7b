"""A Python client of the HTTP API: create a benchmark run, drive its task runs, read the results.

Every answer is the API's own response model (`assay.served.wire`), so fields are attributes:

```python
from assay.client import Client

with Client("http://127.0.0.1:8000", api_key="aso_...") as client:
    run = client.create_run("shop@1", tasks=["update-address"])
    for task_run in run.task_runs:
        observation = run.start(task_run.id)
        run.call(task_run.id, "update_address", order_id="B-2003", address="18 Mill Lane, York")
        print(run.complete(task_run.id, "Updated.").outcome)
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel

from assay.served.wire import (
    BenchmarkRunOut,
    CheckRunOut,
    CheckRunPage,
    Completion,
    RunCreated,
    TaskRunLink,
    TaskRunOut,
)
from assay.taskrun.agents.base import Agent
from assay.taskrun.observation import Observation

Answer = TypeVar("Answer", bound=BaseModel)


class ApiError(Exception):
    """A 4xx or 5xx answer: its status and the `{error: {code, message}}` the API sent."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


def _answer(response: httpx.Response) -> Any:
    body = response.json() if response.content else None
    if response.status_code == 422 and isinstance(body, dict) and "observation" in body:
        return body["observation"]  # a rejected call still counts and has its observation
    if response.status_code >= 400:
        error = body.get("error", {}) if isinstance(body, dict) else {}
        raise ApiError(
            response.status_code, error.get("code", "error"), error.get("message", response.text)
        )
    return body


class _Http:
    def __init__(self, base_url: str, token: str, timeout: float, transport: Any):
        self.http = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout,
            transport=transport,
        )

    def post(self, answer: type[Answer], path: str, body: dict[str, Any] | None = None) -> Answer:
        return answer.model_validate(_answer(self.http.post(path, json=body)))

    def get(self, answer: type[Answer], path: str, **params: Any) -> Answer:
        return answer.model_validate(_answer(self.http.get(path, params=params)))

    def close(self) -> None:
        self.http.close()


class _Connected:
    """A client's connection to the server: closed by `close()`, or on leaving a `with` block."""

    _http: _Http

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Client(_Connected):
    """The operator's side: create benchmark runs and read any of them."""

    def __init__(
        self, base_url: str, *, api_key: str, timeout: float = 30.0, transport: Any = None
    ):
        self.base_url = base_url
        self.timeout = timeout
        self.transport = transport
        self._http = _Http(base_url, api_key, timeout, transport)

    def create_run(
        self,
        benchmark: str,
        *,
        tasks: list[str] | None = None,
        split: list[str] | None = None,
        repeats: int = 1,
        scored: bool = False,
        agent: str = "http",
        verifier_mode: str = "task",
    ) -> RunClient:
        """A new benchmark run of `benchmark` (`world@version`), driven through the RunClient
        answered; `tasks` and `split` choose its tasks (default: every task of train and dev)."""
        body = {"benchmark": benchmark, "repeats": repeats, "scored": scored, "agent": agent}
        if tasks is not None:
            body["tasks"] = tasks
        if split is not None:
            body["split"] = split
        if verifier_mode != "task":  # a server from before the field takes the default alone
            body["verifier_mode"] = verifier_mode
        created = self._http.post(RunCreated, "/v1/benchmark-runs", body)
        return RunClient(self.base_url, created, timeout=self.timeout, transport=self.transport)

    def benchmark_run(self, run_id: str) -> BenchmarkRunOut:
        """Any benchmark run, its task runs and (once completed) its aggregate."""
        return self._http.get(BenchmarkRunOut, f"/v1/benchmark-runs/{run_id}")

    def criterion_run(self, check_run_id: str) -> CheckRunOut:
        """One criterion run with its full details and evidence."""
        return self._http.get(CheckRunOut, f"/v1/criterion-runs/{check_run_id}")


class RunClient(_Connected):
    """One benchmark run, driven with its own bearer token; `created` is what creating it answered
    (keep it to drive the run again later, from another process)."""

    def __init__(
        self,
        base_url: str,
        created: RunCreated,
        *,
        timeout: float = 30.0,
        transport: Any = None,
    ):
        self.created = created
        self.id = created.benchmark_run_id
        self.token = created.bearer_token
        self.task_runs: list[TaskRunLink] = created.task_runs
        self._http = _Http(base_url, self.token, timeout, transport)

    def start(self, task_run_id: str) -> Observation:
        """Reset the task run's world; its first observation."""
        return self._http.post(Observation, f"/v1/task-runs/{task_run_id}/start")

    def act(self, task_run_id: str, action: dict[str, Any] | BaseModel) -> Observation:
        """`{"call": {...}}` or `{"say": ...}` (or the typed Call/Say); the next observation."""
        body = action.model_dump() if isinstance(action, BaseModel) else action
        return self._http.post(Observation, f"/v1/task-runs/{task_run_id}/act", body)

    def call(self, task_run_id: str, tool: str, **args: Any) -> Observation:
        """Call `tool` with `args`; the next observation."""
        return self.act(task_run_id, {"call": {"tool": tool, "args": args}})

    def say(self, task_run_id: str, text: str) -> Observation:
        """Send `text` to the customer; the next observation, with the reply."""
        return self.act(task_run_id, {"say": text})

    def complete(self, task_run_id: str, output: str = "") -> Completion:
        """End the task run with the agent's final answer; it is graded there and then."""
        path = f"/v1/task-runs/{task_run_id}/complete"
        return self._http.post(Completion, path, {"output": output})

    def cancel_task_run(self, task_run_id: str) -> TaskRunOut:
        """End a task run as cancelled (graded for the record; it does not count)."""
        return self._http.post(TaskRunOut, f"/v1/task-runs/{task_run_id}/cancel")

    def cancel(self) -> BenchmarkRunOut:
        """Cancel the whole benchmark run."""
        return self._http.post(BenchmarkRunOut, f"/v1/benchmark-runs/{self.id}/cancel")

    def get(self) -> BenchmarkRunOut:
        """This benchmark run, its task runs and (once completed) its aggregate."""
        return self._http.get(BenchmarkRunOut, f"/v1/benchmark-runs/{self.id}")

    def task_run(self, task_run_id: str) -> TaskRunOut:
        """One task run, with its result once completed."""
        return self._http.get(TaskRunOut, f"/v1/task-runs/{task_run_id}")

    def criterion_runs(self, task_run_id: str) -> list[CheckRunOut]:
        """Every criterion run of a task run, following the pages."""
        found: list[CheckRunOut] = []
        cursor = None
        while True:
            params = {"task_run_id": task_run_id, **({"cursor": cursor} if cursor else {})}
            page = self._http.get(CheckRunPage, "/v1/criterion-runs", **params)
            found += page.data
            cursor = page.next_cursor
            if cursor is None:
                return found

    def run_agent(self, make_agent: Callable[[TaskRunLink], Agent]) -> list[Completion]:
        """Drive every task run with an in-process `Agent` (the one `assay run` takes);
        `make_agent(task_run)` makes one per task run. The completions, in order."""
        from assay.taskrun.actions import Finish, parse_action

        completions = []
        for task_run in self.task_runs:
            agent = make_agent(task_run)
            observation = self.start(task_run.id)
            output = ""
            while not observation.done:
                action = parse_action(agent.act(observation))
                if isinstance(action, Finish):
                    output = action.finish
                    break
                observation = self.act(task_run.id, action)
            completions.append(self.complete(task_run.id, output))
        return completions
