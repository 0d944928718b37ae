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


# -- k-NN from its definition, and its exact loss by brute-force line integration --------------------------------


def knn_reference_proba(X, y, k, kernel, n_classes, P):
    """k-NN class probabilities at the points ``P`` written out from the definitions: the ``min(k, n)`` nearest
    training points by (squared distance, index) (a stable sort), vote shares (``"rectangular"``) or Samworth's
    rank weights :math:`w_i \\propto 1 + d/2 - d/(2K^{2/d})(i^{1+2/d} - (i-1)^{1+2/d})` (``"optimal"``)."""
    X, P = np.atleast_2d(X), np.atleast_2d(P)
    n, d = X.shape
    K = min(k, n)
    d2 = ((P[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)
    order = np.argsort(d2, axis=1, kind="stable")[:, :K]
    labels = np.asarray(y)[order]
    if kernel == "rectangular":
        w = np.ones(K)
    else:
        i = np.arange(1, K + 1, dtype=float)
        e = 1 + 2 / d
        w = 1 + d / 2 - d / (2 * K ** (2 / d)) * (i**e - (i - 1) ** e)
    w = w / w.sum()
    return np.stack([(w * (labels == j)).sum(axis=1) for j in range(n_classes)], axis=1)


def reference_pointwise(proba, y, loss):
    """The loss of probability rows ``proba`` ``(..., k)`` for true class ``y``: error (the lowest class within
    1e-12 of the largest probability is predicted) or log loss (floored at 1e-15)."""
    if loss == "error":
        top = proba.max(axis=-1, keepdims=True)
        predicted = np.argmax(proba >= top - 1e-12 * np.maximum(1.0, top), axis=-1)
        return (predicted != y).astype(float)
    return -np.log(np.maximum(proba[..., y], 1e-15))


def _phi_cdf(t):
    from scipy import special

    return special.ndtr(t)


def knn_exact_loss_1d(X, y, k, kernel, n_classes, weights, means, sds, labels, loss):
    """The k-NN loss under a 1-D Gaussian mixture, exactly: the prediction is constant between consecutive
    midpoints of pairs of training points, so the loss is a sum of normal CDF differences."""
    x = np.asarray(X, dtype=float).ravel()
    cuts = np.unique(0.5 * (x[:, None] + x[None, :]))
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    inner = np.concatenate([[cuts[0] - 1.0], 0.5 * (cuts[:-1] + cuts[1:]), [cuts[-1] + 1.0]])
    proba = knn_reference_proba(x[:, None], y, k, kernel, n_classes, inner[:, None])
    total = 0.0
    for w, mu, sd, lab in zip(weights, means, sds, labels, strict=True):
        mass = _phi_cdf((edges[1:] - mu) / sd) - _phi_cdf((edges[:-1] - mu) / sd)
        total += w * float(np.sum(mass * reference_pointwise(proba, lab, loss)))
    return total


def knn_exact_loss_2d(X, y, k, kernel, n_classes, weights, means, covariances, labels, loss, radius=9.0, nodes=30):
    """The k-NN loss under a 2-D Gaussian mixture by brute-force line integration.

    In each component's whitened coordinates :math:`x = \\mu + L z` every bisector of two training points is a
    line; along the horizontal line :math:`z_2 = t` the prediction is constant between consecutive crossings of
    all the bisectors (found here for every pair), so the inner integral over :math:`z_1` is a sum of normal CDF
    differences, and the outer integral over :math:`t \\in [-9, 9]` (the rest has mass below 1e-18) is smooth
    between the :math:`t` of the bisectors' pairwise intersections, where it is split (and into pieces at most 1
    wide), each piece by ``nodes``-point Gauss-Legendre."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    a_idx, b_idx = np.triu_indices(n, 1)
    gl_x, gl_w = np.polynomial.legendre.leggauss(nodes)
    total = 0.0
    for w, mu, cov, lab in zip(weights, means, covariances, labels, strict=True):
        L = np.linalg.cholesky(cov)
        # bisector (a, b) in z: 2 (b - a)^T L z = |b - mu|^2 - |a - mu|^2
        normal = 2.0 * (X[b_idx] - X[a_idx]) @ L
        offset = ((X[b_idx] - mu) ** 2).sum(axis=1) - ((X[a_idx] - mu) ** 2).sum(axis=1)
        keep = np.any(normal != 0, axis=1)
        normal, offset = normal[keep], offset[keep]
        i, j = np.triu_indices(normal.shape[0], 1)
        det = normal[i, 0] * normal[j, 1] - normal[i, 1] * normal[j, 0]
        ok = det != 0
        t_vertex = (normal[i, 0][ok] * offset[j][ok] - normal[j, 0][ok] * offset[i][ok]) / det[ok]
        flat = normal[:, 0] == 0  # a bisector along z_1: the prediction changes across its t
        t_flat = offset[flat] / normal[flat, 1]
        t_all = np.concatenate([t_vertex, t_flat])
        grid = np.linspace(-radius, radius, int(2 * radius) + 1)  # pieces at most 1 wide, for the normal density
        breaks = np.unique(np.concatenate([grid, t_all[np.abs(t_all) < radius]]))
        for lo, hi in zip(breaks[:-1], breaks[1:], strict=True):
            if hi <= lo:
                continue
            t = 0.5 * (lo + hi) + 0.5 * (hi - lo) * gl_x
            with np.errstate(divide="ignore", invalid="ignore"):
                z1 = (offset[None, :] - normal[None, :, 1] * t[:, None]) / normal[None, :, 0]
            z1 = np.sort(np.where(np.isfinite(z1), z1, np.inf), axis=1)
            ends = np.concatenate([np.full((t.size, 1), -np.inf), z1, np.full((t.size, 1), np.inf)], axis=1)
            finite_lo = np.where(np.isfinite(ends[:, :-1]), ends[:, :-1], np.nan)
            finite_hi = np.where(np.isfinite(ends[:, 1:]), ends[:, 1:], np.nan)
            mid = np.where(np.isfinite(finite_lo) & np.isfinite(finite_hi), 0.5 * (finite_lo + finite_hi),
                           np.where(np.isfinite(finite_hi), finite_hi - 1.0, finite_lo + 1.0))
            mid = np.where(np.isnan(mid), 0.0, mid)  # a line crossing nothing
            z = np.stack([mid, np.broadcast_to(t[:, None], mid.shape)], axis=-1)
            points = mu + z.reshape(-1, 2) @ L.T
            proba = knn_reference_proba(X, y, k, kernel, n_classes, points).reshape(mid.shape + (n_classes,))
            mass = _phi_cdf(ends[:, 1:]) - _phi_cdf(ends[:, :-1])
            inner = np.sum(mass * reference_pointwise(proba, lab, loss), axis=1)
            density = np.exp(-0.5 * t * t) / np.sqrt(2 * np.pi)
            total += w * 0.5 * (hi - lo) * float(np.sum(gl_w * density * inner))
    return total

def decisive_race_by_hand(q_c_on, problem, candidates, seed, size, scrambles=8, z=3.0, indifference=0.05,
                          doublings=7, largest=True, level=0.05):
    """The race of :func:`mri_theory.engine.targets.decisive_q_c` written out from its docstring, one candidate at
    a time: ``(leader, resolved, points, values, errors, epsilon, loss, readmitted)`` (``readmitted``: how many
    times an eliminated candidate raced again).

    ``q_c_on(indices, population)`` gives ``(loss, q)``: the current loss and the whole Q^c of the candidates
    ``indices`` on a population (the loss of round 0 is the race's ``loss``).  ``level``: each comparison at
    Student's t quantile (``scrambles - 1`` degrees of freedom) of ``level / ((m - 1) (doublings + 1))``, the zone's
    spread from every candidate's pooled value (less its populations' current loss, common to all candidates
    of a population) after each look; ``level=None``: ``z`` and round 0's differences.
    Also returned after ``readmitted``: the gap over the runner-up, its error and the shortfall bound.
    Scramble ``g`` of ``n0 * 2**max(k - 1,
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
    sizes, rounds, now, losses = [], [], [], []  # rounds[k]: (R, m) whole Q^c, NaN where not scored
    last = [-1] * m

    def score(indices, k):
        for r in range(R):
            rng = np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, k * R + r)))
            loss, rounds[k][r, indices] = q_c_on(indices, Population.from_problem(problem, sizes[k], rng, method="qmc"))
            losses[k][r] = loss  # the same population's current loss: Q^c - loss = -T, the term that differs
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

    from scipy.stats import t as student_t

    q = z if level is None else student_t.ppf(1 - level / (max(m - 1, 1) * (doublings + 1)), R - 1)

    def beats(d, se, tied):
        return not tied and (d > q * se if se > 0 else d > 1e-12)

    racing, epsilon, resolved, leader, readmitted = set(range(m)), 0.0, False, 0, 0
    for k in range(doublings + 1):
        n0 = 2 ** int(np.floor(np.log2(size // R)))
        sizes.append(n0 * 2 ** max(k - 1, 0))
        rounds.append(np.full((R, m), np.nan))
        losses.append(np.full(R, np.nan))
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
        if level is not None:
            pooled = [s * sum(wk * np.mean(rounds[i][:, j] - losses[i]) for i, wk in enumerate(weights(j)))
                      for j in range(m)]  # each candidate's Q^c less its populations' current loss, pooled
            epsilon = indifference * np.mean([max(pooled) - v for v in pooled])
        elif k == 0:
            epsilon = indifference * np.mean([comparisons[j][0] for j in range(m)])
        resolved = all(tied or beats(d, se, tied) or d > q * se - epsilon for d, se, tied in comparisons.values())
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
    final = {j: compare(leader, j) for j in range(m) if j != leader}
    if final:
        runner_up = min(final, key=lambda j: (final[j][0], j))
        gap, gap_se = final[runner_up][0], final[runner_up][1]
        bound = max([0.0] + [q * se - d for d, se, tied in final.values() if not tied])
    else:
        gap, gap_se, bound = np.nan, np.nan, 0.0
    return leader, resolved, points, values, errors, epsilon, float(np.mean(now)), readmitted, gap, gap_se, bound
