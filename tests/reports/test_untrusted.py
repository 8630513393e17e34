"""Untrusted text where it is shown: students' names (Gradescope's ``submission_metadata.yml``,
an LMS roster) reach Markdown, HTML, CSV and the terminal as text, never as markup, a formula, a
forged line or a control sequence (``autograder/reports/untrusted.py``).

A table of hostile names (Markdown, HTML, a forged line, terminal escapes, spreadsheet formulas,
a bidirectional override, a name of the longest length a field may hold), each given to one
student of a class graded for real (``grade`` through the command line, in the sandbox), then
exported to every LMS with a roster naming them too; every output is read back: feedback.md,
results.json, feedback.html, instructor.html, the class report, grades.csv, each LMS's import
file, and what ``grade`` and ``export`` printed. The rules themselves are checked on the same
table without the sandbox.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from autograder import cli, paths
from autograder.lms import registry, tables
from autograder.reports import output_paths, untrusted
from tests.support import subs

#: id: a student's name as an attacker writes it in submission_metadata.yml
HOSTILE = {
    "markdown bold score": "**100/100**",
    "markdown heading": "# Score: 100",
    "markdown link": "[full marks](javascript:alert(1))",
    "markdown image": "![x](http://evil.example/x.png)",
    "backticks": "```` `code` x",
    "table pipes": "a | b | c",
    "html script": "<script>alert(1)</script>",
    "html img onerror": '<img src=x onerror="alert(1)">',
    "quote in an attribute": '" onmouseover="alert(1)" x="',
    "newline and a score": "Jane\nScore: 100 / 100",
    "clear screen (ESC [ 2 J)": "Bob\x1b[2J\x1b[H",
    "clipboard (OSC 52)": "Eve\x1b]52;c;cm0gLXJmIH4=\x07",
    "bell": "Ding\x07Dong",
    "carriage return": "Mallory\rScore: 100",
    "hyperlink formula": '=HYPERLINK("http://evil.example","grade")',
    "plus command": "+cmd|' /C calc'!A0",
    "at sign formula": "@SUM(1+1)*cmd|' /C calc'!A0",
    "bidi override (U+202E)": "Ann\u202egnp.exe",
    "longest name": "L" * 200 + "<b>" + "o" * 53,
}

NAMES = list(HOSTILE.values())
IDS = list(HOSTILE)

#: Characters that must never reach a page or a terminal raw (tabs and newlines aside).
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _submission(number: int) -> str:
    return f"submission_{number:03d}"


def _email(number: int) -> str:
    return f"h{number}@example.edu"


def _sid(number: int) -> str:
    return f"H{number:03d}"


def _metadata() -> str:
    """submission_metadata.yml as Gradescope writes it, each name double-quoted (YAML's escapes)."""
    lines = []
    for number, name in enumerate(NAMES):
        lines += [f"{_submission(number)}:", "  :submitters:", f"  - :name: {json.dumps(name)}"]
        lines += [f"    :email: {_email(number)}", f"    :sid: '{_sid(number)}'"]
        lines += ["  :created_at: 2026-12-04 10:00:00.000000000 -06:00", "  :score: 0.0", "  :status: processed"]
    return "\n".join(lines) + "\n"


def _light_rubric(folder: Path) -> Path:
    """grading.yml with its examples and edge cases only (what is checked here is the outputs)."""
    data = yaml.safe_load(paths.RUBRIC.read_text())
    for question in data["questions"].values():
        question["checks"] = [check for check in question["checks"] if check["kind"] in ("examples", "edge")]
    data["total"] = sum(check["points"] for question in data["questions"].values() for check in question["checks"])
    path = folder / "grading.yml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# ---------------------------------------------------------------- an LMS roster naming them too

#: lms: (sample roster, its name columns, SID column, email or username column, other unique column)
ROSTER_COLUMNS = {
    "moodle": ("moodle.csv", ("First name",), "ID number", "Email address", None),
    "canvas": ("canvas.csv", ("Student",), "SIS User ID", "SIS Login ID", "ID"),
    "blackboard": ("blackboard.xls", ("First Name",), "Student ID", "Username", None),
}


#: The hostile students the rosters list (the others are "not in the roster": export names them on stderr).
IN_ROSTER = range(0, len(NAMES), 2)


def _roster(lms: str, folder: Path) -> Path:
    """The LMS's sample roster with a row per hostile student of ``IN_ROSTER`` (cloned from its
    first student's row: the name, SID and email or username replaced), written as UTF-8 in its
    delimiter."""
    sample, names, sid, email, unique = ROSTER_COLUMNS[lms]
    table = tables.read(paths.ROOT / "tests" / "fixtures" / "lms" / sample)
    column = {name: position for position, name in enumerate(table.header)}
    model = next(row for row in table.rows if row[column[sid]].startswith("S1"))
    rows = [list(row) for row in table.rows]
    for number in IN_ROSTER:
        row = list(model)
        for position in names:
            row[column[position]] = NAMES[number]
        row[column[sid]] = _sid(number)
        row[column[email]] = _email(number) if "mail" in email or "Login" in email else f"h{number}"
        if unique:
            row[column[unique]] = str(9000 + number)
        rows.append(row)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=table.delimiter, lineterminator="\r\n")
    writer.writerows([list(table.header), *rows])
    path = folder / f"roster-{sample}"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


