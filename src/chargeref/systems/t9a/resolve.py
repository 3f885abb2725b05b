"""The charge phase of The 9th Age, step by step.

(One state machine over the declared charges, its steps in order here; what each
declaration records and how an outcome becomes a ruling is in outcomes.py; the
geometry it calls lives in charge.py, reach.py, wheel.py and moves.py.)

1. Declarations, in the order given. Each charge fixes the charged facing (the arc
   of the target the charger's front midpoint is in), checks that a charge move is
   possible at all (other declared chargers are assumed to have moved away), finds
   the enemy units the move cannot avoid (a multiple charge), and then the target
   reacts: Hold, Stand and Shoot, or Flee. A flee may make friends fled through take
   Panic Tests, and lets every unit charging the fleeing unit try to redirect.
2. Movement, unit by unit (units charging the same target together, as a combined
   charge): roll the Charge Range, compare it with the distance, and make the charge
   move, the failed charge move or the blocked-path move.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from ...budget import check as budget_check
from ...dice import apply_reroll
from ...errors import Problem, RequestError
from ...geometry.shapes import TOL
from ...ruling import Needed, Roll, Ruling
from ..base import ChargeRequest, PhaseResult
from .block import Block
from .charge import (
    Context,
    Placement,
    PlanFailure,
    make_context,
    plan,
    round_facing,
)
from .combined import Member, plan_combined
from .contact import engaged_with
from .distance import needed_distance
from .geom import angle_of, gap
from .memo import scope as memo_scope
from .moves import (
    FleeResult,
    flee_move,
    reach_fleeing,
    straight_contact,
)
from .outcomes import Declared, PhaseOutcomes, Spec, reason
from .report import MoveRecord
from .ruleset import T9A_2X, T9ARuleset
from .world import World, run_steps

ARCS_FOR_FACING = {"front": "front", "rear": "rear", "left": "left", "right": "right"}



# ----------------------------------------------------------------------------- phase


def _needed_key(ctx: Context) -> tuple[Any, ...]:
    """Everything ``needed_distance`` depends on: every unit as it stands (pose, size,
    flags), the charger, the target and its facing, and the obstacles' roles."""
    w = ctx.world
    units = tuple(sorted((b.id, b.player, b.front, b.facing, b.files, b.models, b.bw, b.bd, b.round, b.flags,
                          b.keywords) for b in w.blocks.values()))
    fr = ctx.fr
    return (units, tuple(t for t, _ in w.terrain), w.board, w.charge_spacing(), ctx.charger.id, ctx.target.id,
            tuple((b.front, b.facing, b.files, b.models, b.bw, b.bd, b.round, b.keywords) for b in (ctx.charger, ctx.target)),
            fr.name, float(fr.mid[0]), float(fr.mid[1]), float(fr.n[0]), float(fr.n[1]), fr.length,
            ctx.allowed, ctx.touch_any, tuple((o.uid, o.cls, o.min_gap, o.strict) for o in ctx.obstacles))


