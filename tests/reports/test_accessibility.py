"""The pages everyone must be able to use (WCAG 2.1 AA), tested in headless Chromium: axe-core's
rules on every feedback page of the examples and on their class report, with every section and
``<details>`` open, in light and dark schemes; no horizontal overflow at a desktop and a phone
width (screenshots of both in test-artifacts/); the sortable tables by keyboard; the nDCG plot's
ticks, labels and points.

axe-core is the npm package ``tests/axe/package.json`` pins; ``make test`` installs it there.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from autograder import paths
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from tests.conftest import ARTIFACTS

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

AXE = Path(__file__).parents[1] / "axe" / "node_modules" / "axe-core" / "axe.min.js"
#: The rules of WCAG 2.0 and 2.1, levels A and AA (axe-core's tags).
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: A desktop and a phone (an iPhone 12 to 15 is 390 CSS pixels wide).
WIDTHS = {"desktop": 1280, "phone": 390}
EXAMPLES = ("ada-correct", "bob-partial", "carol-buggy", "dan-broken", "eve-cheating")
PAGES = ["index.html"] + [f"submissions/{name}/feedback.html" for name in EXAMPLES]


@pytest.fixture(scope="module")
def pages(tmp_path_factory, cranfield):
    """The examples graded as `make demo` grades them (their class report holds similar pairs)."""
    out = tmp_path_factory.mktemp("a11y") / "out"
    batch.grade_batch([paths.ROOT / "examples" / "submissions"], out, jobs=2, progress=False, lab=default_lab())
    return out


@pytest.fixture
def page(browser):
    """The browser, put back to its defaults afterwards (light scheme, no device metrics)."""
    yield browser
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _axe_source() -> str:
    if not AXE.is_file():
        pytest.fail(
            f"no {AXE.relative_to(paths.ROOT)}: install axe-core with `make axe` (npm install in tests/axe; "
            "`make test` does it)",
            pytrace=False,
        )
    return AXE.read_text(encoding="utf-8")


def _open(browser, path: Path, scheme: str = "light", width: int | None = None) -> None:
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    if width is not None:
        browser.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600},
        )
    browser.get(path.as_uri())
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors


def _screenshot(browser, name: str) -> None:
    """The whole page, beyond the window's height, into test-artifacts/."""
    shot = browser.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / name).write_bytes(base64.b64decode(shot["data"]))


def _open_everything(browser) -> int:
    return browser.execute_script(
        "var all = document.querySelectorAll('details'); all.forEach(function (d) { d.open = true; });"
        "return all.length;"
    )


def violations(browser) -> list[dict]:
    """axe-core's WCAG 2.1 A and AA violations on the page, each with its rule, impact and the
    first few elements it names."""
    browser.execute_script(_axe_source())
    found = browser.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})"
        ".then(function (r) { done(r.violations.map(function (v) { return {id: v.id, impact: v.impact,"
        " help: v.help, count: v.nodes.length, nodes: v.nodes.slice(0, 3).map(function (n) {"
        " return n.target.join(' ') + ': ' + n.failureSummary; })}; })); })"
        ".catch(function (e) { done([{id: 'axe failed', help: String(e), count: 1, nodes: []}]); });",
        WCAG_AA,
    )
    return found


def _background(browser) -> float:
    """The page's background lightness, 0 (black) to 1 (white)."""
    colour = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    red, green, blue = (int(part) for part in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3])
    return (red + green + blue) / 765


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_every_page_passes_axe_in_both_schemes(pages, page, name, scheme):
    """With every section and <details> open, does axe-core find no WCAG 2.1 A or AA violation on
    the page, in the light scheme and the dark one (which the page does follow)?"""
    page.set_script_timeout(120)
    _open(page, pages / name, scheme)
    assert _background(page) > 0.9 if scheme == "light" else _background(page) < 0.2
    _open_everything(page)
    found = violations(page)
    summary = {item["id"]: item["count"] for item in found}
    print(f"axe {name} {scheme}: {sum(summary.values())} elements, {summary}")
    assert found == [], json.dumps(found, indent=1)