# ---------------------------------------------------------------- the class, graded and exported


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory, cranfield):
    """The class graded with `grade` and exported with `export` to every LMS through the command
    line, what each printed captured: the output folder and {command: (stdout, stderr)}."""
    import contextlib

    root = tmp_path_factory.mktemp("hostile-names")
    export_folder = root / "export"
    for number in range(len(NAMES)):
        subs.write(export_folder / _submission(number), {})
    (export_folder / "submission_metadata.yml").write_text(_metadata(), encoding="utf-8")
    out = root / "out"
    printed = {}
    for command, argv in [
        (
            "grade",
            ["grade", str(export_folder), "--out", str(out), "--jobs", "2", "--rubric", str(_light_rubric(root))],
        ),
        *(
            (
                f"export {lms}",
                ["export", str(out), "--lms", lms, "--roster", str(_roster(lms, root)), "--out", str(root / lms)]
                + ["--column", "Lab 05"],
            )
            for lms in registry.MODULES
        ),
    ]:
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = cli.main(argv)
        assert status == 0, (command, stderr.getvalue()[-2000:])
        printed[command] = (stdout.getvalue(), stderr.getvalue())
    return out, root, printed


def _page(out: Path, number: int, name: str) -> Path:
    return output_paths.submission_folder(out, _submission(number)) / name


