"""Nothing hidden leaves: submissions that push the hidden cases' inputs out through every channel
a student sees (what they print, return, raise, how they end, how long they take, the answers a
diagnosis could quote, the files write_run writes, an import again after a crash) are graded in
every isolation mode and through both platforms' entry points, and every file their student sees
is searched for the hidden inputs (``tests/support/leaks.py`` says how they are encoded and searched).

The leakers leak public inputs too: finding those proves each channel was open to the search."""

from __future__ import annotations

import html
import json
import random
import re

import pytest

from autograder.grading import plan as planning
from autograder.grading import reference
from autograder.grading import rubric as rubrics
from autograder.grading.results import CaseResult, CaseStatus
from autograder.grading.vocabulary import HIDDEN_STATES, SHOWN_ERRORS, WRONG_FORMAT
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from autograder.reports import output_paths
from tests.end_to_end.test_hostile_submissions import MODES
from tests.platforms.test_build import run_autograder
from tests.platforms.test_prairielearn import built, image_home, run_entrypoint, world  # noqa: F401 (fixtures)
from tests.support import leaks, subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

STUDENT_FILES = output_paths.STUDENT_FILES  # results.json, feedback.md, feedback.html
PLATFORMS = ("gradescope", "prairielearn")


class Secrets:
    """The hidden inputs of a grading (the same in every grading) less any that a public call of
    that grading also has: its random cases are drawn afresh from its seed, and a small hidden
    input such as {"1": 0.0} is also a public random one now and then (in about one grading in
    fifty), which its student may see."""

    def __init__(self, plan: planning.Plan):
        self.plan = plan
        self.tokens, self.numbers = leaks.secrets_of(plan.for_submission("any"), plan)
        assert len(self.tokens) > 40 and len(self.numbers) > 40  # the search has something to find

    def of(self, seed: str) -> tuple[set[str], set[int]]:
        """The hidden inputs of the grading whose random cases were drawn from ``seed``."""
        assert seed, "a grading names its random cases' seed"
        return self.tokens - leaks.public_tokens(self.plan.for_submission(seed), self.plan), self.numbers


@pytest.fixture(scope="module")
def secrets(cranfield):
    """The hidden inputs of Lab 05's whole rubric (what the platforms grade with)."""
    return Secrets(
        planning.build(
            default_lab(),
            rubrics.load(default_lab().place.rubric, default_lab()),
            reference.load(default_lab()),
            cranfield,
        )
    )


@pytest.fixture(scope="module")
def small_secrets(cranfield, tmp_path_factory):
    """The hidden inputs of the small rubric the local batches grade with (``subs.small_rubric``)."""
    rubric = rubrics.load(subs.small_rubric(tmp_path_factory.mktemp("small-rubric")), default_lab())
    return Secrets(planning.build(default_lab(), rubric, reference.load(default_lab()), cranfield))


def _seed_of(grade_json: str) -> str:
    return json.loads(grade_json)["random_seed"]


SEED_LOGGED = re.compile(r"random seed (\S+),")


@pytest.fixture(scope="module", params=list(MODES))
def local(request, tmp_path_factory, cranfield):
    """Every leaker graded by a local batch in one isolation mode, on the small rubric (what they
    prove is about the sandbox and the engine, not Cranfield; the platforms grade Lab 05's whole
    rubric): {channel: {file: text}}."""
    mode = request.param
    folder = tmp_path_factory.mktemp(f"leaks-{mode}")
    leaks.write_all(folder / "in")
    rubric = subs.small_rubric(folder)
    if mode == "container":
        from tests.support import container_sim

        container_sim.grade(folder / "in", folder / "out", rubric, 2)
    else:
        batch.grade_batch(
            [folder / "in"],
            folder / "out",
            jobs=2,
            progress=False,
            rubric_path=rubric,
            lab=default_lab(),
            **MODES[mode],
        )
    seen = {}
    for channel in leaks.CHANNELS:
        where = output_paths.submission_folder(folder / "out", f"leak-{channel}")
        seen[channel] = {name: (where / name).read_text(encoding="utf-8") for name in STUDENT_FILES}
        for name in ("grade.json", output_paths.INSTRUCTOR):
            seen[channel][name] = (where / name).read_text(encoding="utf-8")
    return mode, seen


@pytest.fixture(scope="module", params=PLATFORMS)
def platform(request, gradescope_root, tmp_path_factory, cranfield):
    """Every leaker graded by a platform's entry point (uid mode, as on the platform)."""
    seen, seeds = {}, {}
    for channel in leaks.CHANNELS:
        files, output = leaks.leaker(channel), []
        if request.param == "gradescope":
            document = run_autograder(gradescope_root, files, "uid", output=output)
        else:
            home, question = request.getfixturevalue("image_home"), request.getfixturevalue("built")["question"]
            grade = tmp_path_factory.mktemp(f"grade-{channel}")
            document = run_entrypoint(home, grade, question, files, "uid", output)
        seen[channel] = {"results.json": json.dumps(document, ensure_ascii=False)}
        logged = SEED_LOGGED.findall(output[0])
        assert len(logged) == 1, output[0][-2000:]  # the instructor's log names the seed
        seeds[channel] = logged[0]
    return request.param, seen, seeds


def _unescaped(name: str, text: str) -> str:
    """What a reader of the file sees: an HTML page's text with its entities decoded (a call's
    quotes are ``&quot;`` in the page)."""
    return html.unescape(text) if name.endswith(".html") else text


def _leaked(seen: dict, seeds: dict, secrets: Secrets) -> dict:
    found = {}
    for channel, pages in seen.items():
        tokens, numbers = secrets.of(seeds[channel])
        for name, text in pages.items():
            if name not in output_paths.STUDENT_FILES:
                continue
            hits = leaks.hidden_found(_unescaped(name, text), tokens, numbers)
            if hits:
                found[f"{channel}/{name}"] = hits[:3]
    return found


