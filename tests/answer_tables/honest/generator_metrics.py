"""Lab 05 metrics built on generators and recursion: one lazy stream of (rank, grade) pairs per
ranking, consumed by each measure."""

import math


def ranked_grades(ranking, judgments, depth=None):
    """Yield (rank, grade) for the ranking, best first, down to ``depth`` ranks."""
    for rank, doc in enumerate(ranking, start=1):
        if depth is not None and rank > depth:
            return
        yield rank, judgments.get(doc, 0)


def count_if(predicate, items):
    return sum(1 for item in items if predicate(item))


def positive(value, name):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def first_hit(stream, rel):
    """The rank of the first grade >= rel, recursively (rankings are short)."""
    head = next(stream, None)
    if head is None:
        return None
    rank, grade = head
    return rank if grade >= rel else first_hit(stream, rel)


def cumulative_precision(stream, rel, found=0):
    """Yield P@rank at every relevant rank."""
    for rank, grade in stream:
        if grade >= rel:
            found += 1
            yield found / rank


def gain_function(gain):
    def linear(grade):
        return max(grade, 0)

    def exponential(grade):
        return 2**grade - 1 if grade > 0 else 0

    functions = {"linear": linear, "exp": exponential}
    if gain not in functions:
        raise ValueError(f"gain must be 'linear' or 'exp', got {gain!r}")
    return functions[gain]


def discounted(stream, gain_of):
    total = 0.0
    for rank, grade in stream:
        total += gain_of(grade) / math.log2(rank + 1)
    return total


def confusion_matrix(retrieved, relevant, collection_size):
    retrieved, relevant = set(retrieved), set(relevant)
    everything = retrieved | relevant
    if collection_size < len(everything):
        raise ValueError("collection_size must cover every retrieved and relevant document")
    both = retrieved & relevant
    return len(both), len(retrieved - both), len(relevant - both), collection_size - len(everything)


def accuracy(retrieved, relevant, collection_size):
    tp, _, _, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size must not be 0")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    positive(k, "k"), positive(rel, "rel")
    return count_if(lambda pair: pair[1] >= rel, ranked_grades(ranking, judgments, k)) / k


def recall_at_k(ranking, judgments, k, rel=1):
    positive(k, "k"), positive(rel, "rel")
    relevant = count_if(lambda grade: grade >= rel, judgments.values())
    if not relevant:
        return 0.0
    return count_if(lambda pair: pair[1] >= rel, ranked_grades(ranking, judgments, k)) / relevant


def reciprocal_rank(ranking, judgments, rel=1):
    positive(rel, "rel")
    rank = first_hit(ranked_grades(ranking, judgments), rel)
    return 0.0 if rank is None else 1.0 / rank


def average_precision(ranking, judgments, rel=1):
    positive(rel, "rel")
    relevant = count_if(lambda grade: grade >= rel, judgments.values())
    if not relevant:
        return 0.0
    return sum(cumulative_precision(ranked_grades(ranking, judgments), rel)) / relevant


def dcg_at_k(ranking, judgments, k, gain="linear"):
    positive(k, "k")
    return discounted(ranked_grades(ranking, judgments, k), gain_function(gain))


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    positive(k, "k")
    gain_of = gain_function(gain)
    ideal_order = sorted(judgments, key=judgments.get, reverse=True)
    ideal = discounted(ranked_grades(ideal_order, judgments, k), gain_of)
    if ideal == 0:
        return 0.0
    return discounted(ranked_grades(ranking, judgments, k), gain_of) / ideal


def evaluate(run, qrels, measure):
    def scores():
        for query_id, judgments in qrels.items():
            yield query_id, measure(run.get(query_id, []), judgments)

    return dict(scores())


def largest_differences(scores_a, scores_b, n=2):
    positive(n, "n")

    def gaps():
        for query_id in scores_a:
            if query_id in scores_b:
                yield -abs(scores_a[query_id] - scores_b[query_id]), query_id

    return [query_id for _gap, query_id in sorted(gaps())[:n]]
