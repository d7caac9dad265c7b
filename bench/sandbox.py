"""Hot-path figures of the container-format sandbox: start, exec round trip, put, stop.

Run `python bench/sandbox.py` as root with bubblewrap installed; it prints one JSON object of
medians and maxima in milliseconds over 20 samples. Goals (not asserted anywhere): start in the
tens of ms, an exec of `true` ~10 ms.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

SAMPLES = 20


def since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def summary(timings: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(timings), 2), "max_ms": round(max(timings), 2)}


def small_dir(root: Path) -> Path:
    """Ten files of 1 KB in two directories, like a task's tests/."""
    source = root / "small"
    (source / "helpers").mkdir(parents=True, exist_ok=True)
    for index in range(5):
        (source / f"test_{index}.py").write_text("x" * 1024)
        (source / "helpers" / f"h{index}.py").write_text("y" * 1024)
    return source


def figures(scratch: Path, *, overlay: bool) -> dict[str, dict[str, float]]:
    from assay.world.sandbox import Sandbox

    source = small_dir(scratch)
    starts, execs, puts, stops = [], [], [], []
    for index in range(SAMPLES):
        home = scratch / f"{'overlay' if overlay else 'readonly'}-{index}"
        started = time.perf_counter()
        box = Sandbox.start(home, overlay=overlay)
        starts.append(since(started))
        started = time.perf_counter()
        box.exec("true", timeout_s=10)
        execs.append(since(started))
        started = time.perf_counter()
        box.put(source, "/tests")
        puts.append(since(started))
        started = time.perf_counter()
        box.stop()
        stops.append(since(started))
    return {
        "start": summary(starts),
        "exec_true": summary(execs),
        "put_small_dir": summary(puts),
        "stop": summary(stops),
    }


def main() -> None:
    from assay.world.sandbox import sandbox_available

    missing = sandbox_available()
    if missing:
        sys.exit(f"no sandbox here: {missing}")
    with tempfile.TemporaryDirectory(dir="/var/tmp") as scratch:
        result = {
            "samples": SAMPLES,
            "overlay": figures(Path(scratch), overlay=True),
            "readonly_root": figures(Path(scratch), overlay=False),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
