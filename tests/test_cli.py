"""The command line: thin subcommands over the library."""

import subprocess
import sys


def _autograder(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args], capture_output=True, text=True, timeout=600, **kwargs
    )


def test_table_prints_the_notes_numbers(cranfield):
    """Does `python -m autograder table` print both systems next to the notes' numbers?"""
    result = _autograder("table")
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[3][:7] == ["TF-IDF", "ours", "0.2284", "0.7006", "0.5100", "0.2737", "0.3170"]
    assert rows[5][:7] == ["BM25", "ours", "0.1991", "0.6512", "0.5044", "0.2405", "0.2822"]
    assert "every number of the notes' table reproduces" in result.stdout


def test_seed_from_a_missing_folder_is_a_clear_error(tmp_path):
    """Does seeding from a folder without Cranfield's files exit 2 naming what is missing?"""
    result = _autograder("seed-cranfield", str(tmp_path))
    assert result.returncode == 2
    assert "missing cran.all.1400, cran.qry, cranqrel" in result.stderr
    assert "Traceback" not in result.stderr


def test_build_prairielearn_with_a_bad_image_name_is_a_clear_error(tmp_path):
    """Does `build --target prairielearn --image 'my image'` exit 2 naming the option and an example?"""
    result = _autograder("build", "--target", "prairielearn", "--out", str(tmp_path), "--image", "my image")
    assert result.returncode == 2
    assert "--image 'my image'" in result.stderr and "youruser/lab05-autograder" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "question").exists()
