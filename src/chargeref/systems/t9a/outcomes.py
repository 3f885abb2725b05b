"""What a declared charge comes to: its record, the moves that end it, and its ruling.

The phase (``resolve.Phase``) declares charges and moves them; this part (a base of
``Phase``) holds what it records of each declaration (``Spec``, ``Declared``) and turns
an outcome into the world's new state and a ruling: a charge move made
(``_apply_placement``), a failed charge move, a charge that catches a fleeing unit, a
Blocked Path move; the priorities of the finished combat; the ruling itself (every
moved model's path and contacts, the details, the scenario after).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...geometry.shapes import TOL
from ...ruling import Needed, Reason, Roll, Ruling
from ..base import ChargeRequest
from .block import Block
from .charge import Placement
from .contact import contacts_between, models_in_contact
from .moves import combat_reform, failed_charge_move, reach_fleeing, straight_contact
from .report import MoveRecord, model_moves, pose, scenario_after
from .ruleset import T9ARuleset
from .world import Step, World, run_steps

# ----------------------------------------------------------------------------- specs


@dataclass
class Spec:
    charger: str
    targets: list[str]
    dice: list[int] | None = None
    roll: int | None = None
    modifier: int = 0
    reroll: str = "none"
    reaction: str | None = None
    reaction_dice: list[int] | None = None
    redirect: str | None = None
    redirect_dice: list[int] | None = None
    shoot_casualties: int = 0
    panic_dice: dict[str, list[int]] = field(default_factory=dict)
    redirect_reaction: str | None = None
    redirect_reaction_dice: list[int] | None = None
    redirect_shoot_casualties: int = 0
    secondary_reactions: dict[str, str] = field(default_factory=dict)
    pivot_dice: list[int] | None = None
    pivot_facing: float | None = None

    @staticmethod
    def from_entry(e: Any) -> Spec:
        return Spec(
            charger=e.charger, targets=list(e.targets), dice=list(e.dice) if e.dice else None,
            modifier=e.modifier, reroll=e.reroll, reaction=e.reaction,
            reaction_dice=list(e.reaction_dice) if e.reaction_dice else None,
            redirect=e.redirect, redirect_dice=list(e.redirect_dice) if e.redirect_dice else None,
            shoot_casualties=getattr(e, "shoot_casualties", 0), panic_dice=dict(getattr(e, "panic_dice", {})),
            redirect_reaction=getattr(e, "redirect_reaction", None),
            redirect_reaction_dice=getattr(e, "redirect_reaction_dice", None),
            redirect_shoot_casualties=getattr(e, "redirect_shoot_casualties", 0),
            secondary_reactions=dict(getattr(e, "secondary_reactions", {})),
            pivot_dice=getattr(e, "pivot_dice", None), pivot_facing=getattr(e, "pivot_facing", None),
        )

    @staticmethod
    def from_request(r: ChargeRequest) -> Spec:
        x = dict(r.extra or {})
        return Spec(
            charger=r.charger, targets=list(r.targets), dice=list(r.dice) if r.dice else None, roll=r.roll,
            modifier=r.modifier, reroll=r.reroll, reaction=r.reaction,
            reaction_dice=list(r.reaction_dice) if r.reaction_dice else None,
            redirect=r.redirect, redirect_dice=list(r.redirect_dice) if r.redirect_dice else None,
            shoot_casualties=int(x.get("shoot_casualties", 0)), panic_dice=dict(x.get("panic_dice", {})),
            redirect_reaction=x.get("redirect_reaction"), redirect_reaction_dice=x.get("redirect_reaction_dice"),
            redirect_shoot_casualties=int(x.get("redirect_shoot_casualties", 0)),
            secondary_reactions=dict(x.get("secondary_reactions", {})),
            pivot_dice=x.get("pivot_dice"), pivot_facing=x.get("pivot_facing"),
        )


@dataclass
class Declared:
    index: int
    spec: Spec
    charger: str
    target: str
    initial_target: str
    facing: str | None = None  # None: the target is fleeing (any facing)
    secondaries: list[str] = field(default_factory=list)
    eligible: bool = True
    blocked_path: bool = False
    redirected_from: str | None = None
    redirect_tried: bool = False
    cancelled: bool = False
    reasons: list[Reason] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    records: list[MoveRecord] = field(default_factory=list)
    ruling: Ruling | None = None
    located: list[float] | None = None
    target_fleeing: bool = False


def reason(code: str, message: str, models: list[str] | None = None, witness: dict[str, Any] | None = None) -> Reason:
    return Reason(code=code, message=message, models=models or [], witness=witness)


# ----------------------------------------------------------------------------- outcomes


class PhaseOutcomes:
    """The outcome and ruling half of ``resolve.Phase`` (which sets these attributes
    and supplies the dice and the least roll)."""

    scen: Any
    world: World
    ruleset: T9ARuleset
    clear_charges: bool
    decl: list[Declared]
    last_centre: dict[str, Any]
    destroyed: set[str]

    if TYPE_CHECKING:
        def test(self, b: Block, given: list[int] | None) -> tuple[bool, list[int]]: ...

        def _needed_model(self, dist: float | None, ch: Block, mod: int) -> Needed: ...

    def _apply_placement(self, d: Declared, pl: Placement, rr: tuple[Roll, float, int, float | None],
                         combined: dict[str, Any] | None) -> None:
        w = self.world
        ch = w.blocks[d.charger]
        tgt = w.blocks[d.target]
        d.records.append(MoveRecord(ch.id, ch, pl.steps, None, "charge"))
        if pl.target_steps:
            d.records.append(MoveRecord(tgt.id, tgt, pl.target_steps, None, "align"))
        w.put(pl.final)
        w.put(pl.target_final)
        engaged_units = [d.target] + sorted(x for x in pl.extra)
        for u in [d.charger] + engaged_units:
            w.put(w.blocks[u].with_flags({"engaged"}))
        w.put(w.blocks[d.charger].with_flags({"charged"}))
        for rec in d.records:
            if rec.label in ("charge", "align"):
                rec.after = w.blocks[rec.unit]
        dropped = [s for s in d.secondaries if s not in pl.extra]
        if dropped:
            d.reasons.append(reason("secondary_dropped", f"contact with {', '.join(dropped)} is no longer unavoidable; those secondary charges are ignored"))
        det = {
            "placement": pl.summary(),
            # a combined charge reports the priorities of the finished combat, filled in
            # once every charger of the group stands in place (``_move_group``)
            "priorities": None if combined else self._priorities(pl, combined),
        }
        if combined:
            det["combined"] = combined
        self._finish(d, rr, True, "normal", engaged_units, det)

    def _priorities(self, pl: Placement, combined: dict[str, Any] | None) -> dict[str, Any]:
        w = self.world
        ids = combined["order"] if combined else [pl.charger]
        cs = contacts_between(w.blocks, ids)
        mods = models_in_contact(cs)
        chargers = {m for m in mods if m.split(".")[0] in ids}
        enemies = {uc.b if uc.a in ids else uc.a for uc in cs}
        return {
            "enemy_units_contacted": len(enemies),
            "charging_units_engaged": len([i for i in ids if any(uc.a == i or uc.b == i for uc in cs)]),
            "target_rotation": round(abs(pl.target_turn), 9),
            "models_in_contact": len(mods),
            "models_in_contact_chargers": len(chargers),
            "models_in_contact_enemies": len(mods) - len(chargers),
        }

    def _failed(self, d: Declared, rr: tuple[Roll, float, int, float | None], code: str, msg: str) -> None:
        w = self.world
        ch = w.blocks.get(d.charger)
        if ch is None:
            return
        tgt = w.blocks.get(d.target)
        aim = tgt.centre if tgt is not None else self.last_centre.get(d.target)
        if aim is None:
            aim = ch.centre + ch.f
        dist = rr[2] * self.world.inch
        fm = failed_charge_move(w, ch, aim, dist)
        after = run_steps(ch, fm.steps).with_flags({"shaken"})
        w.put(after)
        d.records.append(MoveRecord(ch.id, ch, fm.steps, after, "failed charge"))
        d.reasons.append(reason(code, msg))
        self._finish(d, rr, False, "failed", [], {"failed_move": fm.details()})

    def _charge_fleeing(self, d: Declared, rr: tuple[Roll, float, int, float | None]) -> None:
        w = self.world
        ch = w.blocks.get(d.charger)
        tgt = w.blocks.get(d.target)
        if ch is None:
            return
        if tgt is None:
            self._failed(d, rr, "target_destroyed", f"{d.target} was already removed; {d.charger} makes a failed charge move")
            return
        r = reach_fleeing(w, ch, tgt, self.ruleset.longest_range(ch.advance, 0, w.inch) + 60)
        roll, rng, hi, dist = rr
        if r is None:
            self._failed(d, rr, "path_blocked", f"no charge move of {ch.id} reaches the fleeing {tgt.id}")
            return
        if rng + TOL < r.distance:
            self._failed(d, rr, "out_of_range", f"charge range {rng:.3f} does not reach the fleeing {tgt.id} ({r.distance:.3f} needed)")
            return
        after = run_steps(ch, r.steps).with_flags({"shaken", "charged"})
        d.records.append(MoveRecord(ch.id, ch, r.steps, after, "charge"))
        # the fleeing unit is removed as soon as the charger touches it
        self.last_centre[tgt.id] = tgt.centre
        w.remove(tgt.id)
        self.destroyed.add(tgt.id)
        d.records.append(MoveRecord(tgt.id, tgt, [], None, "caught", removed=True))
        d.reasons.append(reason("caught_fleeing", f"{ch.id} caught the fleeing {tgt.id}, which is destroyed"))
        det: dict[str, Any] = {"fleeing_target": {"distance": round(r.distance, 9), "wheel": round(r.wheel, 9)}}
        passed, dice = self.test(after, d.spec.pivot_dice)
        piv: dict[str, Any] = {"dice": dice, "passed": passed}
        if passed and d.spec.pivot_facing is not None:
            turn = ((d.spec.pivot_facing - after.facing + 180) % 360) - 180
            st = Step("turn", turn, pivot=(float(after.centre[0]), float(after.centre[1])), label="post-combat pivot")
            if w.check_steps(after, [st], w.obstacles(after), skip_path=True) is None:
                pivoted = st.apply(after)
                d.records.append(MoveRecord(ch.id, after, [st], pivoted, "post-combat pivot"))
                after = pivoted
                piv["pivot"] = round(turn, 9)
            else:
                piv["pivot"] = None
                piv["why"] = "no room to pivot there"
        det["post_combat_pivot"] = piv
        w.put(after)
        self._finish(d, rr, True, "fleeing_target", [], det)

    def _blocked_path(self, d: Declared, rr: tuple[Roll, float, int, float | None]) -> None:
        w = self.world
        ch, tgt = w.blocks[d.charger], w.blocks[d.target]
        roll, rng, hi, dist = rr
        k, blocked = straight_contact(w, ch, tgt, rng)
        det: dict[str, Any] = {"blocked_path": {"contact_at": None if k is None else round(k, 9)}}
        if k is None or k > rng + TOL or blocked is not None:
            # straight forward up to the charge range, stopping short of anything else
            from .moves import _max_forward, _strict_obstacles

            go = _max_forward(w, ch, rng, _strict_obstacles(w, ch))
            steps = [Step("forward", go, label="advance")] if go > 0 else []
            after = run_steps(ch, steps).with_flags({"shaken"})
            w.put(after)
            d.records.append(MoveRecord(ch.id, ch, steps, after, "blocked path"))
            d.reasons.append(reason("out_of_range" if (k is None or k > rng + TOL) else "path_blocked",
                                    f"moving straight ahead {ch.id} does not reach {tgt.id}"))
            self._finish(d, rr, False, "blocked_path", [], det)
            return
        steps = [Step("forward", k, label="advance")]
        ch2 = run_steps(ch, steps)
        w2 = w.copy()
        w2.put(ch2)
        rf = combat_reform(w2, tgt, ch2, d.facing or "front")
        if rf is None:
            d.reasons.append(reason("no_room", f"{tgt.id} cannot combat-reform to align with {ch.id}: the Blocked Path move cannot be made"))
            self._failed(d, rr, "blocked_path", "blocked path impossible")
            return
        w.put(ch2.with_flags({"engaged", "charged"}))
        tb = rf.block.with_flags({"engaged"})
        w.put(tb)
        d.records.append(MoveRecord(ch.id, ch, steps, w.blocks[ch.id], "blocked path"))
        d.records.append(MoveRecord(tgt.id, tgt, [Step("place", front=tb.front, facing=tb.facing, label="combat reform")], tb, "combat reform"))
        det["blocked_path"]["reform"] = {"facing": rf.facing, "files": rf.files, "models": rf.models,
                                         "kept_formation": rf.kept_formation, **pose(tb)}
        self._finish(d, rr, True, "blocked_path", [tgt.id], det)

    # ----------------------------------------------------------------- ruling
    def _finish(self, d: Declared, rr: tuple[Roll, float, int, float | None] | None, success: bool, procedure: str,
                engaged: list[str], extra: dict[str, Any]) -> None:
        w = self.world
        ch_before = None
        for rec in d.records:
            if rec.unit == d.charger:
                ch_before = rec.before
                break
        chb = ch_before or w.blocks.get(d.charger)
        needed = None
        roll = None
        if rr is not None and chb is not None:
            roll = rr[0]
            needed = self._needed_model(rr[3], chb, d.spec.modifier)
        d.ruling = self._ruling(d, success, procedure, engaged, needed, roll, extra, rr)

    def _ruling(self, d: Declared, success: bool, procedure: str, engaged: list[str], needed: Needed | None,
                roll: Roll | None, extra: dict[str, Any], rr: tuple[Roll, float, int, float | None] | None) -> Ruling:
        w = self.world
        # contacts of every moved model in the end state
        moved_units = sorted({r.unit for r in d.records if not r.removed})
        cs = contacts_between(w.blocks, moved_units)
        cmap: dict[str, list[str]] = {}
        for uc in cs:
            for i, j in uc.pairs:
                cmap.setdefault(f"{uc.a}.{i}", []).append(f"{uc.b}.{j}")
                cmap.setdefault(f"{uc.b}.{j}", []).append(f"{uc.a}.{i}")
        moves = []
        last: dict[str, MoveRecord] = {}
        for rec in d.records:
            last[rec.unit] = rec
        firsts: dict[str, MoveRecord] = {}
        for rec in d.records:
            firsts.setdefault(rec.unit, rec)
        for uid, first in firsts.items():
            end_rec = last[uid]
            steps: list[Step] = []
            for rec in d.records:
                if rec.unit == uid:
                    steps += rec.steps
            if end_rec.removed and end_rec.label in ("destroyed", "caught"):
                continue
            merged = MoveRecord(uid, first.before, steps, end_rec.after, end_rec.label, end_rec.removed)
            moves += model_moves(merged, cmap)
        units_det = []
        for uid in firsts:
            b = w.blocks.get(uid)
            if b is not None:
                units_det.append({"id": uid, **pose(b), "files": b.files, "models": b.models})
            else:
                units_det.append({"id": uid, "removed": True})
        details: dict[str, Any] = {
            "ruleset": self.ruleset.name,
            "charged_facing": d.facing if d.facing is not None else ("any (fleeing)" if d.target_fleeing else None),
            "charger_located_at": d.located,
            "initial_target": d.initial_target,
            "redirected_from": d.redirected_from,
            "secondaries": d.secondaries,
            "events": d.events,
            "units": units_det,
            "paths": [r.details() for r in d.records],
        }
        if rr is not None:
            details["charge_range"] = round(rr[1], 9)
            details["highest_die"] = rr[2]
        details.update(extra)
        pl = extra.get("placement")
        if isinstance(pl, dict):
            details["wheel"] = pl.get("wheel")
            details["align"] = {"by": pl.get("align_by"), "charger_turn": pl.get("align"),
                                "target_turn": pl.get("target_rotation"), "pivot": pl.get("contact_point")}
        targets = [d.target] + [s for s in d.secondaries if s != d.target]
        return Ruling(
            system="t9a", charger=d.charger, targets=targets, eligible=d.eligible, needed=needed, roll=roll,
            success=success, procedure=procedure, moves=moves, engaged=sorted(set(engaged)), reasons=d.reasons,
            details=details, after=scenario_after(self.scen, w, self.clear_charges),
        )

    def ineligible_rulings(self) -> None:
        for d in self.decl:
            if d.ruling is None:
                proc = "none" if not d.eligible else "cancelled"
                extra: dict[str, Any] = {}
                d.ruling = self._ruling(d, False, proc, [], None, None, extra, None)
