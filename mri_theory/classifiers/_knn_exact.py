r"""The exact k-NN partition of the plane and its boundary terms, compiled by numba.

Imported by :mod:`mri_theory.classifiers.knn` on first use (this module imports numba; ``knn`` itself
imports without it).  The functions compile on their first call and are cached on disk next to this module
when it can be.

*The partition.*  A k-NN prediction depends only on the *order* of the distances to the training points (the
*sites*), and that order changes only on perpendicular bisectors of pairs of sites, so the plane is
partitioned into convex polygons on which the prediction is constant.  :func:`partition` builds it by
refinement inside a bounding box: the Voronoi cells of the sites (rank 1), each split by the Voronoi cells of
the remaining sites (rank 2), and so on down to rank ``K``, or, for the error loss, until the ranks fixed so
far decide the predicted class whatever the later ranks hold (their weight cannot overturn the lead); with
``robust`` also whatever one more site inserted at any of those ranks holds (so that a candidate's loss
change never needs a deeper rank).  The sites that can take the next rank in a polygon are found on a grid
(:func:`next_rank_sites`); a child is the polygon clipped by the bisectors with every other such site.

*Boundary terms.*  The Gaussian mass of a polygon is a sum over its edges of one closed-form function at the
edge's end minus the same at its start, along the edge's line
(:func:`mri_theory.engine.exact.partition_losses`).  So the loss of a piecewise constant function,
:math:`\sum_{\text{leaves}} \ell \cdot \text{mass}`, is a sum over (line, vertex) pairs of a coefficient
(``+ell`` at an edge's end, ``-ell`` at its start) times that function.  Along a line shared by two leaves of
equal loss the coefficients cancel exactly, so only the vertices on lines where the loss jumps remain: for
the error loss, the decision boundary.  For the cancellation every vertex has a *canonical* key and
coordinates: the two lines that meet there (:func:`canonical_key`), and where two bisectors share a site (a
vertex of a Voronoi diagram, where the third bisector of the triple meets them too) the sorted triple, whose
circumcentre one formula computes whichever two of its bisectors made it.  Terms are summed in an
open-addressing hash table; an entry that cancels (to rounding) is dropped.

*Retraining.*  Adding a site ``x`` changes the order only where ``x`` is nearer than the last ranked site of
a leaf.  :func:`candidate_terms` visits, for each candidate, only the leaves where ``x`` is nearer than the
leaf's last ranked site ``q_m`` somewhere (a linear test at the vertices, exact for a convex polygon).  In a
leaf with order ``q_1, ..., q_m`` the region where ``x`` takes new rank ``r`` is the difference of the nested
polygons ``leaf ∩ {x nearer than q_r}``; the loss change :math:`\Delta_r` there (``x`` labelled ``j``
inserted at rank ``r``, minus the old loss) depends only on the leaf, so :func:`leaf_changes` computes the
coefficients :math:`\Delta_r - \Delta_{r+1}` once, and the leaf contributes their polygons' terms, grouped
by (candidate, label).  A leaf where every site that can hold the later ranks has one label (:func:`fill_class`)
is a leaf already: its votes are known.  Terms of different candidates on the same (line, vertex) share one row,
so that the evaluation computes each such row once per mixture component.

Ties follow :class:`mri_theory.classifiers.KNN`: equidistant sites are ordered by index (a measure-zero set,
except for coincident sites: the lower index is always nearer), and a candidate comes after every site at
its distance (it never precedes a site at its own position).  Votes, the tie rule of near-equal class
weights and the losses are the classifier's (:func:`class_losses`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)

#: Line ids 0..3 are the sides of the bounding box: x = box[0], x = box[1], y = box[2], y = box[3].
BOX = 4

#: Status codes of the compiled routines: done, or the named buffer is full (the caller retries larger).
OK, FULL_VERTICES, FULL_STACK, FULL_LEAVES, FULL_TABLE, FULL_TERMS = 0, 1, 2, 3, 4, 5

_TIE = 1e-12  # mri_theory._utils.ties.TIE_TOLERANCE
_FLOOR = 1e-15  # mri_theory.engine.losses.LOG_LOSS_FLOOR
_EPS = 2.220446049250313e-16


# -- lines and canonical vertices ----------------------------------------------------------------------------


@_jit
def line_id(i, j, M):  # pragma: no cover - compiled
    """The id of the bisector of sites ``i != j`` (unordered); ``M`` is the id stride (the number of site slots)."""
    if i > j:
        i, j = j, i
    return BOX + i * M + j


@_jit
def line_geometry(lid, pts, M, box):  # pragma: no cover - compiled
    """``(nx, ny, mx, my)``: the line is :math:`\\{z: n \\cdot (z - m) = 0\\}`.  For the bisector of sites
    ``a < b`` the normal is ``P_b - P_a`` and ``m`` their midpoint, so ``n.(z - m) < 0`` is nearer ``a``."""
    if lid < BOX:
        if lid < 2:
            return 1.0, 0.0, box[lid], 0.0
        return 0.0, 1.0, 0.0, box[lid]
    t = lid - BOX
    a, b = t // M, t % M
    return (pts[b, 0] - pts[a, 0], pts[b, 1] - pts[a, 1], 0.5 * (pts[a, 0] + pts[b, 0]),
            0.5 * (pts[a, 1] + pts[b, 1]))


@_jit
def canonical_key(l1, l2, M):  # pragma: no cover - compiled
    """The key of the vertex where lines ``l1`` and ``l2`` meet: the sorted pair, and for two bisectors sharing
    a site the bisectors (p, q), (p, r) of the sorted triple p < q < r (their circumcentre, whichever two of
    its three bisectors made it)."""
    if l1 > l2:
        l1, l2 = l2, l1
    if l1 < BOX:
        return l1, l2
    a, b = (l1 - BOX) // M, (l1 - BOX) % M
    c, d = (l2 - BOX) // M, (l2 - BOX) % M
    if a != c and a != d and b != c and b != d:
        return l1, l2
    p, q, r = a, b, (d if c in (a, b) else c)  # the second line's site not on the first
    if q > r:
        q, r = r, q
    if p > q:
        p, q = q, p
    if q > r:
        q, r = r, q
    return BOX + p * M + q, BOX + p * M + r


@_jit
def vertex_xy(k1, k2, pts, M, box):  # pragma: no cover - compiled
    """Coordinates ``(x, y, ok)`` of the canonical vertex ``(k1, k2)`` (``ok`` False for parallel lines)."""
    if k2 < BOX:  # two sides of the box
        if k1 < 2 <= k2:
            return box[k1], box[k2], True
        return 0.0, 0.0, False
    if k1 < BOX:  # a side and a bisector
        nx, ny, mx, my = line_geometry(k2, pts, M, box)
        if k1 < 2:
            if ny == 0.0:
                return 0.0, 0.0, False
            return box[k1], my - nx * (box[k1] - mx) / ny, True
        if nx == 0.0:
            return 0.0, 0.0, False
        return mx - ny * (box[k1] - my) / nx, box[k1], True
    a, b = (k1 - BOX) // M, (k1 - BOX) % M
    c, d = (k2 - BOX) // M, (k2 - BOX) % M
    if a == c:  # the circumcentre of the sites a < b < d, relative to a
        ux, uy = pts[b, 0] - pts[a, 0], pts[b, 1] - pts[a, 1]
        vx, vy = pts[d, 0] - pts[a, 0], pts[d, 1] - pts[a, 1]
        det = ux * vy - uy * vx
        if det == 0.0:
            return 0.0, 0.0, False
        uu, vv = 0.5 * (ux * ux + uy * uy), 0.5 * (vx * vx + vy * vy)
        return pts[a, 0] + (uu * vy - vv * uy) / det, pts[a, 1] + (ux * vv - vx * uu) / det, True
    n1x, n1y, m1x, m1y = line_geometry(k1, pts, M, box)
    n2x, n2y, m2x, m2y = line_geometry(k2, pts, M, box)
    det = n1x * n2y - n1y * n2x
    if det == 0.0:
        return 0.0, 0.0, False
    rhs = n2x * (m2x - m1x) + n2y * (m2y - m1y)
    return m1x - rhs * n1y / det, m1y + rhs * n1x / det, True


# -- convex polygons -------------------------------------------------------------------------------------------
#
# A polygon is ``n`` rows of ``xy`` (counter-clockwise vertices) and of ``kl``: the vertex's canonical key
# (columns 0, 1) and the line of the edge from it to the next vertex (column 2).


@_jit
def clip(n, xy, kl, lid, keep_below, pts, M, box, f, oxy, okl, unique):  # pragma: no cover - compiled
    """The polygon clipped to the side of line ``lid`` where ``n.(z - m) < 0`` (``keep_below``) or ``> 0``,
    written to ``oxy``/``okl``: returns its vertex count, or -1 when they are full.  A new vertex is the
    canonical meeting point of the edge's line and ``lid``; where that is ill-conditioned (nearly parallel
    lines) the point interpolated on the edge, with a key of its own (``unique[0]`` counts down from -1)."""
    nx, ny, mx, my = line_geometry(lid, pts, M, box)
    sign = 1.0 if keep_below else -1.0
    for i in range(n):
        f[i] = sign * (nx * (xy[i, 0] - mx) + ny * (xy[i, 1] - my))
    cap = oxy.shape[0]
    out = 0
    for i in range(n):
        j = i + 1 if i + 1 < n else 0
        fi, fj = f[i], f[j]
        if fi <= 0.0:
            if out >= cap:
                return -1
            oxy[out, 0], oxy[out, 1], okl[out, 0], okl[out, 1] = xy[i, 0], xy[i, 1], kl[i, 0], kl[i, 1]
            okl[out, 2] = lid if (fi == 0.0 and fj > 0.0) else kl[i, 2]
            out += 1
            if fi < 0.0 and fj > 0.0:
                if out >= cap:
                    return -1
                _crossing(i, j, fi, fj, xy, kl, lid, pts, M, box, oxy, okl, out, unique)
                okl[out, 2] = lid
                out += 1
        elif fj < 0.0:
            if out >= cap:
                return -1
            _crossing(i, j, fi, fj, xy, kl, lid, pts, M, box, oxy, okl, out, unique)
            okl[out, 2] = kl[i, 2]
            out += 1
    return out


@_jit
def _crossing(i, j, fi, fj, xy, kl, lid, pts, M, box, oxy, okl, out, unique):  # pragma: no cover - compiled
    """Write at row ``out`` the point where the edge ``i -> j`` crosses line ``lid`` (see :func:`clip`)."""
    t = fi / (fi - fj)
    ix, iy = xy[i, 0] + t * (xy[j, 0] - xy[i, 0]), xy[i, 1] + t * (xy[j, 1] - xy[i, 1])
    k1, k2 = canonical_key(kl[i, 2], lid, M)
    x, y, ok = vertex_xy(k1, k2, pts, M, box)
    length = abs(xy[j, 0] - xy[i, 0]) + abs(xy[j, 1] - xy[i, 1])
    if ok and abs(x - ix) + abs(y - iy) <= 1e-6 * length + 1e-12 * (abs(ix) + abs(iy)):
        oxy[out, 0], oxy[out, 1], okl[out, 0], okl[out, 1] = x, y, k1, k2
    else:
        unique[0] -= 1
        oxy[out, 0], oxy[out, 1], okl[out, 0], okl[out, 1] = ix, iy, unique[0], unique[0]


@_jit
def area2(n, xy):  # pragma: no cover - compiled
    """Twice the signed area of the polygon (shoelace)."""
    s = 0.0
    for i in range(n):
        j = i + 1 if i + 1 < n else 0
        s += xy[i, 0] * xy[j, 1] - xy[j, 0] * xy[i, 1]
    return s


@_jit
def copy_polygon(n, xy, kl, oxy, okl):  # pragma: no cover - compiled
    """Copy ``n`` rows."""
    for v in range(n):
        oxy[v, 0], oxy[v, 1] = xy[v, 0], xy[v, 1]
        okl[v, 0], okl[v, 1], okl[v, 2] = kl[v, 0], kl[v, 1], kl[v, 2]


@_jit
def box_polygon(box, xy, kl):  # pragma: no cover - compiled
    """The box as a counter-clockwise polygon: (left, bottom), (right, bottom), (right, top), (left, top)."""
    xy[0, 0], xy[0, 1], kl[0, 0], kl[0, 1], kl[0, 2] = box[0], box[2], 0, 2, 2
    xy[1, 0], xy[1, 1], kl[1, 0], kl[1, 1], kl[1, 2] = box[1], box[2], 1, 2, 1
    xy[2, 0], xy[2, 1], kl[2, 0], kl[2, 1], kl[2, 2] = box[1], box[3], 1, 3, 3
    xy[3, 0], xy[3, 1], kl[3, 0], kl[3, 1], kl[3, 2] = box[0], box[3], 0, 3, 0


# -- votes and losses ------------------------------------------------------------------------------------------


@_jit
def _add_votes(order, length, labels, x_site, x_label, weights, kc, votes):  # pragma: no cover - compiled
    """``votes[c]``: the weights of the ranks ``order[:length]`` whose site has label ``c``, added rank by rank."""
    for c in range(kc):
        votes[c] = 0.0
    for s in range(length):
        site = order[s]
        votes[x_label if site == x_site else labels[site]] += weights[s]


@_jit
def class_losses(order, length, labels, x_site, x_label, weights, ranked, kc, loss_code, K, fill, votes, out):
    # pragma: no cover - compiled
    """The loss per true class (``out[y]``) of the prediction from the ordered sites ``order[:length]`` (site
    ``x_site`` carries ``x_label``), as :class:`~mri_theory.classifiers.KNN` predicts: rank weights added rank
    by rank, classes within the tie tolerance of the largest sharing their mean (``ranked``), or vote counts
    over ``K`` (plain vote); the error (``loss_code`` 0: one minus the weight of the lowest near-maximal class)
    or log loss (1: :math:`-\\ln \\max(\\hat p_y, 10^{-15})`).  With ``length < K`` the ranks
    ``length .. K - 1`` go to class ``fill`` (a region where every site that can hold them has that label) or,
    for ``fill < 0`` (a decided prefix, error loss), nowhere: the prediction is the prefix's."""
    _add_votes(order, length, labels, x_site, x_label, weights, kc, votes)
    if fill >= 0:
        for s in range(length, K):
            votes[fill] += weights[s]
    if ranked:
        top = votes[0]
        for c in range(1, kc):
            top = max(top, votes[c])
        floor = top - _TIE * max(1.0, top)
        count = 0
        total = 0.0
        for c in range(kc):
            if votes[c] >= floor:
                count += 1
                total += votes[c]
        if count > 1:
            mean = total / count
            for c in range(kc):
                if votes[c] >= floor:
                    votes[c] = mean
    else:
        for c in range(kc):
            votes[c] = votes[c] / K
    if loss_code == 0:
        top = votes[0]
        for c in range(1, kc):
            top = max(top, votes[c])
        floor = top - _TIE * max(1.0, abs(top))
        pred = kc - 1
        for c in range(kc - 2, -1, -1):
            if votes[c] >= floor:
                pred = c
        for y in range(kc):
            out[y] = 0.0 if y == pred else 1.0
    else:
        for y in range(kc):
            out[y] = -math.log(min(max(votes[y], _FLOOR), 1.0))


