"""Run in the verifiers test venv: roll out every task of a world through the `verifiers` library's
own environment loader and episode runner, the model behind `MODEL_URL`; print one JSON line per
episode (task, reward, metrics, errors, the tool calls the harness made)."""

from __future__ import annotations

import asyncio
import json
import sys

import verifiers.v1 as vf
from verifiers.v1.utils.loaders import load_environment

from assay.rl.verifiers import AssayEnvConfig, AssayTasksetConfig


async def main(world: str, model_url: str, tasks: list[str]) -> None:
    config = AssayEnvConfig(
        taskset=AssayTasksetConfig(id="assay_verifiers", world=world, tasks=tasks),
        agent=vf.AgentConfig(harness=vf.HarnessConfig(id="null"), runtime=vf.SubprocessConfig()),
    )
    env = load_environment(config)
    client = vf.EvalClientConfig(base_url=model_url, api_key_var="OPENAI_API_KEY")
    ctx = vf.ModelContext(model="stand-in", client=client)
    async with env.serving():
        for task in env.taskset:
            episode = await env.run_episode(task, ctx)
            for trace in episode.traces:
                calls = [
                    call.name
                    for message in trace.assistant_messages
                    for call in (message.tool_calls or [])
                ]
                row = {
                    "task": task.data.task_id,
                    "reward": trace.reward,
                    "metrics": trace.metrics,
                    "calls": calls,
                    "errors": [e.message for e in [*episode.errors, *trace.errors]],
                }
                print(json.dumps(row), flush=True)
            if not episode.traces:
                print(
                    json.dumps(
                        {"task": task.data.task_id, "errors": [e.message for e in episode.errors]}
                    )
                )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
