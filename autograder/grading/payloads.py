"""What a child receives for one call: that call's inputs and nothing else, built here in the
trusted parent and sent when the call is to run (``sandbox/runner.py``).

A call's arguments are plain data, with tags for what the child builds itself (the grader's
measures, a replayed search function, the queries, the run file's path); references into the
shared tables are resolved here, so the child never holds a table, a scenario or a call it is
not answering. A payload is the call's index (4 bytes) and a pickle of the call (the child reads
it; the parent never unpickles anything from the child).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable

from autograder.grading.plan import Job, Plan, PlannedCall, SubmissionPlan
from autograder.labkit.lab import Lab
from autograder.sandbox.settings import Call, SentCall


def materialise(value: object, job: Job) -> object:
    """``value`` with every table reference resolved and every scenario's data attached."""
    if isinstance(value, dict) and len(value) == 1:
        ((tag, arg),) = value.items()
        if tag == "$ref":
            return job["tables"][arg[0]][arg[1]]
        if tag == "$search":
            results = job["results"][arg]
            titles = job["tables"].get("titles", {})
            needed = {hit[0]: titles.get(hit[0], "") for hits in results.values() for hit in hits if len(hit) < 3}
            return {"$search": {"results": results, "titles": needed, "overfull": arg in job.get("overfull", ())}}
        if tag in ("$queries", "$queries-once"):
            return {tag: job["queries"][arg]}
    if isinstance(value, list):
        return [materialise(item, job) for item in value]
    return value


def encode(call: PlannedCall, job: Job) -> bytes:
    body: SentCall = {
        "fn": call["fn"],
        "file": call["file"],
        "args": [materialise(arg, job) for arg in call["args"]],
        "kwargs": {key: materialise(arg, job) for key, arg in call.get("kwargs", {}).items()},
    }
    if call.get("partial"):
        body["partial"] = True
    return pickle.dumps(body, protocol=4)  # any Python 3 child reads it


def calls(lab: Lab, submission: SubmissionPlan) -> list[Call]:
    """The submission's calls as the sandbox sees them."""
    return [
        Call(call["fn"], call["file"], bool(call.get("secret")), lab.records[call["fn"]].writes_run_file)
        for call in submission.calls
    ]


def payloads(plan: Plan, submission: SubmissionPlan) -> Callable[[int], bytes]:
    """``payload(index)``: the bytes the child receives for call ``index`` of ``submission``. The
    shared calls are pickled once per plan (a batch's workers inherit them)."""
    shared = plan.encoded
    own: Job = {"tables": {}, "results": {}, "queries": {}}
    count = submission.random_calls
    first_random = submission.secret_start - count

    def payload(index: int) -> bytes:
        if first_random <= index < submission.secret_start:
            body = encode(submission.calls[index], own)
        else:
            shared_index = index if index < first_random else index - count
            if shared_index not in shared:
                shared[shared_index] = encode(plan.shared_job["calls"][shared_index], plan.shared_job)
            body = shared[shared_index]
        return index.to_bytes(4, "big") + body

    return payload


def warm(plan: Plan) -> None:
    """Pickle every shared call now (before a batch forks its workers, which then share them)."""
    shared = plan.encoded
    for index, call in enumerate(plan.shared_job["calls"]):
        if index not in shared:
            shared[index] = encode(call, plan.shared_job)
