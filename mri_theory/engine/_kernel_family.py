r"""The exact error rates of a family of two-class kernel rules that share their points, compiled by numba.

Imported by :mod:`mri_theory.engine.kernel_rules` on first use (:func:`~mri_theory.engine.kernel_rules.
kernel_losses_family`, which states the method and what is certified).  A family is ``R`` two-class rules whose
pair functions :math:`g_r = s_1 - s_0` are kernel sums over one shared set of ``n`` points plus one point of
their own (the SVM's retrained models: the distinct training points and each model's candidate),

.. math::
    g_r(x) = \sum_{i=1}^n A_{ri}\,\bigl(K(x, p_i) - 1\bigr) + \alpha_r\,\bigl(K(x, e_r) - 1\bigr) + b_r .

* :func:`family_events` -- every rule's events (vertical tangencies :math:`g_r = \partial_2 g_r = 0`) by the
  certified quadtree of :func:`~mri_theory.engine._kernel_compiled.events`, run for all the rules at once: one
  tree over the plane whose cells carry the list of the rules for which they are still open.  At a cell the
  kernels of the shared points, their gradients, Hessians and the bounds of their Hessian and third-derivative
  norms over the cell are evaluated once (the exponentials), and each open rule's value, derivatives and bounds
  are dot products of its coefficients with them.  Each rule's tests, subdivision, one-to-one cells
  (:func:`~mri_theory.engine._kernel_compiled._single_tangency`'s criterion) and Newton solutions are those of
  the per-rule quadtree, so each rule's list of events is certified as the per-rule list is;
* :func:`family_losses` -- each rule's outer integral over :math:`x_1` split at its own events, by the per-rule
  panels and lines of :func:`~mri_theory.engine._kernel_compiled.rule_losses`; a panel's lines are isolated or
  continued as there, with two changes that make a continued line cheaper (:func:`_family_continued`): each root is
  predicted by the cubic through the panel's nearest known lines on each side with their roots' slopes
  :math:`dt/dx_1 = -\partial_1 g / \partial_2 g` (:func:`_predict`), and Newton's method stops as soon as a
  Kantorovich-type bound certifies a single simple root within ``ROOT_ACCURACY`` of the iterate
  (:func:`_continued_certified`), usually after one evaluation of the pair function (:func:`_pair_on_line`: the
  two class scores' difference and its derivatives in one sum) instead of two or three.

The functions that allocate nothing, and call nothing that does, are compiled without the runtime's reference
counts (:data:`~mri_theory.engine._kernel_compiled.lean_jit`); a panel's run of continued lines is one call
(:func:`_panel_continued`), its isolated lines (:func:`_family_isolated`) calls of their own, with the
arithmetic of one call per line.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from mri_theory.engine._kernel_compiled import (
    EVENT_CELL,
    MAX_EVENT_CELLS,
    OUTER_CUTS,
    REACH,
    add_band,
    edge_free,
    ends_agree,
    kronrod_panel,
    lean_jit,
    line_error,
    line_setup,
    newton_event,
    panel_edges,
    panel_node,
    two_class_mass,
    unsmoothed,
)

#: A continued root is accepted once its certified distance from the Newton iterate is below this, relative to
#: ``max(1, |t|)`` (:func:`_continued_certified`).
ROOT_ACCURACY = 1e-13

_jit = numba.njit(cache=True, nogil=True)


@lean_jit
def _shared_basis(c1, c2, h1, h2, points, gamma, basis):  # pragma: no cover - compiled by numba
    r"""At the centre ``(c1, c2)`` of the cell ``[c1 -+ h1] x [c2 -+ h2]``, each shared point's kernel
    :math:`K`, its gradient, its Hessian (rows 0-5 of ``basis``) and the bounds over the cell of its Hessian's
    norm and of its third directional derivatives (rows 6, 7: those of
    :func:`~mri_theory.engine._kernel_compiled._cell_bounds`, per unit coefficient)."""
    n = points.shape[0]
    g15 = gamma * math.sqrt(gamma)
    for i in range(n):
        a = c1 - points[i, 0]
        b = c2 - points[i, 1]
        k = math.exp(-gamma * (a * a + b * b))
        basis[0, i] = k
        basis[1, i] = -2.0 * gamma * a * k
        basis[2, i] = -2.0 * gamma * b * k
        basis[3, i] = (4.0 * gamma * gamma * a * a - 2.0 * gamma) * k
        basis[4, i] = 4.0 * gamma * gamma * a * b * k
        basis[5, i] = (4.0 * gamma * gamma * b * b - 2.0 * gamma) * k
        r1 = max(0.0, abs(points[i, 0] - c1) - h1)
        r2 = max(0.0, abs(points[i, 1] - c2) - h2)
        x = gamma * (r1 * r1 + r2 * r2)
        tail = math.exp(-x) if x > 1.5 else 1.0
        basis[6, i] = 2.0 * gamma if x < 1.5 else 2.0 * gamma * (2.0 * x - 1.0) * tail
        basis[7, i] = 6.5 * g15 if x < 2.0 else g15 * (12.0 * math.sqrt(x) + 8.0 * x * math.sqrt(x)) * tail


@lean_jit
def _rule_at_cell(r, c1, c2, h1, h2, A, alpha, const, extra, gamma, basis, out):  # pragma: no cover - compiled
    """Rule ``r``'s pair function at the cell's centre from the shared ``basis``: ``out`` = (value, two
    gradient entries, three Hessian entries, Hessian-norm bound, third-derivative bound over the cell)."""
    n = A.shape[1]
    v, d1, d2, e11, e12, e22, hb, tb = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    for i in range(n):
        a = A[r, i]
        v += a * basis[0, i]
        d1 += a * basis[1, i]
        d2 += a * basis[2, i]
        e11 += a * basis[3, i]
        e12 += a * basis[4, i]
        e22 += a * basis[5, i]
        aa = abs(a)
        hb += aa * basis[6, i]
        tb += aa * basis[7, i]
    s = alpha[r]
    if s != 0.0:  # the rule's own point, evaluated for it alone
        a = c1 - extra[r, 0]
        b = c2 - extra[r, 1]
        k = math.exp(-gamma * (a * a + b * b))
        v += s * k
        d1 += s * (-2.0 * gamma * a * k)
        d2 += s * (-2.0 * gamma * b * k)
        e11 += s * (4.0 * gamma * gamma * a * a - 2.0 * gamma) * k
        e12 += s * (4.0 * gamma * gamma * a * b * k)
        e22 += s * (4.0 * gamma * gamma * b * b - 2.0 * gamma) * k
        r1 = max(0.0, abs(extra[r, 0] - c1) - h1)
        r2 = max(0.0, abs(extra[r, 1] - c2) - h2)
        x = gamma * (r1 * r1 + r2 * r2)
        tail = math.exp(-x) if x > 1.5 else 1.0
        g15 = gamma * math.sqrt(gamma)
        hb += abs(s) * (2.0 * gamma if x < 1.5 else 2.0 * gamma * (2.0 * x - 1.0) * tail)
        tb += abs(s) * (6.5 * g15 if x < 2.0 else g15 * (12.0 * math.sqrt(x) + 8.0 * x * math.sqrt(x)) * tail)
    out[0] = v + const[r]
    out[1], out[2], out[3], out[4], out[5], out[6], out[7] = d1, d2, e11, e12, e22, hb, tb


@_jit
def family_events(points, A, alpha, const, extra, P_all, S_all, c_all, gamma, box, out, counts, bands,
                  nbands):  # pragma: no cover - compiled by numba
    r"""The :math:`x_1` of every event of each two-class rule ``r`` in ``box``, written to ``out[r]`` (its
    count to ``counts[r]``), and the bands of its cells solved at the finest level to ``bands[r]`` (their count
    to ``nbands[r]``): :func:`~mri_theory.engine._kernel_compiled.events` for all the rules in one tree.

    Rule ``r``'s pair function is ``A[r] @ K(x, points) + alpha[r] K(x, extra[r]) + const[r]`` (the kernels
    themselves; ``const`` holds the ``-1`` terms); ``P_all[r]``, ``S_all[r]``, ``c_all[r]`` the same rule as
    two class scores over the shared points and its own (for Newton's method,
    :func:`~mri_theory.engine._kernel_compiled.newton_event`, evaluated exactly).  A cell of the tree carries
    the rules for which it is open: those whose Taylor bounds about its centre (the value's reach, to second
    order with the Hessian bound or to third order with the Hessian at the centre, whichever is smaller; and the
    vertical slope's reach) exclude no tangency.  The rules' tests are the per-rule quadtree's, from their
    values and bounds at the cell (:func:`_rule_at_cell`): each rule's cells are the per-rule tree's, so its
    events are certified as the per-rule ones are.  Returns the number of (cell, rule) tests made."""
    R = A.shape[0]
    n = points.shape[0]
    width = 1.0 / math.sqrt(gamma)
    nx = max(1, int(math.ceil((box[1] - box[0]) / width)))
    ny = max(1, int(math.ceil((box[3] - box[2]) / width)))
    hx0, hy0 = 0.5 * (box[1] - box[0]) / nx, 0.5 * (box[3] - box[2]) / ny
    cap = 4 * nx * ny + 4096
    sc1, sc2, sh1, sh2 = np.empty(cap), np.empty(cap), np.empty(cap), np.empty(cap)
    ls, ll = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64)  # each cell's rules in the pool
    pool = np.empty(max(nx * ny * R + 64 * R, 1024), dtype=np.int64)
    top = 0
    used = 0
    for ix in range(nx):
        for iy in range(ny):
            sc1[top] = box[0] + (2 * ix + 1) * hx0
            sc2[top] = box[2] + (2 * iy + 1) * hy0
            sh1[top], sh2[top] = hx0, hy0
            ls[top], ll[top] = used, R
            for r in range(R):
                pool[used + r] = r
            used += R
            top += 1
    basis = np.empty((8, n))
    at = np.empty(8)
    val, g1, g2 = np.empty(6), np.empty(2), np.empty(2)
    h11, h12, h22 = np.empty(2), np.empty(2), np.empty(2)
    pa, pb = np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64)
    x = np.empty(2)
    processed = np.zeros(R, dtype=np.int64)
    solved = np.zeros(out.shape, dtype=np.bool_)
    for r in range(R):
        counts[r] = 0
    kept = np.empty(R, dtype=np.int64)
    pairs = 0
    smallest = EVENT_CELL * width
    while top > 0:
        top -= 1
        c1, c2, h1, h2 = sc1[top], sc2[top], sh1[top], sh2[top]
        start, length = ls[top], ll[top]
        used = start  # the popped cell's rules are the pool's last; its children's lists replace them
        room = top + 4 <= sc1.size and start + 4 * length <= pool.size  # always, by the stack's bound
        r_cell = math.sqrt(h1 * h1 + h2 * h2)
        _shared_basis(c1, c2, h1, h2, points, gamma, basis)
        nk = 0
        for e in range(length):
            r = pool[start + e]
            pairs += 1
            _rule_at_cell(r, c1, c2, h1, h2, A, alpha, const, extra, gamma, basis, at)
            g, k1, k2, k11, k12, k22, hess, third = at[0], at[1], at[2], at[3], at[4], at[5], at[6], at[7]
            # _zero_reach: the value's reach over the cell
            centre = 0.5 * abs(k11 + k22) + math.sqrt(0.25 * (k11 - k22) ** 2 + k12 * k12)
            second = min(0.5 * hess * r_cell * r_cell, 0.5 * centre * r_cell * r_cell
                         + third * r_cell * r_cell * r_cell / 6.0)
            if abs(g) > math.hypot(k1, k2) * r_cell + second:
                continue  # no zero of g in the cell
            if abs(k2) > math.hypot(k12, k22) * r_cell + 0.5 * third * r_cell * r_cell:
                continue  # no zero of the vertical slope: no tangency
            processed[r] += 1
            if r_cell > smallest:
                # _single_tangency: the tangency equations one-to-one on the cell?
                frob = k1 * k1 + k2 * k2 + k12 * k12 + k22 * k22
                det = abs(k1 * k22 - k2 * k12)
                largest = math.sqrt(0.5 * (frob + math.sqrt(max(frob * frob - 4.0 * det * det, 0.0))))
                if largest > 0.0 and det / largest > r_cell * math.sqrt(hess * hess + third * third):
                    x[0], x[1] = c1, c2
                    if (newton_event(x, 0, 0, 0, P_all[r], S_all[r], c_all[r], pa, pb, gamma, val, g1, g2, h11,
                                      h12, h22) and abs(x[0] - c1) <= h1 and abs(x[1] - c2) <= h2):
                        known = False  # the cell's one event (a neighbour may have found it too)
                        for f in range(counts[r]):
                            if solved[r, f] and abs(out[r, f] - x[0]) <= 1e-9 * width:
                                known = True
                        if not known and counts[r] < out.shape[1]:
                            out[r, counts[r]], solved[r, counts[r]] = x[0], True
                            counts[r] += 1
                        continue
            if r_cell > smallest and processed[r] < MAX_EVENT_CELLS and room:
                kept[nk] = r
                nk += 1
                continue
            # the finest cells: Newton's method from the centre; a failure gives a cut
            add_band(bands[r], nbands[r:r + 1], c1 - h1, c1 + h1)
            x[0], x[1] = c1, c2
            found = False
            if (newton_event(x, 0, 0, 0, P_all[r], S_all[r], c_all[r], pa, pb, gamma, val, g1, g2, h11, h12, h22)
                    and abs(x[0] - c1) <= 4.0 * r_cell and abs(x[1] - c2) <= 4.0 * r_cell):
                found = True
                known = False
                for f in range(counts[r]):
                    if solved[r, f] and abs(out[r, f] - x[0]) <= 1e-9 * width:
                        known = True
                if not known and counts[r] < out.shape[1]:
                    out[r, counts[r]], solved[r, counts[r]] = x[0], True
                    counts[r] += 1
            if not found and counts[r] < out.shape[1]:
                out[r, counts[r]], solved[r, counts[r]] = c1, False
                counts[r] += 1
        if nk == 0:
            continue
        for s1 in (-0.5, 0.5):
            for s2 in (-0.5, 0.5):
                sc1[top], sc2[top] = c1 + s1 * h1, c2 + s2 * h2
                sh1[top], sh2[top] = 0.5 * h1, 0.5 * h2
                ls[top], ll[top] = used, nk
                for e in range(nk):
                    pool[used + e] = kept[e]
                used += nk
                top += 1
    # a cut near a solved event is that event, seen from a cell where Newton's method did not land
    for r in range(R):
        count = counts[r]
        kept_count = 0
        for e in range(count):
            drop = False
            if not solved[r, e]:
                for f in range(count):
                    if solved[r, f] and abs(out[r, f] - out[r, e]) <= 64.0 * smallest:
                        drop = True
            if not drop:
                out[r, kept_count] = out[r, e]
                kept_count += 1
        counts[r] = kept_count
    return pairs


@lean_jit
def _pair_on_line(t, x1, px, d1sq, q, A, cdiff, gamma, out):  # pragma: no cover - compiled by numba
    r"""The pair function :math:`g = \sum_i A_i (K_i - 1) + c_1 - c_0` of a two-class rule at :math:`(x_1, t)`
    (``px``, ``q`` the points' coordinates, ``d1sq`` their squared first-coordinate distances to the line): ``out``
    = :math:`(g, \partial_2 g, \partial_2^2 g, \partial_1 g)`, the differences of
    :func:`~mri_theory.engine._kernel_compiled.curved_scores_on_line`'s class scores summed at once (the same
    split of near terms by ``expm1`` and far ones by ``exp``)."""
    near_sum, far_sum, far_coef = 0.0, 0.0, 0.0
    d_t, d_tt, d_x = 0.0, 0.0, 0.0
    g2 = 2.0 * gamma
    for i in range(A.size):
        a = A[i]
        d2 = t - q[i]
        x = gamma * (d1sq[i] + d2 * d2)
        if x < 1.0:
            em1 = math.expm1(-x)
            k = em1 + 1.0
            near_sum += a * em1
        else:
            k = math.exp(-x)
            far_sum += a * k
            far_coef += a
        ak = a * k
        d_t -= g2 * d2 * ak
        d_tt += (g2 * g2 * d2 * d2 - g2) * ak
        d_x -= g2 * (x1 - px[i]) * ak
    out[0] = (cdiff - far_coef) + (near_sum + far_sum)
    out[1], out[2], out[3] = d_t, d_tt, d_x


@lean_jit
def _continued_certified(count, first_sign, edges_free, ref_roots, guesses, x1, px, d1sq, q, A, cdiff, S, c, gamma,
                         third, lo, hi, roots, slopes, scratch_v, scratch_s,
                         pair):  # pragma: no cover - compiled by numba
    r""":func:`~mri_theory.engine._kernel_compiled._continued` from predicted roots (``guesses``) and with a
    certified stop of Newton's method, usually after one evaluation.

    A root's Newton iteration starts from its guess where that lies within half the gap to the reference roots'
    neighbours (``ref_roots``: a line of the panel whose roots are known), else from the reference root.  The
    pair function and its derivatives are :func:`_pair_on_line`'s.  At an
    iterate :math:`t` with :math:`g, g', g''` evaluated exactly and Newton step :math:`s = g/g'`, let :math:`M =
    |g''(t)| + 3|s| L_3` (``third`` :math:`= L_3 = 3.9 \gamma^{3/2} \sum_i |A_i|` bounds the third derivative
    on every vertical line), a bound of :math:`|g''|` on :math:`J = [t - 3|s|, t + 3|s|]`.  Where :math:`3|s| M
    \le |g'(t)|/2`, :math:`|g'| \ge |g'(t)|/2` on :math:`J` (at most one root there, simple, of the slope's
    sign), and :math:`|g(t - s)| \le M s^2/2` by Taylor's theorem, so :math:`g` has exactly one root in
    :math:`J`, within :math:`M s^2 / |g'(t)|` of :math:`t - s`; the iterate :math:`t - s` is accepted once that
    is below ``ROOT_ACCURACY`` :math:`\max(1, |t|)`, otherwise Newton's method goes on from it.  Every other check
    is :func:`~mri_theory.engine._kernel_compiled._continued`'s: each root kept within half the gap to its
    neighbours, of the slope's sign that the alternation from the reference's first sign gives it, the roots in
    order, and (unless the panel's window edges are certified root-free) the signs at the line's ends as the
    roots say.  Between two events the boundary crosses every line of the panel the same number of times, so
    ``count`` distinct roots found are all of them."""
    sign = first_sign
    for k in range(count):
        t = ref_roots[k]
        low = -np.inf if k == 0 else 0.5 * (ref_roots[k - 1] + t)
        high = np.inf if k == count - 1 else 0.5 * (t + ref_roots[k + 1])
        if low < guesses[k] < high:
            t = guesses[k]
        done = False
        slope = 0.0
        for _ in range(30):
            _pair_on_line(t, x1, px, d1sq, q, A, cdiff, gamma, pair)
            g, slope, bend = pair[0], pair[1], pair[2]
            if slope == 0.0:
                return False
            step = g / slope
            t_new = t - step
            if not (low < t_new < high):
                return False
            size, m = abs(step), abs(slope)
            bound = abs(bend) + 3.0 * size * third
            t = t_new
            if 6.0 * size * bound <= m and bound * size * size <= ROOT_ACCURACY * m * max(1.0, abs(t)):
                done = True
                break
        # the root must change the sign from the interval before it (positive before: a negative slope)
        if not done or (slope > 0.0) == (sign > 0.0):
            return False
        roots[k] = t
        slopes[k] = -pair[3] / slope  # the root's slope dt/dx1, for the predictor
        sign = -sign
        if k > 0 and not roots[k - 1] < roots[k]:
            return False
    if edges_free:
        return True
    return ends_agree(count, roots, first_sign, lo, hi, d1sq, q, S, c, gamma, scratch_v, scratch_s)


@lean_jit
def _predict(x1, count, hist_x, hist_roots, hist_slopes, nh, guesses):  # pragma: no cover - compiled by numba
    """Each root's guess on the line ``x1`` from the panel's known lines (``nh`` of them: their :math:`x_1`,
    roots and slopes :math:`dt/dx_1`): the cubic through the nearest known line on each side with their slopes
    (through the two nearest on the one side where the other has none; the tangent line with one known line).
    Returns the index of the nearest known line (the reference)."""
    left, right = -1, -1
    for j in range(nh):
        x = hist_x[j]
        if x <= x1 and (left < 0 or x > hist_x[left]):
            left = j
        if x > x1 and (right < 0 or x < hist_x[right]):
            right = j
    if left < 0 or right < 0:  # the two nearest, on the one side
        side = right if left < 0 else left
        other = -1
        for j in range(nh):
            if j != side and (other < 0 or abs(hist_x[j] - x1) < abs(hist_x[other] - x1)):
                other = j
        left, right = side, other
    nearest = left if right < 0 or abs(hist_x[left] - x1) <= abs(hist_x[right] - x1) else right
    if right < 0 or hist_x[right] == hist_x[left]:
        for k in range(count):
            guesses[k] = hist_roots[left, k] + hist_slopes[left, k] * (x1 - hist_x[left])
        return nearest
    xa, xb = hist_x[left], hist_x[right]
    span = xb - xa
    u, w = x1 - xa, x1 - xb
    for k in range(count):
        ta, tb, da, db = hist_roots[left, k], hist_roots[right, k], hist_slopes[left, k], hist_slopes[right, k]
        f1 = (tb - ta) / span
        f2 = (f1 - da) / span
        f3 = ((db - f1) / span - f2) / span
        guesses[k] = ta + u * (da + u * (f2 + f3 * w))
    return nearest


@lean_jit
def _family_continued(x1, points, S, c, A, cdiff, classes, gamma, third, comp_w, comp_m1, comp_s1, comp_m2,
                      comp_slope, comp_sd, comp_label, work_roots, work_slopes, guesses, scratch_v, scratch_s, pair,
                      d1sq, d1w, line_mu, line_dens, ref, hist_x, hist_roots, hist_slopes, state,
                      window, out):  # pragma: no cover - compiled by numba
    """:func:`~mri_theory.engine._kernel_compiled.line_error` of a two-class rule in 2-D where the panel's known
    lines (``state[0]`` of them, ``state[1]`` their count of roots; reset per panel) continue to this line: its
    roots predicted (:func:`_predict`) and continued (:func:`_continued_certified`), the nearest known line the
    reference; the line then joins the known ones.  Returns whether it did, with the integrand in ``out[0]``
    (the line is otherwise isolated by :func:`_family_isolated`)."""
    out[0] = 0.0
    nh = state[0]
    if nh == 0:
        return False
    count = state[1]
    lo, hi = line_setup(x1, 2, points, gamma, comp_w, comp_m1, comp_s1, comp_m2, comp_slope, comp_sd, line_mu,
                         line_dens, d1sq, d1w, window)
    if not lo < hi:
        return True
    j = _predict(x1, count, hist_x, hist_roots, hist_slopes, nh, guesses)
    if not _continued_certified(count, ref[2], ref[6] > 0.0, hist_roots[j], guesses, x1, points[:, 0], d1sq,
                                points[:, 1], A, cdiff, S, c, gamma, third, lo, hi, work_roots, work_slopes,
                                scratch_v, scratch_s, pair):
        return False
    out[0] = two_class_mass(count, work_roots, ref[2], classes, comp_label, comp_sd, line_mu, line_dens)
    if nh < hist_x.size:
        hist_x[nh] = x1
        for k in range(count):
            hist_roots[nh, k], hist_slopes[nh, k] = work_roots[k], work_slopes[k]
        state[0] = nh + 1
    return True


@_jit
def _family_isolated(x1, points, S, c, A, cdiff, AD, pa, pb, classes, gamma, comp_w, comp_m1, comp_s1, comp_m2,
                     comp_slope, comp_sd, comp_label, work_roots, scratch_v, scratch_s, pair, first, d1sq, d1w,
                     line_mu, line_dens, ref, ref_roots, prev_roots, hist_x, hist_roots, hist_slopes, state,
                     window):  # pragma: no cover - compiled by numba
    """A line of the panel that :func:`_family_continued` did not continue, isolated by
    :func:`~mri_theory.engine._kernel_compiled.line_error` (certified); its roots' slopes are evaluated and it
    starts the panel's known lines again (or joins them, with as many roots)."""
    ref[0] = 0.0
    total, unresolved = line_error(x1, 2, points, S, c, AD, pa, pb, classes, gamma, comp_w, comp_m1, comp_s1, comp_m2,
                                   comp_slope, comp_sd, comp_label, work_roots, scratch_v, scratch_s, first, d1sq, d1w,
                                   line_mu, line_dens, ref, ref_roots, prev_roots, window)
    width = hist_roots.shape[1]
    nh = state[0]
    if ref[0] > 0.0 and unresolved == 0.0 and int(ref[1]) <= width:  # isolated: its roots join the known lines
        found = int(ref[1])
        if nh == 0 or found != state[1] or nh >= hist_x.size:
            nh = 0
            state[1] = found
        hist_x[nh] = x1
        for k in range(found):
            t = ref_roots[k]
            _pair_on_line(t, x1, points[:, 0], d1sq, points[:, 1], A, cdiff, gamma, pair)
            hist_roots[nh, k] = t
            hist_slopes[nh, k] = -pair[3] / pair[1] if pair[1] != 0.0 else 0.0
        state[0] = nh + 1
    return total, unresolved


@lean_jit
def _panel_continued(i, s0, half, a_edge, b_edge, nodes, values, unresolved_values, points, S, c, A, cdiff, classes,
                     gamma, third, comp_w, comp_m1, comp_s1, comp_m2, comp_slope, comp_sd, comp_label, work_roots,
                     work_slopes, guesses, scratch_v, scratch_s, pair, d1sq, d1w, line_mu, line_dens, ref, hist_x,
                     hist_roots, hist_slopes, state, window, line_value):  # pragma: no cover - compiled by numba
    """The panel's lines from the ``i``-th on, each continued by :func:`_family_continued` (its weighted integrand
    in ``values``), up to the first that is not: returns its index (``nodes.size`` when all were).  One call for
    a run of continued lines: a function that allocates (the isolation's) may not be called from here, and each
    call of a compiled function with arrays costs their reference counts."""
    while i < nodes.size:
        x1, jac = panel_node(s0, half, nodes[i], a_edge, b_edge)
        if not _family_continued(x1, points, S, c, A, cdiff, classes, gamma, third, comp_w, comp_m1, comp_s1, comp_m2,
                                 comp_slope, comp_sd, comp_label, work_roots, work_slopes, guesses, scratch_v,
                                 scratch_s, pair, d1sq, d1w, line_mu, line_dens, ref, hist_x, hist_roots, hist_slopes,
                                 state, window, line_value):
            return i
        values[i] = line_value[0] * jac
        unresolved_values[i] = 0.0
        i += 1
    return i


@_jit
def family_losses(points, extra, S_all, c_all, classes_all, gamma, comp_w, comp_m, comp_cov, comp_label, tol,
                  nodes, kronrod, gauss, out_err, out_unresolved, out_estimate, out_events):  # pragma: no cover
    r"""The exact error rate of each two-class rule ``r`` of a 2-D family (scores ``S_all[r]`` ``(2, n + 1)``
    over the shared ``points`` ``(n, 2)`` and its own point ``extra[r]``, constants ``c_all[r]``, present
    classes ``classes_all[r]``), with the unresolved mass, the quadrature's estimate and its number of events.

    The events of all the rules come from one tree (:func:`family_events`); each rule's outer integral is then
    :func:`~mri_theory.engine._kernel_compiled.rule_losses`'s: panels between its events, started at the
    components' cuts, adaptive Gauss-Kronrod after the smoothing substitution, lines by
    :func:`~mri_theory.engine._kernel_compiled.line_error`, its roots continued (:func:`_family_continued`: predicted
    from the panel's known lines, each Newton solution certified to ``ROOT_ACCURACY``) with certified window
    edges."""
    R = S_all.shape[0]
    n = points.shape[0]
    C = comp_w.size
    comp_m1, comp_s1 = np.empty(C), np.empty(C)
    comp_m2, comp_slope, comp_sd = np.empty(C), np.empty(C), np.empty(C)
    for cc in range(C):
        s11, s12, s22 = comp_cov[cc, 0, 0], comp_cov[cc, 0, 1], comp_cov[cc, 1, 1]
        comp_m1[cc], comp_s1[cc] = comp_m[cc, 0], math.sqrt(s11)
        comp_m2[cc], comp_slope[cc] = comp_m[cc, 1], s12 / s11
        comp_sd[cc] = math.sqrt(max(s22 - s12 * s12 / s11, 0.0))
    x_lo, x_hi, y_lo, y_hi = np.inf, -np.inf, np.inf, -np.inf
    for cc in range(C):
        x_lo = min(x_lo, comp_m1[cc] - REACH * comp_s1[cc])
        x_hi = max(x_hi, comp_m1[cc] + REACH * comp_s1[cc])
        s2 = math.sqrt(comp_cov[cc, 1, 1])
        y_lo = min(y_lo, comp_m2[cc] - REACH * s2)
        y_hi = max(y_hi, comp_m2[cc] + REACH * s2)
    box = np.array([x_lo, x_hi, y_lo, y_hi])
    # the shared points that some rule uses, the pair functions' coefficients, each rule's own points
    used_point = np.zeros(n, dtype=np.bool_)
    for r in range(R):
        for i in range(n):
            if S_all[r, 0, i] != 0.0 or S_all[r, 1, i] != 0.0:
                used_point[i] = True
    shared = np.flatnonzero(used_point)
    ns = shared.size
    P_shared = np.ascontiguousarray(points[shared])
    A = np.empty((R, ns))
    alpha, const = np.empty(R), np.empty(R)
    P_all = np.empty((R, ns + 1, 2))
    Sf_all = np.empty((R, 2, ns + 1))
    for r in range(R):
        total = 0.0
        for e in range(ns):
            i = shared[e]
            A[r, e] = S_all[r, 1, i] - S_all[r, 0, i]
            total += A[r, e]
            P_all[r, e, 0], P_all[r, e, 1] = points[i, 0], points[i, 1]
            Sf_all[r, 0, e], Sf_all[r, 1, e] = S_all[r, 0, i], S_all[r, 1, i]
        alpha[r] = S_all[r, 1, n] - S_all[r, 0, n]
        P_all[r, ns, 0], P_all[r, ns, 1] = extra[r, 0], extra[r, 1]
        Sf_all[r, 0, ns], Sf_all[r, 1, ns] = S_all[r, 0, n], S_all[r, 1, n]
        const[r] = (c_all[r, 1] - c_all[r, 0]) - total - alpha[r]
    found = np.empty((R, 4096))
    counts = np.zeros(R, dtype=np.int64)
    bands, nbands = np.empty((R, 256, 2)), np.zeros(R, dtype=np.int64)
    family_events(P_shared, A, alpha, const, extra, P_all, Sf_all, c_all, gamma, box, found, counts, bands, nbands)
    pa = np.zeros(1, dtype=np.int64)
    pb = np.ones(1, dtype=np.int64)
    line_mu, line_dens = np.empty(C), np.empty(C)
    ref, ref_roots, prev_roots = np.zeros(7), np.empty(4096), np.empty(4096)
    work_slopes, guesses, pair = np.empty(4096), np.empty(4096), np.empty(4)
    hist_x, hist_roots, hist_slopes = np.empty(2048), np.empty((2048, 32)), np.empty((2048, 32))
    state = np.zeros(2, dtype=np.int64)  # the panel's known lines, their number of roots
    window = np.zeros(2)
    work_roots = np.empty(4096)
    line_value = np.empty(1)
    scratch_v, scratch_s = np.empty(6), np.empty(2)
    first = np.empty(1)
    stack_a, stack_b, stack_d = np.empty(512), np.empty(512), np.empty(512, dtype=np.int64)
    starts = np.empty(len(OUTER_CUTS) * C)
    values, unresolved_values = np.empty(nodes.size), np.empty(nodes.size)
    full_points = np.empty((n + 1, 2))
    full_points[:n] = points
    for r in range(R):
        out_events[r] = counts[r]
        full_points[n, 0], full_points[n, 1] = extra[r, 0], extra[r, 1]
        keep = np.zeros(n + 1, dtype=np.bool_)  # the points with a non-zero coefficient, as rule_losses
        for i in range(n + 1):
            if S_all[r, 0, i] != 0.0 or S_all[r, 1, i] != 0.0:
                keep[i] = True
        index = np.flatnonzero(keep)
        P = np.ascontiguousarray(full_points[index])
        S = np.ascontiguousarray(S_all[r][:, index])
        c = np.ascontiguousarray(c_all[r])
        classes = classes_all[r]
        nr = P.shape[0]
        AD = np.zeros((1, nr))
        for i in range(nr):
            AD[0, i] = abs(S[1, i] - S[0, i])
        third = 3.9 * gamma * math.sqrt(gamma) * np.sum(AD[0])  # |g'''| on any vertical line
        A_pair = np.ascontiguousarray(S[1] - S[0])
        cdiff = c[1] - c[0]
        d1sq, d1w = np.empty(nr), np.empty(nr)
        window[0], window[1] = y_lo, y_hi
        m, nb = counts[r], nbands[r]
        edges, uncertain = np.empty(m + 2 * nb + 2), np.zeros(m + 2 * nb + 2, dtype=np.bool_)
        ne = panel_edges(x_lo, x_hi, found[r, :m], m, bands[r], nb, gamma, np.empty(m + 2 * nb), edges, uncertain)
        total, unresolved_total, estimate = 0.0, 0.0, 0.0
        for k in range(ne - 1):
            a_edge, b_edge = edges[k], edges[k + 1]
            ref[0] = 0.0  # a new panel: its first line is isolated
            state[0] = 0
            ref[6] = 0.0
            if (not uncertain[k]
                    and edge_free(window[0], a_edge, b_edge, P, S, c, AD, gamma, scratch_v, scratch_s, first)
                    and edge_free(window[1], a_edge, b_edge, P, S, c, AD, gamma, scratch_v, scratch_s, first)):
                ref[6] = 1.0
            m_cuts = 0
            for cc in range(C):
                for z in OUTER_CUTS:
                    xc = comp_m1[cc] + z * comp_s1[cc]
                    if a_edge < xc < b_edge and m_cuts < starts.size:
                        starts[m_cuts] = unsmoothed((xc - a_edge) / (b_edge - a_edge))
                        m_cuts += 1
            pieces = np.sort(starts[:m_cuts])
            top = 0
            right = 1.0
            for k2 in range(m_cuts - 1, -1, -1):
                if right - pieces[k2] > 1e-9 and top < stack_a.size - 2:
                    stack_a[top], stack_b[top], stack_d[top] = pieces[k2], right, 0
                    top += 1
                    right = pieces[k2]
            stack_a[top], stack_b[top], stack_d[top] = 0.0, right, 0
            top += 1
            while top > 0:
                top -= 1
                s0, s1, depth = stack_a[top], stack_b[top], stack_d[top]
                half = 0.5 * (s1 - s0)
                i = 0
                while True:  # the lines continued in one call; each line that is not, isolated in between
                    if not uncertain[k]:  # in a band every line is isolated
                        i = _panel_continued(i, s0, half, a_edge, b_edge, nodes, values, unresolved_values, P, S,
                                             c, A_pair, cdiff, classes, gamma, third, comp_w, comp_m1, comp_s1,
                                             comp_m2, comp_slope, comp_sd, comp_label, work_roots, work_slopes,
                                             guesses, scratch_v, scratch_s, pair, d1sq, d1w, line_mu, line_dens, ref,
                                             hist_x, hist_roots, hist_slopes, state, window, line_value)
                    if i == values.size:
                        break
                    x1, jac = panel_node(s0, half, nodes[i], a_edge, b_edge)
                    v, u = _family_isolated(x1, P, S, c, A_pair, cdiff, AD, pa, pb, classes, gamma, comp_w, comp_m1,
                                            comp_s1, comp_m2, comp_slope, comp_sd, comp_label, work_roots, scratch_v,
                                            scratch_s, pair, first, d1sq, d1w, line_mu, line_dens, ref, ref_roots,
                                            prev_roots, hist_x, hist_roots, hist_slopes, state, window)
                    values[i] = v * jac
                    unresolved_values[i] = u * jac
                    i += 1
                kron, err = kronrod_panel(values, half, kronrod, gauss)
                if err <= max(tol * (s1 - s0), 1e-17) or depth >= 40 or top + 2 > stack_a.size:
                    total += kron
                    estimate += err
                    for i in range(values.size):
                        unresolved_total += half * kronrod[i] * unresolved_values[i]
                    continue
                mid = s0 + half
                stack_a[top], stack_b[top], stack_d[top] = mid, s1, depth + 1
                top += 1
                stack_a[top], stack_b[top], stack_d[top] = s0, mid, depth + 1
                top += 1
        out_err[r], out_unresolved[r], out_estimate[r] = total, unresolved_total, estimate