class _Elements(HTMLParser):
    """Every element of a page, its attributes, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _elements(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    return parser


def _assert_html_shows_it(page: str, name: str, where: str) -> None:
    """The name is the page's text (its control characters as escapes); no element or attribute
    comes from it: no <img> or <b>, no event handler, no script but the page's own (no src), no
    javascript: link."""
    parsed = _elements(page)
    assert untrusted.visible(name, keep="\n\t") in html.unescape("".join(parsed.text)), where
    assert not RAW.search(page), (where, RAW.search(page))
    for tag, attributes in parsed.tags:
        assert tag not in ("img", "b"), (where, tag)
        assert not any(attribute.startswith("on") for attribute in attributes), (where, tag, attributes)
        assert not (tag == "script" and "src" in attributes), where
        links = [attributes.get(name) or "" for name in ("href", "src", "action", "formaction")]
        assert not any("javascript:" in link for link in links), (where, attributes)


#: ASCII punctuation Markdown reads, each of which must come escaped (a backslash before it).
SPECIAL = set("\\`*_{}[]()#+!|<>~&")


def _unescaped_markdown(text: str) -> list[str]:
    """The characters of ``text`` Markdown would read as syntax: special and not backslash-escaped."""
    found, escaped = [], False
    for character in text:
        if escaped:
            escaped = False
        elif character == "\\":
            escaped = True
        elif character in SPECIAL:
            found.append(character)
    return found


@pytest.mark.sandbox
@pytest.mark.parametrize("number", range(len(NAMES)), ids=IDS)
def test_feedback_md_shows_the_name_as_text_on_its_heading(hostile_class, number):
    """Is the name in feedback.md's heading plain text (every Markdown character escaped, control
    characters as escapes), on the heading's one line, with one score line in the file?"""
    out, _, _ = hostile_class
    text = _page(out, number, "feedback.md").read_text(encoding="utf-8")
    heading, _, rest = text.partition("\n")
    assert heading.startswith("# ") and _submission(number) in heading
    named = heading[heading.index(f"{_submission(number)} (") + len(_submission(number)) + 2 : -1]
    assert _unescaped_markdown(named) == [], named
    assert named.replace("\\", "") == untrusted.visible(NAMES[number]).replace("\\", "")
    assert not RAW.search(text)
    assert len(re.findall(r"(?m)^\*\*Score: ", text)) == 1 and not re.search(r"(?m)^#* ?Score", rest)


@pytest.mark.sandbox
@pytest.mark.parametrize("number", range(len(NAMES)), ids=IDS)
def test_results_json_holds_no_raw_name(hostile_class, number):
    """Does results.json (Markdown, rendered by Gradescope) hold neither the name raw nor a control
    character in any of its texts?"""
    out, _, _ = hostile_class
    document = _page(out, number, "results.json").read_text(encoding="utf-8")
    texts = [document, *(test.get("output", "") for test in json.loads(document).get("tests", []))]
    for text in texts:
        assert NAMES[number] not in text
        assert not RAW.search(text)


@pytest.mark.sandbox
@pytest.mark.parametrize("page", ["feedback.html", "instructor.html"])
@pytest.mark.parametrize("number", range(len(NAMES)), ids=IDS)
def test_pages_show_the_name_as_text(hostile_class, number, page):
    """Is the name on the student's feedback page and the instructor's view text, never an
    element, an attribute or a control character?"""
    out, _, _ = hostile_class
    _assert_html_shows_it(_page(out, number, page).read_text(encoding="utf-8"), NAMES[number], page)


@pytest.mark.sandbox
@pytest.mark.parametrize("number", range(len(NAMES)), ids=IDS)
def test_class_report_shows_the_name_as_text(hostile_class, number):
    """Is each name in the class report (index.html) text, never an element or attribute?"""
    out, _, _ = hostile_class
    _assert_html_shows_it((out / output_paths.REPORT).read_text(encoding="utf-8"), NAMES[number], "index.html")


def _assert_csv_safe(rows: list[list[str]], where: str) -> None:
    for row in rows:
        for cell in row:
            assert not cell.startswith(untrusted.FORMULA_STARTS), (where, cell)
            assert "\n" not in cell and "\r" not in cell and not RAW.search(cell), (where, cell)


@pytest.mark.sandbox
def test_grades_csv_has_a_row_per_student_and_no_formula(hostile_class):
    """Has grades.csv one row per student, each name a cell that is not a formula and holds no
    line break or control character, the name recognisable in it?"""
    out, _, _ = hostile_class
    rows = list(csv.reader((out / output_paths.GRADES).open(encoding="utf-8", newline="")))
    assert len(rows) == 1 + len(NAMES)
    _assert_csv_safe(rows, "grades.csv")
    names = {row[rows[0].index("sid")]: row[rows[0].index("name")] for row in rows[1:]}
    for number, name in enumerate(NAMES):
        assert names[_sid(number)] == untrusted.csv_cell(name), number


