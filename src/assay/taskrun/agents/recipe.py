"""CLI-agent recipes: a TOML file that says how to install a command-line agent into a task's
sandbox, how to run it with the instruction, and where it leaves its log; shipped ones by name."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from assay.errors import UsageError

RECIPES = Path(__file__).with_name("recipes")
Api = Literal["openai-chat", "openai-responses", "anthropic-messages"]
# What each API's clients call their endpoint and key, and where the provider serves it.
API_DEFAULTS: dict[str, tuple[str, str, str]] = {
    "openai-chat": ("OPENAI_BASE_URL", "OPENAI_API_KEY", "https://api.openai.com/v1"),
    "openai-responses": ("OPENAI_BASE_URL", "OPENAI_API_KEY", "https://api.openai.com/v1"),
    "anthropic-messages": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "https://api.anthropic.com"),
}


class Usage(BaseModel, defer_build=True):
    """Which fields of the JSON objects in the agent's log count its tokens."""

    model_config = ConfigDict(extra="forbid")
    input: str = Field(description="The field of prompt (input) tokens.")
    output: str = Field(description="The field of completion (output) tokens.")
    pick: Literal["sum", "last"] = Field(
        "sum", description="sum: every object that has them is one model call; last: the total."
    )
    calls: str | None = Field(None, description="A field whose last value counts the calls.")


class Recipe(BaseModel, defer_build=True):
    """One command-line agent: its install, its run, its log."""

    model_config = ConfigDict(extra="forbid")
    description: str = ""
    api: Api = Field(description="The model API the agent speaks.")
    model: str | None = Field(None, description="The model when `cli:NAME` names none.")
    install: str = Field(description="bash, as root with the network, over the task's image.")
    install_timeout_sec: float = Field(900.0, gt=0)
    install_over: Literal["image", "base"] = Field(
        "image",
        description="image: installed over the task's image (a layer per image); base: over its "
        "base root alone (one layer for every image of that root), for self-contained installs.",
    )
    files: list[str] = Field(
        default_factory=list,
        description="Files beside the recipe, put in /tmp/assay-agent-files for the install.",
    )
    run: str = Field(description="bash, as the task's agent user: runs the agent to its end.")
    env: dict[str, str] = Field(default_factory=dict, description="More variables for `run`.")
    base_url_env: list[str] | None = Field(
        None, description="The variables set to the endpoint's URL (default: the API's own)."
    )
    key_env: str | None = Field(
        None, description="The host's variable passed in as the key (default: the API's own)."
    )
    log: str | None = Field(None, description="The agent's own log under /logs/agent.")
    usage: Usage | None = None
    _folder: Path = PrivateAttr(Path("."))  # where `files` are found: the recipe's own folder

    def endpoint_defaults(self) -> tuple[list[str], str, str]:
        """The base URL's variables, the key's variable and the provider's endpoint."""
        url_env, key_env, endpoint = API_DEFAULTS[self.api]
        return self.base_url_env or [url_env], self.key_env or key_env, endpoint

    def file_contents(self) -> dict[str, bytes]:
        return {Path(name).name: (self._folder / name).read_bytes() for name in self.files}


def shipped() -> list[str]:
    """The names of the recipes assay ships."""
    return sorted(path.stem for path in RECIPES.glob("*.toml"))


def load_recipe(name: str) -> Recipe:
    """The shipped recipe `name`, or the recipe in the TOML file `name` names; UsageError with the
    file and field when it is neither or does not read."""
    path = Path(name) if name.endswith(".toml") else RECIPES / f"{name}.toml"
    if not path.is_file():
        if name.endswith(".toml"):
            raise UsageError(f"--agent cli:{name}: no such recipe file")
        known = ", ".join(shipped())
        raise UsageError(
            f"--agent: unknown CLI agent {name!r}; shipped: {known}, or a recipe file (.toml)"
        )
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise UsageError(f"{path}: not a TOML recipe: {error}") from None
    try:
        recipe = Recipe.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(top)"
        raise UsageError(f"{path}: {field}: {first['msg']}") from None
    recipe._folder = path.parent
    missing = [item for item in recipe.files if not (path.parent / item).is_file()]
    if missing:
        raise UsageError(f"{path}: files: {missing[0]} is not beside the recipe")
    if recipe.log is not None and not recipe.log.startswith("/logs/agent/"):
        raise UsageError(f"{path}: log: {recipe.log!r} is not under /logs/agent/")
    return recipe
