"""Reading report pages in tests: the figures they show, and what the store says they should be."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any


class _Fields(HTMLParser):
    """Collects the text of every element that has a `data-field` attribute, per run section."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, dict[str, str]] = {}
        self.run = ""
        self.open: list[tuple[str, str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "section" and values.get("data-run"):
            self.run = values["data-run"] or ""
        if "data-field" in values:
            self.open.append((tag, values["data-field"] or "", []))

    def handle_data(self, data: str) -> None:
        for _, _, texts in self.open:
            texts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self.open and self.open[-1][0] == tag:
            _, name, texts = self.open.pop()
            self.found.setdefault(self.run, {})[name] = " ".join("".join(texts).split())


def shown_fields(html: str) -> dict[str, dict[str, str]]:
    """{run id: {data-field: text}} of a report or a run page ('' for fields outside a run)."""
    parser = _Fields()
    parser.feed(html)
    return parser.found


def num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def verdict_line(run: dict[str, Any]) -> str:
    """The verdict line written out again from the run's JSON, so the page is checked against it."""
    line = (
        f"score {num(run['score'])} ({run['verdict']}) · {run['outcomes']['rule_violated']} rule"
        f" violated · {run['not_scored']} not scored"
    )
    blamed = run["summary"]["verifier_failures_blamed_on_agent"]
    if blamed:
        ran = run["scored"] + run["not_scored"]
        line += f" · {blamed} of {ran} not achieved: the verifier failed after the agent acted"
    return line


def readable_k(ks: Any) -> list[str]:
    """1, powers of two, multiples of five and the last k: those a table row is given."""
    numbers = sorted(int(k) for k in ks)
    return [str(k) for k in numbers if k & (k - 1) == 0 or k % 5 == 0 or k == numbers[-1]]


def expected_fields(run: dict[str, Any]) -> dict[str, str]:
    """What a run's section must show, from a run's JSON (`assay show --json`'s benchmark_run)."""
    expected = {
        "score": num(run["score"]),
        "verdict": run["verdict"],
        "mean_reward": num(run["mean_reward"]),
        "scored": str(run["scored"]),
        "ci95": "—" if run["ci95"] is None else f"[{num(run['ci95'][0])}, {num(run['ci95'][1])}]",
    }
    for outcome, count in run["outcomes"].items():
        expected[f"outcome-{outcome}"] = str(count)
    expected["verdict-line"] = verdict_line(run)
    shown = readable_k(run["pass_at_k"])
    for k, value in run["pass_at_k"].items():
        if k not in shown:
            continue
        expected[f"pass_at_k-{k}"] = num(value)
        expected[f"pass_hat_k-{k}"] = num(run["pass_hat_k"][k])
    for name, axis in run["axes"].items():
        rules_held = f"rules held {axis['rules_held']}/{axis['rules']}"
        expected[f"axis-{name}"] = rules_held if axis["score"] is None else num(axis["score"])
    for name, split in run["by_split"].items():
        expected[f"split-{name}"] = num(split["score"])
    summary = run["summary"]
    for name in (
        "false_completion",
        "duplicate_effects",
        "faults",
        "recovered",
        "unnecessary_interruptions",
        "rejected_attempts",
        "turns",
        "verifier_failures_blamed_on_agent",
    ):
        expected[name] = str(summary[name])
    return expected
