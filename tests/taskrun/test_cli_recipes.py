"""CLI-agent recipes: every shipped one reads, a bad one is one line naming its file and field, and
token usage is read from an agent's log as its recipe says."""

from __future__ import annotations

import pytest
from settingskit import use_settings

from assay.errors import UsageError
from assay.provider import ModelOptions
from assay.taskrun.agents.cli import CliAgents, parse_log, split_spec, usage_of
from assay.taskrun.agents.recipe import Usage, load_recipe, shipped
from assay.world.container.installed import InstalledAgent


def test_assay_ships_the_recipes_its_docs_list() -> None:
    assert shipped() == ["aider", "claude-code", "codex", "mini-swe-agent", "reference"]


@pytest.mark.parametrize("name", shipped())
def test_every_shipped_recipe_reads_and_has_its_files(name: str) -> None:
    recipe = load_recipe(name)

    assert recipe.install.strip() and recipe.run.strip() and recipe.description
    assert all(data for data in recipe.file_contents().values())


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("reference", ("reference", None)),
        ("reference:gpt-4.1", ("reference", "gpt-4.1")),
        ("reference:llama3:8b", ("reference", "llama3:8b")),
        ("./my.toml", ("./my.toml", None)),
        ("/a/b/my.toml:org/model", ("/a/b/my.toml", "org/model")),
    ],
)
def test_a_spec_names_the_recipe_and_the_model(spec: str, expected: tuple) -> None:
    assert split_spec(spec) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('api = "openai-chat"\ninstall = "true"\nrun = "true"\ninstal = "x"\n', "instal: Extra"),
        ('api = "grpc"\ninstall = "true"\nrun = "true"\n', "api: Input should be"),
        ('api = "openai-chat"\nrun = "true"\n', "install: Field required"),
        ('api = "openai-chat"\ninstall = "true"\nrun = "true"\nlog = "/tmp/x"\n', "log: '/tmp/x'"),
        (
            'api = "openai-chat"\ninstall = "true"\nrun = "true"\nfiles = ["gone.py"]\n',
            "files: gone.py",
        ),
        ("api = \n", "not a TOML recipe"),
    ],
)
def test_a_bad_recipe_is_one_line_naming_its_file_and_field(tmp_path, text, message) -> None:
    path = tmp_path / "agent.toml"
    path.write_text(text)

    with pytest.raises(UsageError) as raised:
        load_recipe(str(path))

    assert str(raised.value).startswith(f"{path}: ")
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_an_unknown_name_lists_the_shipped_recipes() -> None:
    with pytest.raises(UsageError, match="unknown CLI agent 'nosuch'; shipped: aider, claude-code"):
        load_recipe("nosuch")


def test_a_recipe_without_a_model_needs_one_named() -> None:
    with pytest.raises(UsageError, match="name the model, as cli:reference:<model>"):
        CliAgents("reference")


def test_the_endpoint_is_the_options_else_the_apis_own_variable(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.0.0.5:8000/v1/")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://gateway.example.org")

    assert CliAgents("aider:m").endpoint == "http://10.0.0.5:8000/v1"  # aider sets OPENAI_API_BASE
    assert CliAgents("claude-code:m").endpoint == "https://gateway.example.org"
    use_settings(monkeypatch, model=ModelOptions(base_url="ftp://x"))
    with pytest.raises(UsageError, match="not an http:// or https:// URL"):
        CliAgents("reference:m")


@pytest.mark.parametrize(
    ("endpoint", "relayed", "host"),
    [
        ("http://127.0.0.1:8000/v1", True, None),
        ("https://api.anthropic.com", False, "api.anthropic.com"),
    ],
)
def test_a_plain_endpoint_is_relayed_and_a_tls_one_allowlisted(endpoint, relayed, host) -> None:
    agent = InstalledAgent(name="a", install="true", endpoint=endpoint)

    assert (agent.relayed, agent.allowed_host) == (relayed, host)


def test_a_layer_is_named_by_the_install_its_files_and_what_is_under_it(tmp_path) -> None:
    base, layer = tmp_path / "bookworm-1", tmp_path / "task-layer"
    agent = InstalledAgent(name="a", install="true", files={"f": b"1"})
    keys = {
        agent.key(base, []),
        agent.key(base, [layer]),
        agent.key(tmp_path / "trixie-1", []),
        InstalledAgent(name="a", install="false", files={"f": b"1"}).key(base, []),
        InstalledAgent(name="a", install="true", files={"f": b"2"}).key(base, []),
    }
    assert len(keys) == 5
    assert agent.key(base, []) == InstalledAgent(name="a", install="true", files={"f": b"1"}).key(
        base, []
    )


@pytest.mark.parametrize(
    ("log", "usage", "expected"),
    [
        # one object per call: summed, each a call
        (
            '{"usage": {"p": 3, "c": 1}}\nnot json\n{"usage": {"p": 5, "c": 2}}\n',
            Usage(input="p", output="c"),
            (2, 8, 3),
        ),
        # the last object is the total; calls from their own field
        (
            '{"usage": {"p": 3, "c": 1}}\n{"type": "result", "turns": 4, "usage": {"p": 9, "c": 7}}\n',
            Usage(input="p", output="c", pick="last", calls="turns"),
            (4, 9, 7),
        ),
        # a whole JSON document, nested; a field that is not a number is no count
        (
            '{"messages": [{"u": {"p": 2, "c": 1}}, {"u": {"p": "x", "c": 1}}]}',
            Usage(input="p", output="c"),
            (1, 2, 1),
        ),
        ("plain text, no JSON", Usage(input="p", output="c"), (0, 0, 0)),
    ],
)
def test_token_usage_is_read_from_the_log_as_the_recipe_says(log, usage, expected) -> None:
    found = usage_of(parse_log(log), usage)

    assert (found.model_calls, found.prompt_tokens, found.completion_tokens) == expected


def test_a_log_that_is_not_json_is_kept_as_its_text() -> None:
    assert parse_log("> aider chat\nApplied edit\n") == "> aider chat\nApplied edit\n"
    assert parse_log('{"a": 1}\nwarning: slow\n') == [{"a": 1}, "warning: slow"]