@_jit
def decided(order, length, labels, x_site, x_label, weights, kc, K, votes):  # pragma: no cover - compiled
    """Whether the ranks ``order[:length]`` fix the predicted class whatever the ranks ``length .. K - 1``
    hold: the leading class's weight exceeds every other's by more than their total weight (with a margin far
    above rounding, so that a near-tie is never called decided)."""
    if length >= K:
        return True
    _add_votes(order, length, labels, x_site, x_label, weights, kc, votes)
    rest = 0.0
    scale = 0.0
    for s in range(K):
        scale += weights[s]
        if s >= length:
            rest += weights[s]
    top = -1.0
    second = -1.0
    for c in range(kc):
        if votes[c] > top:
            second = top
            top = votes[c]
        elif votes[c] > second:
            second = votes[c]
    return top - second > rest + 1e-9 * scale


@_jit
def insert_site(order, r, x_site, length, out):  # pragma: no cover - compiled
    """``out[:length]``: ``order`` with ``x_site`` inserted before position ``r``, cut to ``length``."""
    for s in range(length):
        if s < r:
            out[s] = order[s]
        elif s == r:
            out[s] = x_site
        else:
            out[s] = order[s - 1]


@_jit
def settled(order, m, labels, weights, kc, K, robust, x_site, new_order, votes):  # pragma: no cover - compiled
    """Whether the ranks ``order[:m]`` decide the prediction (:func:`decided`) and, with ``robust``, so do the
    ranks of every order with one more site (``x_site``, of any label) inserted at any rank ``r < m``."""
    if not decided(order, m, labels, -1, 0, weights, kc, K, votes):
        return False
    if robust and m < K:
        length = min(m + 1, K)
        for r in range(m):
            insert_site(order, r, x_site, length, new_order)
            for j in range(kc):
                if not decided(new_order, length, labels, x_site, j, weights, kc, K, votes):
                    return False
    return True


