"""README.md's links lead somewhere: relative ones to files of the repository, and an anchor to a
heading of the page it names (GitHub shows the README apart from the site, so mkdocs cannot check it)."""

from __future__ import annotations

import re
from pathlib import Path

from docskit import ROOT, blocks
from markdown.extensions.toc import slugify

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def links(page: Path) -> list[str]:
    """The link targets of a page, leaving out its fenced blocks."""
    text = page.read_text()
    for block in blocks(page):
        text = text.replace(block.text, "")
    return LINK.findall(text)


def headings(page: Path) -> set[str]:
    """The anchors of a page's headings, as the site's table of contents makes them."""
    text = page.read_text()
    for block in blocks(page):
        text = text.replace(block.text, "")
    titles = re.findall(r"^#{1,6} (.+)$", text, re.M)
    return {slugify(title.replace("`", ""), "-") for title in titles}


def test_readme_links_point_at_files_and_headings_that_exist():
    readme = ROOT / "README.md"
    targets = [target for target in links(readme) if not re.match(r"[a-z]+:", target)]
    assert len(targets) >= 10, targets  # the README is mostly a way into docs/
    broken = []
    for target in targets:
        path, _, anchor = target.partition("#")
        page = (readme.parent / path).resolve() if path else readme
        if not page.exists():
            broken.append(f"{target}: no file {path}")
        elif anchor and anchor not in headings(page):
            broken.append(f"{target}: {path or 'README.md'} has no heading #{anchor}")
    assert not broken, "\n".join(broken)


def test_a_broken_link_is_caught(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n[gone](missing.md) [here](#top)\n\n```sh\n[not a link](x.md)\n```\n")
    assert links(page) == ["missing.md", "#top"]
    assert headings(page) == {"top"}
