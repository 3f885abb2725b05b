"""Readable text for the terminal: the summary of a ruling."""

from __future__ import annotations

from typing import Any

from ..ruling import Ruling
from ..scenario import AnyScenario


def _fmt(x: float | None, unit: str) -> str:
    if x is None:
        return "-"
    return f'{x:.3f}"' if unit == "in" else f"{x:.2f} {unit}"


def choices_lines(data: dict[str, Any], unit: str, title: str) -> list[str]:
    """Edition 11: one line per target set (a ruling's or an odds answer's ``choices``)."""
    lines = [title]
    if data.get("reasons"):
        lines.append("NOT ELIGIBLE")
        lines += [f"  - {x['code']}: {x['message']}" for x in data["reasons"]]
        return lines
    rows = data.get("choices") or []
    if not rows:
        lines.append("  no enemy unit can be picked")
    for c in rows:
        n = c["needed"]
        roll = f"roll {n['roll']}" if n.get("roll") is not None else "no roll"
        gaps = ", ".join(f"{t} {_fmt(g, unit)}" for t, g in (c.get("gaps") or {}).items())
        mark = "" if "allowed" not in c else ("  ALLOWED" if c["allowed"] else "  -")
        p = f"  p={c['probability']:.4f} ({c['probability_fraction']})" if c.get("probability") is not None else ""
        lines.append(f"  {' + '.join(c['targets']):<14} {roll:<8} move {_fmt(n.get('distance'), unit)}  gap {gaps}{p}{mark}")
    return lines


def summary(scen: AnyScenario, r: Ruling) -> str:
    """A short human summary of a ruling."""
    unit = scen.unit
    lines = []
    head = f"{r.system} {r.procedure.replace('_', ' ')}: {r.charger} -> {', '.join(r.targets) or '-'}"
    if r.system == "40k":
        d = r.details
        head += f"   (edition {d.get('edition')}{', WTC' if d.get('wtc') else ''})"
    elif r.system == "t9a":
        head += f"   ({r.details.get('ruleset', 'T9A 2.x')})"
    lines.append(head)
    if not r.eligible:
        lines.append("NOT ELIGIBLE")
    if r.needed is not None:
        n = r.needed
        if r.system == "warmaster":
            # Warmaster has no charge roll: only the first stand's move decides
            lines.append("needed: no charge roll; " + (f"the first stand must move {_fmt(n.distance, unit)}" if n.distance is not None else "no stand can make the move"))
        elif n.roll is None and n.distance is None:
            lines.append("needed: no roll can succeed")
        else:
            extra = " (proven least)" if n.exact else ""
            roll_txt = f"roll {n.roll}" if n.roll is not None else "no roll"
            lines.append(f"needed: {_fmt(n.distance, unit)} -> {roll_txt}{extra}")
    if r.roll is not None:
        ro = r.roll
        dice = " + ".join(str(x) for x in ro.dice) if ro.dice else "fixed"
        mod = f" {ro.modifier:+d}" if ro.modifier else ""
        rr = f" (re-rolled from {ro.rerolled_from})" if ro.rerolled_from else ""
        capped = " (capped)" if ro.dice and sum(ro.dice) + ro.modifier != ro.total else ""
        lines.append(f"roll: {dice}{mod} = {ro.total}{capped}{rr}")
    if r.eligible and r.choices is None:
        verdict = "SUCCESS" if r.success else "FAILED"
        moved = len(r.moves)
        contacts = sum(1 for m in r.moves if m.contacts)
        tokens = sum(1 for m in r.moves if m.token)
        extra = f", {tokens} with wall tokens" if tokens else ""
        eng = f"; engaged {', '.join(r.engaged)}" if r.engaged else ""
        lines.append(f"{verdict}: {moved} moved, {contacts} in base contact{extra}{eng}")
    d = r.details
    if d.get("charged_facing"):
        lines.append(f"charged facing: {d['charged_facing']}")
    if d.get("first_stand"):
        lines.append(f"first stand: {d['first_stand']}")
    edges = d.get("contacted_edges")
    if edges:
        shown = []
        for e in edges[:12]:
            if isinstance(e, dict) and "stand" in e:
                length = f" {e['length']:g}" if isinstance(e.get("length"), (int, float)) else ""
                shown.append(f"{e['stand']}->{e.get('enemy_stand', '?')} {e.get('edge', '')} ({e.get('kind', 'edge')}{length})")
            else:
                shown.append(str(e))
        lines.append("contacted edges: " + ", ".join(shown) + (" ..." if len(edges) > 12 else ""))
    if d.get("drawn_in"):
        lines.append(f"drawn in: {', '.join(map(str, d['drawn_in']))}")
    for m in r.moves[:60]:
        c = f"  contacts {', '.join(m.contacts)}" if m.contacts else ""
        t = "  [token]" if m.token else ""
        if m.facing_from is not None and m.facing is not None:
            t += f"  turns {m.facing_from:g}° -> {m.facing:g}°"
        lines.append(
            f"  {m.id:<10} ({m.from_[0]:.3f}, {m.from_[1]:.3f}) -> ({m.to[0]:.3f}, {m.to[1]:.3f})  {_fmt(m.distance, unit)}{c}{t}"
        )
    if len(r.moves) > 60:
        lines.append(f"  ... and {len(r.moves) - 60} more")
    if r.choices is not None:
        lines += choices_lines({"choices": r.to_json_data()["choices"]}, unit,
                               f"choices for a roll of {r.roll.total if r.roll else '-'} (targets are picked after the roll):")
    for reason in r.reasons:
        who = f" [{', '.join(reason.models)}]" if reason.models else ""
        lines.append(f"  - {reason.code}: {reason.message}{who}")
    return "\n".join(lines)


__all__ = ["summary"]