class Phase(PhaseOutcomes):
    def __init__(self, scen: Any, seed: int | None, clear_charges: bool = True, ruleset: T9ARuleset = T9A_2X):
        self.scen = scen
        self.ruleset = ruleset
        self.world = World.from_scenario(scen)
        self.rng = random.Random(seed)
        self.seed = seed
        self.clear_charges = clear_charges
        #: needed distance (rounded) -> the proven lower bound under it, where the
        #: distance came from the alternatives (``distance.needed_distance``)
        self._bounds: dict[float, float] = {}
        #: needed distances already worked out, by everything they depend on (the
        #: declaration and the move of one charger often ask on the same table)
        self._needed_memo: dict[tuple[Any, ...], tuple[Any, float | None]] = {}
        self.decl: list[Declared] = []
        self.panic_passed: set[str] = set()
        self.shot: set[str] = set()
        self.start_models = {b.id: b.models for b in self.world.blocks.values()}
        self.last_centre: dict[str, np.ndarray] = {}
        self.log: list[dict[str, Any]] = []
        self.destroyed: set[str] = set()

    # ----------------------------------------------------------------- dice
    def dice(self, given: list[int] | None, n: int = 2) -> list[int]:
        if given:
            return list(given)
        return [self.rng.randint(1, 6) for _ in range(n)]

    def test(self, b: Block, given: list[int] | None) -> tuple[bool, list[int]]:
        """A Discipline Test: 2D6, passed on a total of at most the Discipline."""
        d = self.dice(given)
        return sum(d[:2]) <= b.discipline, d

    # ----------------------------------------------------------------- checks
    def _unit(self, uid: str, field_name: str) -> Block:
        b = self.world.blocks.get(uid)
        if b is None:
            known = ", ".join(sorted(self.world.blocks)) or "none"
            if uid in self.destroyed:
                raise RequestError(Problem(field_name, f"unit {uid!r} has been removed earlier in this phase"))
            raise RequestError(Problem(field_name, f"no T9A unit {uid!r} in the scenario (units: {known})"))
        return b

    def _facing(self, ch: Block, tgt: Block) -> str:
        return tgt.arc_of(ch.located_point())

    def _context(self, world: World, ch: Block, tgt: Block, facing: str, allowed: frozenset[str],
                 touch_any: bool = False, ignore: frozenset[str] = frozenset(), terrain: bool = True) -> Context:
        fr = round_facing(tgt, angle_of(tgt.centre - ch.located_point())) if tgt.round else tgt.facing_of(facing)
        return make_context(world, ch, tgt, fr, allowed, touch_any, ignore=ignore, terrain=terrain)

    def _declare_world(self, exclude: str) -> World:
        """Declared charges count as made: units that already declared a charge are
        taken off the table when judging whether a new charge has room (seed 001,
        example charge phase d1)."""
        w = self.world.copy()
        for d in self.decl:
            if d.eligible and not d.cancelled and d.charger != exclude:
                w.remove(d.charger)
        return w

    def in_front_arc(self, ch: Block, tgt: Block) -> bool:
        """Line of sight (INTERPRETATION): some of the target lies in the charger's
        front arc."""
        if ch.round:
            return True
        c = ch.corners()
        f = ch.f
        lv = ch.l
        far = 1e4
        a = c["FL"] + (f + lv) * far
        b = c["FR"] + (f - lv) * far
        from .geom import Shape as GShape

        wedge = GShape.poly(np.stack([c["FL"], c["FR"], b, a]))
        return gap(wedge, tgt.shape()) <= TOL

    # ----------------------------------------------------------------- declare
    def declare(self, spec: Spec) -> Declared:
        if not spec.targets:
            raise RequestError(Problem("targets", "give the unit being charged"))
        ch = self._unit(spec.charger, "charger")
        tgt = self._unit(spec.targets[0], "targets")
        if ch.player == tgt.player:
            raise RequestError(Problem("targets", f"{tgt.id} is a friend of {ch.id}, not an enemy"))
        for extra in spec.targets[1:]:
            self._unit(extra, "targets")
        d = Declared(len(self.decl), spec, ch.id, tgt.id, tgt.id)
        self.decl.append(d)
        for other in self.decl[:-1]:
            if other.charger == ch.id and other.eligible:
                d.eligible = False
                d.reasons.append(reason("already_declared", f"{ch.id} has already declared a charge this phase"))
                return d
        self._check_and_react(d, spec.reaction, spec.reaction_dice, spec.shoot_casualties, first=True)
        return d

    def _eligibility(self, d: Declared, ch: Block, tgt: Block) -> bool:
        for flag, code, msg in (("engaged", "engaged", "is engaged in combat"), ("fleeing", "fleeing", "is fleeing"),
                                ("shaken", "shaken", "is Shaken and may not declare charges")):
            if flag in ch.flags:
                d.reasons.append(reason(code, f"{ch.id} {msg}"))
                return False
        if not self.in_front_arc(ch, tgt):
            d.reasons.append(reason("no_line", f"{tgt.id} is not in {ch.id}'s front arc, so {ch.id} cannot see it"))
            return False
        return True

    def _check_and_react(self, d: Declared, reaction_name: str | None, rdice: list[int] | None, casualties: int,
                         first: bool) -> None:
        w = self.world
        ch, tgt = w.blocks[d.charger], w.blocks[d.target]
        if not self._eligibility(d, ch, tgt):
            d.eligible = False
            return
        d.located = [round(float(v), 9) for v in ch.located_point()]
        d.target_fleeing = tgt.fleeing
        max_range = self.ruleset.longest_range(ch.advance, d.spec.modifier, w.inch)
        wdec = self._declare_world(ch.id)
        if tgt.fleeing:
            d.facing = None
            r = reach_fleeing(wdec, ch, tgt, max_range + 50)
            if r is None:
                d.eligible = False
                d.reasons.append(reason("facing_unreachable", f"no charge move of {ch.id} reaches the fleeing {tgt.id}"))
                return
            if r.distance > max_range + TOL:
                d.eligible = False
                d.reasons.append(reason("beyond_max_range", f"{tgt.id} is {r.distance:.3f} away, beyond the longest possible charge range {max_range:g}"))
                return
        else:
            d.facing = self._facing(ch, tgt)
            # a clear way to the facing that touches no other enemy settles it at once
            ctx0 = self._context(wdec, ch, tgt, d.facing, frozenset())
            nd = self._needed(ctx0)
            if nd is None:
                ctx = self._context(wdec, ch, tgt, d.facing, frozenset(), touch_any=True)
                pl = plan(ctx)
                if isinstance(pl, PlanFailure):
                    if self._blocked_path_allowed(wdec, ch, tgt, d.facing):
                        d.blocked_path = True
                        d.events.append({"event": "blocked_path", "why": pl.code})
                        d.reasons.append(reason("blocked_path", f"{ch.id} cannot charge {tgt.id} normally only because of unengaged enemy units (or those with impassable terrain, or the board edge): it will move straight ahead (Blocked Path)"))
                    else:
                        d.eligible = False
                        d.reasons.append(reason(pl.code, f"{ch.id} cannot complete a charge against {tgt.id}'s {d.facing} facing: {pl.message}",
                                                witness={"blockers": pl.blockers, "attempts": pl.counts}))
                        return
                else:
                    unavoidable = sorted(pl.extra)
                    if unavoidable:
                        chosen = [t for t in d.spec.targets[1:] if t in self.world.blocks]
                        d.secondaries = chosen or unavoidable
                        d.events.append({"event": "multiple_charge", "unavoidable": unavoidable, "secondaries": d.secondaries})
                if not d.blocked_path:
                    ctx2 = self._context(wdec, ch, tgt, d.facing, frozenset(d.secondaries))
                    nd = self._needed(ctx2)
            if not d.blocked_path:
                if nd is None:
                    d.eligible = False
                    d.reasons.append(reason("path_blocked", f"no clear charge move of {ch.id} reaches {tgt.id}"))
                    return
                if nd > max_range + TOL:
                    d.eligible = False
                    d.reasons.append(reason("beyond_max_range", f"{tgt.id} is {nd:.3f} away, beyond the longest possible charge range {max_range:g}"))
                    return
        # ---- the reaction
        self._react(d, tgt, reaction_name, rdice, casualties)

    def _needed(self, ctx: Context) -> float | None:
        if getattr(self.world.rules, "charge_distance", "path") == "gap":
            if needed_distance(ctx) is None:
                return None
            return max(0.0, gap(ctx.charger.shape(), ctx.target.shape()))
        key = _needed_key(ctx)
        if key in self._needed_memo:
            nd, ctx.lower_bound = self._needed_memo[key]
        else:
            nd = needed_distance(ctx)
            self._needed_memo[key] = (nd, ctx.lower_bound)
        if nd is not None and ctx.lower_bound is not None:
            self._bounds[round(nd[0], 9)] = ctx.lower_bound
        return None if nd is None else nd[0]

    def _blocked_path_allowed(self, w: World, ch: Block, tgt: Block, facing: str) -> bool:
        """Seed 003: Blocked Path applies when a normal charge is impossible solely
        because of unengaged enemy units, or such units together with impassable
        terrain, or the board edge preventing alignment."""
        others = frozenset(o.id for o in w.enemies_of(ch) if o.id != tgt.id and not o.engaged
                           and not engaged_with(w.blocks, o.id))
        terr = frozenset(t for t, _ in w.terrain)

        def feasible(ignore: frozenset[str], board: bool = True) -> bool:
            # the world without those units and terrain (for the charged unit's own
            # turn as much as for the charger)
            w2 = w.copy()
            for uid in ignore:
                w2.remove(uid)
            w2.terrain = [(t, sh) for t, sh in w2.terrain if t not in ignore]
            if not board:
                w2.board = (1e6, 1e6)  # no edge anywhere near
            ctx = self._context(w2, w2.blocks[ch.id], w2.blocks[tgt.id], facing, frozenset(), touch_any=False)
            return isinstance(plan(ctx, allow_rotation=True), Placement)

        if others and feasible(others):
            return True
        if others and feasible(others | terr) and not feasible(terr):
            return True
        if not feasible(frozenset(), board=False) and not (others and feasible(others, board=False)):
            return False
        return True

    def _react(self, d: Declared, tgt: Block, name: str | None, rdice: list[int] | None, casualties: int) -> None:
        w = self.world
        ch = w.blocks[d.charger]
        if tgt.fleeing:
            if name not in (None, "flee"):
                d.reasons.append(reason("must_flee", f"{tgt.id} is already fleeing and must flee again"))
            name = "flee"
        elif tgt.engaged or engaged_with(w.blocks, tgt.id):
            if name not in (None, "hold"):
                d.reasons.append(reason("must_hold", f"{tgt.id} is engaged in combat and can only hold"))
            name = "hold"
        name = name or "hold"
        ev: dict[str, Any] = {"event": "reaction", "unit": tgt.id, "declared": name}
        d.events.append(ev)
        if name == "stand_and_shoot":
            why = self._sas_refusal(ch, tgt)
            if why:
                d.reasons.append(reason("stand_and_shoot_not_allowed", why))
                ev["result"] = "hold"
            else:
                self.shot.add(tgt.id)
                ev["result"] = "stand_and_shoot"
                ev["casualties"] = casualties
                if casualties:
                    self._casualties(d, ch, casualties, source=tgt)
        elif name == "flee":
            ev["result"] = "flee"
            self._flee(d, tgt, ch, rdice)
        else:
            ev["result"] = "hold"
        if ev["result"] != "flee" and d.secondaries and d.target == d.initial_target:
            for s in d.secondaries:
                sb = w.blocks.get(s)
                if sb is None:
                    continue
                r2 = d.spec.secondary_reactions.get(s, "hold")
                if sb.engaged or engaged_with(w.blocks, s):
                    r2 = "hold"
                d.events.append({"event": "reaction", "unit": s, "declared": r2, "result": r2 if r2 != "flee" else "flee",
                                 "secondary": True})
                if r2 == "flee":
                    self._flee(d, sb, ch, None, redirects=False)
        elif ev["result"] == "flee" and d.secondaries:
            d.events.append({"event": "secondaries_dropped", "units": d.secondaries})
            d.reasons.append(reason("secondary_dropped", f"the initial target {tgt.id} fled, so the secondary charges against {', '.join(d.secondaries)} are ignored"))
            d.secondaries = []

    def _sas_refusal(self, ch: Block, tgt: Block) -> str | None:
        if not tgt.shooting:
            return f"{tgt.id} cannot shoot"
        if tgt.id in self.shot:
            return f"{tgt.id} has already used Stand and Shoot this player turn"
        if self._facing(ch, tgt) != "front":
            return f"{ch.id} is not located in {tgt.id}'s front arc"
        dist = max(0.0, gap(ch.shape(), tgt.shape()))
        if dist <= ch.advance + TOL:
            return f"{ch.id} is only {dist:.3f} away, not farther than its Advance Rate {ch.advance:g}"
        return None

    def _casualties(self, d: Declared, b: Block, n: int, source: Block) -> None:
        left = b.models - n
        before = b
        if left <= 0:
            self.world.remove(b.id)
            self.destroyed.add(b.id)
            d.records.append(MoveRecord(b.id, before, [], None, "destroyed", removed=True))
            d.events.append({"event": "destroyed", "unit": b.id, "by": source.id})
            d.cancelled = True
            d.reasons.append(reason("destroyed", f"{b.id} was wiped out by Stand and Shoot"))
            return
        nb = b.with_models(left)
        self.world.put(nb)
        d.events.append({"event": "casualties", "unit": b.id, "lost": n, "left": left})
        start = self.start_models.get(b.id, b.models)
        if (start - left) * 4 >= start:
            passed, dice = self.test(nb, d.spec.panic_dice.get(b.id))
            d.events.append({"event": "panic_test", "unit": b.id, "dice": dice, "passed": passed,
                             "why": "lost 25% or more of its models"})
            if passed:
                self.panic_passed.add(b.id)
            else:
                d.cancelled = True
                d.reasons.append(reason("panic_failed", f"{b.id} failed its Panic Test and flees instead of charging"))
                self._panic_flee(d, nb)

    def _panic_flee(self, d: Declared, b: Block) -> None:
        enemies = self.world.enemies_of(b)
        if not enemies:
            return
        near_e = min(enemies, key=lambda e: gap(e.shape(), b.shape()))
        self._flee(d, b, near_e, None, redirects=False, label="panic flee")

    def _flee(self, d: Declared, u: Block, away: Block, rdice: list[int] | None, redirects: bool = True,
              label: str = "flee") -> None:
        n = 3 if "SWIFTSTRIDE" in u.keywords else 2
        dice = self.dice(rdice, n)
        rolled = sum(sorted(dice, reverse=True)[:2]) * self.world.inch
        fr: FleeResult = flee_move(self.world, u, away.centre, rolled)
        after = run_steps(u, fr.steps).with_flags({"fleeing"}, {"engaged"})
        info = fr.details()
        info["dice"] = dice
        info["event"] = label
        d.events.append(info)
        self.last_centre[u.id] = after.centre
        for other in self.decl:
            if other.target == u.id:
                # a charge at a fleeing unit may touch any facing of it
                other.facing = None
                other.target_fleeing = True
        if fr.destroyed:
            self.world.remove(u.id)
            self.destroyed.add(u.id)
            d.records.append(MoveRecord(u.id, u, fr.steps, after, label, removed=True))
            d.reasons.append(reason("destroyed", f"{u.id} fled off the board edge and is destroyed"))
        else:
            self.world.put(after)
            d.records.append(MoveRecord(u.id, u, fr.steps, after, label))
        if u.id == d.target:
            d.reasons.append(reason("fled", f"{u.id} fled {fr.distance:.3f} (rolled {fr.rolled:g})" +
                                    (f", extended past {', '.join(fr.extended_past)}" if fr.extended_past else "")))
        for f_id in fr.through_friends:
            fb = self.world.blocks.get(f_id)
            if fb is None:
                continue
            if f_id in self.panic_passed:
                d.events.append({"event": "panic_test", "unit": f_id, "skipped": True,
                                 "why": "already passed a Panic Test this phase"})
                continue
            if fb.fleeing or fb.engaged or engaged_with(self.world.blocks, f_id):
                d.events.append({"event": "panic_test", "unit": f_id, "skipped": True,
                                 "why": "fleeing or engaged units do not take Panic Tests"})
                continue
            passed, pd = self.test(fb, d.spec.panic_dice.get(f_id))
            d.events.append({"event": "panic_test", "unit": f_id, "dice": pd, "passed": passed,
                             "why": f"{u.id} fled through it"})
            if passed:
                self.panic_passed.add(f_id)
            else:
                self._panic_flee(d, fb)
        for e_id in fr.through_enemies + fr.through_terrain:
            d.events.append({"event": "dangerous_terrain", "unit": u.id, "value": 3, "through": e_id})
        if redirects and u.id == d.target:
            self._redirects(u.id, d)

    def _redirects(self, fled: str, trigger: Declared) -> None:
        """Seed 001 / rules notes 2.9: each unit charging the fleeing unit may try to
        redirect, in declaration order, with a Discipline Test (2D6 <= Discipline)."""
        for d in list(self.decl):
            if d.target != fled or d.redirect_tried or not d.eligible or d.cancelled:
                continue
            if not d.spec.redirect:
                continue
            d.redirect_tried = True
            ch = self.world.blocks.get(d.charger)
            if ch is None:
                continue
            passed, dice = self.test(ch, d.spec.redirect_dice)
            ev = {"event": "redirect_test", "unit": d.charger, "dice": dice, "passed": passed, "to": d.spec.redirect,
                  "triggered_by": trigger.charger}
            d.events.append(ev)
            if not passed:
                d.reasons.append(reason("redirect_failed", f"{d.charger} failed its Discipline Test ({sum(dice[:2])} > {ch.discipline}) and must still charge the fleeing {fled}"))
                continue
            new = self.world.blocks.get(d.spec.redirect)
            if new is None or new.player == ch.player:
                d.reasons.append(reason("redirect_failed", f"{d.spec.redirect} is not an enemy unit that can be charged"))
                continue
            old = d.target
            d.target = new.id
            d.redirected_from = old
            d.secondaries = []
            d.reasons.append(reason("redirected", f"{d.charger} passed its Discipline Test and redirects its charge to {new.id}"))
            self._check_and_react(d, d.spec.redirect_reaction, d.spec.redirect_reaction_dice,
                                  d.spec.redirect_shoot_casualties, first=False)
            if not d.eligible:
                # an impossible redirect: it keeps charging the fleeing unit
                d.eligible = True
                d.target = old
                d.redirected_from = None
                d.facing = None
                d.target_fleeing = True
                d.reasons.append(reason("redirect_failed", f"the redirected charge against {new.id} is not possible; {d.charger} keeps charging {old}"))

    # ----------------------------------------------------------------- rolling
    def _roll(self, d: Declared, ch: Block, needed_roll: int | None) -> tuple[Roll, float, int]:
        """(the roll, the charge range, the highest die)."""
        sp = d.spec
        n = self.ruleset.dice_count(ch.keywords)
        if sp.roll is not None and not sp.dice:
            total = sp.roll
            highest = max(1, min(6, math.ceil((total - sp.modifier) / 2)))
            r = Roll(dice=[], modifier=sp.modifier, total=total, seed=self.seed)
        else:
            dice = self.dice(sp.dice, n)
            orig = None
            if sp.reroll != "none" and needed_roll is not None:
                dice2, orig = apply_reroll(dice, needed_roll, sp.modifier, sp.reroll, self.rng)
                dice = dice2
            total = self.ruleset.kept_total(dice) + sp.modifier
            highest = max(dice)
            r = Roll(dice=dice, modifier=sp.modifier, total=total, rerolled_from=orig, seed=self.seed)
        rng = self.ruleset.charge_range(total, ch.advance, self.world.inch)
        return r, rng, highest

    def _needed_model(self, dist: float | None, ch: Block, mod: int) -> Needed:
        if dist is None:
            return Needed(distance=None, roll=None)
        need = self.ruleset.least_roll(dist, ch.advance, self.world.inch)
        need = max(need, self.ruleset.keep + mod)
        roll = need if need <= self.ruleset.max_total + mod else None
        lb = self._bounds.get(round(dist, 9))
        if lb is not None and lb < dist - 1e-9:
            # the distance came from alternatives, not a constructed optimum: the
            # unobstructed least distance bounds it from below; the roll is proven
            # least only when that bound needs the same roll
            low = max(self.ruleset.least_roll(lb, ch.advance, self.world.inch), self.ruleset.keep + mod)
            return Needed(distance=round(dist, 9), roll=roll, lower_bound=round(lb, 9), exact=low == need)
        return Needed(distance=round(dist, 9), roll=roll, lower_bound=round(dist, 9))

    # ----------------------------------------------------------------- movement
    def move_all(self) -> None:
        groups: dict[str, list[Declared]] = {}
        order: list[str] = []
        live = [d for d in self.decl if d.eligible and not d.cancelled]
        mo = getattr(self.scen, "move_order", None) or []
        ranked = sorted(live, key=lambda d: (mo.index(d.charger) if d.charger in mo else len(mo) + d.index))
        for d in ranked:
            if d.target not in groups:
                groups[d.target] = []
                order.append(d.target)
            groups[d.target].append(d)
        for t in order:
            budget_check()
            self._move_group(t, groups[t])
        self.log.append({"event": "move_order", "targets": order})

    def _move_group(self, target: str, ds: list[Declared]) -> None:
        w = self.world
        tgt = w.blocks.get(target)
        rolls: dict[int, tuple[Roll, float, int, float | None]] = {}
        for d in ds:
            ch = w.blocks.get(d.charger)
            if ch is None:
                d.cancelled = True
                continue
            dist = self._distance_now(d, ch, tgt)
            nd = self._needed_model(dist, ch, d.spec.modifier)
            roll, rng, hi = self._roll(d, ch, nd.roll)
            rolls[d.index] = (roll, rng, hi, dist)
        if tgt is None:
            for d in ds:
                if d.index in rolls:
                    self._failed(d, rolls[d.index], "target_destroyed",
                                 f"{target} is no longer on the table; {d.charger} makes a failed charge move toward where it was")
            return
        if tgt.fleeing:
            for d in ds:
                if d.index not in rolls:
                    continue
                self._charge_fleeing(d, rolls[d.index])
            return
        ok: list[Declared] = []
        later: list[tuple[Declared, str, str]] = []
        for d in ds:
            if d.index not in rolls:
                continue
            roll, rng, hi, dist = rolls[d.index]
            if d.blocked_path:
                self._blocked_path(d, rolls[d.index])
                continue
            if dist is None:
                later.append((d, "no_room", f"{d.charger} has no room to complete its charge against {target}"))
                continue
            if rng + TOL < dist:
                later.append((d, "out_of_range",
                              f"charge range {rng:.3f} (roll {roll.total} + Advance Rate {self.world.blocks[d.charger].advance:g}) is less than the {dist:.3f} needed"))
                continue
            ok.append(d)
        if len(ok) == 1:
            d = ok[0]
            ch = w.blocks[d.charger]
            ctx = self._context(w, ch, w.blocks[target], d.facing or "front", frozenset(d.secondaries))
            pl = plan(ctx)
            if isinstance(pl, PlanFailure):
                later.insert(0, (d, pl.code, f"{d.charger} cannot complete its charge: {pl.message}"))
            else:
                self._apply_placement(d, pl, rolls[d.index], combined=None)
        elif len(ok) > 1:
            members = [Member(d.charger, d.facing or "front", frozenset(d.secondaries)) for d in ok]
            res = plan_combined(w, members, target)
            byc = {d.charger: d for d in ok}
            comb = {"chargers": [d.charger for d in ds], "order": res.order, "score": res.score,
                    "rotated_by": res.rotated_by}
            for cid in res.order:
                self._apply_placement(byc[cid], res.placements[cid], rolls[byc[cid].index], combined=comb)
            # every charger of the group reports the priorities of the finished combat
            if res.order:
                final = self._priorities(res.placements[res.order[-1]], comb)
                for cid in res.order:
                    rl = byc[cid].ruling
                    if rl is not None:
                        rl.details["priorities"] = final
            for cid, fail in res.unplaced.items():
                later.insert(0, (byc[cid], "impossible", f"{cid} cannot fit against {target} alongside the other chargers ({fail.message})"))
        # charges that cannot be completed move last (seed 001: impossible and failed
        # charges make a failed charge move)
        for d, code, msg in later:
            self._failed(d, rolls[d.index], code, msg)

    def _distance_now(self, d: Declared, ch: Block, tgt: Block | None) -> float | None:
        if tgt is None:
            return None
        if tgt.fleeing:
            r = reach_fleeing(self.world, ch, tgt, self.ruleset.longest_range(ch.advance, 0, self.world.inch) + 60)
            return None if r is None else r.distance
        if d.blocked_path:
            k, _ = straight_contact(self.world, ch, tgt, 1e4)
            return k
        ctx = self._context(self.world, ch, tgt, d.facing or "front", frozenset(d.secondaries))
        return self._needed(ctx)


