"""The documentation for people: README.md as a first screen, and the site (mkdocs.yml over
docs/) with every page in its navigation, built strictly, pointing only inside the repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder import paths

README = paths.ROOT / "README.md"
DOCS = paths.ROOT / "docs"
MKDOCS = paths.ROOT / "mkdocs.yml"
MAX_README_LINES = 150
MAX_ARCHITECTURE_BYTES = 16_000  # "at most about 15 KB"


def _nav_pages(entries) -> list[str]:
    """Every page the nav lists, in order (its entries are pages, or sections of entries)."""
    found: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found += _nav_pages(value) if isinstance(value, list) else [value]
    return found


def _config() -> dict:
    return yaml.safe_load(MKDOCS.read_text(encoding="utf-8"))


def test_readme_is_a_first_screen():
    """Is README.md at most 150 lines?"""
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines: move the rest into a page of docs/"


def test_readme_keeps_the_two_commands():
    """Does README.md still show the two commands CI runs as the README documents them, `make demo`
    to set up and run the main job and `make test` to set up and run the tests?"""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block is not None, "README.md has no bash block"
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    assert commands == ["make demo", "make test"], commands


#: id: (a pattern a dated or machine-bound measurement has, an example it must catch)
DATED = {
    "iso-date": (r"\b20\d\d-\d\d-\d\d\b", "took 81 s (2026-12-02)"),
    "load-average": (r"\bload (average )?\d", "on a busy machine (load 8 to 10)"),
    "seconds-measured": (r"\b\d+(\.\d+)? s (here|on)\b", "it took 38 s here"),
}


@pytest.mark.parametrize("case_id", list(DATED))
def test_readme_has_no_dated_measurement(case_id):
    """Does README.md hold no dated or machine-bound measurement (those live in the benchmark's
    history), by a search that finds one in a sentence that has it?"""
    pattern, example = DATED[case_id]
    assert re.search(pattern, example), "the search must find its own example"
    found = re.findall(pattern, README.read_text(encoding="utf-8"))
    assert not found, f"README.md: {found}: move measurements to docs/BENCHMARK_HISTORY.md"


@pytest.mark.parametrize("who", ["student", "instructor", "TA", "maintainer"])
def test_readme_says_what_each_reader_reads(who):
    """Does README.md's "Read this" table have a row for each reader, linking to a page of docs/?"""
    row = re.compile(rf"\| an? \*\*{who}\*\* \|")
    rows = [line for line in README.read_text(encoding="utf-8").splitlines() if row.match(line)]
    assert len(rows) == 1, who
    if who != "student":
        assert re.search(r"\]\(docs/[A-Z_]+\.md\)", rows[0]), rows[0]


def test_every_page_is_in_the_navigation():
    """Is every page of docs/ in mkdocs.yml's nav, and every page the nav lists in docs/?"""
    listed = _nav_pages(_config()["nav"])
    pages = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
    missing = [page for page in pages if page not in listed]
    assert missing == [], f"add {missing} to mkdocs.yml's nav, under their readers' section"
    assert [page for page in listed if page not in pages] == []
    assert len(listed) == len(set(listed)), "a page is listed twice"


def test_the_nav_is_by_audience():
    """Is the navigation split by who reads it: instructors, platforms, the generated reference,
    maintainers, the decisions?"""
    sections = [next(iter(entry)) for entry in _config()["nav"] if isinstance(next(iter(entry.values())), list)]
    assert sections == ["Instructors", "Platforms", "Reference", "Maintainers", "Decisions"]


def test_the_architecture_is_short():
    """Is docs/ARCHITECTURE.md at most about 15 KB (the module tree is a page of its own)?"""
    size = len((DOCS / "ARCHITECTURE.md").read_bytes())
    assert size <= MAX_ARCHITECTURE_BYTES, f"docs/ARCHITECTURE.md is {size} bytes"


def test_the_quick_start_has_at_most_ten_steps():
    """Does the instructors' quick start take at most ten numbered steps?"""
    steps = re.findall(r"(?m)^(\d+)\. ", (DOCS / "QUICKSTART.md").read_text(encoding="utf-8"))
    assert 1 <= len(steps) <= 10, steps


def test_decisions_are_short_numbered_records():
    """Is each design decision a numbered record (docs/decisions/NNNN-*.md) with its status, context,
    decision and consequences, in under 60 lines?"""
    records = sorted((DOCS / "decisions").glob("*.md"))
    assert records
    for number, record in enumerate(records, 1):
        assert re.fullmatch(rf"{number:04d}-[a-z0-9-]+\.md", record.name), record.name
        text = record.read_text(encoding="utf-8")
        for part in ("**Status:**", "**Context.**", "**Decision.**", "**Consequences.**"):
            assert part in text, (record.name, part)
        assert text.count("\n") < 60, record.name


def test_no_page_points_outside_the_repository():
    """Does no page of docs/ link to a document outside the repository (a web address)?"""
    found = [
        f"{path.relative_to(DOCS)}: {match}"
        for path in sorted(DOCS.rglob("*.md"))
        for match in re.findall(r"\b(?:https?|ftp)://[^\s)>`]+", path.read_text(encoding="utf-8"))
    ]
    assert found == []


def _build(docs: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of a copy of the site whose pages are ``docs``."""
    config = _config()
    config["docs_dir"] = str(docs)
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


#: id: (the page changed, what is appended to it, the words mkdocs' failure must hold)
BROKEN = {
    "link-to-a-missing-page": ("QUICKSTART.md", "\nSee [nothing](NO_SUCH_PAGE.md).\n", "NO_SUCH_PAGE.md"),
    "link-to-a-missing-anchor": ("QUICKSTART.md", "\nSee [nothing](GRADING.md#no-such-part).\n", "no-such-part"),
    "page-left-out-of-the-nav": ("ORPHAN.md", "# An orphan\n", "ORPHAN.md"),
}


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    """Does the site build with `mkdocs build --strict` (what `make check` runs)?"""
    result = _build(DOCS, tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("case_id", list(BROKEN))
def test_a_broken_site_fails_the_strict_build(case_id, tmp_path):
    """With a broken link, a broken anchor or a page out of the nav, does the strict build fail
    naming it (so `make check` cannot pass over one)?"""
    page, text, words = BROKEN[case_id]
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    with (docs / page).open("a", encoding="utf-8") as file:
        file.write(text)
    result = _build(docs, tmp_path)
    assert result.returncode != 0
    assert words in result.stderr + result.stdout, result.stderr
