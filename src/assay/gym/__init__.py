"""Gymnasium environments over assay worlds. Importing this module registers `assay/Task-v0`:

    import assay.gym, gymnasium
    env = gymnasium.make("assay/Task-v0", world="worlds/shop", task="refund-double-charge")

Needs the `gym` extra (`pip install 'assay[gym]'`).
"""

from __future__ import annotations

try:
    from gymnasium.envs.registration import register, registry
except ImportError:  # pragma: no cover - only without the extra
    raise ImportError("assay.gym needs the gym extra: pip install 'assay[gym]'") from None

from assay.gym.env import ACTION_MAX, OBSERVATION_MAX, TaskEnv

ENV_ID = "assay/Task-v0"

if ENV_ID not in registry:
    register(id=ENV_ID, entry_point="assay.gym.env:TaskEnv")

__all__ = ["ACTION_MAX", "ENV_ID", "OBSERVATION_MAX", "TaskEnv"]
