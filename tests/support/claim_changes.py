"""One fact of an analysis claim changed so that the data contradicts it: what the property tests of
``tests/grading/test_analysis_facts.py`` (Lab 04's runs) and ``test_analysis_own_runs.py`` (a
student's changed run) refuse."""

from __future__ import annotations

import yaml
from hypothesis import strategies as st

from autograder.grading.analysis import claims, facts

#: the kinds of fact changed, one at a time
PERTURBATIONS = ("doc", "rank", "grade", "query", "value", "sign")


def perturbed(known: facts.Facts, claim: dict, kind: str, data: st.DataObject) -> dict:
    """``claim`` with one fact of ``kind`` changed so that the data contradicts it."""
    systems = known.names().systems
    changed = yaml.safe_load(yaml.safe_dump(claim))  # a deep copy
    document = data.draw(st.sampled_from(changed["documents"]))
    if kind == "doc":
        taken = {d["doc"] for d in changed["documents"]}
        document["doc"] = data.draw(st.sampled_from(sorted(known.documents - taken, key=int)))
    elif kind == "rank":
        system = data.draw(st.sampled_from(systems))
        truth = document["ranks"][system]
        document["ranks"][system] = data.draw(st.sampled_from([None, *range(1, 101)]).filter(lambda r: r != truth))
    elif kind == "grade":
        document["grade"] = data.draw(st.integers(-1, 4).filter(lambda g: g != document["grade"]))
    elif kind == "query":
        changed["query"] = data.draw(
            st.sampled_from(sorted(known.qrels, key=int)).filter(lambda q: q != claim["query"])
        )
    elif kind == "value":
        system = data.draw(st.sampled_from(systems))
        step = data.draw(st.floats(2 * facts.VALUE_TOLERANCE, 1.0))
        changed["values"][system] = round(changed["values"][system] + data.draw(st.sampled_from([-1, 1])) * step, 6)
    else:
        changed["better"] = data.draw(st.sampled_from([*systems, claims.TIE]).filter(lambda b: b != claim["better"]))
    return changed
