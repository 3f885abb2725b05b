"""Regenerate the fight-phase pictures of docs/wtc-walls.md (WTC walls Examples 1A-F/G,
3, 4, 5 and 6), from the example scenarios and the fight-phase rulings:

    .venv/bin/python docs/img/make_wtc_fight.py
"""

from __future__ import annotations

from pathlib import Path

from chargeref import ChargeRequest, find_system, load_scenario
from chargeref.render import render_png, render_svg
from chargeref.ruling import Ruling
from chargeref.systems.w40k.fight import pile_in, refresh_tokens

OUT = Path(__file__).parent
WALLS = Path(__file__).parents[2] / "examples" / "40k" / "wtc_walls"


def save(name: str, svg: str) -> None:
    render_png(svg, str(OUT / f"{name}.png"))


def picture(scen_name: str, out: str, title: str, ruling: Ruling | None = None) -> None:
    scen = load_scenario(WALLS / scen_name)
    save(out, render_svg(scen, ruling, title=title))


def main() -> None:
    ex1 = load_scenario(WALLS / "fight_ex1a.yaml")
    picture("fight_ex1a.yaml", "wtc_fight_ex1a_before", "Example 1A-E: after the charge (A1, A2 hold tokens)")
    save("wtc_fight_ex1a_pile_in", render_svg(ex1, pile_in(ex1, "A"), title="Example 1A-F/G: A piles in; A1 must take the legal spot"))
    picture("ex3_third_unit.yaml", "wtc_fight_ex3", "Example 3: C and D stand within 2\" across the wall, unengaged")
    ex4 = load_scenario(WALLS / "ex4_defender_first.yaml")
    save("wtc_fight_ex4", render_svg(ex4, pile_in(ex4, "B", keep={"B1", "B2"}), title="Example 4: B fights first, only B3 piles in"))
    ex5 = load_scenario(WALLS / "ex5_legal_after_pile_in.yaml")
    picture("ex5_legal_after_pile_in.yaml", "wtc_fight_ex5_before", "Example 5: after the charge, B and C both engaged")
    save("wtc_fight_ex5_pile_in", render_svg(ex5, pile_in(ex5, "A"), title="Example 5: A piles in, the tokens go, B drops out"))
    ex6 = load_scenario(WALLS / "ex6_heroic_intervention.yaml")
    hi = find_system("40k").charge(ex6, ChargeRequest("C", ("A",), dice=(3, 3), extra={"heroic_intervention": True}))
    assert hi.after is not None
    hi = hi.model_copy(update={"after": refresh_tokens(hi.after)})
    save("wtc_fight_ex6", render_svg(ex6, hi, title="Example 6: C intervenes into A's token models; the tokens end"))


if __name__ == "__main__":
    main()
