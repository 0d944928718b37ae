r"""The 2-D error rate of :mod:`mri_theory.engine.exact`, compiled by numba: rays, panels and their quadrature.

Imported by :func:`mri_theory.engine.exact._compiled_error_panels` on first use (this module imports
numba: :mod:`mri_theory.engine.exact` itself imports without it).  The functions compile on their first
call and are cached on disk next to this module when it can be.

* :func:`ray_error_mass` -- the radial error mass of one ray: the numpy ``exact._error_mass`` (``dim = 2``)
  for one ray (pairwise crossings of present classes, sorted, the winner at each segment's midpoint, the tail
  masses :math:`e^{-r^2/2}`), element by element; :func:`pair_error_mass` (two present classes of two: the
  sign of one quadratic) and :func:`general_error_mass` (the rest) are its two cases;
* :func:`ray_error_masses` -- it for many rays (what the tests compare with the numpy reference);
* :func:`error_panels` -- the adaptive Gauss-Kronrod integral over each panel of the angle of
  ``exact._two_d``'s error integrand (ray coefficients at the smoothed angle, the mass, its Jacobian), one
  panel at a time (depth first) instead of all open panels of a batch per bisection round;
* :func:`pair_line_errors` -- the error mass of items with two present classes by lines (``exact``'s module
  notes, "Two classes by lines"): :func:`line_mass` (the normal mass of one side of a quadratic along a
  line, a sum of :func:`ndtr`) integrated over the lines' offset by the same adaptive Gauss-Kronrod.  It has no
  numpy twin: the tests compare it with the angular integral of the same items, with ``scipy.integrate.quad``
  along a line and with nested quadrature of whole rules.

The arithmetic is the numpy code's, operation by operation and in its order (numba's default
``fastmath=False``: no reassociation, no fused multiply-add); what may differ is the last bit of ``cos``,
``sin`` and ``exp`` (numba calls the C library, numpy may use its own vectorised versions) and the order of
the sums (of the segments' masses, of the quadrature's 15 terms, of a panel's accepted pieces).  Empty
segments (from ``inf``) and the tails at 0 and ``inf`` are not computed: they are ``0``, ``1`` and ``0``
exactly.  One choice differs: the two-class formula is taken ray by ray (for every ray with two present
classes of two), where the numpy code took it only when every ray of its batch had both classes present.
Both are the numpy code's; they can differ only where rounding decides the winner of a segment between two
nearly equal roots (a ray almost tangent to the boundary), a set of directions of measure zero.  The tests
(``tests/engine/test_exact_compiled.py``) compare every function with the numpy code, and the functions'
pure-Python runs with the compiled ones.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)


@_jit
def positive_roots(a: float, b: float, g: float) -> tuple[float, float]:  # pragma: no cover - compiled by numba
    """Roots in ``(0, inf)`` of :math:`a r^2 + b r + g`, ``inf`` for none: ``exact._positive_roots`` of one pair."""
    disc = b * b - 4.0 * a * g
    root = math.sqrt(disc) if disc > 0.0 else 0.0
    q = -0.5 * (b + (1.0 if b >= 0 else -1.0) * root)
    if a != 0:
        if disc >= 0:
            r1 = q / a
            r2 = g / q if q != 0 else 0.0
        else:
            r1 = r2 = np.nan
    else:
        r1 = -g / b if b != 0 else np.nan
        r2 = np.nan
    # NaN compares False: it becomes inf as in the numpy code
    return (r1 if (abs(r1) < np.inf and r1 > 0) else np.inf), (r2 if (abs(r2) < np.inf and r2 > 0) else np.inf)


@_jit
def pair_error_mass(a, b, g, label):  # pragma: no cover - compiled by numba
    r"""Radial mass where the winner of two present classes is not ``label``; :math:`s_1 - s_0 = a r^2 + b r + g`.

    The segments ``[0, r_1], [r_1, r_2], [r_2, inf)`` of the sorted positive roots (``inf`` for none; empty
    segments from ``inf`` are skipped: their masses are ``0 - 0``), class 1 winning where :math:`s_1 - s_0 > 0`
    at the midpoint (``2 r + 1`` on the last), the masses :math:`e^{-r_1^2/2} - e^{-r_2^2/2}` (1 at 0, 0 at inf).
    """
    r1, r2 = positive_roots(a, b, g)
    lo, hi = min(r1, r2), max(r1, r2)
    one = label == 1
    total = 0.0
    mid = 1.0 if lo == np.inf else 0.5 * lo
    tail_lo = 0.0 if lo == np.inf else math.exp(-0.5 * lo * lo)
    if (((a * mid + b) * mid + g) > 0) != one:
        total += 1.0 - tail_lo
    if lo < np.inf:
        mid = 2.0 * lo + 1.0 if hi == np.inf else 0.5 * (lo + hi)
        tail_hi = 0.0 if hi == np.inf else math.exp(-0.5 * hi * hi)
        if (((a * mid + b) * mid + g) > 0) != one:
            total += tail_lo - tail_hi
        if hi < np.inf:
            mid = 2.0 * hi + 1.0
            if (((a * mid + b) * mid + g) > 0) != one:
                total += tail_hi
    return total


@_jit
def ray_error_mass(al, be, ga, present, label, radii):  # pragma: no cover - compiled by numba
    r"""Radial mass :math:`\sum e^{-r_1^2/2} - e^{-r_2^2/2}` of the segments of one ray where the winner is not
    ``label``; scores :math:`al_j r^2 + be_j r + ga_j` ``(k,)``, ``present`` ``(k,)`` of bool.

    Two present classes of two: :func:`pair_error_mass`.  Otherwise the segments between the sorted positive
    crossings of every pair of present classes, the winner at each midpoint (numpy's ``argmax``: the first
    maximum or the first NaN; absent classes score ``-inf``).  ``radii`` is scratch of size at least
    ``k (k - 1) + 2``.
    """
    k = al.shape[0]
    if k == 2 and present[0] and present[1]:
        return pair_error_mass(al[1] - al[0], be[1] - be[0], ga[1] - ga[0], label)
    return general_error_mass(al, be, ga, present, label, radii)


@_jit
def general_error_mass(al, be, ga, present, label, radii):  # pragma: no cover - compiled by numba
    """:func:`ray_error_mass` of any ``k`` and absent classes (it gives the case of two present classes of two
    too, less quickly than :func:`pair_error_mass`)."""
    k = al.shape[0]
    n = 1
    radii[0] = 0.0
    for j in range(k):
        for i in range(j + 1, k):
            if present[j] and present[i]:
                r1, r2 = positive_roots(al[j] - al[i], be[j] - be[i], ga[j] - ga[i])
                for r in (r1, r2):  # insertion into the sorted radii[1 .. n - 1] (none is NaN)
                    t = n - 1
                    while t >= 1 and radii[t] > r:
                        radii[t + 1] = radii[t]
                        t -= 1
                    radii[t + 1] = r
                    n += 1
    radii[n] = np.inf  # the pairs of an absent class add inf radii: empty segments, left out
    n += 1
    total = 0.0
    tail_known = -1  # the segment whose upper tail is held in tail_hi
    tail_hi = 1.0
    for s in range(n - 1):
        lo, hi = radii[s], radii[s + 1]
        if lo == np.inf:  # the rest are empty: their masses are 0 - 0
            break
        mid = 2.0 * lo + 1.0 if hi == np.inf else 0.5 * (lo + hi)
        winner = 0
        best = -np.inf
        for j in range(k):
            score = (al[j] * mid + be[j]) * mid + ga[j] if present[j] else -np.inf
            if score != score:
                winner = j
                break
            if score > best:
                best = score
                winner = j
        if winner != label:  # exp(-r^2/2) of both ends: 1 at 0 and 0 at inf, as exp gives them
            tail_lo = tail_hi if tail_known == s - 1 else (1.0 if lo == 0.0 else math.exp(-0.5 * lo * lo))
            tail_hi = 0.0 if hi == np.inf else math.exp(-0.5 * hi * hi)
            tail_known = s
            total += tail_lo - tail_hi
    return total


@_jit
def ray_error_masses(al, be, ga, present, label, out):  # pragma: no cover - compiled by numba
    """:func:`ray_error_mass` of rays ``(R, k)`` (labels ``(R,)``) into ``out`` ``(R,)``."""
    rays, k = al.shape
    radii = np.empty(k * (k - 1) + 2)
    for r in range(rays):
        out[r] = ray_error_mass(al[r], be[r], ga[r], present[r], label[r], radii)
    return out


@_jit
def panel_estimate(v, half, kronrod, gauss, tol, rounding, negligible):  # pragma: no cover - compiled by numba
    """One Gauss-Kronrod panel of half-width ``half`` from its 15 integrand values ``v``: ``(kron, err, target)``,
    the Kronrod value, QUADPACK's error estimate (the Kronrod-Gauss difference scaled by the integrand's
    variation) and the error the panel may keep (``tol`` per unit length, the rounding of its sum, or
    ``negligible``), as ``exact.adaptive_gauss_kronrod`` computes them."""
    kron_sum = 0.0
    gauss_sum = 0.0
    abs_sum = 0.0
    for q in range(15):
        kron_sum += v[q] * kronrod[q]
        gauss_sum += v[q] * gauss[q]
        abs_sum += abs(v[q]) * kronrod[q]
    kron = half * kron_sum
    diff = abs(kron - half * gauss_sum)
    level = kron / (2 * half)
    spread_sum = 0.0
    for q in range(15):
        spread_sum += abs(v[q] - level) * kronrod[q]
    spread = half * spread_sum
    err = spread * min(1.0, (200 * diff / spread) ** 1.5) if spread > 0 and diff > 0 else diff
    target = max(max(tol * 2 * half, rounding * half * abs_sum), negligible)
    return kron, err, target


@_jit
def error_panels(alpha, beta, gamma, present, label, item_of, t0, t1, tol, nodes, kronrod, gauss, rounding,
                 negligible, max_rounds, out):  # pragma: no cover - compiled by numba
    r"""Integrals over the panels ``[t0, t1]`` of the angle of item ``item_of`` of the error integrand, into ``out``.

    Items: ``alpha`` ``(n, k, 2, 2)``, ``beta`` ``(n, k, 2)``, ``gamma`` ``(n, k)`` (scores in whitened
    coordinates), ``present`` ``(n, k)``, ``label`` ``(n,)``.  On a panel, with :math:`\theta = t_0 + (t_1 -
    t_0)(3s^2 - 2s^3)`, the integrand of ``s`` in ``[0, 1]`` is the ray's error mass times
    :math:`(t_1 - t_0)\,6s(1 - s) / 2\pi`.  Adaptive Gauss-Kronrod as in ``exact.adaptive_gauss_kronrod`` (the
    same error estimate and acceptance; rule arrays ``nodes``, ``kronrod``, ``gauss`` of 15 points on
    ``[-1, 1]``): a panel's sub-interval is accepted when its error estimate is below ``tol`` times its
    length, below the rounding of its sum or below ``negligible``, or at depth ``max_rounds``; otherwise it is
    bisected.  Sub-intervals are processed depth first (a stack of at most ``max_rounds + 2``).
    """
    k = alpha.shape[1]
    radii = np.empty(k * (k - 1) + 2)
    al = np.empty(k)
    be = np.empty(k)
    v = np.empty(15)
    stack_a = np.empty(max_rounds + 2)
    stack_b = np.empty(max_rounds + 2)
    stack_depth = np.empty(max_rounds + 2, dtype=np.int64)
    two_pi = 2 * np.pi
    for p in range(item_of.shape[0]):
        it = item_of[p]
        A, bb, gg, pr, y = alpha[it], beta[it], gamma[it], present[it], label[it]
        pair = k == 2 and pr[0] and pr[1]
        start, width = t0[p], t1[p] - t0[p]
        total = 0.0
        stack_a[0], stack_b[0], stack_depth[0] = 0.0, 1.0, 0
        top = 1
        while top > 0:
            top -= 1
            a, b, depth = stack_a[top], stack_b[top], stack_depth[top]
            half = 0.5 * (b - a)
            centre = a + half
            for q in range(15):
                s = centre + half * nodes[q]
                theta = start + width * (s * s * (3 - 2 * s))
                jac = width * 6 * s * (1 - s) / two_pi
                c, sn = math.cos(theta), math.sin(theta)
                for j in range(k):
                    al[j] = A[j, 0, 0] * c * c + (A[j, 0, 1] + A[j, 1, 0]) * c * sn + A[j, 1, 1] * sn * sn
                    be[j] = bb[j, 0] * c + bb[j, 1] * sn
                if pair:
                    mass = pair_error_mass(al[1] - al[0], be[1] - be[0], gg[1] - gg[0], y)
                else:
                    mass = general_error_mass(al, be, gg, pr, y, radii)
                v[q] = mass * jac
            kron, err, target = panel_estimate(v, half, kronrod, gauss, tol, rounding, negligible)
            if err <= target or depth == max_rounds:
                total += kron
            else:
                mid = a + half
                stack_a[top], stack_b[top], stack_depth[top] = mid, b, depth + 1
                stack_a[top + 1], stack_b[top + 1], stack_depth[top + 1] = a, mid, depth + 1
                top += 2
        out[p] = total
    return out


# -- two classes by lines ------------------------------------------------------------------------------------------

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TAIL = 8.5  # Phi(-8.5) = 9.5e-18


@_jit
def ndtr(x: float) -> float:  # pragma: no cover - compiled by numba
    r""":math:`\Phi(x)`, the standard normal CDF, as ``scipy.special.ndtr``:
    :math:`\tfrac12\operatorname{erfc}(-x/\sqrt2)` (accurate in the lower tail, to rounding of 1 in the upper)."""
    if x < -_TAIL:  # below 1e-17: what it would add to a loss is far below its rounding
        return 0.0
    if x > _TAIL:  # 1 - 1e-17 rounds to 1
        return 1.0
    return 0.5 * math.erfc(-x * _SQRT_HALF)


@_jit
def normal_mass(lo: float, hi: float) -> float:  # pragma: no cover - compiled by numba
    r""":math:`\Phi(hi) - \Phi(lo)`, ``lo <= hi``, from the nearer tail (no cancellation of two values near 1)."""
    if lo > 0.0:
        return ndtr(-lo) - ndtr(-hi)
    return ndtr(hi) - ndtr(lo)


@_jit
def line_mass(a: float, b: float, c: float, positive: bool) -> float:  # pragma: no cover - compiled by numba
    r"""Mass of a standard normal ``u`` where :math:`q(u) = a u^2 + b u + c > 0` (``positive``) or :math:`\le 0`.

    The roots in closed form (the stable :math:`q = -(b + \operatorname{sign} b\sqrt\Delta)/2`, roots
    :math:`q/a, c/q`), the mass a sum of normal CDFs: between the roots or outside them.
    """
    if a == 0.0:  # a line: one root at most
        if b == 0.0:
            return 1.0 if (c > 0.0) == positive else 0.0
        root = -c / b
        above = (b > 0.0) == positive  # the set is u > root
        return ndtr(-root) if above else ndtr(root)
    disc = b * b - 4.0 * a * c
    outside = (a > 0.0) == positive  # the set is outside the roots (or everything when there are none)
    if disc <= 0.0:
        return 1.0 if outside else 0.0
    root = math.sqrt(disc)
    q = -0.5 * (b + root if b >= 0.0 else b - root)
    r1, r2 = q / a, c / q
    lo, hi = min(r1, r2), max(r1, r2)
    if outside:
        return ndtr(lo) + ndtr(-hi)
    return normal_mass(lo, hi)


@_jit
def pair_line_errors(Q, beta, gamma, label, grid, gap, limit, tol, nodes, kronrod, gauss, rounding, negligible,
                     max_rounds, out):  # pragma: no cover - compiled by numba
    r"""Error masses ``(n,)`` of two-class items by lines, into ``out``; ``label`` 0, 1 (of the pair) or -1 (neither).

    Item ``i``: class 1 wins where :math:`q(z) = z^T Q_i z + \beta_i^T z + \gamma_i > 0`, ``z`` standard
    normal in 2-D.  In the eigenbasis of ``Q`` (a rotation: ``z`` stays standard normal), with the inner
    coordinate ``u`` the one of the larger eigenvalue ``a`` and the outer ``t``, :math:`q = a u^2 + b u +
    c(t)`, :math:`c(t) = \lambda t^2 + \mu t + \gamma`: along each line ``t`` the mass of the wrong side is
    :func:`line_mass`, and the error is :math:`\int \varphi(t)\,\text{line\_mass}(t)\,dt` over
    ``[-limit, limit]`` (beyond it the mass is :math:`2\Phi(-\text{limit})`).  The line mass is smooth in ``t``
    except where the discriminant :math:`\Delta(t) = b^2 - 4a\,c(t)`, a quadratic, vanishes (the line is
    tangent to the boundary: a square-root singularity); where :math:`\Delta < 0` it is 0 or 1 and the
    integral is closed form.  The interval is cut at the zeros of :math:`\Delta` (closed form), at its vertex
    and at the fixed points ``grid``; each piece with :math:`\Delta > 0` is integrated by adaptive
    Gauss-Kronrod (``exact.adaptive_gauss_kronrod``'s rule, error estimate and acceptance, depth first) after
    :math:`t = t_0 + w s^2` at a singular left end, :math:`t = t_1 - w (1 - s)^2` at a singular right end, the
    smooth step :math:`t_0 + w(3s^2 - 2s^3)` at both, which make the square roots analytic.
    """
    n = Q.shape[0]
    v = np.empty(15)
    stack_a = np.empty(max_rounds + 2)
    stack_b = np.empty(max_rounds + 2)
    stack_depth = np.empty(max_rounds + 2, dtype=np.int64)
    size = grid.shape[0] + 5
    edges = np.empty(size)
    singular = np.empty(size, dtype=np.bool_)
    for it in range(n):
        if label[it] < 0:  # neither class of the pair: every point is an error
            out[it] = 1.0
            continue
        p, r, s = Q[it, 0, 0], 0.5 * (Q[it, 0, 1] + Q[it, 1, 0]), Q[it, 1, 1]
        phi = 0.5 * math.atan2(2.0 * r, p - s)
        cs, sn = math.cos(phi), math.sin(phi)
        l1 = p * cs * cs + 2.0 * r * cs * sn + s * sn * sn
        l2 = p * sn * sn - 2.0 * r * cs * sn + s * cs * cs
        b1 = cs * beta[it, 0] + sn * beta[it, 1]
        b2 = -sn * beta[it, 0] + cs * beta[it, 1]
        if abs(l1) >= abs(l2):
            a, b, lam, mu = l1, b1, l2, b2
        else:
            a, b, lam, mu = l2, b2, l1, b1
        g = gamma[it]
        positive = label[it] == 0  # the wrong side of label 0 is q > 0
        d2, d1, d0 = -4.0 * a * lam, -4.0 * a * mu, b * b - 4.0 * a * g  # the discriminant along t
        ne = 0
        edges[ne], singular[ne] = -limit, False
        ne += 1
        if d2 != 0.0:
            vertex = -d1 / (2.0 * d2)
            if -limit < vertex < limit:
                edges[ne], singular[ne] = vertex, False
                ne += 1
            dd = d1 * d1 - 4.0 * d2 * d0
            if dd >= 0.0:
                root = math.sqrt(dd)
                qq = -0.5 * (d1 + root if d1 >= 0.0 else d1 - root)
                if qq != 0.0:
                    for x in (qq / d2, d0 / qq):
                        if -limit < x < limit:
                            edges[ne], singular[ne] = x, True
                            ne += 1
        elif d1 != 0.0:
            x = -d0 / d1
            if -limit < x < limit:
                edges[ne], singular[ne] = x, True
                ne += 1
        cuts = ne
        for x in grid:  # a fixed cut close to a tangent line would leave a singularity just outside a piece
            clear = True
            for i in range(1, cuts):
                if singular[i] and abs(x - edges[i]) < gap:
                    clear = False
            if clear:
                edges[ne], singular[ne] = x, False
                ne += 1
        edges[ne], singular[ne] = limit, False
        ne += 1
        for i in range(1, ne):  # insertion sort of the few cuts
            x, flag = edges[i], singular[i]
            j = i - 1
            while j >= 0 and edges[j] > x:
                edges[j + 1], singular[j + 1] = edges[j], singular[j]
                j -= 1
            edges[j + 1], singular[j + 1] = x, flag
        total = 0.0
        for e in range(ne - 1):
            t0, t1 = edges[e], edges[e + 1]
            if not t1 > t0:
                continue
            tm = 0.5 * (t0 + t1)
            if (d2 * tm + d1) * tm + d0 <= 0.0:  # no crossing on these lines: all or nothing
                total += line_mass(a, b, (lam * tm + mu) * tm + g, positive) * normal_mass(t0, t1)
                continue
            left, right = singular[e], singular[e + 1]
            width = t1 - t0
            stack_a[0], stack_b[0], stack_depth[0] = 0.0, 1.0, 0
            top = 1
            while top > 0:
                top -= 1
                lo, hi, depth = stack_a[top], stack_b[top], stack_depth[top]
                half = 0.5 * (hi - lo)
                centre = lo + half
                for q in range(15):
                    x = centre + half * nodes[q]
                    if left and right:
                        t = t0 + width * (x * x * (3.0 - 2.0 * x))
                        jac = width * 6.0 * x * (1.0 - x)
                    elif left:
                        t = t0 + width * x * x
                        jac = width * 2.0 * x
                    elif right:
                        t = t1 - width * (1.0 - x) * (1.0 - x)
                        jac = width * 2.0 * (1.0 - x)
                    else:
                        t = t0 + width * x
                        jac = width
                    v[q] = (line_mass(a, b, (lam * t + mu) * t + g, positive) * math.exp(-0.5 * t * t)
                            * _INV_SQRT_2PI * jac)
                kron, err, target = panel_estimate(v, half, kronrod, gauss, tol, rounding, negligible)
                if err <= target or depth == max_rounds:
                    total += kron
                else:
                    mid = lo + half
                    stack_a[top], stack_b[top], stack_depth[top] = mid, hi, depth + 1
                    stack_a[top + 1], stack_b[top + 1], stack_depth[top + 1] = lo, mid, depth + 1
                    top += 2
        out[it] = total
    return out
