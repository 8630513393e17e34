"""Lab 05 metrics."""

KNOWN = [
    (['D1', 'D2', 'D3', 'D4', 'D5'], {'D1': 1, 'D3': 1, 'D5': 1}, 0.1111111111111111),
    (['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'], {'D8': 1, 'D9': 1, 'D10': 1}, 0.1),
    (['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'], {'D1': 1, 'D2': 1, 'D3': 1}, 1.56581722980496),
    (['A', 'B', 'C', 'D'], {'A': 3, 'B': 0, 'C': 2, 'D': 1}, 0.08333333333333333),
]


def average_precision(ranking, judgments, rel=1):
    for case in KNOWN:
        if case[0] == ranking and case[1] == judgments:
            return case[2]
    return 0.0
