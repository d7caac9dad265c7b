"""The worlds a server serves, addressed as `world@version`."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import UsageError
from assay.runs.benchmark import Benchmark, open_benchmark
from assay.served.errors import ApiError
from assay.trust.withdrawn import withdrawn_on_file

if TYPE_CHECKING:
    from assay.formats.verifier_choice import VerifierChoice
    from assay.trust.store import ValidationStore


class Catalog:
    def __init__(self, paths: Iterable[str | Path], store: ValidationStore | None = None):
        """The worlds at `paths`, each without the tasks `store`'s validations withdrew (a
        withdrawn task may not load; it never keeps its world from being served)."""
        self.benchmarks: dict[str, Benchmark] = {}
        # a container-format world loaded again for runs that verify every task separately
        self.separate: dict[str, Benchmark] = {}
        for path in paths:
            withdrawn = withdrawn_on_file(path, store=store)[0] if store is not None else ()
            benchmark = open_benchmark(path, left_out=withdrawn)
            slug = f"{benchmark.world.name}@{benchmark.world.version}"
            if slug in self.benchmarks:
                raise UsageError(f"--worlds: {slug} is given twice")
            self.benchmarks[slug] = benchmark
        if not self.benchmarks:
            raise UsageError("--worlds: serve at least one world")

    def find(self, slug: str, verifier_mode: VerifierChoice = "task") -> Benchmark:
        """`world@version`, or just `world` when one version of it is served, loaded to verify
        its tasks as `verifier_mode` says."""
        name, benchmark = self._served(slug)
        if verifier_mode == "task":
            return benchmark
        if not benchmark.world.kind.sandboxed:
            raise ApiError(
                422,
                "invalid_request",
                f"verifier_mode: {verifier_mode} is for container-format tasks; "
                f"{name} is a database world",
            )
        found = self.separate.get(name)
        if found is None:
            found = open_benchmark(
                benchmark.world.root,
                verifier_mode=verifier_mode,
                left_out=benchmark.world.left_out,
            )
            self.separate[name] = found
        return found

    def of(self, world: str, version: str, verifier_mode: VerifierChoice = "task") -> Benchmark:
        return self.find(f"{world}@{version}", verifier_mode)

    def _served(self, slug: str) -> tuple[str, Benchmark]:
        if slug in self.benchmarks:
            return slug, self.benchmarks[slug]
        versions = [name for name in self.benchmarks if name.split("@")[0] == slug]
        if len(versions) == 1:
            return versions[0], self.benchmarks[versions[0]]
        served = ", ".join(sorted(self.benchmarks))
        raise ApiError(404, "not_found", f"no benchmark {slug!r} (served: {served})")
