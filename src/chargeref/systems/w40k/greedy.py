"""The greedy order of play of the 40k charge search (a mixin of ``ChargeProblem``,
solver.py): at each step every waiting model is scored on its candidate spots (score
rows, ``score_rows.py``) and the best (model, spot) pair is placed, first engaging every
target, then base contact, then as close as possible; owed path plans (``costs.py``) are
paid only for the spots that could win the pick. Split from solver.py (round 8) by
responsibility: solver.py keeps the problem, its banks and the solve loop.
"""

from __future__ import annotations

import math

import numpy as np

from ... import budget
from .score_rows import DENSE_CELLS, ScoreRows
from .solver_base import (
    BUDGET_SLACK,
    Bank,
    Growing,
    Placement,
    mark_against,
)
from .world import Model

#: owed spots paid at once when the search's pick needs a model's planned scores
#: (doubled each time the same model needs more within one step)
PAY_FIRST = 32


def _normal_rows(b: Bank, s: int) -> np.ndarray:
    """Spots (rows s:) that engage some target normally (range or barricade)."""
    return (b.er[s:] | b.bar[s:]).any(axis=1)


def _token_only_rows(b: Bank, s: int) -> np.ndarray:
    """Spots (rows s:) that engage only with a token across a ruin wall."""
    return b.tok[s:].any(axis=1) & ~(b.er[s:] | b.bar[s:]).any(axis=1)


