"""Hot-path figures of the container-format sandbox: start, exec round trip, put, stop.

Run `python bench/sandbox.py` as root with the sandbox's Debian packages installed (`make
sandbox-tools`); it prints one JSON object of medians and maxima in milliseconds over 20 samples,
after the base root is built (not timed). Goals (not asserted anywhere): start ≤ 50 ms, an exec of
`true` ~10 ms.
"""

from __future__ import annotations

import json
import os
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


def figures(scratch: Path, *, network: str) -> dict[str, dict[str, float]]:
    from assay.world.container import Sandbox

    source = small_dir(scratch)
    starts, execs, puts, stops = [], [], [], []
    for index in range(SAMPLES):
        home = scratch / f"{network}-{index}"
        started = time.perf_counter()
        box = Sandbox.start(home, network=network)
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
    from assay.world.container import sandbox_available
    from assay.world.container.confine import default_base

    missing = sandbox_available()
    if missing:
        sys.exit(f"no sandbox here: {missing}")
    default_base()  # built once, before anything is timed
    with tempfile.TemporaryDirectory(dir="/var/tmp") as scratch:
        os.chmod(scratch, 0o711)  # each sandbox's keeper, an unprivileged uid, walks into it
        result = {
            "samples": SAMPLES,
            "no_network": figures(Path(scratch), network="no-network"),
            "public": figures(Path(scratch), network="public"),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
