"""Task runs as reinforcement-learning episodes: the core the Gymnasium environment
(`assay.gym`) and the OpenEnv server (`assay.openenv`) share."""

from assay.rl.episode import Episode, Transition
from assay.rl.pool import TaskPool
from assay.rl.tasks import choose_tasks

__all__ = ["Episode", "TaskPool", "Transition", "choose_tasks"]