class Greedy:
    """The search's order of play (mixed into ``ChargeProblem``)."""

    def _rows(self, name: tuple, b: Bank, fn) -> np.ndarray:  # noqa: ANN001
        """perf: a per-spot array ``fn(b, start)`` (the rows from ``start`` on) derived
        from bank ``b``, kept across the steps, orders of play and probes of the search
        and extended as the bank grows. Exact: a bank only ever grows at its end (grow)
        and never changes a row, and every derived value depends on its own row alone,
        so the kept array equals the one computed afresh, bit for bit."""
        hit = self._derived.get(name)
        n = len(b.pts)
        if hit is not None and len(hit) == n:
            return hit
        arr = fn(b, 0) if hit is None else np.concatenate([hit, fn(b, len(hit))])
        self._derived[name] = arr
        return arr

    def _score_rows(self, b: Bank, s: int, tokens: bool, mode: tuple) -> np.ndarray:
        """The part of the greedy score that depends only on the spots (rows s: of b),
        for one phase ``mode`` of the search (see _greedy): engaging a target not yet
        engaged first, then base contact, then closeness; "least" weighs only the
        engaging, the move's length decides the rest."""
        nT = len(self.targets)
        if mode[0] == "mid":
            return -np.sum(b.dist[s:], axis=1) * 1e3
        contact_first = mode[-1]
        least = contact_first == "least"
        if mode[0] == "done" and least:
            return np.zeros(len(b.pts) - s)
        eng = b.er[s:] | b.bar[s:]
        if tokens:
            eng = eng | b.tok[s:]
        contact = b.contact[s:].astype(float)
        if tokens:
            contact = contact + 0.5 * b.er[s:].any(axis=1)  # normal spots before tokens
        if mode[0] == "done":
            focus = np.min(b.dist[s:], axis=1)
            return contact * 1e8 + np.any(eng, axis=1) * 1e6 - focus * 1e3
        if mode[0] == "first":
            ft = mode[1]
            new = eng[:, ft]
            cols = [j for j in range(nT) if j != ft] or [ft]
        else:
            cols = list(mode[1])
            new = np.any(eng[:, cols], axis=1)
        focus = np.min(b.dist[s:, cols], axis=1)
        if least:
            return new * 1e8
        if contact_first:
            return new * 1e8 + contact * 1e6 - np.round(focus / 0.05) * 1e2
        return new * 1e8 - np.round(focus / 0.05) * 1e3 + contact * 10.0

    def _greedy(self, R: float, first_target: int, contact_first: bool | str = False, tokens: bool = False) -> Placement | None:
        r = self.w.rules
        n = len(self.models)
        nT = len(self.targets)
        by_id = {m.id: m for m in self.models}
        # dynamic state lives on the banks (it depends only on spot geometry):
        # overlap with a placed model, and the number of coherency links to placed ones
        # (perf: Growing buffers, so a bank's growth appends instead of copying)
        overlap = {k: Growing(np.zeros(len(b.pts), dtype=bool)) for k, b in self.banks.items()}
        links = {k: Growing(np.zeros(len(b.pts), dtype=int)) for k, b in self.banks.items()}
        placed: list[str] = []
        pos: dict[str, np.ndarray] = {}
        zz: dict[str, float] = {}
        cost: dict[str, float] = {}
        engaged = np.zeros(nT, dtype=bool)
        via: dict[str, str] = {}

        def usable(m: Model, start: int = 0) -> np.ndarray:
            b = self.banks[self.keys[m.id]]
            c = self.costs[m.id][start:]
            u = b.ok[start:] & (c <= R + BUDGET_SLACK)
            if self.enforce_closer:
                u &= self.closer(m)[start:]
            return u

        # per model: which spots it may use (grown with the banks), their indices, and
        # the move-length term of the score on them (perf: Growing buffers, so a bank's
        # growth appends instead of copying; the term is recomputed when its weight
        # changes or when the model's costs are planned again)
        use = {m.id: Growing(usable(m)) for m in self.models}
        # owed spots (costs.py) stand in ``use`` on their bounds. "No usable spot" is
        # asked of planned costs: a model whose usable spots are all owed has them
        # planned first (a spot with a non-owed usable cost is usable either way)
        for m in self.models:
            u = use[m.id].a
            if u.any() and not (u & ~self.owed(m.id)).any():
                self.pay(m, np.flatnonzero(u))
                use[m.id] = Growing(usable(m))
        if any(not u.a.any() for u in use.values()):
            return None
        ui_of: dict[str, Growing] = {}
        cw_of: dict[str, tuple[float, Growing]] = {}
        # perf, exact: the models of a shape as the rows of one matrix (score_rows.py
        # says why the spots and values are the per-model ones); their ``use`` moves there
        dense: dict[tuple, ScoreRows] = {}
        w0 = 1.0 if contact_first == "least" else 1e-3
        for k, ms_k in self._of_shape.items():
            if len(ms_k) * len(self.banks[k].pts) <= DENSE_CELLS:
                ids = [m.id for m in ms_k]
                dense[k] = ScoreRows(ids, np.stack([use.pop(mid).a for mid in ids]), np.stack([self.costs[mid] for mid in ids]), w0)

        def refresh(m: Model) -> None:
            """m's costs were planned again: its usable spots and score terms afresh."""
            dg = dense.get(self.keys[m.id])
            if dg is not None:
                dg.reset(m.id, usable(m), self.costs[m.id])
            else:
                use[m.id] = Growing(usable(m))
                ui_of.pop(m.id, None)
                cw_of.pop(m.id, None)

        def firm_normal(m: Model, feas: np.ndarray, normal_free: np.ndarray) -> bool:
            """Walls rule: "can m reach a normal legal spot" is asked of planned costs.
            When only owed spots could say yes, they are planned (True: m refreshed)."""
            o = self.owed(m.id)
            if (feas & normal_free & ~o).any() or not self.pay(m, np.flatnonzero(feas & normal_free & o)):
                return False
            refresh(m)
            return True

        while len(placed) < n:
            budget.check()
            best = None
            need = 0 if not placed else (2 if (self.two and len(placed) >= 2) else 1)
            unen = ~engaged
            # score terms that depend only on the spots: once per base shape
            terms: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
            least = contact_first == "least"
            # weight of the move's length in the score ("least": the length alone decides)
            w = 1.0 if least else (1e-3 if unen.any() else 1.0)
            picks: dict[str, tuple[int, float]] = {}
            for k, b in self.banks.items():
                free = ~overlap[k].a & (links[k].a >= need)
                # perf: the terms that depend only on the spots are kept per bank (and
                # per phase of the score) and extended as the bank grows (_rows)
                normal_any = self._rows((k, "normal"), b, _normal_rows)
                token_only = self._rows((k, "token_only"), b, _token_only_rows) if tokens else None
                if unen.any():
                    if not placed and first_target < 0:
                        # the first model stands where it is closest to every target
                        mode: tuple = ("mid",)
                    elif not placed:
                        mode = ("first", first_target, contact_first)
                    else:
                        mode = ("unen", tuple(int(j) for j in np.flatnonzero(unen)), contact_first)
                else:
                    mode = ("done", contact_first)
                base = self._rows((k, tokens, mode), b, lambda bb, s0, mode=mode: self._score_rows(bb, s0, tokens, mode))
                terms[k] = (np.where(free, base, -np.inf), normal_any & free, token_only)
                dg = dense.get(k)
                if dg is not None:
                    if dg.w != w:
                        dg.reweigh(w, self.costs)
                    if token_only is not None:
                        for mid in list(dg.ids):
                            firm_normal(by_id[mid], dg.U[dg.row[mid], : dg.n], terms[k][1])
                    js, vs = dg.best(terms[k][0], token_only, terms[k][1])
                    picks.update(zip(dg.ids, zip(js, vs, strict=True), strict=True))

            def scores(m: Model, terms: dict = terms, w: float = w) -> tuple[np.ndarray, np.ndarray]:
                """m's spots it may take now (index order) and its score on each (on
                the bound where the spot is owed)."""
                k = self.keys[m.id]
                base, normal_free, token_only = terms[k]
                dg = dense.get(k)
                if dg is not None:
                    return np.arange(dg.n), dg.scores(m.id, base, token_only, normal_free)
                feas = use[m.id].a
                # perf: the score only over the model's usable spots (in index order, so
                # argmax picks the same first best spot the whole-bank score picks;
                # unusable spots score -inf there and never win)
                if token_only is not None and firm_normal(m, feas, normal_free):
                    feas = use[m.id].a
                if token_only is not None and (feas & normal_free).any():
                    # a model that can reach a normal legal spot must take one; only
                    # the others may use a token against the wall (seed 000, steps 3-4)
                    ui = np.flatnonzero(feas & ~token_only)
                    return ui, base[ui] - self.costs[m.id][ui] * w
                g = ui_of.get(m.id)
                if g is None:
                    g = ui_of[m.id] = Growing(np.flatnonzero(feas))
                ui = g.a
                # perf, exact: costs[ui] * w, kept: a model's costs change in the
                # search only where it is planned again, and then its record goes
                cw = cw_of.get(m.id)
                if cw is None or cw[0] != w:
                    cw = cw_of[m.id] = (w, Growing(self.costs[m.id][ui] * w))
                # perf: the same gather and difference, in place (base.take(ui) is
                # base[ui]; the method calls skip numpy's function dispatch)
                sub = base.take(ui)
                sub -= cw[1].a
                return ui, sub

            # perf, exact: the pick of the eager search (every owed spot planned). Each
            # model's best score is taken in turn, and replaces the best so far when
            # it is larger by more than 1e-12, as before. An owed spot's score is on
            # its bound, an upper bound on its planned score (costs.py), and a spot
            # not owed scores what it did. So when m's best is an owed spot and cannot
            # replace the best so far, m's planned best cannot either: m is passed by,
            # its spots left owed. When it could, m's owed spots that could are planned
            # (best bound first, a batch doubling at each try) and m is scored again.
            # When m's best is a spot not owed, it is m's planned best (same value,
            # same first index): every other spot scores at most its planned score
            # plus what planning can only lower, and a spot before it scoring as much
            # once planned would score at least as much now. So every model is
            # compared with its planned best or provably left out, in the same order
            # with the same test: the same (model, spot) wins, and the state every
            # later step and reader sees is the eager one (costs.py: owed).
            for m in self.models:
                if m.id in pos:
                    continue
                hit = picks.get(m.id)
                tries = 0
                while True:
                    if hit is None:
                        ui, sub = scores(m)
                        if len(ui) == 0:
                            break
                        j = int(sub.argmax())
                        hit = (int(ui[j]), float(sub[j]))
                    i, v = hit
                    if not math.isfinite(v) or (best is not None and not v > best[0] + 1e-12):
                        break
                    if not self.owed(m.id)[i]:
                        best = (v, m.id, i)
                        break
                    ui, sub = scores(m)
                    bar = -np.inf if best is None else best[0] + 1e-12
                    sel = np.flatnonzero(self.owed(m.id)[ui] & (sub > bar))
                    top = sel[np.lexsort((sel, -sub[sel]))[: PAY_FIRST << min(tries, 20)]]
                    self.pay(m, ui[top])
                    refresh(m)
                    tries += 1
                    hit = None
            if best is None:
                return None
            _, mid, i = best
            if not self.exact[mid][i]:
                self._settle(by_id[mid], np.array([i]))
            if not self.exact[mid][i]:
                # the spot's cost was a straight-line lower bound: this model's usable
                # spots are to be planned (owed, costs.py; the pick above plans what
                # it needs), then choose again
                dg = dense.get(self.keys[mid])
                self.owe(by_id[mid], np.flatnonzero(dg.usable(mid) if dg is not None else use[mid].a))
                refresh(by_id[mid])
                continue
            b = self.banks[self.keys[mid]]
            pos[mid] = b.pts[i].copy()
            zz[mid] = float(b.z[i])
            cost[mid] = float(self.costs[mid][i])
            # (row i of engages(b, tokens), without the whole bank's matrix)
            eng = (b.er[i] | b.bar[i] | b.tok[i]) if tokens else (b.er[i] | b.bar[i])
            engaged |= eng
            if not (b.er[i].any() or b.bar[i].any()) and b.tok[i].any() and tokens:
                via[mid] = "token"
            placed.append(mid)
            if len(placed) == n:
                break
            if self.keys[mid] in dense:
                dense[self.keys[mid]].drop(mid)
            pm = by_id[mid]
            sizes = {k: len(bb.pts) for k, bb in self.banks.items()}
            self.grow([(pm, pos[mid])], [(by_id[q], pos[q]) for q in placed[:-1]])
            for k, bb in self.banks.items():
                s0 = sizes[k]
                extra = len(bb.pts) - s0
                if extra:
                    # state of the new spots against models placed before this one
                    no, nl = self._against(self.rep[k], bb.pts[s0:], bb.z[s0:], [(by_id[q], pos[q], zz[q]) for q in placed[:-1]])
                    overlap[k].extend(no)
                    links[k].extend(nl)
                # every spot against the newly placed model
                rep = self.rep[k]
                mark_against(overlap[k].a, links[k].a, self._sd_at(rep, bb.pts, pm, pos[mid]), bb.z, zz[mid], r.coh, r.coh_v)
            # perf: the models that are still to place, grouped by shape and by how many
            # spots they have already judged, get their new spots judged at once
            for k, dg in list(dense.items()):
                nb = len(self.banks[k].pts)
                if nb > dg.n and dg.ids:  # (a shape whose models are all placed waits no more)
                    ms_k = [by_id[q] for q in dg.ids]
                    rows, C = self._usable_rows(ms_k, dg.n, R, with_costs=True)
                    dg.extend(rows, C)
                if dg.cells() > DENSE_CELLS:
                    # too big to hold as matrices: back to the per-model form
                    for q in dg.ids:
                        use[q] = Growing(dg.usable(q))
                    del dense[k]
            todo: dict[tuple, list[Model]] = {}
            for m in self.models:
                if m.id not in pos and m.id in use and len(self.costs[m.id]) > use[m.id].n:
                    todo.setdefault((self.keys[m.id], use[m.id].n), []).append(m)
            for (_, old), ms_k in todo.items():
                rows = self._usable_rows(ms_k, old, R)
                for j, m in enumerate(ms_k):
                    more = rows[j]
                    use[m.id].extend(more)
                    g = ui_of.get(m.id)
                    if g is not None:
                        # perf: the usable indices (and their score term) grow with
                        # the spots (no rescan)
                        new = np.flatnonzero(more) + old
                        g.extend(new)
                        cw = cw_of.get(m.id)
                        if cw is not None:
                            cw[1].extend(self.costs[m.id][new] * cw[0])
        pl = Placement(pos, zz, cost, placed, via=via)
        return pl if self.unit_ok(pl) else None
