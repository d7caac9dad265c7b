"""The documentation site builds strictly and offline, with its API and CLI reference generated
from the code, and a broken link or anchor fails the build."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from docskit import ROOT


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=120,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    done = build(ROOT / "mkdocs.yml", site)
    assert done.returncode == 0, done.stderr
    return site


def test_the_openapi_document_and_its_endpoint_table(site):
    document = json.loads((site / "api" / "openapi.json").read_text())
    assert document["info"]["title"] == "assay"
    table = (site / "api" / "reference" / "index.html").read_text()
    for path in document["paths"]:
        assert f"<code>{path}</code>" in table, path
    assert "/v1/task-runs/{task_run_id}/act" in document["paths"]


def test_the_cli_reference_lists_every_command_and_option(site):
    import typer

    from assay.cli.app import app

    page = (site / "cli" / "index.html").read_text()
    root = typer.main.get_command(app)
    for name, command in root.commands.items():
        for sub in getattr(command, "commands", {None: command}):
            assert f"assay {name}" + (f" {sub}" if sub else "") in page
    for option in ("--fail-under", "--world-db", "--include-withdrawn", "--verifier-mode"):
        assert f"<code>{option}</code>" in page


def test_the_python_reference_lists_every_public_name(site):
    """Each name `assay` exports, and the client's classes, methods and answers, has its entry
    (an anchor mkdocstrings writes from the docstrings), with its signature."""
    import assay
    from assay.client import Client, RunClient

    page = (site / "python" / "index.html").read_text()
    anchors = set(re.findall(r'id="(assay\.[\w.]+)"', page))
    public = {f"assay.{name}" for name in assay.__all__}
    client = {
        f"assay.client.{cls.__name__}.{name}"
        for cls in (Client, RunClient)
        for name in vars(cls)
        if not name.startswith("_")
    }
    answers = {
        f"assay.served.wire.{name}"
        for name in ("RunCreated", "Completion", "TaskRunOut", "BenchmarkRunOut", "CheckRunOut")
    }
    assert public | client | answers <= anchors
    assert {name for name in anchors if name.count(".") == 1} == public  # nothing private
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    assert "run_benchmark( benchmark: Benchmark, agent: str | GivenAgent," in text
    assert " ".join(assay.Agent.__doc__.split(".")[0].split()) in text


def test_the_site_fetches_nothing_from_elsewhere(site):
    remote = re.compile(r"""<(?:script|link|img)[^>]+(?:src|href)="https?://""")
    offenders = [
        page.relative_to(site).as_posix()
        for page in site.rglob("*.html")
        if remote.search(page.read_text())
    ]
    assert not offenders


@pytest.mark.parametrize(
    ("link", "complaint"),
    [("[gone](missing.md)", "missing.md"), ("[gone](index.md#nowhere)", "nowhere")],
)
def test_a_broken_link_fails_the_build(tmp_path, link, complaint):
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config.pop("hooks")
    config.update(nav=["index.md", "other.md"], docs_dir="pages")
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "index.md").write_text("# Home\n")
    (tmp_path / "pages" / "other.md").write_text(f"# Other\n\n{link}\n")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert complaint in done.stderr
