#!/bin/bash
cat > /app/dedupe.py <<'PY'
import sys

source, target = sys.argv[1], sys.argv[2]
with open(source, encoding="utf-8") as lines:
    kept = dict.fromkeys(line.rstrip("\n") for line in lines)
with open(target, "w", encoding="utf-8") as out:
    out.writelines(line + "\n" for line in kept)
PY