# -- the grid of sites -------------------------------------------------------------------------------------------


@_jit
def build_grid(pts, n_sites):  # pragma: no cover - compiled
    """Cells of about two sites over the sites' bounding box: ``(geometry, start, items)`` with ``geometry`` =
    (x0, y0, cell size, columns, rows) and cell ``c``'s sites ``items[start[c]:start[c + 1]]``."""
    x0, x1, y0, y1 = pts[0, 0], pts[0, 0], pts[0, 1], pts[0, 1]
    for i in range(n_sites):
        x0, x1 = min(x0, pts[i, 0]), max(x1, pts[i, 0])
        y0, y1 = min(y0, pts[i, 1]), max(y1, pts[i, 1])
    width, height = max(x1 - x0, 0.0), max(y1 - y0, 0.0)
    size = math.sqrt(2.0 * max(width * height, 1e-300) / n_sites)
    # sites on a line (a 1-D problem, height 0): about two sites per cell along it, not thousands of empty cells
    size = max(size, 2.0 * max(width, height) / n_sites)
    # at least 1e-6 of the extent or of 1 (coincident sites): a box's coordinates over the size stay far below 2^63
    size = max(size, 1e-6 * max(width, height, 1.0))
    gx = min(max(int(width / size) + 1, 1), 4096)
    gy = min(max(int(height / size) + 1, 1), 4096)
    size = max(width / gx, height / gy, size * 1e-12) * (1.0 + 1e-12)
    cell = np.empty(n_sites, dtype=np.int64)
    start = np.zeros(gx * gy + 1, dtype=np.int64)
    for i in range(n_sites):
        cx = min(int((pts[i, 0] - x0) / size), gx - 1)
        cy = min(int((pts[i, 1] - y0) / size), gy - 1)
        cell[i] = cy * gx + cx
        start[cell[i] + 1] += 1
    for c in range(gx * gy):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    items = np.empty(n_sites, dtype=np.int64)
    for i in range(n_sites):
        items[fill[cell[i]]] = i
        fill[cell[i]] += 1
    return np.array([x0, y0, size, float(gx), float(gy)]), start, items


@_jit
def _cell_range(lo, hi, origin, size, cells):  # pragma: no cover - compiled
    """The cells (clamped) that the interval ``[lo, hi]`` overlaps along one axis."""
    a = int(math.floor((lo - origin) / size)) if lo > origin else 0
    b = int(math.floor((hi - origin) / size)) if hi > origin else -1
    return max(a, 0), min(b, cells - 1)