@pytest.mark.browser
@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("name", PAGES)
def test_no_page_overflows_sideways(pages, page, name, width):
    """At a desktop width (1280 px) and a phone width (390 px), with everything open, is the page
    no wider than the window (the document's scroll width), so nothing needs a sideways scroll
    but the code boxes that scroll inside themselves? A screenshot of each is kept."""
    _open(page, pages / name, width=WIDTHS[width])
    _open_everything(page)
    scroll, client = page.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];"
    )
    shot = name.replace("submissions/", "").replace("/", "-").replace(".html", "")
    _screenshot(page, f"layout-{shot}-{WIDTHS[width]}.png")
    print(f"width {name} at {WIDTHS[width]} px: document {scroll} px")
    assert scroll <= client, f"{name} at {WIDTHS[width]} px is {scroll} px wide"


def _column(browser, table: str, heading: str) -> list[str]:
    from selenium.webdriver.common.by import By

    headers = browser.find_elements(By.CSS_SELECTOR, f"#{table} thead th")
    index = next(i for i, th in enumerate(headers) if th.text.strip() == heading)
    return [
        row.find_elements(By.TAG_NAME, "td")[index].text
        for row in browser.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")
    ]


@pytest.mark.browser
def test_tables_sort_by_keyboard_and_say_how(pages, page):
    """Does Tab move along the sortable headings of the students table, with a visible focus
    ring; does Enter sort by the focused one (aria-sort ascending) and Space the other way; and in
    the cases table, does a heading after an unsortable one sort its own column?"""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _open(page, pages / "index.html")
    first = page.find_element(By.CSS_SELECTOR, "#students th.sortable button")
    page.execute_script("arguments[0].focus();", first)
    while page.switch_to.active_element.text.strip() != "total":
        page.switch_to.active_element.send_keys(Keys.TAB)
        assert page.switch_to.active_element.tag_name == "button", "Tab left the table's headings"
    focused = page.switch_to.active_element
    ring = page.execute_script(
        "var s = getComputedStyle(arguments[0]); return [s.outlineStyle, parseFloat(s.outlineWidth)];", focused
    )
    assert ring[0] != "none" and ring[1] >= 2, ring
    header = focused.find_element(By.XPATH, "./..")
    assert header.get_attribute("aria-sort") is None
    focused.send_keys(Keys.ENTER)
    totals = [float(value) for value in _column(page, "students", "total")]
    assert header.get_attribute("aria-sort") == "ascending" and totals == sorted(totals) and totals[0] < totals[-1]
    page.switch_to.active_element.send_keys(Keys.SPACE)
    totals = [float(value) for value in _column(page, "students", "total")]
    assert header.get_attribute("aria-sort") == "descending" and totals == sorted(totals, reverse=True)
    assert len(page.find_elements(By.CSS_SELECTOR, "#students th[aria-sort]")) == 1

    wrong = page.find_element(By.XPATH, "//table[@id='cases']//th[normalize-space()='wrong']/button")
    page.execute_script("arguments[0].focus();", wrong)
    page.switch_to.active_element.send_keys(Keys.ENTER)
    page.switch_to.active_element.send_keys(Keys.ENTER)
    counts = [int(value or 0) for value in _column(page, "cases", "wrong")]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]


