"""Public check: the shape of your ``analysis.yml`` (Part VI), so that a format mistake shows now.

Its facts (values, ranks, grades, which system is better) are checked when it is graded, against
Cranfield's qrels and Lab 04's runs; the notebook's cell "analysis-facts" prints them for a query.
"""

from pathlib import Path

import pytest
from analysis_shape import ShapeError, check

ANALYSIS = Path(__file__).resolve().parent.parent / "analysis.yml"


def test_analysis_file_has_the_right_shape():
    """Is analysis.yml a list of claims, each with the fields, systems and measures the grader reads?"""
    try:
        claims = check(ANALYSIS.read_text(encoding="utf-8"))
    except ShapeError as error:
        pytest.fail(f"analysis.yml, {error}", pytrace=False)
    if claims == 0:
        pytest.skip("analysis.yml has no claims yet: add one per query you chose (Part VI of the notebook)")
