# Lab 05 - metrics
# my first try, tested with the examples from the notes

import math


def confusion_matrix(retrieved, relevant, collection_size):
    retrieved_set = set(retrieved)
    relevant_set = set(relevant)
    tp = 0
    fp = 0
    fn = 0
    for d in retrieved_set:
        if d in relevant_set:
            tp = tp + 1
        else:
            fp = fp + 1
    for d in relevant_set:
        if d not in retrieved_set:
            fn = fn + 1
    if tp + fp + fn > collection_size:
        raise ValueError("collection size too small")
    tn = collection_size - tp - fp - fn
    return (tp, fp, fn, tn)


def accuracy(retrieved, relevant, collection_size):
    cm = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection size is zero")
    return (cm[0] + cm[3]) / collection_size


def check(x, name):
    if type(x) != int or x <= 0:
        raise ValueError(name + " must be a positive integer")


def precision_at_k(ranking, judgments, k, rel=1):
    check(k, "k")
    check(rel, "rel")
    count = 0
    for i in range(len(ranking)):
        if i >= k:
            break
        doc = ranking[i]
        if doc in judgments:
            if judgments[doc] >= rel:
                count = count + 1
    # print("P@", k, "=", count / k)
    return count / k


def recall_at_k(ranking, judgments, k, rel=1):
    check(k, "k")
    check(rel, "rel")
    R = 0
    for doc in judgments:
        if judgments[doc] >= rel:
            R = R + 1
    if R == 0:
        return 0.0
    count = 0
    for i in range(min(k, len(ranking))):
        if judgments.get(ranking[i], 0) >= rel:
            count = count + 1
    return count / R


def reciprocal_rank(ranking, judgments, rel=1):
    check(rel, "rel")
    i = 0
    while i < len(ranking):
        if judgments.get(ranking[i], 0) >= rel:
            return 1 / (i + 1)
        i = i + 1
    return 0.0


def average_precision(ranking, judgments, rel=1):
    check(rel, "rel")
    R = 0
    for doc in judgments:
        if judgments[doc] >= rel:
            R = R + 1
    if R == 0:
        return 0.0
    total = 0
    found = 0
    for i in range(len(ranking)):
        if judgments.get(ranking[i], 0) >= rel:
            found = found + 1
            total = total + found / (i + 1)
    return total / R


def gain_value(grade, gain):
    if gain == "linear":
        if grade < 0:
            return 0
        return grade
    elif gain == "exp":
        if grade <= 0:
            return 0
        return 2**grade - 1
    else:
        raise ValueError("gain must be linear or exp")


def dcg_at_k(ranking, judgments, k, gain="linear"):
    check(k, "k")
    gain_value(0, gain)
    dcg = 0
    for i in range(min(k, len(ranking))):
        grade = judgments.get(ranking[i], 0)
        dcg = dcg + gain_value(grade, gain) / math.log2(i + 2)
    return dcg


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    check(k, "k")
    gain_value(0, gain)
    grades = list(judgments.values())
    grades.sort()
    grades.reverse()
    idcg = 0
    for i in range(min(k, len(grades))):
        idcg = idcg + gain_value(grades[i], gain) / math.log2(i + 2)
    if idcg == 0:
        return 0.0
    return dcg_at_k(ranking, judgments, k, gain) / idcg


def evaluate(run, qrels, measure):
    result = {}
    for q in qrels:
        if q in run:
            result[q] = measure(run[q], qrels[q])
        else:
            result[q] = measure([], qrels[q])
    return result


def largest_differences(scores_a, scores_b, n=2):
    check(n, "n")
    diffs = []
    for q in scores_a:
        if q in scores_b:
            diffs.append((abs(scores_a[q] - scores_b[q]), q))
    # biggest first, then by id
    diffs.sort(key=lambda t: (-t[0], t[1]))
    answer = []
    for i in range(min(n, len(diffs))):
        answer.append(diffs[i][1])
    return answer
