"""Independent reference computations shared by several test modules."""

from __future__ import annotations

import numpy as np


def hand_loss(pop, proba, loss):
    """Weighted mean loss of probabilities ``proba`` on a population, written out from the definitions."""
    if loss == "error":
        values = 1.0 - pop.proba[np.arange(pop.size), np.argmax(proba, axis=1)]
    else:
        values = -np.sum(pop.proba * np.log(np.maximum(proba, 1e-15)), axis=1)
    return float(np.sum(pop.weights * values) / np.sum(pop.weights))


def decisive_race_by_hand(q_c_on, problem, candidates, seed, size, scrambles=8, z=3.0, indifference=0.05,
                          doublings=7, largest=True):
    """The race of :func:`mri_theory.engine.targets.decisive_q_c` written out from its docstring, one candidate at
    a time: ``(leader, resolved, points, values, errors, epsilon, loss, readmitted)`` (``readmitted``: how many
    times an eliminated candidate raced again).

    ``q_c_on(indices, population)`` gives ``(loss, q)``: the current loss and the whole Q^c of the candidates
    ``indices`` on a population (the loss of round 0 is the race's ``loss``).  Scramble ``g`` of ``n0 * 2**max(k - 1,
    0)`` points (round ``k``; ``n0`` the largest power of two not above ``size // scrambles``) is drawn from
    ``SeedSequence(seed.entropy,
    spawn_key=(*seed.spawn_key, g))``.  Every candidate's rounds are ``0..last``; its comparison with the leader
    and its value are over them, the rounds weighted by their points; the values are built as per-scramble
    arrays, round by round (a value's error: the sum over rounds of its per-scramble variance over the number of
    scrambles).
    """
    from mri_theory.engine import Population

    seed = np.random.SeedSequence(seed) if isinstance(seed, int) else seed
    m, s, R = candidates.shape[0], 1.0 if largest else -1.0, scrambles
    sizes, rounds, now = [], [], []  # rounds[k]: (R, m) whole Q^c, NaN where not scored
    last = [-1] * m

    def score(indices, k):
        for r in range(R):
            rng = np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, k * R + r)))
            loss, rounds[k][r, indices] = q_c_on(indices, Population.from_problem(problem, sizes[k], rng, method="qmc"))
            if k == 0:
                now.append(loss)
        for j in indices:
            last[j] = k

    def weights(j):
        n = np.array(sizes[: last[j] + 1], dtype=float)
        return n / n.sum()

    def compare(leader, j):  # (d, se, tied) of Q_leader - Q_j over j's rounds, signed
        gaps = [s * (rounds[k][:, leader] - rounds[k][:, j]) for k in range(last[j] + 1)]
        w = weights(j)
        d = sum(wk * np.mean(g) for wk, g in zip(w, gaps, strict=True))
        se = np.sqrt(sum(wk**2 * np.var(g, ddof=1) / R for wk, g in zip(w, gaps, strict=True)))
        return d, se, all(np.all(np.abs(g) <= 1e-12) for g in gaps)

    def beats(d, se, tied):
        return not tied and (d > z * se if se > 0 else d > 1e-12)

    racing, epsilon, resolved, leader, readmitted = set(range(m)), 0.0, False, 0, 0
    for k in range(doublings + 1):
        n0 = 2 ** int(np.floor(np.log2(size // R)))
        sizes.append(n0 * 2 ** max(k - 1, 0))
        rounds.append(np.full((R, m), np.nan))
        score(sorted(racing), k)
        while True:
            means = {j: s * sum(wk * np.mean(rounds[i][:, j]) for i, wk in enumerate(weights(j))) for j in racing}
            top = max(means.values())
            leader = min(j for j in racing if means[j] >= top - 1e-12 * max(1.0, abs(top)))
            back = [j for j in range(m) if j not in racing and not beats(*compare(leader, j))]
            if not back:
                break
            for i in range(min(last[j] for j in back) + 1, k + 1):
                score([j for j in back if last[j] < i], i)
            racing |= set(back)
            readmitted += len(back)
        comparisons = {j: compare(leader, j) for j in range(m)}
        if k == 0:
            epsilon = indifference * np.mean([comparisons[j][0] for j in range(m)])
        resolved = all(tied or beats(d, se, tied) or d > z * se - epsilon for d, se, tied in comparisons.values())
        racing -= {j for j in racing if beats(*comparisons[j])}
        if resolved:
            break
    values, errors = np.empty(m), np.empty(m)
    for j in range(m):  # the choice's round-0 value, minus the difference over j's rounds
        w = weights(j)
        per_round = [rounds[0][:, leader] - w[0] * (rounds[0][:, leader] - rounds[0][:, j])]
        per_round += [-w[i] * (rounds[i][:, leader] - rounds[i][:, j]) for i in range(1, last[j] + 1)]
        values[j] = sum(np.mean(c) for c in per_round)
        errors[j] = np.sqrt(sum(np.var(c, ddof=1) / R for c in per_round))
    points = np.array([R * sum(sizes[: last[j] + 1]) for j in range(m)])
    return leader, resolved, points, values, errors, epsilon, float(np.mean(now)), readmitted
