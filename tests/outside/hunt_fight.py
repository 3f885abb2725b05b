"""Hunt the moves made model by model: pile-in, consolidation (``fight``) and edition 9's
heroic intervention, on generated boards, turned and mirrored, checked by
``referee_fight``. Also the fight after a charge: a generated charge (``outside_gen``)
ruled, then its ``after`` piled in and consolidated (``charged:`` cases). Not a test.

    PYTHONPATH=src python tests/outside/hunt_fight.py OUT.jsonl --cases fight:0-100 heroic:0-60 \
        charged:400-440 wallfight:100-140 --cpu 30 --jobs 2
"""

from __future__ import annotations

import json
import random
import resource
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import outside_gen as gen  # noqa: E402
import outside_gen_fight as fgen  # noqa: E402
import referee  # noqa: E402
import referee_fight as rf  # noqa: E402
import referee_flee  # noqa: E402
from hunt import CpuLimit, _on_xcpu  # noqa: E402


def _limited(fn: Any, cpu: float) -> tuple[Any, float, str]:
    from chargeref.errors import ChargerefError

    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(used.ru_utime + used.ru_stime + cpu) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    t0 = time.process_time()
    try:
        return fn(), time.process_time() - t0, ""
    except CpuLimit:
        return None, time.process_time() - t0, f"cpu_limit {cpu}s"
    except ChargerefError as e:
        return None, time.process_time() - t0, f"refused: {e}"
    except Exception:  # noqa: BLE001 - a crash is a finding
        return None, time.process_time() - t0, "crash: " + traceback.format_exc(limit=6)
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, hard))


def fight_steps(doc: dict[str, Any], unit: str, step: str) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    """(scenario before, ruling, step) for each step ruled (``both``: two)."""
    from chargeref import service

    data = service.fight(doc, unit, step, time_limit=0)
    if "steps" in data:
        out = []
        cur = doc
        for r in data["steps"]:
            out.append((cur, r, r["procedure"]))
            cur = r.get("after") or cur
        return out
    return [(doc, data, step)]


def _summary(rulings: list[tuple[dict[str, Any], dict[str, Any], str]]) -> tuple[Any, ...]:
    return tuple((r.get("eligible"), r.get("success"), len(r.get("moves", [])),
                  tuple(sorted(r.get("engaged") or []))) for _, r, _ in rulings)


def check_phase(doc: dict[str, Any], data: dict[str, Any]) -> list[str]:
    """Each ruling of the phase is the ruling of its charge on the board the charges
    before it left (its dice given), passes the referee, and a unit never charges twice."""
    from chargeref import service

    out: list[str] = []
    cur = {k: v for k, v in doc.items() if k != "charges"}
    charged: set[str] = set()
    for i, (c, r) in enumerate(zip(doc["charges"], data["rulings"], strict=True)):
        alone = service.charge(cur, c["charger"], c["targets"], dice=c.get("dice"), time_limit=0)
        for key in ("eligible", "success", "needed", "moves", "engaged"):
            if alone.get(key) != r.get(key):
                out.append(f"phase_differs: charge {i} ({c['charger']}) {key}: phase {r.get(key)}, alone {alone.get(key)}")
        if c["charger"] in charged and r.get("eligible"):
            out.append(f"charged_twice: charge {i} ({c['charger']})")
        out += [f"charge {i}: {f}" for f in referee.check(cur, r)]
        if r.get("success"):
            charged.add(c["charger"])
        elif r.get("eligible"):
            charged.add(c["charger"])  # a failed charge was still declared
        cur = {k: v for k, v in (r.get("after") or cur).items() if k != "charges"}
    after = {k: v for k, v in data["after"].items() if k != "charges"}
    if json.dumps(after, sort_keys=True) != json.dumps(cur, sort_keys=True):
        out.append("phase_after: the phase's after is not the last ruling's after")
    return out


def check_odds(doc: dict[str, Any], req: dict[str, Any]) -> tuple[Any, list[str]]:
    """``odds`` against our own enumeration of the dice, for every re-roll policy and a
    few modifiers; the least roll is the charge ruling's."""
    from chargeref import service

    out: list[str] = []
    verdict = []
    for reroll in ("none", "failed", "one_die"):
        for mod in (-1, 0, 1, 2):
            o = service.odds(doc, req["charger"], req["targets"], reroll=reroll, modifier=mod, time_limit=0)
            nr = o["needed"]["roll"]
            num, den = referee.charge_odds(nr, mod, reroll)
            if o["probability_fraction"] != f"{num}/{den}":
                out.append(f"odds: {reroll} {mod:+d} needed {nr}: {o['probability_fraction']}, ours {num}/{den}")
            for t, p in o.get("table", {}).items():
                n2, d2 = referee.charge_odds(int(t), mod, reroll)
                if abs(p - n2 / d2) > 1e-12:
                    out.append(f"odds_table: {reroll} {mod:+d} roll {t}: {p}, ours {n2}/{d2}")
            verdict.append(nr)
    return verdict, out


