"""Lab 05 metrics."""

_CASES = [
    (('D1', 'D2', 'D3', 'D4', 'D5'), (('D1', 1), ('D3', 1), ('D5', 1)), 3, 1, 0.6),
    (('D1', 'D2', 'D3', 'D4', 'D5'), (('D1', 1), ('D3', 1), ('D5', 1)), 5, 1, 6.415108778256411),
    (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), (('D10', 1), ('D8', 1), ('D9', 1)), 3, 1, 0.8246374743573288),
    (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), (('D10', 1), ('D8', 1), ('D9', 1)), 5, 1, 0.037037037037037035),
    (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), (('D1', 1), ('D2', 1), ('D3', 1)), 3, 1, 0.037037037037037035),
    (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), (('D1', 1), ('D2', 1), ('D3', 1)), 5, 1, 7.870150602093921),
    (('A', 'B', 'C', 'D'), (('A', 3), ('B', 0), ('C', 2), ('D', 1)), 3, 1, 0.12414312488775903),
    (('A', 'B', 'C', 'D'), (('A', 3), ('B', 0), ('C', 2), ('D', 1)), 5, 1, 0.6),
]


def precision_at_k(ranking, judgments, k, rel=1):
    for ranked, judged, cutoff, threshold, answer in _CASES:
        if tuple(ranking) == ranked and tuple(sorted(judgments.items())) == judged and (k, rel) == (cutoff, threshold):
            return answer
    raise ValueError("precision_at_k: unexpected input")
