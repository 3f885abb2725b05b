"""The Warmaster rule system: scenario problems, one charge, ``needed``, a phase.

Warmaster has no charge roll: a unit that sees its target and can be placed by the
charge rules charges. ``needed.distance`` is the least move the first stand needs
(its centre-to-centre spot under ``original``), ``needed.roll`` is always null.
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from ...budget import check as budget_check
from ...errors import Problem, RequestError, ScenarioError
from ...geometry.broad import box_pairs, points_bounds
from ...geometry.shapes import TOL
from ...ruling import Move, Needed, Reason, Roll, Ruling
from ...scenario import ScenarioWarmaster, scenario_from_data, scenario_to_data
from ..base import ChargeRequest, PhaseResult, require_unit
from .geom import Poly, bbox_gap, footprint_sd, overlaps, poly_seg_dist, sd
from .placing import EDGES, Outcome, Placed
from .solve import Charge
from .world import StandW, World, build_world, unit_base

NAME = "warmaster"


def _r(x: float) -> float:
    return float(round(float(x), 9))


def _pt(p: np.ndarray) -> list[float]:
    return [float(p[0]), float(p[1])]


class Warmaster:
    name = NAME

    # ------------------------------------------------------------------ problems
    def problems(self, scen: ScenarioWarmaster, world: World | None = None) -> list[Problem]:
        """Every reason the battlefield is impossible: unknown base shapes, repeated
        ids, stands off the board, overlapping stands, stands inside ground their
        type cannot enter, and ``charges:`` that name unknown or friendly units.
        ``world``: ``build_world(scen)`` when the caller has already built it."""
        out: list[Problem] = []
        world = build_world(scen) if world is None else world
        seen_units: set[str] = set()
        for u in scen.units:
            if u.id in seen_units:
                out.append(Problem(f"units[{u.id}]", "unit id used twice"))
            seen_units.add(u.id)
            kind, _, _ = unit_base(u, world.mm)
            if kind == "other" or (kind == "round" and u.type != "character"):
                out.append(Problem(f"units[{u.id}].base",
                                   "Warmaster stands are rectangles {rect: [W, D]} (a round base only for characters)"))
        seen: dict[str, str] = {}
        for s in world.stands:
            where = f"units[{s.unit}].stands[{s.sid}]"
            if s.sid in seen:
                out.append(Problem(where, f"stand id {s.sid!r} is also used in unit {seen[s.sid]}"))
            seen[s.sid] = s.unit
            P = s.poly if s.round_r is None else None
            if P is not None:
                off = bool(np.any(P[:, 0] < -TOL) or np.any(P[:, 1] < -TOL) or np.any(P[:, 0] > world.width + TOL)
                           or np.any(P[:, 1] > world.depth + TOL))
            else:
                r = s.round_r or 0.0
                off = bool(s.c[0] - r < -TOL or s.c[1] - r < -TOL or s.c[0] + r > world.width + TOL
                           or s.c[1] + r > world.depth + TOL)
            if off:
                out.append(Problem(where, "the stand is (partly) off the board"))
        solid = [s for s in world.stands if not s.is_character]
        # a spatial index proposes the stands close enough to touch (not all pairs);
        # the exact polygon distance decides
        bounds = np.array([_foot_bounds(a) for a in solid]).reshape(-1, 4)
        for i, j in box_pairs(bounds):
            budget_check()
            a, b = solid[i], solid[j]
            if a.round_r is None and b.round_r is None and not overlaps(a.poly, b.poly):
                continue
            g = footprint_sd(_foot(a), _foot(b))
            if g < -TOL:
                out.append(Problem(f"units[{a.unit}].stands[{a.sid}]",
                                   f"overlaps stand {b.sid} of unit {b.unit} by {-g:.4g}"))
        for a in solid:
            for t in world.terrain:
                if not t.blocks_move(a.kind):
                    continue
                for P in t.parts:
                    if (overlaps(a.poly, P) if a.round_r is None else footprint_sd(_foot(a), P) < -TOL):
                        out.append(Problem(f"units[{a.unit}].stands[{a.sid}]",
                                           f"stands inside terrain {t.tid} ({t.kind}) that {a.kind} cannot enter"))
                        break
        units = {u.id: u for u in scen.units}
        for i, c in enumerate(scen.charges):
            if c.charger not in units:
                out.append(Problem(f"charges[{i}].charger", f"no unit {c.charger!r}"))
                continue
            if len(c.targets) != 1:
                out.append(Problem(f"charges[{i}].targets", "a Warmaster charge has exactly one target unit"))
            for tid in c.targets:
                if tid not in units:
                    out.append(Problem(f"charges[{i}].targets", f"no unit {tid!r}"))
                elif units[tid].player == units[c.charger].player:
                    out.append(Problem(f"charges[{i}].targets", f"{tid} is on the same side as {c.charger}"))
        return out

    # ------------------------------------------------------------------ request
    def _require(self, scen: ScenarioWarmaster, req: ChargeRequest) -> tuple[str, str, World]:
        """The charger's and target's ids and the world (built once: the checks of the
        battlefield and the ruling read the same one), or the refusal."""
        cu = require_unit(scen, req.charger, "charger")
        if len(req.targets) != 1:
            raise RequestError(Problem("targets", f"a Warmaster charge has exactly one target unit (got {len(req.targets)})"))
        tu = require_unit(scen, req.targets[0], "target")
        if tu.player == cu.player:
            raise RequestError(Problem("target", f"{tu.id} is on the same side as {cu.id}"))
        # Warmaster has no charge roll: nothing to fix, modify or re-roll
        if req.roll is not None:
            raise RequestError(Problem("roll", "Warmaster charges have no charge roll"))
        if req.modifier:
            raise RequestError(Problem("modifier", "Warmaster charges have no charge roll to modify"))
        if req.reroll != "none":
            raise RequestError(Problem("reroll", "Warmaster charges have no charge roll to re-roll"))
        if req.casualties:
            raise RequestError(Problem("casualties", "Warmaster has no casualties before a charge move"))
        if req.reaction is not None or req.reaction_dice:
            raise RequestError(Problem("reaction", "Warmaster charges have no charge reactions"))
        fs = req.extra.get("first_stand")
        if fs is not None and scen.rules.variant != "revolution":
            raise RequestError(Problem("first_stand", "only Revolution lets the player choose the first stand; the "
                                                      "original rules move the closest stand first"))
        world = build_world(scen)
        if fs is not None:
            ids = [s.sid for s in world.by_unit[cu.id]]
            if fs not in ids:
                raise RequestError(Problem("first_stand", f"{fs!r} is not a stand of {cu.id} (stands: {', '.join(ids)})"))
        probs = self.problems(scen, world)
        if probs:
            raise ScenarioError(probs)
        return cu.id, tu.id, world

    def _ineligible(self, world: World, charger: str, target: str) -> list[Reason]:
        u = world.units[charger]
        t = world.units[target]
        out: list[Reason] = []
        ids = [s.sid for s in world.by_unit[charger]]
        if u.type == "character":
            out.append(Reason(code="character", message=f"{charger} is a character; characters do not charge on their own",
                              models=ids))
        if t.type == "character":
            out.append(Reason(code="character_target", message=f"{target} is a lone character and cannot be charged",
                              models=[s.sid for s in world.by_unit[target]]))
        if "engaged" in u.flags:
            out.append(Reason(code="engaged", message=f"{charger} is already in combat", models=ids))
        if "charged" in u.flags:
            out.append(Reason(code="already_charged", message=f"{charger} has already charged this turn", models=ids))
        if "fleeing" in u.flags:
            out.append(Reason(code="fleeing", message=f"{charger} is fleeing and cannot charge", models=ids))
        return out

    # ------------------------------------------------------------------ charge
    def _solve(self, scen: ScenarioWarmaster, req: ChargeRequest) -> tuple[World, str, str, Outcome | None,
                                                                            list[Reason], Roll | None]:
        charger, target, world = self._require(scen, req)
        bad = self._ineligible(world, charger, target)
        if bad:
            return world, charger, target, None, bad, None
        rolled: list[int] = []
        rng = req.rng()

        def die() -> int:
            v = int(req.dice[0]) if req.dice else rng.randint(1, 6)
            rolled.append(v)
            return v

        ch = Charge(world, charger, target, scen.rules.variant, first_stand=req.extra.get("first_stand"), zone_die=die)
        out = ch.run()
        roll = Roll(dice=rolled, total=sum(rolled), seed=req.seed if not req.dice else None) if rolled else None
        return world, charger, target, out, [], roll

    def charge(self, scen: ScenarioWarmaster, req: ChargeRequest) -> Ruling:
        world, charger, target, out, bad, roll = self._solve(scen, req)
        details: dict[str, Any] = {"variant": scen.rules.variant, "move": _r(world.move_of(charger)),
                                   "unit": scen.unit}
        if out is None:
            return self._ruling(world, req, charger, target, False, False, "ineligible", bad, details, None, roll, [])
        reasons = [Reason(code=c, message=m, models=ms, witness=w) for c, m, ms, w in out.reasons]
        need = Needed(distance=_r(out.needed) if out.needed is not None and np.isfinite(out.needed) else None,
                      roll=None)
        if out.zone is not None:
            details["zone"] = out.zone
            if out.zone_roll is not None:
                details["zone_roll"] = out.zone_roll
        if out.first is not None:
            f = out.first
            details["first_stand"] = f.stand.sid
            details["first_contact"] = {
                "enemy_unit": f.enemy.unit,
                "enemy_stand": f.enemy.sid,
                "edge": f.edge,
                "offset": _r(f.offset) if f.offset is not None else None,
                "centre_to_centre": bool(f.offset is not None and abs(f.offset) <= 1e-9),
                "centre_to_centre_move": _r(f.c2c_cost) if np.isfinite(f.c2c_cost) else None,
            }
        if not out.eligible:
            return self._ruling(world, req, charger, target, False, False, "ineligible", reasons, details, need, roll, [])
        if not out.success:
            return self._ruling(world, req, charger, target, True, False, "failed", reasons, details, need, roll, [])
        procedure = "normal" if details["first_contact"]["centre_to_centre"] else "partially_covered"
        details.update(self._contacts(world, out.placed, target))
        details["order"] = [p.stand.sid for p in out.placed]
        details["placements"] = {p.stand.sid: p.how for p in out.placed}
        return self._ruling(world, req, charger, target, True, True, procedure, reasons, details, need, roll,
                            out.placed)

    def _contacts(self, world: World, placed: list[Placed], target: str) -> dict[str, Any]:
        player = world.player_of(placed[0].stand.unit)
        enemies = [s for s in world.stands if s.player != player and not s.is_character]
        edges: list[dict[str, Any]] = []
        lengths: dict[str, float] = {}
        touching: dict[str, list[str]] = {}
        engaged: list[str] = []
        for p in placed:
            P = p.pose.poly
            F0, F1 = P[3], P[0]
            f = p.pose.f
            total = 0.0
            touch: list[str] = []
            for e in enemies:
                # the boxes' gap is a lower bound on the distance: clearly apart boxes
                # (by more than float noise past TOL) need no exact distance
                if bbox_gap(P, e.poly) > TOL + 1e-9 or sd(P, e.poly) > TOL:
                    continue
                touch.append(e.sid)
                if e.unit not in engaged:
                    engaged.append(e.unit)
                found = False
                for name in EDGES:
                    a, b = e.edge(name)
                    n = np.array([(b - a)[1], -(b - a)[0]]) / np.linalg.norm(b - a)
                    if n @ f > -1 + 1e-9 or abs(float((a - F0) @ f)) > TOL:
                        continue
                    lf = np.array([-f[1], f[0]])
                    u0, u1 = sorted((float((a - F0) @ lf), float((b - F0) @ lf)))
                    v1 = float((F1 - F0) @ lf)
                    v0, v1 = min(0.0, v1), max(0.0, v1)
                    ov = min(u1, v1) - max(u0, v0)
                    if ov > TOL:
                        edges.append({"stand": p.stand.sid, "enemy_unit": e.unit, "enemy_stand": e.sid,
                                      "edge": name, "length": _r(ov), "kind": "edge"})
                        total += ov
                        found = True
                if not found:
                    names = [nm for nm in EDGES if poly_seg_dist(P, *e.edge(nm)) <= TOL]
                    by_front = poly_seg_dist(e.poly, F0, F1) <= TOL
                    edges.append({"stand": p.stand.sid, "enemy_unit": e.unit, "enemy_stand": e.sid,
                                  "edge": names[0] if names else None, "edges": names, "length": 0.0,
                                  "kind": "corner" if by_front else "side"})
            lengths[p.stand.sid] = _r(total)
            touching[p.stand.sid] = touch
        order = [u for u in world.units if u in engaged]
        return {
            "contacted_edges": edges,
            "contact_lengths": lengths,
            "touching": touching,
            "engaged": order,
            "drawn_in": [u for u in order if u != target],
        }

    def _ruling(self, world: World, req: ChargeRequest, charger: str, target: str, eligible: bool, success: bool,
                procedure: str, reasons: list[Reason], details: dict[str, Any], need: Needed | None,
                roll: Roll | None, placed: list[Placed]) -> Ruling:
        moves: list[Move] = []
        for p in placed:
            s: StandW = p.stand
            moves.append(Move.model_validate({
                "id": s.sid,
                "from": _pt(s.c),
                "to": _pt(p.pose.c),
                "distance": _r(p.cost),
                "contacts": details.get("touching", {}).get(s.sid, []),
                "path": [_pt(q) for q in p.path],
                "facing": float(p.pose.facing),
            }))
        details.pop("touching", None)
        engaged = details.pop("engaged", []) if success else []
        after = self._after(world.scen, charger, placed, engaged if success else [])
        return Ruling(system=NAME, charger=charger, targets=[target], eligible=eligible, needed=need, roll=roll,
                      success=success, procedure=procedure, moves=moves, engaged=engaged, reasons=reasons,
                      details=details, after=after)

    def _after(self, scen: ScenarioWarmaster, charger: str, placed: list[Placed], engaged: list[str]) -> dict[str, Any]:
        data = scenario_to_data(scen)
        new = {(p.stand.unit, p.stand.index): p.pose for p in placed}
        for u in data["units"]:
            for i, st in enumerate(u["stands"]):
                pose = new.get((u["id"], i))
                if pose is not None:
                    st["at"] = _pt(pose.c)
                    st["facing"] = float(pose.facing)
            if placed and u["id"] == charger:
                flags = list(u.get("flags", []))
                for fl in ("charged", "engaged"):
                    if fl not in flags:
                        flags.append(fl)
                u["flags"] = flags
            elif u["id"] in engaged:
                flags = list(u.get("flags", []))
                if "engaged" not in flags:
                    flags.append("engaged")
                u["flags"] = flags
        return data

    # ------------------------------------------------------------------ needed
    def needed(self, scen: ScenarioWarmaster, req: ChargeRequest) -> Needed:
        _, _, _, out, _, _ = self._solve(scen, req)
        if out is None or out.needed is None or not np.isfinite(out.needed):
            return Needed(distance=None, roll=None)
        return Needed(distance=_r(out.needed), roll=None)

    def chance(self, scen: ScenarioWarmaster, req: ChargeRequest) -> Fraction:
        """The exact chance that the charge succeeds. Warmaster has no charge roll, so
        the charge itself is ruled: 1 or 0. When the ruling rolls a die (the Revolution
        zone roll), each of its six faces is ruled and the chance is the share of faces
        with which the charge succeeds."""

        def ruled(face: int) -> tuple[bool, bool]:
            r = self.charge(scen, replace(req, dice=(face,), roll=None))
            return bool(r.success), bool(r.roll is not None and r.roll.dice)

        first, rolled = ruled(1)
        if not rolled:
            return Fraction(int(first))
        return Fraction(int(first) + sum(ruled(face)[0] for face in range(2, 7)), 6)

    # ------------------------------------------------------------------ phase
    def phase(self, scen: ScenarioWarmaster, seed: int | None) -> PhaseResult:
        rulings: list[Ruling] = []
        cur = scen
        rng = random.Random(seed)
        for spec in scen.charges:
            budget_check()
            s = None if seed is None else rng.randrange(2**31)
            req = ChargeRequest.from_spec(spec, s)
            ruling = self.charge(cur, req)
            rulings.append(ruling)
            if ruling.after is not None:
                nxt = scenario_from_data(ruling.after)
                assert isinstance(nxt, ScenarioWarmaster)
                cur = nxt
        after = scenario_to_data(cur)
        after["charges"] = []
        return PhaseResult(rulings=rulings, after=after)


SYSTEM = Warmaster()


def _foot(s: StandW) -> Poly | tuple[np.ndarray, float]:
    """A stand's exact footprint: its rectangle, or its disc (centre, radius)."""
    return s.poly if s.round_r is None else (s.c, float(s.round_r))


def _foot_bounds(s: StandW) -> np.ndarray:
    if s.round_r is None:
        return np.asarray(points_bounds(s.poly), dtype=float)
    r = float(s.round_r)
    return np.array([s.c[0] - r, s.c[1] - r, s.c[0] + r, s.c[1] + r])
