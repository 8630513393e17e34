"""The given data module: seeding ir_datasets' cache, the offline error, reading run files."""

import os
import subprocess
import sys

import pytest

from autograder import paths

RUN = """\
1 Q0 d1 1 0.5 sys
1 Q0 d3 2 0.9 sys
1 Q0 d2 3 0.9 sys
1 Q0 d10 4 0.9 sys
2 Q0 x 1 1.0 sys
2 Q0 y 2 2.0 sys
2 Q0 x 3 3.0 sys
"""


def test_read_run_orders_as_trec_eval(lab05, tmp_path):
    """Is a run read by score descending, ties by doc id descending, duplicates keeping the last score?"""
    path = tmp_path / "sys.run"
    path.write_text(RUN)
    assert lab05.data.read_run(path) == {"1": ["d3", "d2", "d10", "d1"], "2": ["x", "y"]}


def _data_python(home, code, **env):
    """Run ``code`` with the handout's lab05 in a fresh interpreter whose ir_datasets home is ``home``."""
    environment = {**os.environ, "IR_DATASETS_HOME": str(home), "PYTHONPATH": str(paths.HANDOUT), **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=300)


def test_seed_fills_the_cache_from_a_folder(lab05, tmp_path):
    """Does `python -m lab05.data seed FOLDER` make Cranfield loadable with no download?"""
    source = tmp_path / "files"
    source.mkdir()
    cached = lab05.data.cache_dir()
    for name, cached_name in lab05.data.CRANFIELD_FILES.items():
        (source / name).write_bytes((cached / cached_name).read_bytes())
    home = tmp_path / "home"
    seeded = _data_python(
        home,
        "import sys; from lab05.data import main; sys.exit(main(['seed', sys.argv[1]]))".replace(
            "sys.argv[1]", repr(str(source))
        ),
    )
    assert seeded.returncode == 0, seeded.stderr
    assert sorted(p.name for p in (home / "cranfield").iterdir()) == ["docs.txt", "qrels.txt", "queries.txt"]
    loaded = _data_python(
        home,
        "from lab05 import data; print(len(data.load_queries()), len(data.load_qrels()))",
        https_proxy="http://127.0.0.1:9",
        http_proxy="http://127.0.0.1:9",
    )
    assert loaded.stdout.split() == ["225", "225"], loaded.stderr
    again = _data_python(home, f"from lab05.data import seed_cache; print(seed_cache({str(source)!r}))")
    assert again.returncode == 0, again.stderr


def test_seed_names_missing_files(lab05, tmp_path):
    """Does seeding from a folder without the files say which are missing?"""
    (tmp_path / "cran.qry").write_text(".I 001\n.W\nq\n")
    with pytest.raises(FileNotFoundError, match=r"missing cran\.all\.1400, cranqrel"):
        lab05.data.seed_cache(tmp_path)


def test_offline_without_cache_is_a_clear_error(tmp_path):
    """With no cache and no network, does loading say so and how to fix it (no download traceback)?"""
    result = _data_python(
        tmp_path / "empty",
        "from lab05 import data; data.load_qrels()",
        https_proxy="http://127.0.0.1:9",
        http_proxy="http://127.0.0.1:9",
        IR_DATASETS_DL_TRIES="1",
    )
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("lab05.data.CranfieldUnavailable: Cranfield is not in ir_datasets' cache")
    assert "python -m lab05.data seed FOLDER" in last_line
    assert "During handling" not in result.stderr  # the download traceback is not chained in
