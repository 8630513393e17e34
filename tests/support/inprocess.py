"""Grading trusted code without a sandbox (the reference, its mutants, the catalogue's variants):
each call is answered in this process as the child answers it (its value in the child's tagged
JSON, its exception's classes, the run file it wrote and how it called search_fn), then the
engine judges, scores and diagnoses the answers as it does a sandbox's. Never for student code."""

from __future__ import annotations

import functools
import pickle
import signal
import traceback
from pathlib import Path

from autograder.grading import grader, payloads, runfile_checks, scoring
from autograder.lab.functions import registry
from autograder.labkit import call_forms
from autograder.sandbox.channel import Outcome, SandboxResult
from autograder.sandbox.child import harness
from autograder.sandbox.child.values import encode

CALL_SECONDS = 2.0  # a call that runs longer is a timeout, as the sandbox's limit makes it


class _Late(BaseException):
    pass


def _late(signum, frame):
    raise _Late


def _resolve(value, context: dict, folder: Path):
    """An argument as the child builds it (``harness.resolve``), the run file's path in ``folder``."""
    if isinstance(value, dict) and set(value) == {"$path"}:
        context["path"] = folder / value["$path"]
        context["path"].write_text(harness.STALE_LINE, encoding="utf-8")  # as the child: a file to replace
        return str(context["path"])
    return harness.resolve(value, context)


def error_of(error: BaseException) -> dict:
    """An exception as the child describes it."""
    mro = [cls.__name__ for cls in type(error).__mro__ if cls.__module__ == "builtins"]
    lines = traceback.format_exception_only(type(error), error)
    return {"type": type(error).__name__, "mro": mro, "message": str(error)[:500], "traceback": lines[-1:]}


def answer_call(functions: dict, call: dict, job: dict, folder: Path) -> Outcome:
    """One planned call answered by ``functions`` (name -> callable), as the child answers it (in the
    main thread: a call past ``CALL_SECONDS`` is a timeout)."""
    body = pickle.loads(payloads.encode(call, job))
    function = functions.get(body["fn"])
    context: dict = {}
    previous = signal.signal(signal.SIGALRM, _late)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        if function is None:
            raise NotImplementedError(f"no function {body['fn']}")
        args = [_resolve(arg, context, folder) for arg in body["args"]]
        kwargs = {key: _resolve(arg, context, folder) for key, arg in body["kwargs"].items()}
        called = functools.partial(function, **kwargs) if body.get("partial") else None
        value = encode(called(*args) if called is not None else function(*args, **kwargs))
    except _Late:
        return Outcome("timeout", detail=f"over {CALL_SECONDS} s")
    except (Exception, RecursionError) as error:  # what the code raised is its answer
        return Outcome("error", error=error_of(error))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if "path" in context:
        path = context["path"]
        found = {"type": "runfile", "searches": context["search"].calls if "search" in context else []}
        if path.exists() and path.read_bytes() != harness.STALE_LINE.encode():
            found["text"] = path.read_bytes().decode("utf-8", errors="replace")  # as the child reads it: \r\n kept
            found["appended"] = path.read_bytes().startswith(harness.STALE_LINE.encode())
        else:
            found["missing"] = True
        value = {**found, "returned": value}
    return Outcome("value", value=value)


def as_submitted(function: str, variant):
    """A catalogued misconception's ``variant`` of ``function`` (trusted code whose parameters have short
    names, ``r, j, k``) answering as a submission with the contract's signature does: every call form the
    contract allows, bound by the function's record (``call_forms.bind``, the one place that binds)."""
    parameters = registry.FUNCTIONS[function].parameters

    def submitted(*args, **kwargs):
        positional, named, _ = call_forms.bind(parameters, args, kwargs, "positional")
        return variant(*positional, **named)

    return submitted


def answers(functions: dict, plan, submission, folder: Path, only=None, others: list | None = None) -> list[Outcome]:
    """Every call of ``submission`` answered (``only``: the calls of these functions; the others are
    ``others``' outcomes, or not run)."""
    own = {"tables": {}, "results": {}, "queries": {}}
    first_random = submission.secret_start - submission.random_calls
    outcomes = []
    for index, call in enumerate(submission.calls):
        if only is not None and call["fn"] not in only:
            outcomes.append(others[index] if others is not None else Outcome("not-run", detail="not asked"))
            continue
        job = own if first_random <= index < submission.secret_start else plan.shared_job
        outcomes.append(answer_call(functions, call, job, folder))
    return outcomes


def grade(plan, submission, outcomes: list) -> tuple:
    """``(checks, files)``: the checks, scored and diagnosed, of a submission whose calls were
    answered ``outcomes``, and the run files its writer left (read once: reading lets a file's text go)."""
    files = runfile_checks.read_all(plan, outcomes, frozenset(), submission.scenario_calls)
    checks = scoring.score_checks(plan, submission.planned, outcomes, {}, files, frozenset())
    return grader.diagnosed(plan, submission.planned, outcomes, checks, files), files


def unmade(body: dict) -> tuple[dict, dict]:
    """A sent call's body as a planned call and its job (``payloads.materialise`` undone), to answer
    it here as the child would."""
    job: dict = {"tables": {}, "results": {}, "queries": {}}
    args = []
    for arg in body["args"]:
        tag = next(iter(arg)) if isinstance(arg, dict) and len(arg) == 1 else None
        if tag == "$search":
            job["results"]["x"] = arg[tag]["results"]
            arg = {tag: "x"}
        elif tag in ("$queries", "$queries-once"):
            job["queries"]["x"] = arg[tag]
            arg = {tag: "x"}
        args.append(arg)
    return {**body, "args": args}, job


def fake_run(functions: dict, folder: Path, log: list):
    """``counterexamples.Finder``'s way to run calls (``RunCalls``), answered in this process as the
    runner would: each call's payload asked when it is sent, after the answer before it is in the live
    result; each call's body appended to ``log``."""

    def run_calls(calls, payload, live, limits, seconds):
        result = SandboxResult(outcomes=[None] * len(calls))
        live(result)
        for index in range(len(calls)):
            body = pickle.loads(payload(index)[4:])
            log.append(body)
            result.outcomes[index] = answer_call(functions, *unmade(body), folder)
        return result

    return run_calls
