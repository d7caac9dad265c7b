"""The `--agent` text, parsed in this one place: which kind of agent it names, and the rest.

`noop`, `reference` (or `oracle`), `wrong:<name>`, `replay:<path>`, `model:<name>`, `cli:<name>`,
a Python class as `module:Class` or `file.py:Class`, or the name of an agent an installed package
declares in the entry-point group `assay.agents`.
"""

from __future__ import annotations

from dataclasses import dataclass

PREFIXED = ("wrong", "replay", "model", "cli")  # kinds written `<kind>:<argument>`
SCRIPTED = ("noop", "reference", "wrong", "replay")  # no model, no process of their own


@dataclass(frozen=True)
class AgentName:
    """`kind` is one of noop, reference, wrong, replay, model, cli, class (a user's Python class)
    or installed (an entry point's name); `argument` is what follows `<kind>:` (for a class, its
    reference; for an installed agent, its name)."""

    text: str
    kind: str
    argument: str = ""

    @property
    def scripted(self) -> bool:
        """Whether it only sends actions written beforehand (no model, no process of its own)."""
        return self.kind in SCRIPTED

    @property
    def uses_model(self) -> bool:
        """Whether it asks a model through the model options (`model:`, and `cli:` agents)."""
        return self.kind in ("model", "cli")

    @property
    def model(self) -> str | None:
        """The model a `model:<name>` agent asks."""
        return self.argument if self.kind == "model" else None

    @property
    def own_process(self) -> bool:
        """Whether it is a user's Python class, run in a process of its own."""
        return self.kind in ("class", "installed")


def parse_agent(text: str) -> AgentName:
    """The kind and argument of `--agent text`; any text parses (whether the agent exists is for
    `agent_factory` to say)."""
    if text == "noop":
        return AgentName(text, "noop")
    if text in ("reference", "oracle"):  # "oracle": what container-format users call it
        return AgentName(text, "reference")
    prefix, colon, rest = text.partition(":")
    if colon and prefix in PREFIXED:
        return AgentName(text, prefix, rest)
    if colon:
        return AgentName(text, "class", text)
    return AgentName(text, "installed", text)