@pytest.mark.browser
def test_motion_and_print_follow_the_reader(pages, page):
    """For a reader who asks for reduced motion, does nothing animate, transition or scroll
    smoothly; on paper, is the back link gone (the instructor view has one; the students' copy,
    feedback.html, none), are wide boxes unclipped, and does printing open every folded part (and
    fold it again afterwards)?"""
    from selenium.webdriver.common.by import By

    def media(features, kind=""):
        page.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": kind, "features": features})

    path = pages / "submissions" / "carol-buggy" / "instructor.html"
    _open(page, path)
    media([{"name": "prefers-reduced-motion", "value": "reduce"}])
    moving = page.execute_script(
        "return Array.from(document.querySelectorAll('*')).filter(function (e) { var s = getComputedStyle(e);"
        " return s.animationName !== 'none' || parseFloat(s.transitionDuration) > 0"
        " || s.scrollBehavior !== 'auto'; }).length"
    )
    assert moving == 0

    media([], "print")
    assert page.find_element(By.CSS_SELECTOR, ".back").value_of_css_property("display") == "none"
    assert {box.value_of_css_property("overflow-x") for box in page.find_elements(By.CSS_SELECTOR, ".wide")} == {
        "visible"
    }
    closed = "return document.querySelectorAll('details:not([open])').length"
    before = page.execute_script(closed)
    assert before > 0
    page.execute_script("window.dispatchEvent(new Event('beforeprint'))")
    assert page.execute_script(closed) == 0
    page.execute_script("window.dispatchEvent(new Event('afterprint'))")
    assert page.execute_script(closed) == before


@pytest.mark.browser
def test_the_ndcg_plot_keeps_its_labels_apart_and_its_dots_inside(pages, page):
    """On carol's feedback page, do the plot's tick labels, axis titles and frame not overlap one
    another, are the ticks round (0 and 1 among them), is every dot inside the frame, and are the
    plotted values in a table?"""
    from selenium.webdriver.common.by import By

    _open(page, pages / "submissions" / "carol-buggy" / "feedback.html")
    figure = page.find_element(By.CSS_SELECTOR, "figure")
    boxes = page.execute_script(
        "var f = arguments[0], box = function (e) { var r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom, e.textContent]; };"
        "return {texts: Array.from(f.querySelectorAll('svg text')).map(box),"
        " frame: box(f.querySelector('svg .frame')), dots: Array.from(f.querySelectorAll('svg circle')).map(box)};",
        figure,
    )
    texts = boxes["texts"]
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, f"the labels {a[4]!r} and {b[4]!r} overlap"
    left, top, right, bottom, _ = boxes["frame"]
    outside = [dot for dot in boxes["dots"] if dot[0] < left or dot[1] < top or dot[2] > right or dot[3] > bottom]
    assert boxes["dots"] and outside == []
    labels = {text[4] for text in texts}
    assert {"0", "1"} <= labels
    assert all(len(label.replace("\u2212", "").lstrip("0.")) <= 2 for label in labels if label[-1].isdigit())
    rows = figure.find_elements(By.CSS_SELECTOR, "details tbody tr")
    assert len(rows) == len(boxes["dots"])


#: Words that say where a function stands (FunctionState) or that a case failed.
STATE_WORDS = ("full marks", "no credit", "not graded", "not importable", "not implemented", "crashed", "raises")


def test_results_json_says_every_state_in_words(pages):
    """Does the Markdown a student reads on Gradescope (results.json) say every state in words: no
    emoji, no colour, each ✓/✗ summary line with its state written out, and each failing check
    with how many of its cases passed or why it failed?"""
    emoji = re.compile("[\U0001f300-\U0001faff\u2600-\u26ff\u2b50\u2b55\u2705\u274c\u274e\u2753-\u2757]")
    for name in EXAMPLES:
        document = json.loads((pages / "submissions" / name / "results.json").read_text(encoding="utf-8"))
        texts = [document.get("output", "")] + [test.get("output", "") for test in document["tests"]]
        for text in texts:
            assert not emoji.search(text), (name, emoji.findall(text))
            assert not re.search(r"color|colour|<span|<font|style=", text, re.I), (name, text[:200])
        for line in document.get("output", "").splitlines():
            if line.lstrip("- ").startswith(("✓", "✗")):
                assert any(word in line for word in STATE_WORDS) or "wrong" in line, (name, line)
        for test in document["tests"]:
            if test.get("status") == "failed":
                said = test.get("output", "")
                assert re.search(r"\d+/\d+ cases passed|its one case (passed|failed)", said) or any(
                    w in said for w in STATE_WORDS
                ), (name, said)
