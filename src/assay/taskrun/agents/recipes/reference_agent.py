#!/usr/bin/env python3
"""assay's reference command-line agent: a model over the OpenAI Chat Completions API with one
tool, `bash`, until the model replies without calling it. Python's standard library only.

Each exchange is one JSON line of the log: the model's reply (with its token usage) and what each
command it asked for printed. Usage: reference_agent.py --model NAME --log FILE "INSTRUCTION"
(the endpoint and key from $OPENAI_BASE_URL and $OPENAI_API_KEY).
"""

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

SYSTEM = (
    "You are an agent working in a Linux shell. Carry out the user's task with the bash tool. "
    "When the task is done, reply without calling a tool."
)
BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a bash command; returns its exit code, then its output.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}
OUTPUT_LIMIT = 20_000  # characters of a command's output the model sees
TRIES = 5  # of a request that got 429, a 5xx or no answer


def ask(base_url, key, body):
    """One Chat Completions request, retried with backoff on 429, 5xx and dropped connections."""
    request = urllib.request.Request(
        base_url.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    for attempt in range(TRIES):
        try:
            with urllib.request.urlopen(request, timeout=600) as reply:
                return json.load(reply)
        except urllib.error.HTTPError as error:
            if (error.code != 429 and error.code < 500) or attempt == TRIES - 1:
                raise
        except (urllib.error.URLError, TimeoutError, ConnectionError):
            if attempt == TRIES - 1:
                raise
        time.sleep(2**attempt)
    raise AssertionError("unreachable")


def bash(command, timeout_s):
    """Run the command; its exit code (124 past the time limit) and output, cut for the model."""
    try:
        done = subprocess.run(
            ["bash", "-c", command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout_s,
        )
        code, output = done.returncode, done.stdout
    except subprocess.TimeoutExpired as expired:
        code, output = 124, expired.stdout or b""
    text = output.decode(errors="replace")
    if len(text) > OUTPUT_LIMIT:
        half = OUTPUT_LIMIT // 2
        text = (
            f"{text[:half]}\n[... {len(text) - 2 * half} characters left out ...]\n{text[-half:]}"
        )
    return f"exit code {code}\n{text}"


def run_calls(calls, timeout_s):
    """The tool message of each call the model made, in order."""
    results = []
    for item in calls:
        function = item["function"]
        try:
            command = json.loads(function["arguments"] or "{}")["command"]
        except (ValueError, KeyError, TypeError):
            command = None
        if function["name"] != "bash" or not isinstance(command, str):
            content = 'error: call bash with a JSON object {"command": "..."}'
        else:
            content = bash(command, timeout_s)
        results.append({"role": "tool", "tool_call_id": item["id"], "content": content})
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instruction")
    parser.add_argument("--model", required=True)
    parser.add_argument("--log", required=True, help="the JSON-lines log to write")
    parser.add_argument("--max-steps", type=int, default=100)
    parser.add_argument("--command-timeout", type=float, default=600.0)
    args = parser.parse_args()
    base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
    key = os.environ.get("OPENAI_API_KEY", "")
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": args.instruction},
    ]
    with open(args.log, "a", encoding="utf-8") as log:
        log.write(json.dumps({"model": args.model, "messages": messages}) + "\n")
        for step in range(1, args.max_steps + 1):
            body = {"model": args.model, "messages": messages, "tools": [BASH]}
            reply = ask(base_url, key, body)
            message = reply["choices"][0]["message"]
            calls = message.get("tool_calls") or []
            messages.append({k: v for k, v in message.items() if v is not None})
            results = run_calls(calls, args.command_timeout)
            messages.extend(results)
            log.write(json.dumps({"step": step, "reply": reply, "results": results}) + "\n")
            log.flush()
            if not calls:
                print(message.get("content") or "")
                return 0
    print(f"stopped after {args.max_steps} steps", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