# ----------------------------------------------------------------------------- API


@memo_scope()
def run_charge(scen: Any, req: ChargeRequest) -> Ruling:
    ph = Phase(scen, req.seed, clear_charges=False)
    d = ph.declare(Spec.from_request(req))
    if d.eligible and not d.cancelled:
        ph.move_all()
    ph.ineligible_rulings()
    assert d.ruling is not None
    return d.ruling


@memo_scope()
def run_phase(scen: Any, seed: int | None) -> PhaseResult:
    ph = Phase(scen, seed, clear_charges=True)
    for e in scen.charges:
        budget_check()
        ph.declare(Spec.from_entry(e))
    ph.move_all()
    ph.ineligible_rulings()
    rulings = [d.ruling for d in ph.decl if d.ruling is not None]
    from .report import scenario_after as sa

    details = {
        "ruleset": ph.ruleset.name,
        "declarations": [{"charger": d.charger, "target": d.target, "initial_target": d.initial_target,
                          "eligible": d.eligible, "events": d.events} for d in ph.decl],
        "log": ph.log,
        "seed": seed,
    }
    return PhaseResult(rulings=rulings, after=sa(scen, ph.world, True), details=details)


@memo_scope()
def run_needed(scen: Any, req: ChargeRequest) -> Needed:
    ph = Phase(scen, req.seed, clear_charges=False)
    ch = ph._unit(req.charger, "charger")
    if not req.targets:
        raise RequestError(Problem("targets", "give the unit being charged"))
    tgt = ph._unit(req.targets[0], "targets")
    if ch.player == tgt.player:
        raise RequestError(Problem("targets", f"{tgt.id} is a friend of {ch.id}, not an enemy"))
    if tgt.fleeing:
        r = reach_fleeing(ph.world, ch, tgt, 1e4)
        return ph._needed_model(None if r is None else r.distance, ch, req.modifier)
    facing = ph._facing(ch, tgt)
    declared = frozenset(req.targets[1:])
    ctx = ph._context(ph.world, ch, tgt, facing, declared, touch_any=len(req.targets) > 1)
    nd = ph._needed(ctx)
    if nd is None and not declared:
        # As in the charge itself: enemy units the move cannot avoid touching are drawn
        # in (a multiple charge), so the least roll is the one that reaches the target
        # with them allowed.
        pl = plan(ph._context(ph.world, ch, tgt, facing, frozenset(), touch_any=True))
        if not isinstance(pl, PlanFailure) and pl.extra:
            nd = ph._needed(ph._context(ph.world, ch, tgt, facing, frozenset(pl.extra)))
    return ph._needed_model(nd, ch, req.modifier)