@pytest.mark.sandbox
@pytest.mark.parametrize("lms", sorted(ROSTER_COLUMNS))
def test_lms_imports_have_a_row_per_student_and_no_formula(hostile_class, lms):
    """Has each LMS's import file one row per hostile student of the roster (found by its SID,
    email or username), no cell a formula, a line break or a control character, and did export
    name each of the others as not in the roster?"""
    _, root, printed = hostile_class
    table = tables.read(root / lms)
    _assert_csv_safe([list(table.header), *map(list, table.rows)], lms)
    for number in IN_ROSTER:
        keys = {_sid(number), _email(number), f"h{number}"}
        assert len([row for row in table.rows if keys & set(row)]) == 1, (lms, number)
    unmatched = re.findall(r"(?m)^not in the roster: (\S+):", printed[f"export {lms}"][1])
    assert sorted(unmatched) == [_submission(number) for number in range(len(NAMES)) if number not in IN_ROSTER]


@pytest.mark.sandbox
@pytest.mark.parametrize("command", ["grade", *(f"export {lms}" for lms in sorted(ROSTER_COLUMNS))])
def test_no_control_character_reaches_the_terminal(hostile_class, command):
    """Did `grade` and each `export` (naming the students not in its roster) print no control
    character (ESC, BEL, CR, a bidi override), and no line that a name forged (a line starting
    with "Score")?"""
    _, _, printed = hostile_class
    for stream in printed[command]:
        assert not RAW.search(stream), (command, RAW.search(stream))
        assert not re.search(r"(?m)^Score", stream), command


# ---------------------------------------------------------------- the rules, without the sandbox


@pytest.mark.parametrize("name", NAMES, ids=IDS)
def test_markdown_escapes_every_character_markdown_reads(name):
    """Is every character Markdown reads as syntax backslash-escaped, and the text one line?"""
    shown = untrusted.markdown(name)
    assert _unescaped_markdown(shown) == [] and "\n" not in shown and not RAW.search(shown)


@pytest.mark.parametrize("name", NAMES, ids=IDS)
def test_html_is_text_even_in_an_attribute(name):
    """Does a name escaped for HTML parse back as itself, in an element and in a quoted attribute,
    adding no element or attribute?"""
    shown = untrusted.html(name)
    parsed = _elements(f'<p title="{shown}">{shown}</p>')
    assert parsed.tags == [("p", {"title": untrusted.visible(name, keep="\n\t")})]
    assert "".join(parsed.text) == untrusted.visible(name, keep="\n\t")


#: id: (text, as a terminal shows it)
TERMINAL = {
    "escape": ("a\x1b[2Jb", "a\\x1b[2Jb"),
    "osc 52 with bell": ("\x1b]52;c;eA==\x07", "\\x1b]52;c;eA==\\x07"),
    "carriage return": ("a\rb", "a\\rb"),
    "newline": ("a\nScore: 100", "a\\nScore: 100"),
    "bidi override": ("a\u202eb", "a\\u202eb"),
    "c1 control": ("a\x9bb", "a\\x9bb"),
    "plain": ("Zoë O'Brien-Smith", "Zoë O'Brien-Smith"),
}


@pytest.mark.parametrize("case", TERMINAL.values(), ids=TERMINAL.keys())
def test_terminal_shows_control_characters_as_escapes(case):
    """Is each control character shown as a visible escape on one line, and plain text unchanged?"""
    text, shown = case
    assert untrusted.terminal(text) == shown


def test_terminal_stream_keeps_lines_and_a_redrawn_progress_bar():
    """Does the commands' stream keep newlines and tabs, escape every other control character,
    and keep a carriage return starting a write only on a terminal?"""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    for stream, redraw in ((io.StringIO(), "\\r"), (Tty(), "\r")):
        wrapped = untrusted.TerminalText(stream)
        wrapped.write("\r[###] 1/2")
        wrapped.write("a\tb\n\x1b[2Jc\rd\n")
        assert stream.getvalue() == f"{redraw}[###] 1/2a\tb\n\\x1b[2Jc\\rd\n"
