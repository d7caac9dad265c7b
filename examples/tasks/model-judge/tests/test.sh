#!/bin/bash
# The judge pattern: ask a chat-completions endpoint a yes/no question about the agent's output.
# No reward file when the judge cannot be reached, so the task run is INDETERMINATE, not 0.
mkdir -p /logs/verifier
python3 - <<'PY'
import json
import os
import sys
import urllib.request
from pathlib import Path

REWARD = Path("/logs/verifier/reward.json")
poem = Path("/app/poem.txt")
if not poem.is_file() or not poem.read_text().strip():
    print("no poem at /app/poem.txt")
    REWARD.write_text(json.dumps({"reward": 0}))
    sys.exit(0)

question = (
    "Is the following text a haiku: three lines of five, seven and five syllables? "
    "Answer with one word, yes or no.\n\n" + poem.read_text()
)
request = urllib.request.Request(
    os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions",
    data=json.dumps({
        "model": os.environ["JUDGE_MODEL"],
        "messages": [{"role": "user", "content": question}],
        "temperature": 0,
    }).encode(),
    headers={
        "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
        "Content-Type": "application/json",
    },
)
try:
    with urllib.request.urlopen(request, timeout=60) as response:
        answer = json.load(response)["choices"][0]["message"]["content"]
except Exception as error:
    print(f"the judge could not be asked: {error}")
    sys.exit(1)
print(f"judge says: {answer!r}")
verdict = answer.strip().lower().startswith("yes")
REWARD.write_text(json.dumps({"reward": int(verdict)}))
PY
