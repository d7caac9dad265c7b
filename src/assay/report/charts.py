"""Charts as inline SVG, drawn by matplotlib: pass@k and pass^k over k, axis scores, per-task
changes. Static SVG needs no script and no network, so a report file stays whole offline."""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping, Sequence

from assay.runs.compare import TaskChange
from assay.runs.headline import readable_k

OUTCOME_COLOURS = {
    "verified": "#2e7d32",
    "not_achieved": "#f9a825",
    "rule_violated": "#c62828",
    "not_scored": "#8e24aa",
}
_drawing = threading.Lock()  # matplotlib's settings are global: one chart at a time


def pass_k_chart(pass_at_k: Mapping[str, float], pass_hat_k: Mapping[str, float], salt: str) -> str:
    """pass@k and pass^k against k, one line each; `salt` keeps SVG ids apart on one page."""
    ks = [int(k) for k in pass_at_k]
    figure, axes = _figure(4.6, 2.8)
    axes.plot(ks, list(pass_at_k.values()), marker="o", label="pass@k", color="#1565c0")
    axes.plot(ks, list(pass_hat_k.values()), marker="s", label="pass^k", color="#ef6c00")
    axes.set_xticks([int(k) for k in readable_k(pass_at_k)])  # every k is drawn, a few labelled
    axes.set_xlabel("k")
    axes.set_ylim(-0.02, 1.02)
    axes.set_ylabel("mean over tasks")
    axes.legend(loc="lower left", frameon=False)
    axes.grid(alpha=0.3)
    return _svg(figure, salt, "pass@k and pass^k over k")


def axes_chart(scores: Mapping[str, float], salt: str) -> str:
    """One horizontal bar per axis: its mean score."""
    names = list(scores)
    figure, axes = _figure(4.6, 0.5 + 0.35 * len(names))
    axes.barh(names, list(scores.values()), color="#1565c0")
    axes.set_xlim(0, 1)
    axes.invert_yaxis()
    axes.set_xlabel("mean score")
    axes.grid(axis="x", alpha=0.3)
    return _svg(figure, salt, "score per axis")


def change_chart(tasks: Sequence[TaskChange], salt: str) -> str | None:
    """One bar per task scored in both runs: B's mean score minus A's, red where it fell."""
    paired = [task for task in tasks if task.score_change is not None]
    if not paired:
        return None
    names = [task.task_id for task in paired]
    values = [task.score_change or 0.0 for task in paired]
    colours = ["#c62828" if v < 0 else "#2e7d32" if v > 0 else "#9e9e9e" for v in values]
    figure, axes = _figure(5.6, 0.6 + 0.3 * len(names))
    axes.barh(names, values, color=colours)
    axes.axvline(0, color="#424242", linewidth=0.8)
    axes.set_xlim(-1.05, 1.05)
    axes.invert_yaxis()
    axes.set_xlabel("mean score change (B − A)")
    axes.grid(axis="x", alpha=0.3)
    return _svg(figure, salt, "mean score change per task")


def _figure(width: float, height: float):
    from matplotlib.figure import Figure  # here: only a report pays for matplotlib

    figure = Figure(figsize=(width, height))
    axes = figure.subplots()
    axes.spines[["top", "right"]].set_visible(False)
    return figure, axes


def _svg(figure, salt: str, label: str) -> str:
    """The figure as an `<svg>` element: text kept as text, no date, ids salted per chart."""
    import matplotlib

    buffer = io.StringIO()
    settings = {"svg.fonttype": "none", "svg.hashsalt": salt, "font.size": 9}
    with _drawing, matplotlib.rc_context(settings):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    element = text[text.index("<svg") :]
    return element.replace("<svg ", f'<svg role="img" aria-label="{label}" ', 1)