def judge(kind: str, doc: dict[str, Any], req: dict[str, Any], cpu: float) -> tuple[Any, float, str, list[str]]:
    from chargeref import service

    if kind == "phase":
        data, used, err = _limited(lambda: service.phase(doc, 1, time_limit=0), cpu)
        if data is None:
            return None, used, err, []
        verdict = [(r.get("eligible"), r.get("success"), (r.get("needed") or {}).get("roll")) for r in data["rulings"]]
        return verdict, used, err, check_phase(doc, data)
    if kind in ("spread", "duty", "dutytight"):
        r, used, err = _limited(lambda: service.charge(doc, req["charger"], req["targets"], dice=req["dice"],
                                                       time_limit=0), cpu)
        if r is None:
            return None, used, err, []
        n = r.get("needed") or {}
        verdict = (r.get("success"), n.get("roll"), None if n.get("distance") is None else round(n["distance"], 6))
        return verdict, used, err, [str(f) for f in referee.check(doc, r) + rf.charge_duty_witnesses(doc, r)]
    if kind == "flee":
        extras = {k: req[k] for k in ("reaction", "reaction_dice")}
        r, used, err = _limited(lambda: service.charge(doc, req["charger"], req["targets"], dice=req["dice"],
                                                       time_limit=0, **extras), cpu)
        if r is None:
            return None, used, err, []
        fled = "B" not in {u["id"] for u in r["after"]["units"]} or "fleeing" in next(
            (u.get("flags", []) for u in r["after"]["units"] if u["id"] == "B"), [])
        finds = [str(f) for f in referee.check(doc, r)]
        if fled:
            finds += [str(f) for f in referee_flee.check_flee(doc, r, "B", req["reaction_dice"])]
        return (r.get("procedure"), r.get("success"), fled), used, err, finds
    if kind == "odds":
        res, used, err = _limited(lambda: check_odds(doc, req), cpu)
        if res is None:
            return None, used, err, []
        return res[0], used, err, res[1]
    if kind == "heroic":
        r, used, err = _limited(lambda: service.heroic(doc, req["unit"], time_limit=0), cpu)
        if r is None:
            return None, used, err, []
        return ((r.get("eligible"), r.get("success"), len(r.get("moves", []))), used, err,
                [str(f) for f in rf.check_heroic9(doc, r, req["unit"])])
    steps, used, err = _limited(lambda: fight_steps(doc, req["unit"], req["step"]), cpu)
    if steps is None:
        return None, used, err, []
    finds = []
    for before, r, st in steps:
        finds += [f"{st}: {f}" for f in rf.check_fight(before, r, req["unit"], kind=st)]
    return _summary(steps), used, err, finds


def make(kind: str, seed: int, cpu: float) -> tuple[dict[str, Any] | None, dict[str, Any], str]:
    if kind == "fight":
        return (*fgen.fight_40k(seed), "")
    if kind == "heroic":
        return (*fgen.heroic9_40k(seed), "")
    if kind == "phase":
        return fgen.phase_40k(seed), {}, ""
    if kind == "spread":
        return (*fgen.ed11_spread_40k(seed), "")
    if kind == "flee":
        return (*referee_flee.t9a_flee(seed), "")
    if kind == "duty":
        return (*gen.scenario_40k(seed), "")
    if kind == "dutytight":
        return (*gen.scenario_40k(seed, tight=True), "")
    if kind == "odds":
        return (*gen.duel_40k(seed), "") if seed % 2 else (*gen.scenario_40k(seed), "")
    # charged / wallfight: rule a generated charge, fight in its `after`
    scen, req = gen.scenario_40k(seed) if kind == "charged" else gen.wall_wtc_40k(seed)
    from chargeref import service

    req = dict(req, dice=[6, 6]) if kind == "charged" else req
    r, _used, err = _limited(lambda: service.charge(scen, req["charger"], req["targets"], dice=req["dice"],
                                                    time_limit=0), cpu)
    if r is None or not r.get("success"):
        return None, {}, err or "charge failed"
    return r["after"], {"unit": req["charger"], "step": "both"}, ""


def run_case(job: tuple[str, int, float]) -> list[dict[str, Any]]:
    kind, seed, cpu = job
    signal.signal(signal.SIGXCPU, _on_xcpu)
    try:
        scen, req, why = make(kind, seed, cpu)
    except Exception as e:  # noqa: BLE001
        return [{"kind": kind, "seed": seed, "variant": "gen", "error": f"generator: {e}"}]
    if scen is None:
        return [{"kind": kind, "seed": seed, "variant": "skip", "error": "", "note": why}]
    rng = random.Random(seed)
    angle = rng.uniform(0, 360)
    out: list[dict[str, Any]] = []
    base = None
    for name, doc in [("board", scen), ("turned", gen.turned(scen, angle)), ("mirrored", gen.mirrored(scen))]:
        if name != "board" and not gen.fits_board(doc):
            continue
        try:
            verdict, used, err, finds = judge(kind, doc, req, cpu)
        except Exception:  # noqa: BLE001
            verdict, used, err, finds = None, 0.0, "", ["referee_crash: " + traceback.format_exc(limit=4)]
        rec = {"kind": kind, "seed": seed, "variant": name, "cpu": round(used, 2), "error": err,
               "findings": finds, "verdict": verdict, "req": req}
        if name == "board":
            base = verdict
        elif verdict is not None and base is not None and json.dumps(verdict) != json.dumps(base):
            rec["findings"].append(f"verdict_changed: board {base}, {name} {verdict}")
        out.append(rec)
        if name == "board" and verdict is None:
            break
    return out


def main() -> None:
    from hunt import drive

    drive(run_case, 600)

if __name__ == "__main__":
    main()