@_jit
def _nearest_in_rings(cx, cy, pts, used, x0, y0, size, gx, gy, start, items):  # pragma: no cover - compiled
    """An unused site near ``(cx, cy)``: the nearest in the first ring of grid cells around it that holds one and
    the ring after (-1 when every site is used)."""
    ix = min(max(int(math.floor((cx - x0) / size)), 0), gx - 1)
    iy = min(max(int(math.floor((cy - y0) / size)), 0), gy - 1)
    b0 = -1
    best = np.inf
    ring = 0
    found_at = -1
    while ring <= gx + gy:
        for jy in range(iy - ring, iy + ring + 1):
            if jy < 0 or jy >= gy:
                continue
            step = 1 if (jy == iy - ring or jy == iy + ring or ring == 0) else 2 * ring
            for jx in range(ix - ring, ix + ring + 1, step):
                if jx < 0 or jx >= gx:
                    continue
                c = jy * gx + jx
                for t in range(start[c], start[c + 1]):
                    b = items[t]
                    if used[b]:
                        continue
                    dx, dy = pts[b, 0] - cx, pts[b, 1] - cy
                    d = dx * dx + dy * dy
                    if d < best:
                        best, b0 = d, b
        if b0 >= 0 and found_at < 0:
            found_at = ring
        if found_at >= 0 and ring >= found_at + 1:
            break
        ring += 1
    return b0


@_jit
def polygon_frame(n, xy):  # pragma: no cover - compiled
    """The mean of a polygon's ``n`` vertices and its bounding box: ``(cx, cy, x_min, x_max, y_min, y_max)``."""
    cx = cy = 0.0
    bx0, bx1, by0, by1 = xy[0, 0], xy[0, 0], xy[0, 1], xy[0, 1]
    for v in range(n):
        cx += xy[v, 0]
        cy += xy[v, 1]
        bx0, bx1 = min(bx0, xy[v, 0]), max(bx1, xy[v, 0])
        by0, by1 = min(by0, xy[v, 1]), max(by1, xy[v, 1])
    return cx / n, cy / n, bx0, bx1, by0, by1


