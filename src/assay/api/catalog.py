"""The worlds a server serves, addressed as `world@version`."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from assay.api.errors import ApiError
from assay.errors import UsageError
from assay.runs.benchmark import Benchmark, open_benchmark


class Catalog:
    def __init__(self, paths: Iterable[str | Path]):
        self.benchmarks: dict[str, Benchmark] = {}
        for path in paths:
            benchmark = open_benchmark(path)
            slug = f"{benchmark.world.name}@{benchmark.world.version}"
            if slug in self.benchmarks:
                raise UsageError(f"--worlds: {slug} is given twice")
            self.benchmarks[slug] = benchmark
        if not self.benchmarks:
            raise UsageError("--worlds: serve at least one world")

    def find(self, slug: str) -> Benchmark:
        """`world@version`, or just `world` when one version of it is served."""
        if slug in self.benchmarks:
            return self.benchmarks[slug]
        versions = [name for name in self.benchmarks if name.split("@")[0] == slug]
        if len(versions) == 1:
            return self.benchmarks[versions[0]]
        served = ", ".join(sorted(self.benchmarks))
        raise ApiError(404, "not_found", f"no benchmark {slug!r} (served: {served})")

    def of(self, world: str, version: str) -> Benchmark:
        return self.find(f"{world}@{version}")
