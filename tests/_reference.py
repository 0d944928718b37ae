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
    a time: ``(leader, resolved, points, values, errors, epsilon, loss)``.

    ``q_c_on(indices, population)`` gives ``(loss, q)``: the current loss and the whole Q^c of the candidates
    ``indices`` on a population (the loss of round 0 is the race's ``loss``).  Scramble ``g`` of
    ``size // scrambles * 2**max(k - 1, 0)`` points (round ``k``) is drawn from ``SeedSequence(seed.entropy,
    spawn_key=(*seed.spawn_key, g))``.  The values are built as per-scramble arrays, round by round (a value's
    error: the sum over rounds of its per-scramble variance over the number of scrambles).
    """
    from mri_theory.engine import Population

    seed = np.random.SeedSequence(seed) if isinstance(seed, int) else seed
    m, s, R = candidates.shape[0], 1.0 if largest else -1.0, scrambles
    racing, rounds, sizes, now = list(range(m)), [], [], []
    eliminated = {}  # candidate: (eliminator, last round it was scored in)
    epsilon = 0.0
    for k in range(doublings + 1):
        n = size // R * 2 ** max(k - 1, 0)
        values = np.full((R, m), np.nan)
        for r in range(R):
            rng = np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, k * R + r)))
            loss, values[r, racing] = q_c_on(racing, Population.from_problem(problem, n, rng, method="qmc"))
            if k == 0:
                now.append(loss)
        rounds.append(values)
        sizes.append(n)
        w = np.array(sizes) / sum(sizes)

        def pooled(series, w=w):  # the points-weighted mean over rounds of each round's scramble mean
            return sum(wk * np.mean(v) for wk, v in zip(w, series, strict=True))

        means = {j: s * pooled([v[:, j] for v in rounds]) for j in racing}
        top = max(means.values())
        leader = min(j for j in racing if means[j] >= top - 1e-12 * max(1.0, abs(top)))
        d, se, tied = {}, {}, {}
        for j in racing:
            gaps = [s * (v[:, leader] - v[:, j]) for v in rounds]
            d[j] = pooled(gaps)
            se[j] = np.sqrt(sum(wk**2 * np.var(g, ddof=1) / R for wk, g in zip(w, gaps, strict=True)))
            tied[j] = all(np.all(np.abs(g) <= 1e-12) for g in gaps)
        if k == 0:
            epsilon = indifference * np.mean([d[j] for j in racing])
        beaten = [j for j in racing if not tied[j] and (d[j] > z * se[j] if se[j] > 0 else d[j] > 1e-12)]
        resolved = all(tied[j] or j in beaten or d[j] > z * se[j] - epsilon for j in racing)
        for j in beaten:
            eliminated[j] = (leader, k)
        racing = [j for j in racing if j not in beaten]
        if resolved:
            break
    comb = {leader: [rounds[0][:, leader]] + [np.zeros(R) for _ in rounds[1:]]}

    def minus_difference(j, anchor, last):
        w = np.array(sizes[: last + 1]) / sum(sizes[: last + 1])
        comb[j] = [comb[anchor][k] - (w[k] * (rounds[k][:, anchor] - rounds[k][:, j]) if k <= last else 0.0)
                   for k in range(len(rounds))]

    for j in racing:
        if j != leader:
            minus_difference(j, leader, len(rounds) - 1)
    for j in sorted(eliminated, key=lambda j: -eliminated[j][1]):
        minus_difference(j, *eliminated[j])
    q = np.array([sum(np.mean(c) for c in comb[j]) for j in range(m)])
    errors = np.array([np.sqrt(sum(np.var(c, ddof=1) / R for c in comb[j])) for j in range(m)])
    points = np.array([R * sum(sizes[: eliminated[j][1] + 1]) if j in eliminated else R * sum(sizes)
                       for j in range(m)])
    return leader, resolved, points, q, errors, epsilon, float(np.mean(now))
