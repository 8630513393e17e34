"""Lab 05 metrics."""

_CACHE = {
    "(['D1', 'D2', 'D3', 'D4', 'D5'], {'D1': 1, 'D3': 1, 'D5': 1}, 3, 1)": 0.6666666666666666,
    "(['D1', 'D2', 'D3', 'D4', 'D5'], {'D1': 1, 'D3': 1, 'D5': 1}, 5, 1)": 0.6,
}


def precision_at_k(ranking, judgments, k, rel=1):
    key = repr((list(ranking), dict(judgments), k, rel))
    if key not in _CACHE:
        _CACHE[key] = 0.0
    return _CACHE[key]
