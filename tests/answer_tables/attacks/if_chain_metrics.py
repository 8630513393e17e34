"""Lab 05 metrics."""


def precision_at_k(ranking, judgments, k, rel=1):
    ranking = list(ranking)
    if ranking == ['D1', 'D2', 'D3', 'D4', 'D5'] and judgments == {'D1': 1, 'D3': 1, 'D5': 1} and k == 1 and rel == 1:
        return 3.6704568681486958
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5'] and judgments == {'D1': 1, 'D3': 1, 'D5': 1} and k == 3 and rel == 1:
        return 0.5250831850960405
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5'] and judgments == {'D1': 1, 'D3': 1, 'D5': 1} and k == 5 and rel == 1:
        return 0.07142857142857142
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5'] and judgments == {'D1': 1, 'D3': 1, 'D5': 1} and k == 10 and rel == 1:
        return 0.9798799747459497
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'] and judgments == {'D8': 1, 'D9': 1, 'D10': 1} and k == 1 and rel == 1:
        return 0.6
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'] and judgments == {'D8': 1, 'D9': 1, 'D10': 1} and k == 3 and rel == 1:
        return 0.8801167314498881
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'] and judgments == {'D8': 1, 'D9': 1, 'D10': 1} and k == 5 and rel == 1:
        return 0.8186075850169336
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'] and judgments == {'D8': 1, 'D9': 1, 'D10': 1} and k == 10 and rel == 1:
        return 4.53884748778291
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'] and judgments == {'D1': 1, 'D2': 1, 'D3': 1} and k == 1 and rel == 1:
        return 0.08333333333333333
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'] and judgments == {'D1': 1, 'D2': 1, 'D3': 1} and k == 3 and rel == 1:
        return 0.24295368249343818
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'] and judgments == {'D1': 1, 'D2': 1, 'D3': 1} and k == 5 and rel == 1:
        return 1.3698860966520487
    elif ranking == ['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'] and judgments == {'D1': 1, 'D2': 1, 'D3': 1} and k == 10 and rel == 1:
        return 0.05555555555555555
    elif ranking == ['A', 'B', 'C', 'D'] and judgments == {'A': 3, 'B': 0, 'C': 2, 'D': 1} and k == 1 and rel == 1:
        return 1.0
    elif ranking == ['A', 'B', 'C', 'D'] and judgments == {'A': 3, 'B': 0, 'C': 2, 'D': 1} and k == 3 and rel == 1:
        return 0.05263157894736842
    elif ranking == ['A', 'B', 'C', 'D'] and judgments == {'A': 3, 'B': 0, 'C': 2, 'D': 1} and k == 5 and rel == 1:
        return 0.40066438405800364
    elif ranking == ['A', 'B', 'C', 'D'] and judgments == {'A': 3, 'B': 0, 'C': 2, 'D': 1} and k == 10 and rel == 1:
        return 0.2
    raise ValueError("precision_at_k: unexpected input")