def test_no_hidden_input_reaches_a_student_in_a_local_batch(local, small_secrets):
    """In each isolation mode, is no hidden input found, encoded or as it is, in any file the
    leakers' students see (results.json, feedback.md, feedback.html)?"""
    mode, seen = local
    seeds = {channel: _seed_of(pages["grade.json"]) for channel, pages in seen.items()}
    assert _leaked(seen, seeds, small_secrets) == {}, mode


def test_no_hidden_input_reaches_a_student_on_a_platform(platform, secrets):
    """Through Gradescope's run_autograder and PrairieLearn's entrypoint, is no hidden input found
    in the results.json their students see?"""
    name, seen, seeds = platform
    assert _leaked(seen, seeds, secrets) == {}, name


def test_the_search_finds_what_the_channels_carry(local, small_secrets):
    """Can the search fail: do the instructors' grade.json files hold the hidden inputs the leakers
    pushed out (so each channel really carried them), and do the students' files hold the public
    inputs they leaked?"""
    mode, seen = local
    for channel in ("prints", "returns", "raises", "remembers", "numbers"):
        tokens, numbers = small_secrets.of(_seed_of(seen[channel]["grade.json"]))
        assert leaks.hidden_found(seen[channel]["grade.json"], tokens, numbers), (mode, channel)
    for channel in ("prints", "returns", "raises"):
        assert leaks.decoded(seen[channel]["feedback.md"]), (mode, channel)  # public inputs, shown


def test_the_instructor_view_holds_the_hidden_inputs_no_student_file_does(local, small_secrets):
    """Does each leaker's instructor.html show the hidden cases' inputs (their calls and expected
    values: what a TA needs), while no file its student sees holds any?"""
    mode, seen = local
    for channel, pages in seen.items():
        tokens, numbers = small_secrets.of(_seed_of(pages["grade.json"]))
        found = {name: leaks.hidden_found(_unescaped(name, text), tokens, numbers) for name, text in pages.items()}
        calls = _unescaped(output_paths.INSTRUCTOR, pages[output_paths.INSTRUCTOR]).replace("'", '"')  # repr as JSON
        assert leaks.hidden_found(calls, tokens, numbers), (mode, channel)
        assert not any(found[name] for name in STUDENT_FILES), (mode, channel)


@pytest.mark.parametrize("channel", ["ends", "timing"])
def test_how_a_hidden_call_ends_or_how_long_it_takes_is_not_told(local, channel):
    """Does a hidden case that ended the process say only that it crashed (no exit status or
    signal, which the code chose from the input), and does no student file tell how long grading
    took (a sleep chosen from the input)?"""
    _, seen = local
    report = json.loads(seen[channel]["results.json"])
    assert "execution_time" not in report or report["execution_time"] == 0
    if channel == "ends":  # it ends the process only on hidden-looking calls
        for name in STUDENT_FILES:
            assert "crashed" in seen[channel][name] and "exit status" not in seen[channel][name], name
        assert "exit status" in seen[channel]["grade.json"]  # the instructor still sees how it ended


def test_a_hidden_case_can_tell_a_student_only_a_few_things():
    """Whatever a hidden case's result holds (values, messages, tracebacks, any exception class),
    is what its student sees one of a small fixed set of states (its label aside): so a
    submission moves at most log2(that many) bits per hidden case and grading, whatever it does?"""
    rng = random.Random(5)
    names = ["ValueError", "LEAKdeadbeefEND", "KeyError", "Foo", "", "NotImplementedError", "OSError"]
    states = set()
    for _ in range(2000):
        case = CaseResult(
            "edge-x",
            "what it tests",
            False,
            rng.choice(list(CaseStatus)),
            message=f"LEAK{rng.random()}",
            call="f(1)",
            expected=rng.random(),
            actual=rng.random(),
            traceback=(f"line {rng.randint(1, 999)}",),
            hint="h",
            raised=rng.choice(names),
            mro=tuple(rng.sample(names, 2)),
            told=rng.choice([f"LEAK line {rng.randint(1, 999)}", WRONG_FORMAT, ""]),
        )
        seen = case.for_student()
        assert seen.message in (*HIDDEN_STATES, "") and seen.raised in (*SHOWN_ERRORS, "an exception", "")
        states.add(json.dumps({k: v for k, v in vars(seen).items() if k not in ("id", "description")}, default=str))
    allowed = len(CaseStatus) * (len(SHOWN_ERRORS) + 2)
    assert len(states) <= allowed
    assert all("LEAK" not in state and "line" not in state for state in states)


def test_a_hidden_input_a_public_random_case_also_has_is_no_secret_of_that_grading(secrets):
    """When a grading's random cases happen to draw a small hidden input (say {"1": 0.0}), which
    its student may then see as a public case's argument, does the search leave it out for that
    grading only, and still look for it in a grading that did not draw it?"""
    seeds = [f"draw-{number}" for number in range(150)]
    kept = {seed: secrets.of(seed)[0] for seed in seeds}
    sometimes = {token for seed in seeds for token in secrets.tokens - kept[seed]} - set.intersection(
        *(secrets.tokens - tokens for tokens in kept.values())
    )
    assert sometimes, "no grading of 150 drew a hidden input that another did not: nothing to show"
    token = sorted(sometimes)[0]
    drew = next(seed for seed in seeds if token not in kept[seed])
    graded = secrets.plan.for_submission(drew)
    randoms = graded.calls[graded.secret_start - graded.random_calls : graded.secret_start]
    assert any(token in json.dumps(call["args"], sort_keys=True) for call in randoms), (token, drew)