@_jit
def next_rank_sites(n, xy, kl, pts, M, used, geometry, start, items, cand):  # pragma: no cover - compiled
    """Sites (not ``used``) that can be the nearest of the unused sites somewhere in the polygon: a superset.

    ``b0``, an unused site near the vertices' mean (the nearest of the unused sites whose bisectors bound the
    polygon, else the nearest one in the grid cells around the mean), is within ``R = max_v |v - b0|`` of every
    point of the polygon, so only sites within ``R`` of its bounding box can be nearer anywhere; of those, only
    the ones at least as near as ``b0`` at some vertex (the difference of squared distances is linear, so this
    test is exact for the pair).  Returns the count written to ``cand``."""
    x0, y0, size = geometry[0], geometry[1], geometry[2]
    gx, gy = int(geometry[3]), int(geometry[4])
    cx, cy, bx0, bx1, by0, by1 = polygon_frame(n, xy)
    b0 = -1
    best = np.inf
    for v in range(n):  # the bisectors of the edges: sites next to the polygon
        line = kl[v, 2]
        if line < BOX:
            continue
        for b in ((line - BOX) // M, (line - BOX) % M):
            if b < used.shape[0] and not used[b]:
                dx, dy = pts[b, 0] - cx, pts[b, 1] - cy
                d = dx * dx + dy * dy
                if d < best:
                    best, b0 = d, b
    if b0 < 0:
        b0 = _nearest_in_rings(cx, cy, pts, used, x0, y0, size, gx, gy, start, items)
    if b0 < 0:
        return 0
    reach = 0.0
    for v in range(n):
        dx, dy = xy[v, 0] - pts[b0, 0], xy[v, 1] - pts[b0, 1]
        reach = max(reach, dx * dx + dy * dy)
    reach *= 1.0 + 1e-9
    r = math.sqrt(reach)
    ax, bx = _cell_range(bx0 - r, bx1 + r, x0, size, gx)
    ay, by = _cell_range(by0 - r, by1 + r, y0, size, gy)
    count = 0
    for jy in range(ay, by + 1):
        for jx in range(ax, bx + 1):
            c = jy * gx + jx
            for t in range(start[c], start[c + 1]):
                b = items[t]
                if used[b]:
                    continue
                gxd = max(max(bx0 - pts[b, 0], pts[b, 0] - bx1), 0.0)
                gyd = max(max(by0 - pts[b, 1], pts[b, 1] - by1), 0.0)
                if gxd * gxd + gyd * gyd > reach:
                    continue
                if b != b0:
                    near = False
                    for v in range(n):
                        dx, dy = xy[v, 0] - pts[b, 0], xy[v, 1] - pts[b, 1]
                        ex, ey = xy[v, 0] - pts[b0, 0], xy[v, 1] - pts[b0, 1]
                        if dx * dx + dy * dy <= (ex * ex + ey * ey) * (1.0 + 1e-9):
                            near = True
                            break
                    if not near:
                        continue
                cand[count] = b
                count += 1
    return count


@_jit
def fill_class(n, xy, order, m, K, pts, labels, used, geometry, start, items, scratch):  # pragma: no cover - compiled
    r"""The label of every unused site that can be among the ``K`` nearest somewhere in the polygon, if they share
    one; -1 otherwise.

    With ``order[:m]`` the ``m`` nearest sites everywhere in the polygon and any ``K - m`` unused sites ``B``
    (here the first found in grid cells around the vertices' mean), the ``K``-th distance is at most
    :math:`\sqrt U`, ``U = max_v max_{b in order ∪ B} |v - b|^2`` (a convex function's maximum over the polygon
    is at a vertex), so only unused sites within :math:`\sqrt U` of the polygon's bounding box can hold a rank
    ``> m`` anywhere in it."""
    x0, y0, size = geometry[0], geometry[1], geometry[2]
    gx, gy = int(geometry[3]), int(geometry[4])
    cx, cy, bx0, bx1, by0, by1 = polygon_frame(n, xy)
    need = K - m
    found = 0
    ix = min(max(int(math.floor((cx - x0) / size)), 0), gx - 1)
    iy = min(max(int(math.floor((cy - y0) / size)), 0), gy - 1)
    ring = 0
    while found < need and ring <= gx + gy:
        for jy in range(iy - ring, iy + ring + 1):
            if jy < 0 or jy >= gy:
                continue
            step = 1 if (jy == iy - ring or jy == iy + ring or ring == 0) else 2 * ring
            for jx in range(ix - ring, ix + ring + 1, step):
                if jx < 0 or jx >= gx:
                    continue
                c = jy * gx + jx
                for t in range(start[c], start[c + 1]):
                    if found < need and not used[items[t]]:
                        scratch[found] = items[t]
                        found += 1
        ring += 1
    if found < need:
        return -1
    reach = 0.0
    for v in range(n):
        for i in range(m + need):
            b = order[i] if i < m else scratch[i - m]
            dx, dy = xy[v, 0] - pts[b, 0], xy[v, 1] - pts[b, 1]
            reach = max(reach, dx * dx + dy * dy)
    reach *= 1.0 + 1e-9
    r = math.sqrt(reach)
    ax, bx = _cell_range(bx0 - r, bx1 + r, x0, size, gx)
    ay, by = _cell_range(by0 - r, by1 + r, y0, size, gy)
    label = -1
    for jy in range(ay, by + 1):
        for jx in range(ax, bx + 1):
            c = jy * gx + jx
            for t in range(start[c], start[c + 1]):
                b = items[t]
                if used[b]:
                    continue
                gxd = max(max(bx0 - pts[b, 0], pts[b, 0] - bx1), 0.0)
                gyd = max(max(by0 - pts[b, 1], pts[b, 1] - by1), 0.0)
                if gxd * gxd + gyd * gyd > reach:
                    continue
                if label < 0:
                    label = labels[b]
                elif labels[b] != label:
                    return -1
    return label


@_jit
def _inert_beyond(order, m, labels, weights, kc, K, fill, votes, scores):  # pragma: no cover - compiled
    """Whether a site of any label inserted at a rank ``r >= m`` (after the fixed ranks, the later ranks of class
    ``fill``) leaves the predicted class unchanged: the rank's weight moves from ``fill`` to the label, and
    stays within the lead with the margin of :func:`decided`."""
    _add_votes(order, m, labels, -1, 0, weights, kc, votes)
    total = 0.0
    for s in range(K):
        total += weights[s]
        if s >= m:
            votes[fill] += weights[s]
    top = 0
    for c in range(1, kc):
        if votes[c] > votes[top]:
            top = c
    for r in range(m, K):
        for j in range(kc):
            if j == fill:
                continue
            for c in range(kc):
                scores[c] = votes[c]
            scores[fill] -= weights[r]
            scores[j] += weights[r]
            for c in range(kc):
                if c != top and scores[top] - scores[c] <= 1e-9 * total:
                    return False
    return True


@_jit
def voronoi_child(n, xy, kl, b, cand, n_cand, pts, M, box, f, wxy, wkl, unique):  # pragma: no cover - compiled
    """The part of the polygon where site ``b`` is nearer than every other site of ``cand``: its vertex count
    (0 when empty, -1 when the work arrays are full) and which of the two work polygons ``wxy``/``wkl`` holds
    it.  A bisector that leaves every vertex on ``b``'s side changes nothing and is not clipped."""
    copy_polygon(n, xy, kl, wxy[0], wkl[0])
    m = n
    cur = 0
    for i in range(n_cand):
        other = cand[i]
        if other == b:
            continue
        px, py, ox, oy = pts[b, 0], pts[b, 1], pts[other, 0], pts[other, 1]
        if px == ox and py == oy:
            if other < b:  # coincident sites: the lower index is nearer everywhere
                return 0, cur
            continue
        # b is strictly nearer where (o - b).(z - mid) < 0
        nx, ny, mx, my = ox - px, oy - py, 0.5 * (px + ox), 0.5 * (py + oy)
        inside = True
        outside = True
        for v in range(m):
            g = nx * (wxy[cur, v, 0] - mx) + ny * (wxy[cur, v, 1] - my)
            inside = inside and g <= 0.0
            outside = outside and g >= 0.0
        if inside:
            continue
        if outside:
            return 0, cur
        m = clip(m, wxy[cur], wkl[cur], line_id(b, other, M), b < other, pts, M, box, f, wxy[1 - cur],
                 wkl[1 - cur], unique)
        cur = 1 - cur
        if m < 0:
            return -1, cur
        if m < 3:
            return 0, cur
    if area2(m, wxy[cur]) <= 0.0:
        return 0, cur
    return m, cur


@_jit
def voronoi_cell(b, box, pts, M, geometry, start, items, f, wxy, wkl, unique):  # pragma: no cover - compiled
    """Site ``b``'s Voronoi cell in the box (rank 1): the box clipped by the bisectors with the other sites in rings
    of grid cells around ``b``, until the sites beyond are at least twice as far as the cell's farthest vertex
    (their bisectors then miss the cell).  Returns ``(count, which work polygon)`` as :func:`voronoi_child`."""
    x0, y0, size = geometry[0], geometry[1], geometry[2]
    gx, gy = int(geometry[3]), int(geometry[4])
    px, py = pts[b, 0], pts[b, 1]
    box_polygon(box, wxy[0], wkl[0])
    m = 4
    cur = 0
    ix = min(max(int(math.floor((px - x0) / size)), 0), gx - 1)
    iy = min(max(int(math.floor((py - y0) / size)), 0), gy - 1)
    ring = 0
    while True:
        for jy in range(iy - ring, iy + ring + 1):
            if jy < 0 or jy >= gy:
                continue
            step = 1 if (jy == iy - ring or jy == iy + ring or ring == 0) else 2 * ring
            for jx in range(ix - ring, ix + ring + 1, step):
                if jx < 0 or jx >= gx:
                    continue
                c = jy * gx + jx
                for t in range(start[c], start[c + 1]):
                    other = items[t]
                    if other == b:
                        continue
                    ox, oy = pts[other, 0], pts[other, 1]
                    if ox == px and oy == py:
                        if other < b:
                            return 0, cur
                        continue
                    nx, ny, mx, my = ox - px, oy - py, 0.5 * (px + ox), 0.5 * (py + oy)
                    inside = True
                    for v in range(m):
                        if nx * (wxy[cur, v, 0] - mx) + ny * (wxy[cur, v, 1] - my) > 0.0:
                            inside = False
                            break
                    if inside:
                        continue
                    m = clip(m, wxy[cur], wkl[cur], line_id(b, other, M), b < other, pts, M, box, f, wxy[1 - cur],
                             wkl[1 - cur], unique)
                    cur = 1 - cur
                    if m < 0:
                        return -1, cur
                    if m < 3:
                        return 0, cur
        # every site not yet seen lies outside the square of examined cells
        lower = np.inf
        if ix - ring > 0:
            lower = min(lower, px - (x0 + (ix - ring) * size))
        if ix + ring + 1 < gx:
            lower = min(lower, x0 + (ix + ring + 1) * size - px)
        if iy - ring > 0:
            lower = min(lower, py - (y0 + (iy - ring) * size))
        if iy + ring + 1 < gy:
            lower = min(lower, y0 + (iy + ring + 1) * size - py)
        if lower == np.inf:
            break
        reach = 0.0
        for v in range(m):
            dx, dy = wxy[cur, v, 0] - px, wxy[cur, v, 1] - py
            reach = max(reach, dx * dx + dy * dy)
        if lower * lower >= 4.0 * reach * (1.0 + 1e-9):
            break
        ring += 1
    if area2(m, wxy[cur]) <= 0.0:
        return 0, cur
    return m, cur


# -- the partition -------------------------------------------------------------------------------------------------


@_jit
def partition(pts, labels, n_sites, M, box, weights, kc, loss_code, K, robust, V, max_stack, leaf_xy, leaf_kl,
              leaf_start, leaf_order, leaf_depth, leaf_fill, unique):  # pragma: no cover - compiled
    """The partition of the box by the ordered ``K`` nearest sites (module notes): its leaves.

    Leaf ``i`` has the vertices ``leaf_start[i]:leaf_start[i + 1]`` of ``leaf_xy``/``leaf_kl`` and the order
    ``leaf_order[i, :leaf_depth[i]]``; ``leaf_fill[i]`` is the class of every site that can hold its later
    ranks (:func:`fill_class`; -1 for none).  A node is a leaf at depth ``K``, where such a class exists (with
    ``robust``, only for the error loss and where a site inserted after the ranks fixed so far changes no
    prediction), or, with the error loss (``loss_code`` 0), where its ranks settle the prediction
    (:func:`settled`).  Polygons have at most ``V`` vertices and the depth-first stack ``max_stack`` entries.
    Returns ``(status, leaves)``."""
    sxy = np.empty((max_stack, V, 2))
    skl = np.empty((max_stack, V, 3), dtype=np.int64)
    snv = np.empty(max_stack, dtype=np.int64)
    sdepth = np.empty(max_stack, dtype=np.int64)
    sorder = np.empty((max_stack, K), dtype=np.int64)
    pxy = np.empty((V, 2))
    pkl = np.empty((V, 3), dtype=np.int64)
    porder = np.empty(K, dtype=np.int64)
    wxy = np.empty((2, V, 2))
    wkl = np.empty((2, V, 3), dtype=np.int64)
    f = np.empty(V)
    votes = np.empty(kc)
    scores = np.empty(kc)
    new_order = np.empty(K + 1, dtype=np.int64)
    used = np.zeros(n_sites, dtype=np.bool_)
    cand = np.empty(n_sites, dtype=np.int64)
    scratch = np.empty(n_sites, dtype=np.int64)
    geometry, start, items = build_grid(pts, n_sites)
    box_polygon(box, sxy[0], skl[0])
    snv[0] = 4
    sdepth[0] = 0
    top = 1
    leaves = 0
    filled = 0
    max_leaves = leaf_depth.shape[0]
    while top > 0:
        top -= 1
        n, depth = snv[top], sdepth[top]
        fill = -1
        leaf = depth == K or (loss_code == 0 and depth > 0 and settled(sorder[top], depth, labels, weights, kc, K,
                                                                       robust, n_sites, new_order, votes))
        n_cand = 0
        if not leaf and depth > 0:
            for s in range(depth):
                used[sorder[top, s]] = True
            n_cand = next_rank_sites(n, sxy[top], skl[top], pts, M, used, geometry, start, items, cand)
            # a region where every site that can hold a later rank has one label is a leaf (fill_class); only
            # worth asking where the sites that can take the next rank share one
            same = n_cand > 0
            for i in range(1, n_cand):
                same = same and labels[cand[i]] == labels[cand[0]]
            if same and not (robust and loss_code != 0):
                fill = fill_class(n, sxy[top], sorder[top], depth, K, pts, labels, used, geometry, start, items,
                                  scratch)
                if fill >= 0 and robust and not _inert_beyond(sorder[top], depth, labels, weights, kc, K, fill, votes,
                                                              scores):
                    fill = -1
            for s in range(depth):
                used[sorder[top, s]] = False
            leaf = fill >= 0
        if leaf:
            if leaves >= max_leaves or filled + n > leaf_xy.shape[0]:
                return FULL_LEAVES, leaves
            copy_polygon(n, sxy[top], skl[top], leaf_xy[filled:], leaf_kl[filled:])
            leaf_start[leaves] = filled
            filled += n
            leaf_start[leaves + 1] = filled
            for s in range(depth):
                leaf_order[leaves, s] = sorder[top, s]
            leaf_depth[leaves] = depth
            leaf_fill[leaves] = fill
            leaves += 1
            continue
        if depth == 0:  # the Voronoi cells of the sites: the children of the box
            for b in range(n_sites - 1, -1, -1):
                m, cur = voronoi_cell(b, box, pts, M, geometry, start, items, f, wxy, wkl, unique)
                if m < 0:
                    return FULL_VERTICES, leaves
                if m == 0:
                    continue
                if top >= max_stack:
                    return FULL_STACK, leaves
                copy_polygon(m, wxy[cur], wkl[cur], sxy[top], skl[top])
                snv[top] = m
                sdepth[top] = 1
                sorder[top, 0] = b
                top += 1
            continue
        copy_polygon(n, sxy[top], skl[top], pxy, pkl)  # the children replace this entry on the stack
        for s in range(depth):
            porder[s] = sorder[top, s]
        for i in range(n_cand):
            b = cand[i]
            m, cur = voronoi_child(n, pxy, pkl, b, cand, n_cand, pts, M, box, f, wxy, wkl, unique)
            if m < 0:
                return FULL_VERTICES, leaves
            if m == 0:
                continue
            if top >= max_stack:
                return FULL_STACK, leaves
            copy_polygon(m, wxy[cur], wkl[cur], sxy[top], skl[top])
            snv[top] = m
            sdepth[top] = depth + 1
            for s in range(depth):
                sorder[top, s] = porder[s]
            sorder[top, depth] = b
            top += 1
    return OK, leaves


# -- the terms ----------------------------------------------------------------------------------------------------


@_jit
def _slot(keys, used, line, k1, k2):  # pragma: no cover - compiled
    """The slot of the key ``(line, k1, k2)`` in the open-addressing table (its own or a free one)."""
    cap = keys.shape[0]
    h = np.uint64(line) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(k1 & 0xFFFFFFFFFFFF) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= np.uint64(k2 & 0xFFFFFFFFFFFF) * np.uint64(0x165667B19E3779F9)
    h ^= h >> np.uint64(29)
    i = np.int64(h & np.uint64(cap - 1))
    while used[i] and not (keys[i, 0] == line and keys[i, 1] == k1 and keys[i, 2] == k2):
        i = (i + 1) & (cap - 1)
    return i


@_jit
def add_polygon(n, xy, kl, coef, keys, used, where, sums, sizes, order, n_used):  # pragma: no cover - compiled
    """Add ``coef`` times the polygon's boundary terms: ``+coef`` at each edge's end and ``-coef`` at its start,
    keyed by (the edge's line, the vertex).  Returns the new number of used slots, or -1 when the table would
    be more than half full."""
    cap = keys.shape[0]
    width = coef.shape[0]
    for i in range(n):
        j = i + 1 if i + 1 < n else 0
        for end in range(2):
            v = j if end == 0 else i
            s = _slot(keys, used, kl[i, 2], kl[v, 0], kl[v, 1])
            if not used[s]:
                if 2 * (n_used + 1) > cap:
                    return -1
                used[s] = True
                keys[s, 0], keys[s, 1], keys[s, 2] = kl[i, 2], kl[v, 0], kl[v, 1]
                where[s, 0], where[s, 1] = xy[v, 0], xy[v, 1]
                for c in range(width):
                    sums[s, c] = 0.0
                    sizes[s, c] = 0.0
                order[n_used] = s
                n_used += 1
            sign = 1.0 if end == 0 else -1.0
            for c in range(width):
                sums[s, c] += sign * coef[c]
                sizes[s, c] += abs(coef[c])
    return n_used


@_jit
def _involves(line, site, M):  # pragma: no cover - compiled
    """Whether ``line`` is a bisector of ``site`` (``site`` < 0: never)."""
    return site >= 0 and line >= BOX and ((line - BOX) // M == site or (line - BOX) % M == site)


@_jit
def flush(keys, used, where, sums, sizes, order, n_used, pts, M, box, group0, kc, x_site, rows, t_row, t_coef, t_group,
          n_terms):  # pragma: no cover - compiled
    """Write the entries of the table that do not cancel as terms (the row of their line and vertex, the
    coefficient per true class; block ``b`` of ``kc`` coefficients to group ``group0 + b``) and empty the table.
    A coefficient cancels when it is within 64 ulps of the sum of the magnitudes added to it (a genuine jump of
    the loss is far larger).  ``rows`` = ``(keys, used, index, lines, vertices, count)`` holds each distinct
    (line, vertex) once: a key on a bisector of ``x_site`` (the candidate, whose place changes from call to
    call) gets a row of its own.  Returns the new number of terms, or -1 when they or the rows are full."""
    r_keys, r_used, r_index, r_line, r_vertex, r_count = rows
    cap = t_group.shape[0]
    for u in range(n_used):
        s = order[u]
        used[s] = False
        row = -1
        for block in range(sums.shape[1] // kc):
            keep = False
            for y in range(kc):
                c = block * kc + y
                if abs(sums[s, c]) > 64 * _EPS * sizes[s, c]:
                    keep = True
            if not keep:
                continue
            if n_terms >= cap:
                return -1
            if row < 0:
                line, k1, k2 = keys[s, 0], keys[s, 1], keys[s, 2]
                shared = not (_involves(line, x_site, M) or _involves(k1, x_site, M) or _involves(k2, x_site, M))
                slot = _slot(r_keys, r_used, line, k1, k2) if shared else -1
                if slot >= 0 and r_used[slot]:
                    row = r_index[slot]
                else:
                    row = r_count[0]
                    if row >= r_line.shape[0] or (slot >= 0 and 2 * (row + 1) > r_keys.shape[0]):
                        return -1
                    nx, ny, mx, my = line_geometry(line, pts, M, box)
                    r_line[row, 0], r_line[row, 1], r_line[row, 2], r_line[row, 3] = mx, my, -ny, nx
                    r_vertex[row, 0], r_vertex[row, 1] = where[s, 0], where[s, 1]
                    r_count[0] += 1
                    if slot >= 0:
                        r_used[slot] = True
                        r_keys[slot, 0], r_keys[slot, 1], r_keys[slot, 2] = line, k1, k2
                        r_index[slot] = row
            t_row[n_terms] = row
            for y in range(kc):
                c = block * kc + y
                t_coef[n_terms, y] = sums[s, c] if abs(sums[s, c]) > 64 * _EPS * sizes[s, c] else 0.0
            t_group[n_terms] = group0 + block
            n_terms += 1
    return n_terms


@_jit
def current_terms(pts, labels, M, box, weights, ranked, kc, loss_code, K, leaf_xy, leaf_kl, leaf_start, leaf_order,
                  leaf_depth, leaf_fill, n_leaves, keys, used, where, sums, sizes, order, rows, t_row, t_coef,
                  t_group):  # pragma: no cover - compiled
    """The boundary terms of the current model's loss (group 0) from its partition: ``(status, terms)``."""
    loss = np.empty(kc)
    votes = np.empty(kc)
    n_used = 0
    for leaf in range(n_leaves):
        a, b = leaf_start[leaf], leaf_start[leaf + 1]
        class_losses(leaf_order[leaf], leaf_depth[leaf], labels, -1, 0, weights, ranked, kc, loss_code, K,
                     leaf_fill[leaf], votes, loss)
        n_used = add_polygon(b - a, leaf_xy[a:b], leaf_kl[a:b], loss, keys, used, where, sums, sizes, order, n_used)
        if n_used < 0:
            return FULL_TABLE, 0
    n_terms = flush(keys, used, where, sums, sizes, order, n_used, pts, M, box, 0, kc, -1, rows, t_row, t_coef,
                    t_group, 0)
    if n_terms < 0:
        return FULL_TERMS, 0
    return OK, n_terms


@_jit
def leaf_changes(labels, x_site, weights, ranked, kc, loss_code, K, leaf_order, leaf_depth, leaf_fill, n_leaves,
                 out):
    # pragma: no cover - compiled
    """``out[leaf, r, j * kc + y]``: :math:`\\Delta_r - \\Delta_{r+1}` of the leaf (module notes) for a candidate
    labelled ``j`` inserted at rank ``r`` (0-based; :math:`\\Delta_m = 0` past the leaf's ``m`` ranks), true
    class ``y``.  The leaves must be of a robust partition: a candidate placed after their ranks changes nothing."""
    votes = np.empty(kc)
    old = np.empty(kc)
    new = np.empty(kc)
    new_order = np.empty(K + 1, dtype=np.int64)
    width = kc * kc
    for leaf in range(n_leaves):
        m = leaf_depth[leaf]
        length = min(m + 1, K)
        fill = leaf_fill[leaf]
        class_losses(leaf_order[leaf], m, labels, -1, 0, weights, ranked, kc, loss_code, K, fill, votes, old)
        for c in range(width):
            out[leaf, m, c] = 0.0
        for r in range(m - 1, -1, -1):
            insert_site(leaf_order[leaf], r, x_site, length, new_order)
            for j in range(kc):
                class_losses(new_order, length, labels, x_site, j, weights, ranked, kc, loss_code, K, fill, votes, new)
                for y in range(kc):
                    out[leaf, r, j * kc + y] = new[y] - old[y]
        for r in range(m):  # Delta_r - Delta_{r+1}, from the front (Delta_{r+1} is still unchanged)
            for c in range(width):
                out[leaf, r, c] -= out[leaf, r + 1, c] if r + 1 < m else 0.0


@_jit
def leaf_boxes(pts, leaf_xy, leaf_start, leaf_order, leaf_depth, n_leaves):  # pragma: no cover - compiled
    """Each leaf's bounding box ``(x0, x1, y0, y1)`` and the largest squared distance from its vertices to its last
    ranked site: a candidate farther than that from the box is nowhere nearer than that site."""
    out = np.empty((n_leaves, 5))
    for leaf in range(n_leaves):
        a, b = leaf_start[leaf], leaf_start[leaf + 1]
        last = leaf_order[leaf, leaf_depth[leaf] - 1]
        x0, x1, y0, y1 = leaf_xy[a, 0], leaf_xy[a, 0], leaf_xy[a, 1], leaf_xy[a, 1]
        reach = 0.0
        for v in range(a, b):
            x0, x1 = min(x0, leaf_xy[v, 0]), max(x1, leaf_xy[v, 0])
            y0, y1 = min(y0, leaf_xy[v, 1]), max(y1, leaf_xy[v, 1])
            dx, dy = leaf_xy[v, 0] - pts[last, 0], leaf_xy[v, 1] - pts[last, 1]
            reach = max(reach, dx * dx + dy * dy)
        out[leaf, 0], out[leaf, 1], out[leaf, 2], out[leaf, 3], out[leaf, 4] = x0, x1, y0, y1, reach
    return out


@_jit
def candidate_terms(pts, n_sites, M, box, kc, candidates, leaf_xy, leaf_kl, leaf_start, leaf_order, leaf_depth,
                    leaf_box, active, changes, keys, used, where, sums, sizes, order, rows, t_row, t_coef, t_group,
                    unique):  # pragma: no cover - compiled
    """The boundary terms of the loss *changes* of every candidate ``i`` and label ``j`` (group ``i * kc + j``):
    the candidate is site ``n_sites`` (``pts`` has a row for it); ``changes`` is :func:`leaf_changes`' table and
    ``active`` the leaves where it is not all zero; ``leaf_box`` holds each leaf's bounding box and the largest
    squared distance from its vertices to its last ranked site.  A leaf contributes, for each rank ``r`` with a
    non-zero coefficient, the terms of ``leaf ∩ {x nearer than q_r}`` (one clip of the leaf: inside it the
    regions are nested, so once one is empty so are those of the ranks before).  Returns ``(status, terms)``."""
    x_site = n_sites
    V = 8
    for leaf in active:
        V = max(V, leaf_start[leaf + 1] - leaf_start[leaf] + 2)
    wxy = np.empty((1, V, 2))
    wkl = np.empty((1, V, 3), dtype=np.int64)
    f = np.empty(V)
    coef = np.empty(changes.shape[2])
    n_terms = 0
    for ci in range(candidates.shape[0]):
        x0, y0 = candidates[ci, 0], candidates[ci, 1]
        pts[x_site, 0], pts[x_site, 1] = x0, y0
        n_used = 0
        for leaf in active:
            gx = max(max(leaf_box[leaf, 0] - x0, x0 - leaf_box[leaf, 1]), 0.0)
            gy = max(max(leaf_box[leaf, 2] - y0, y0 - leaf_box[leaf, 3]), 0.0)
            if gx * gx + gy * gy >= leaf_box[leaf, 4]:
                continue
            a, b = leaf_start[leaf], leaf_start[leaf + 1]
            m = leaf_depth[leaf]
            if not _enters(b - a, leaf_xy[a:b], pts, leaf_order[leaf, m - 1], x_site):
                continue
            for r in range(m - 1, -1, -1):
                nonzero = False
                for c in range(coef.shape[0]):
                    coef[c] = changes[leaf, r, c]
                    nonzero = nonzero or coef[c] != 0.0
                if not nonzero:
                    continue
                site = leaf_order[leaf, r]
                if pts[site, 0] == x0 and pts[site, 1] == y0:
                    break  # the candidate never precedes a site at its own position
                count = clip(b - a, leaf_xy[a:b], leaf_kl[a:b], line_id(x_site, site, M), x_site < site, pts, M, box,
                             f, wxy[0], wkl[0], unique)
                if count < 0:
                    return FULL_VERTICES, n_terms
                if count < 3 or area2(count, wxy[0]) <= 0.0:
                    break
                n_used = add_polygon(count, wxy[0], wkl[0], coef, keys, used, where, sums, sizes, order, n_used)
                if n_used < 0:
                    return FULL_TABLE, n_terms
        n_terms = flush(keys, used, where, sums, sizes, order, n_used, pts, M, box, ci * kc, kc, x_site, rows, t_row,
                        t_coef, t_group, n_terms)
        if n_terms < 0:
            return FULL_TERMS, 0
    return OK, n_terms


@_jit
def _enters(n, xy, pts, site, x_site):  # pragma: no cover - compiled
    """Whether site ``x_site`` is strictly nearer than ``site`` at some vertex (the difference of squared
    distances is linear: over a convex polygon its minimum is at a vertex)."""
    if pts[site, 0] == pts[x_site, 0] and pts[site, 1] == pts[x_site, 1]:
        return False
    for v in range(n):
        dx, dy = xy[v, 0] - pts[x_site, 0], xy[v, 1] - pts[x_site, 1]
        ex, ey = xy[v, 0] - pts[site, 0], xy[v, 1] - pts[site, 1]
        if dx * dx + dy * dy < ex * ex + ey * ey:
            return True
    return False
