"""The `verifiers` library's name for assay's environment: taskset id `assay_verifiers` (verifiers
imports a taskset by a module name without dots); the code is `assay.rl.verifiers`."""

from assay.rl.verifiers import AssayEnv, AssayEnvConfig, AssayTaskset, AssayTasksetConfig

__all__ = ["AssayEnv", "AssayEnvConfig", "AssayTaskset", "AssayTasksetConfig"]
