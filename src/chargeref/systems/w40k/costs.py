"""Path costs of the candidate spots of a charge (a mixin of ``solver.ChargeProblem``).

Every model keeps, per spot of its shape's bank, the cost of reaching the spot (path
length plus counted vertical change, inf when out of reach), whether that cost is
exact, and whether the straight line to it is still to be tested. A spot within the
cap costs its straight length at first: exact when the straight line is clear, a lower
bound otherwise, which the path planner replaces only when the search wants the spot.
Each model's arrays live in buffers that double when full.
"""

from __future__ import annotations

import numpy as np

from .solver_base import BUDGET_SLACK, OUT_MARGIN, Bank, Cands, Growing, pair_norm
from .world import Model

#: _append_rows keeps a group's rows in one buffer up to this many cells (models x
#: spots); a bigger group appends model by model (less memory held at a doubling)
GROUP_CELLS = 1_000_000


class CostBook:
    """The cost bookkeeping of ``ChargeProblem`` (it provides the attributes used here:
    the world, banks, keys, the straight-line test, the planner fields, the cap)."""

    def _costs(self, m: Model, bank: Bank, start: int = 0) -> np.ndarray:
        """Path cost (plus counted vertical change) from the model's start to every
        usable spot of its bank from index ``start`` on; inf where unreachable."""
        pts = bank.pts[start:]
        z = bank.z[start:]
        cost = np.full(len(pts), np.inf)
        idx = np.nonzero(bank.ok[start:])[0]
        if len(idx) == 0:
            return cost
        # cheap reject: farther than the cap in a straight line
        d = np.linalg.norm(pts[idx] - m.xy, axis=1)
        idx = idx[d <= self.cap + BUDGET_SLACK]
        if len(idx) == 0:
            return cost
        if m.fp.is_disc:
            clear = self.straight.clear(m.xy, m.fp.radius, pts[idx])
            cost[idx[clear]] = np.linalg.norm(pts[idx[clear]] - m.xy, axis=1)
            rest = idx[~clear]
        else:
            rest = idx
        if len(rest):
            cost[rest] = self.field(m).cost(pts[rest])
        dz = np.abs(z - m.z)
        thr = self.w.rules.climb_free
        cost += np.where(dz > thr + 1e-12, dz, 0.0)
        if self.sky:
            sky = np.full(len(pts), np.inf)
            sky[idx] = self._sky_costs(m, pts[idx])
            cost = np.minimum(cost, sky)
        # a model turned at its start spot (pivots.py) pays for the turn on every spot
        return cost + self.pivot_cost.get(m.id, 0.0)

    def sky_field(self, m: Model):  # noqa: ANN201
        f = self._sky_fields.get(m.id)
        if f is None:
            assert self.sky_planner is not None
            f = self.sky_planner.field(m.fp, budget=self.cap + BUDGET_SLACK)
            self._sky_fields[m.id] = f
        return f

    def _sky_costs(self, m: Model, pts: np.ndarray) -> np.ndarray:
        """Cost of reaching each point through the skies: the path over everything but
        impassable terrain (and avoided engagement ranges) plus the edition's price."""
        if len(pts) == 0:
            return np.zeros(0)
        return np.asarray(self.sky_field(m).cost(pts), dtype=float) + self.sky_penalty

    def _costs_batch(self, ms: list[Model], bank: Bank, start: int) -> None:
        """Append the costs of bank spots [start:] for several models of one shape."""
        if not ms or len(bank.pts) <= start:
            return  # nothing to append
        pts = bank.pts[start:]
        ok = bank.ok[start:]
        if ms[0].fp.is_disc and len(pts) and not self.sky:
            # perf: the models' starts and levels, taken once per group of models
            memo = self.__dict__.setdefault("_starts_memo", {})
            ids = tuple(m.id for m in ms)
            hit = memo.get(ids)
            if hit is None:
                hit = memo[ids] = (np.array([m.xy for m in ms]), np.array([m.z for m in ms]))
            S, Zm = hit
            d = pair_norm(S, pts)
            cand = ok[None, :] & (d <= self.cap + BUDGET_SLACK)
            thr = self.w.rules.climb_free
            # perf: every model's row at once. Every spot within the cap costs its
            # straight length: exact when the straight line is clear, else a lower bound
            # the planner replaces only if the search ever wants the spot (_resolve).
            # Which of the two it is, is asked only then too (_settle): the cost is the
            # same number either way, and the straight-line test of a (start, spot) pair
            # does not depend on the other pairs asked with it (clear_within).
            cost = np.where(cand, d, np.inf)
            zs = bank.z[start:]
            if Zm.any() or zs.any() or 0.0 > thr + 1e-12:
                dz = np.abs(zs[None, :] - Zm[:, None])
                cost = cost + np.where(dz > thr + 1e-12, dz, 0.0)
            # (else every level is the ground: the climb term is 0.0 everywhere, and a
            # length (>= +0.0) or inf plus 0.0 is itself, so it is not added)
            self._append_rows(ms, cost, ~cand, cand)
        else:
            cost = np.stack([self._costs(m, bank, start) for m in ms])
            self._append_rows(ms, cost, np.ones(cost.shape, dtype=bool), None)

    def _append_rows(self, ms: list[Model], cost: np.ndarray, exact: np.ndarray, pending: np.ndarray | None) -> None:
        """Append row i of ``cost``, ``exact`` and ``pending`` to model ms[i]'s arrays:
        the values _append stores, model by model.

        perf: models of one shape are appended together (every bank growth appends the
        same spots to each), so they keep their arrays as the rows of one buffer per
        group, which doubles when full (self.costs[mid] is a view of its row's filled
        part): one assignment appends for every model. Only this class assigns these
        arrays; _append takes a model out of its group (the group then starts a new
        buffer from the models' current values)."""
        ids = tuple(m.id for m in ms)
        n0 = len(self.costs[ids[0]])
        n1 = n0 + cost.shape[1]
        grp = self._gbuf.get(ids)
        if grp is None or len(grp[0][0]) < n1:
            if len(ids) * n1 > GROUP_CELLS or any(len(self.costs[mid]) != n0 for mid in ids):
                # (not one group: model by model; also for big groups, whose doubling
                # would hold the old and the new buffer of every model at once)
                for i, mid in enumerate(ids):
                    self._append(mid, cost[i], exact[i], None if pending is None else pending[i])
                return
            cap = max(n1, 2 * (len(grp[0][0]) if grp is not None else 0), 64)
            cb = np.empty((len(ids), cap))
            eb = np.empty((len(ids), cap), dtype=bool)
            pb = np.empty((len(ids), cap), dtype=bool)
            for i, mid in enumerate(ids):
                cb[i, :n0] = self.costs[mid]
                eb[i, :n0] = self.exact[mid]
                pb[i, :n0] = self.pending[mid]
                old = self._gof.get(mid)
                if old is not None and old != ids:
                    self._gbuf.pop(old, None)  # a model is in one group at a time
                self._gof[mid] = ids
            grp = self._gbuf[ids] = (cb, eb, pb)
        cb, eb, pb = grp
        cb[:, n0:n1] = cost
        eb[:, n0:n1] = exact
        pb[:, n0:n1] = False if pending is None else pending
        for i, mid in enumerate(ids):
            self.costs[mid] = cb[i, :n1]
            self.exact[mid] = eb[i, :n1]
            self.pending[mid] = pb[i, :n1]

    def _append(self, mid: str, cost: np.ndarray, exact: np.ndarray, pending: np.ndarray | None = None) -> None:
        """Append to a model's spot costs, exactness flags and pending flags (a straight
        length not yet tested for clearance, see _settle). perf: they live in buffers
        that double when full (self.costs[mid] is a view of the filled part), so growing
        the banks spot by spot is not quadratic in copying."""
        grp = self._gof.pop(mid, None)
        if grp is not None:
            self._gbuf.pop(grp, None)  # its arrays leave the group's buffer
        n0 = len(self.costs[mid])
        n1 = n0 + len(cost)
        buf = self._cbuf.get(mid)
        if buf is not None and (
            self.costs[mid].base is not buf[0] or self.exact[mid].base is not buf[1] or self.pending[mid].base is not buf[2]
        ):
            buf = None  # the arrays were replaced outside _append: start a new buffer from them
        if buf is None or len(buf[0]) < n1:
            cap = max(n1, 2 * (len(buf[0]) if buf is not None else 0), 64)
            cb = np.empty(cap)
            eb = np.empty(cap, dtype=bool)
            pb = np.empty(cap, dtype=bool)
            cb[:n0] = self.costs[mid]
            eb[:n0] = self.exact[mid]
            pb[:n0] = self.pending[mid]
            buf = (cb, eb, pb)
            self._cbuf[mid] = buf
        buf[0][n0:n1] = cost
        buf[1][n0:n1] = exact
        buf[2][n0:n1] = False if pending is None else pending
        self.costs[mid] = buf[0][:n1]
        self.exact[mid] = buf[1][:n1]
        self.pending[mid] = buf[2][:n1]

    def _usable_rows(self, ms: list[Model], start: int, R: float, with_costs: bool = False):  # noqa: ANN201
        """For models ms of one shape, each row: the bank spots from ``start`` on that
        the model may use within R (fits, cost within R, and ends closer where that is
        required). The same comparisons as the search's per-model test, for every model
        at once (perf). ``with_costs``: also the costs of those spots, one row per model."""
        b = self.banks[self.keys[ms[0].id]]
        n = len(b.pts)
        C = np.stack([self.costs[m.id][start:n] for m in ms])
        u = b.ok[start:n][None, :] & (C <= R + BUDGET_SLACK)
        if self.enforce_closer:
            sd = self.start_dist[[self.index[m.id] for m in ms]] - OUT_MARGIN
            closer = np.any(b.dist[start:n][None, :, :] < sd[:, None, :], axis=2)
            u &= closer
            # (the kept ``closer`` arrays are not extended here: closer() extends them
            # when asked, with the same comparison row by row)
        return (u, C) if with_costs else u

    def _closer_basis(self) -> dict:
        """The kept ``closer`` arrays, forgotten when the start distances they were
        measured from are replaced (pivots.py gives a turned problem the unturned ones)."""
        if self.__dict__.get("_closer_from") is not self.start_dist:
            self._closer_from = self.start_dist
            self._closer_of = {}
        return self._closer_of

    def closer(self, m: Model) -> np.ndarray:
        """For every spot of m's bank: would m end closer to some target than it starts
        (by more than the margin)? perf: kept per model and extended as the bank grows
        (a bank only grows at its end, and each row depends on its own spot and on m's
        start alone), so the array equals the one computed afresh."""
        b = self.banks[self.keys[m.id]]
        g = self._closer_basis().get(m.id)
        if g is None:
            g = self._closer_of[m.id] = Growing(np.zeros(0, dtype=bool))
        if g.n < len(b.pts):
            g.extend(np.any(b.dist[g.n:] < self.start_dist[self.index[m.id]][None, :] - OUT_MARGIN, axis=1))
        return g.a

    def _settle(self, m: Model, idx: np.ndarray) -> None:
        """Test the straight line from m's start to each pending spot of ``idx``: clear,
        its straight length is exact; blocked, it stays a lower bound for _resolve. The
        verdicts are those of clear_within on every model and new spot at once (each
        pair's verdict is its own: the same cones and the same per-triple arithmetic)."""
        pend = idx[self.pending[m.id][idx]]
        if len(pend) == 0:
            return
        b = self.banks[self.keys[m.id]]
        S = np.array([m.xy])
        if len(pend) == 1:
            # perf: one spot (the search settles its chosen one): clear_within's verdict
            # of the one pair, without its arrays
            i = int(pend[0])
            if self.straight.clear_one(S, m.fp.radius, b.pts[i], self.cap + BUDGET_SLACK):
                self.exact[m.id][i] = True
            self.pending[m.id][i] = False
            return
        clear = self.straight.clear_within(S, m.fp.radius, b.pts[pend], np.ones((1, len(pend)), dtype=bool), self.cap + BUDGET_SLACK)[0]
        self.exact[m.id][pend[clear]] = True
        self.pending[m.id][pend] = False

    # ------------------------------------------------------------------ owed plans
    # perf, exact (round 8, issue 13): where the search used to plan a set of spots at
    # once (every usable spot of a model whose chosen spot was a bound; every spot the
    # reachability test asks about) it now marks them "owed" and plans them when some
    # reader needs their value. The rule every reader keeps: the value of a spot is
    # what it was before this change, i.e. the planned cost of an owed spot. A reader
    # may take an owed spot's stored bound only where the bound already decides what
    # it reads: the planned cost is never below the bound (a path is never shorter
    # than the straight line, and the climb and turn terms are the same on both), so
    # "bound > x" proves "planned > x" and a score on the bound is never below the
    # score once planned. Everywhere else it pays the debt first (``pay``): planning a
    # spot later gives the very number planning it then would have (a field answers
    # each goal from that goal alone, pivots.MemoField; the straight-line verdict of a
    # pair is its own, _settle), so the values every reader sees are the ones it saw
    # before, and so is every ruling. Who reads what: the search's pick (solver
    # _greedy: an upper bound that cannot win is left owed), the reachability test
    # (solver.reachable_targets: pays cheapest first until each target's answer is
    # known), ``cands``, and the candidate move lengths of ``needed`` (``pay_upto``).
    def owed(self, mid: str) -> np.ndarray:
        """Per spot of the model's bank: is its cost a bound whose planning is owed?"""
        n = len(self.costs[mid])
        o = self._owed.get(mid)
        if o is None or len(o) < n:
            new = np.zeros(max(n, 2 * (0 if o is None else len(o))), dtype=bool)
            if o is not None:
                new[: len(o)] = o
            o = self._owed[mid] = new
        return o[:n]

    #: True: every owed spot is planned at once, as the search did before round 8 (the
    #: reference the tests hold the owed bookkeeping to: tests/w40k/test_lazy_r8.py)
    PAY_AT_ONCE = False

    def owe(self, m: Model, idx: np.ndarray) -> None:
        """Spots ``idx`` of model m are to be planned (as ``_resolve`` would) when read."""
        if self.PAY_AT_ONCE:
            self._resolve(m, idx)
            return
        idx = idx[~self.exact[m.id][idx]]
        if len(idx):
            self.owed(m.id)[idx] = True

    def pay(self, m: Model, idx: np.ndarray) -> bool:
        """Plan the owed spots among ``idx``; True when there were any."""
        idx = idx[self.owed(m.id)[idx]]
        if len(idx) == 0:
            return False
        self._resolve(m, idx)
        return True

    def pay_upto(self, limit: float) -> None:
        """Plan every owed spot whose bound is within ``limit``: afterwards every cost
        up to ``limit`` is the one the search used to remember (an owed spot over it
        stays over it once planned)."""
        for m in self.models:
            o = self.owed(m.id)
            if o.any():
                self._resolve(m, np.flatnonzero(o & (self.costs[m.id] <= limit)))

    def _resolve(self, m: Model, idx: np.ndarray) -> None:
        """Replace lower-bound costs of spots ``idx`` of model m by planned path costs."""
        if m.id in self._owed and len(idx):
            self.owed(m.id)[idx] = False  # (planned now: nothing owed)
        self._settle(m, idx[~self.exact[m.id][idx]])
        idx = idx[~self.exact[m.id][idx]]
        if len(idx) == 0:
            return
        b = self.banks[self.keys[m.id]]
        c = self.field(m).cost(b.pts[idx])
        dz = np.abs(b.z[idx] - m.z)
        c = c + np.where(dz > self.w.rules.climb_free + 1e-12, dz, 0.0)
        if self.sky:
            c = np.minimum(c, self._sky_costs(m, b.pts[idx]))
        self.costs[m.id][idx] = c + self.pivot_cost.get(m.id, 0.0)
        self.exact[m.id][idx] = True

    def cands(self, m: Model, R: float) -> Cands:
        b = self.banks[self.keys[m.id]]
        self.pay(m, np.flatnonzero(self.costs[m.id] <= R + BUDGET_SLACK))
        cost = self.costs[m.id]
        closer = self.closer(m)
        use = b.ok & (cost <= R + BUDGET_SLACK)
        if self.enforce_closer:
            use &= closer
        return Cands(b.pts[use], b.z[use], cost[use], b.ok[use], b.contact[use], b.er[use], b.dist[use], closer[use])
