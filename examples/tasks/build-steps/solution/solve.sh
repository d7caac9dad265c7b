#!/bin/bash
cd /opt/app
python3 - <<'PY'
import configparser
import csv
import os
from collections import Counter
from pathlib import Path

config = configparser.ConfigParser()
config.read("config.ini")
totals = Counter()
for path in sorted(Path(os.environ["DATA_DIR"]).glob("*.csv")):
    with path.open(newline="") as rows:
        for row in csv.DictReader(rows):
            totals[row["item"]] += int(row["count"])
lines = [config["report"]["title"]]
lines += [f"{item} {totals[item]}" for item in sorted(totals)]
lines.append(Path("build-stamp.txt").read_text().strip())
Path("report.txt").write_text("\n".join(lines) + "\n")
PY
