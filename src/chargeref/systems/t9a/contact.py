"""Which models touch which: base contact between two units.

Two units are in contact when their boundaries touch (corner to corner included).
When two facings lie flush on one line (the units are aligned), models are matched
along that line: a model counts if the part of its width that is exposed on the facing
(not hidden by a model nearer the facing) shares at least a point with an exposed part
of an enemy model; this includes contact across the gaps of an incomplete rank.
Otherwise bases are matched pairwise in the plane (touching, corners included). A
model on a round base touches the models of a rectangular unit whose exposed width on
the facing nearest to it overlaps the round base's width (it is directly in front).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...geometry.shapes import TOL
from .block import FACINGS, Block
from .geom import Shape, gap, near
from .memo import table as memo_table


@dataclass(frozen=True)
class UnitContact:
    a: str
    b: str
    aligned: bool
    facing_a: str | None
    facing_b: str | None
    pairs: tuple[tuple[int, int], ...]


def aligned_facings(a: Block, b: Block) -> tuple[str, str] | None:
    """The pair of facings (of a, of b) lying flush on one line and overlapping."""
    if a.round or b.round:
        return None
    for fa in FACINGS:
        A = a.facing_of(fa)
        for fb in FACINGS:
            B = b.facing_of(fb)
            if float(A.n @ B.n) > -1 + 1e-9:
                continue
            if abs(float((B.mid - A.mid) @ A.n)) > TOL:
                continue
            c = float((B.mid - A.mid) @ A.t)
            if c - B.length / 2 <= A.length / 2 + TOL and c + B.length / 2 >= -A.length / 2 - TOL:
                return fa, fb
    return None


def unit_contact(a: Block, b: Block, g: float | None = None) -> UnitContact | None:
    """The contact of two units (None when apart). Within a ruling (``memo``) the
    answer for the same two units where they stand is worked out once."""
    tab = memo_table("unit_contact") if g is None else None
    if tab is None:
        return _unit_contact(a, b, g)
    # what the answer depends on: each unit's id, pose and formation (not its flags)
    key = (a.id, a.front, a.facing, a.files, a.models, a.bw, a.bd, a.round,
           b.id, b.front, b.facing, b.files, b.models, b.bw, b.bd, b.round)
    hit = tab.get(key, False)
    if hit is False:
        hit = tab[key] = _unit_contact(a, b, None)
    return hit


def _unit_contact(a: Block, b: Block, g: float | None) -> UnitContact | None:
    if g is None:
        g = gap(a.shape(), b.shape())
    if g > TOL:
        return None
    if a.round and b.round:
        return UnitContact(a.id, b.id, True, None, None, ((0, 0),))
    if a.round or b.round:
        rnd, rect = (a, b) if a.round else (b, a)
        pairs = _round_pairs(rnd, rect)
        if a.round:
            return UnitContact(a.id, b.id, True, None, None, tuple((0, j) for j in pairs))
        return UnitContact(a.id, b.id, True, None, None, tuple((j, 0) for j in pairs))
    al = aligned_facings(a, b)
    if al is not None:
        fa, fb = al
        return UnitContact(a.id, b.id, True, fa, fb, tuple(sorted(_profile_pairs(a, fa, b, fb))))
    return UnitContact(a.id, b.id, False, None, None, tuple(sorted(_plane_pairs(a, b))))


def _profile_pairs(a: Block, fa: str, b: Block, fb: str) -> set[tuple[int, int]]:
    A = a.facing_of(fa)
    B = b.facing_of(fb)
    c = float((B.mid - A.mid) @ A.t)
    sgn = float(B.t @ A.t)  # -1 for opposed facings
    pa = a.profile(fa)
    pb = [(j, c + sgn * lo, c + sgn * hi) for j, lo, hi, _ in b.profile(fb)]
    out = set()
    for i, alo, ahi, _ in pa:
        for j, x, y in pb:
            blo, bhi = min(x, y), max(x, y)
            if max(alo, blo) <= min(ahi, bhi) + TOL:
                out.add((i, j))
    return out


def _round_pairs(rnd: Block, rect: Block) -> list[int]:
    c = rnd.centre
    best = None
    for name in FACINGS:
        fc = rect.facing_of(name)
        y = float((c - fc.mid) @ fc.n)
        if best is None or y > best[0]:
            best = (y, name, fc)
    assert best is not None
    _, name, fc = best
    x = float((c - fc.mid) @ fc.t)
    r = rnd.radius
    return sorted({i for i, lo, hi, _ in rect.profile(name) if max(lo, x - r) <= min(hi, x + r) + TOL})


def _plane_pairs(a: Block, b: Block) -> set[tuple[int, int]]:
    Ra = a.model_rects()
    Rb = b.model_rects()
    sa, sb = a.shape(), b.shape()
    # only bases near the other unit can touch it
    ia = [i for i in range(len(Ra)) if gap(Shape.poly(Ra[i]), sb) <= TOL]
    ib = [j for j in range(len(Rb)) if gap(Shape.poly(Rb[j]), sa) <= TOL]
    out = set()
    for i in ia:
        Pi = Shape.poly(Ra[i])
        for j in ib:
            if gap(Pi, Shape.poly(Rb[j])) <= TOL:
                out.add((i, j))
    return out


def contacts_between(blocks: dict[str, Block], ids: list[str]) -> list[UnitContact]:
    """Every contact between the listed units and their enemies (each pair once)."""
    out = []
    seen = set()
    for uid in ids:
        a = blocks.get(uid)
        if a is None:
            continue
        sa = a.shape()
        for b in blocks.values():
            if b.player == a.player or (b.id, a.id) in seen:
                continue
            if not near(sa, b.shape(), 10 * TOL):
                continue
            uc = unit_contact(a, b)
            seen.add((a.id, b.id))
            if uc is not None:
                out.append(uc)
    return out


def models_in_contact(contacts: list[UnitContact]) -> set[str]:
    out = set()
    for uc in contacts:
        for i, j in uc.pairs:
            out.add(f"{uc.a}.{i}")
            out.add(f"{uc.b}.{j}")
    return out


def engaged_with(blocks: dict[str, Block], uid: str, exclude: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """Enemy units that ``uid`` is in aligned contact with (excluding some)."""
    a = blocks[uid]
    out = []
    for uc in contacts_between(blocks, [uid]):
        other = uc.b if uc.a == uid else uc.a
        if other in exclude:
            continue
        if uc.aligned and blocks[other].player != a.player:
            out.append(other)
    return out
