"""Read a job folder with the harbor package's own models (run by the Harbor export test, in a
venv that has harbor): every trial's config, result and trajectory must load; prints one JSON line
per trial with what was read."""

import json
import sys
from pathlib import Path

from harbor.models.trajectories import Trajectory
from harbor.models.trial.config import TrialConfig
from harbor.models.trial.result import TrialResult

for trial in sorted(p for p in Path(sys.argv[1]).iterdir() if p.is_dir()):
    config = TrialConfig.model_validate_json((trial / "config.json").read_text())
    result = TrialResult.model_validate_json((trial / "result.json").read_text())
    trajectory = Trajectory.model_validate_json((trial / "agent" / "trajectory.json").read_text())
    reward = trial / "verifier" / "reward.txt"
    print(
        json.dumps(
            {
                "trial": config.trial_name,
                "task": result.task_name,
                "rewards": result.verifier_result.rewards if result.verifier_result else None,
                "reward_valid": result.reward_valid,
                "reward_txt": reward.read_text().strip() if reward.exists() else None,
                "steps": len(trajectory.steps),
                "tool_calls": sum(len(s.tool_calls or []) for s in trajectory.steps),
                "exception": result.exception_info.exception_type
                if result.exception_info
                else None,
            }
        )
    )
