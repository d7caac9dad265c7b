"""`judge` checks (opt-in): a model reads the agent's final output, and the results of named
read-only queries, against a rubric, and gives a verdict with its reasoning. Marked `judged`
everywhere; a judge that cannot be asked makes the task run not scored, never failed."""

from __future__ import annotations

import json
from typing import Any

from assay.errors import CheckError, UsageError
from assay.formats.checks import JudgeCheck
from assay.provider import ProviderFailed, Usage, counted_reply, make_client
from assay.settings import in_force
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.world.guard import QueryFailed, QueryLimit, QueryRefused, QueryTimeout

ROWS_SHOWN = 20
INSTRUCTIONS = (
    "You grade an AI agent's work against a rubric. Read the rubric, the agent's final answer "
    "and the query results, then reply with only a JSON object: "
    '{"passed": true or false, "score": a number from 0 to 1, "reasoning": "one or two sentences"}.'
)


def run_judge_check(check: JudgeCheck, context: VerifyContext) -> CheckRun:
    model = check.model or in_force().judge_model
    if not model:
        raise CheckError(
            f"check {check.name!r}: a judge check needs a model: model = … in the check, "
            "or the run's judge_model (assay run --judge-model)"
        )
    results = {name: _rows(context, sql, check.name) for name, sql in check.queries.items()}
    prompt = _prompt(check.rubric, context.agent_output, results)
    verdict = _ask(model, prompt, check.name, context.usage)
    return CheckRun.of(
        check,
        passed=verdict["passed"],
        score=verdict["score"],
        details=f"judged by {model}: {verdict['reasoning']}",
        evidence={
            "judged": True,
            "model": model,
            "rubric": check.rubric,
            "queries": results,
            "reasoning": verdict["reasoning"],
        },
        judged=True,
    )


def _rows(context: VerifyContext, sql: str, name: str) -> list[dict[str, Any]]:
    try:
        names, rows = context.final.head(sql, {}, ROWS_SHOWN)
    except (QueryRefused, QueryFailed, QueryTimeout, QueryLimit) as error:
        raise CheckError(f"check {name!r}: a query for the judge failed: {error}") from None
    return [dict(zip(names, row, strict=True)) for row in rows]


def _prompt(rubric: str, output: str, results: dict[str, list[dict[str, Any]]]) -> str:
    shown = json.dumps(results, default=str, indent=1) if results else "(none)"
    return f"Rubric:\n{rubric}\n\nThe agent's final answer:\n{output or '(empty)'}\n\nQuery results:\n{shown}"


def _ask(model: str, prompt: str, name: str, usage: Usage) -> dict[str, Any]:
    """The judge's verdict, its request counted in `usage`; CheckError when the SDK is missing,
    the provider fails or the reply is not a verdict."""
    options = in_force().model
    try:
        client = make_client(options, f"check {name!r}: a judge check", model)
    except UsageError as missing:
        raise CheckError(str(missing)) from None
    try:
        message = counted_reply(
            client,
            usage,
            model=model,
            messages=[
                {"role": "system", "content": INSTRUCTIONS},
                {"role": "user", "content": prompt},
            ],
            **options.request_options(),
        )
    except ProviderFailed as failed:
        raise CheckError(f"check {name!r}: the judge's provider failed: {failed.reason}") from None
    return _verdict(message.content or "", name)


def _verdict(text: str, name: str) -> dict[str, Any]:
    start, end = text.find("{"), text.rfind("}")
    try:
        found = json.loads(text[start : end + 1]) if start >= 0 else None
    except ValueError:
        found = None
    if not isinstance(found, dict) or not isinstance(found.get("passed"), bool):
        raise CheckError(f"check {name!r}: the judge did not give a verdict: {text[:200]!r}")
    score = found.get("score", 1.0 if found["passed"] else 0.0)
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        raise CheckError(f"check {name!r}: the judge's score {score!r} is not in [0, 1]")
    return {
        "passed": found["passed"],
        "score": float(score),
        "reasoning": str(found.get("reasoning", "")),
    }
