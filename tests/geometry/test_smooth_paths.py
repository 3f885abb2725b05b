"""Exact paths round one oval base, against an independent closed form.

A round base (radius r) passing an oval base (semi-axes a, b), or an oval base passing
a round one (radius R): the centre must stay out of an ellipse grown by a disc. Its
shortest path is a tangent, an arc of that offset ellipse, and a tangent. The
reference below shares no code with the planner: tangent normals are the real roots
of the quartic that ``(x cos ψ + y sin ψ − ρ)² = a² cos² ψ + b² sin² ψ`` becomes under
``t = tan(ψ/2)``, and the arc is the incomplete elliptic integral of the second kind
(``scipy.special.ellipeinc``) plus ``ρ·Δψ``. The scene is rotated and mirrored."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from scipy.special import ellipeinc

from chargeref.geometry.paths import Barrier, Planner, measure_path
from chargeref.geometry.shapes import Disc, Ellipse, Footprint, ellipse_point_signed_distance

SETTINGS = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
TWO_PI = 2 * math.pi


def transform(th: float, mirror: bool):
    c, s = math.cos(th), math.sin(th)
    A = np.array([[c, -s], [s, c]]) @ (np.diag([1.0, -1.0]) if mirror else np.eye(2))

    def f(p):
        return tuple(float(v) for v in A @ np.asarray(p, dtype=float))

    def ang(t: float) -> float:
        return th + (-t if mirror else t)

    return f, ang


def tangent_normals_ref(a: float, b: float, rho: float, P) -> list[float]:
    """Frame of the ellipse (centre 0, axes x/y). Normals ψ of the support lines of
    the ellipse grown by rho that pass through P: roots of a quartic in tan(ψ/2)."""
    x, y = P
    # (x cos + y sin - rho)^2 - a^2 cos^2 - b^2 sin^2 = 0 with cos = (1-t^2)/(1+t^2),
    # sin = 2t/(1+t^2); times (1+t^2)^2:
    # (x(1-t^2) + 2yt - rho(1+t^2))^2 - a^2 (1-t^2)^2 - 4 b^2 t^2 = 0
    p1 = np.poly1d([-(x + rho), 2 * y, x - rho])  # x(1-t^2) + 2yt - rho(1+t^2)
    q = np.poly1d([-1.0, 0.0, 1.0])  # 1 - t^2
    poly = p1 * p1 - a * a * q * q - np.poly1d([4 * b * b, 0.0, 0.0])
    out = []
    for t in np.roots(poly.coeffs):
        if abs(t.imag) < 1e-9:
            psi = 2 * math.atan(t.real)
            c, s = math.cos(psi), math.sin(psi)
            # keep the roots of the unsquared equation (the support line, not its mirror)
            if abs((x * c + y * s - rho) - math.hypot(a * c, b * s)) < 1e-7:
                out.append(psi % TWO_PI)
    return out


def point_ref(a: float, b: float, rho: float, psi: float) -> np.ndarray:
    t = math.atan2(b * math.sin(psi), a * math.cos(psi))
    return np.array([a * math.cos(t), b * math.sin(t)]) + rho * np.array([math.cos(psi), math.sin(psi)])


def arc_ref(a: float, b: float, rho: float, psi0: float, span: float) -> float:
    """Length of the grown ellipse's boundary over normals psi0..psi0+span (ccw)."""
    def s_of(psi: float) -> float:
        # ellipse arc length from parameter 0 to t(psi), t unwrapped along with psi
        t = math.atan2(b * math.sin(psi), a * math.cos(psi))
        t += TWO_PI * math.floor((psi - t + math.pi) / TWO_PI)
        if a >= b:
            m = 1 - (b / a) ** 2
            # ds = a sqrt(1 - m cos^2 t) dt = a sqrt(1 - m sin^2(t - pi/2)) dt
            return a * (ellipeinc(t - math.pi / 2, m) - ellipeinc(-math.pi / 2, m))
        m = 1 - (a / b) ** 2
        return b * (ellipeinc(t, m))
    return s_of(psi0 + span) - s_of(psi0) + rho * span


def around_oval_ref(a, b, rho, S, G) -> float | None:
    """Frame of the ellipse. Shorter of the two tangent-arc-tangent paths (None if the
    straight segment misses the grown ellipse)."""
    S, G = np.asarray(S, float), np.asarray(G, float)
    ts, tg = tangent_normals_ref(a, b, rho, S), tangent_normals_ref(a, b, rho, G)
    if len(ts) != 2 or len(tg) != 2:
        return None
    best = math.inf
    u = lambda p: np.array([-math.sin(p), math.cos(p)])  # noqa: E731 (ccw tangent)
    for ccw in (True, False):
        # departure: travel along +tangent (ccw) or -tangent (cw) at the touching point
        fa = [p for p in ts if (point_ref(a, b, rho, p) - S) @ u(p) * (1 if ccw else -1) > 0]
        fb = [p for p in tg if (G - point_ref(a, b, rho, p)) @ u(p) * (1 if ccw else -1) > 0]
        if len(fa) != 1 or len(fb) != 1:
            return None
        pa, pb = fa[0], fb[0]
        lo, span = (pa, (pb - pa) % TWO_PI) if ccw else (pb, (pa - pb) % TWO_PI)
        L = (np.hypot(*(point_ref(a, b, rho, pa) - S)) + arc_ref(a, b, rho, lo, span)
             + np.hypot(*(G - point_ref(a, b, rho, pb))))
        best = min(best, float(L))
    return best


def segment_hits_grown_ellipse(a, b, rho, S, G) -> bool:
    """Does the segment S-G enter the ellipse grown by rho deeper than 1e-6? The
    signed distance to a convex set is convex along a segment: ternary search on it,
    with the point-to-ellipse distance of shapes (Eberly's solve, not geometry.smooth)."""
    S, G = np.asarray(S, float), np.asarray(G, float)

    def sd(t):
        x = S + t * (G - S)
        return float(ellipse_point_signed_distance(a, b, x[None])[0]) - rho

    lo, hi = 0.0, 1.0
    for _ in range(80):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if sd(m1) < sd(m2):
            hi = m2
        else:
            lo = m1
    return sd(lo) < -1e-6


@SETTINGS
@given(
    a=st.floats(0.6, 3.0),
    ratio=st.floats(0.3, 1.0),
    r=st.floats(0.3, 1.2),
    al=st.floats(0.0, TWO_PI),
    turn=st.floats(1.2, math.pi),
    ks=st.floats(1.2, 4.0),
    kg=st.floats(1.2, 4.0),
    rot=st.floats(0.0, TWO_PI),
    mirror=st.booleans(),
    mover_oval=st.booleans(),
)
@example(a=2.0, ratio=0.5, r=0.5, al=math.pi, turn=math.pi, ks=3.0, kg=3.0, rot=0.0, mirror=False,
         mover_oval=False)
@example(a=1.5, ratio=0.4, r=0.6, al=2.0, turn=2.5, ks=1.5, kg=2.0, rot=1.1, mirror=True, mover_oval=True)
def test_round_and_oval_pass_each_other(a, ratio, r, al, turn, ks, kg, rot, mirror, mover_oval):
    b = a * ratio
    rho_dir = lambda t: np.array([math.cos(t), math.sin(t)])  # noqa: E731
    # start and goal in the ellipse's frame, outside the grown ellipse
    ext = lambda t: math.hypot(a * math.cos(t), b * math.sin(t)) + r  # noqa: E731
    S = ks * ext(al) * rho_dir(al)
    G = kg * ext(al + turn) * rho_dir(al + turn)
    expected = around_oval_ref(a, b, r, S, G)
    assume(expected is not None)
    assume(segment_hits_grown_ellipse(a, b, r, S, G))
    c = np.array([20.0, 15.0])
    th0 = 0.4
    R0 = np.array([[math.cos(th0), -math.sin(th0)], [math.sin(th0), math.cos(th0)]])
    f, ang = transform(rot, mirror)
    s_w, g_w = f(c + R0 @ S), f(c + R0 @ G)
    if mover_oval:
        # an oval base at the same facing passing a round base of radius r: the
        # C-obstacle is the same grown ellipse (an ellipse is its own mirror image)
        obstacle = Footprint((Disc(f(c), r),), "round", f(c))
        base = Footprint((Ellipse(s_w, a, b, ang(th0)),), "oval", s_w)
    else:
        obstacle = Footprint((Ellipse(f(c), a, b, ang(th0)),), "oval", f(c))
        base = Footprint((Disc(s_w, r),), "round", s_w)
    planner = Planner([Barrier(obstacle, None, "x")])
    res = planner.plan(base, g_w)
    assert res is not None
    assert res.exact
    assert abs(res.length - expected) <= 1e-6
    chk = measure_path(base, res.segments, planner.barriers)
    assert chk.blocked == ()
    assert chk.length == pytest.approx(res.length, abs=1e-9)
    assert res.segments[-1]["to"] == pytest.approx(list(g_w), abs=1e-9)
    assert any(p["kind"] == "curve" for p in res.segments)


def test_goal_touching_the_oval():
    """A goal in base contact with the oval (on the grown ellipse) is reached along
    the boundary: the length still matches the reference (goal pushed by 1e-9)."""
    a, b, r = 2.0, 1.0, 0.5
    S = np.array([-6.0, 0.3])
    psi_g = 0.2
    G = point_ref(a, b, r, psi_g)
    ts = tangent_normals_ref(a, b, r, S)
    u = lambda p: np.array([-math.sin(p), math.cos(p)])  # noqa: E731
    best = math.inf
    for sgn in (1, -1):
        pa = [p for p in ts if (point_ref(a, b, r, p) - S) @ u(p) * sgn > 0][0]
        lo, span = (pa, (psi_g - pa) % TWO_PI) if sgn > 0 else (psi_g, (pa - psi_g) % TWO_PI)
        best = min(best, float(np.hypot(*(point_ref(a, b, r, pa) - S))) + arc_ref(a, b, r, lo, span))
    c = np.array([10.0, 10.0])
    obstacle = Footprint((Ellipse(tuple(c), a, b, 0.0),), "oval", tuple(c))
    base = Footprint((Disc(tuple(c + S), r),), "round", tuple(c + S))
    res = Planner([Barrier(obstacle, None, "x")]).plan(base, tuple(c + G))
    assert res is not None and res.exact
    assert abs(res.length - best) <= 1e-6


def test_second_obstacle_on_the_curve_blocks_it():
    """A small rock sitting on the oval's far side: the curve piece would cross it, so
    the closed form is refused and the planner goes the other way (or round both)."""
    c = (10.0, 10.0)
    obstacle = Footprint((Ellipse(c, 2.0, 1.0, 0.0),), "oval", c)
    rock = Footprint((Disc((10.0, 11.9), 0.3),), "round", (10.0, 11.9))
    base = Footprint((Disc((5.0, 10.5), 0.5),), "round", (5.0, 10.5))
    pl = Planner([Barrier(obstacle, None, "x"), Barrier(rock, None, "rock")])
    res = pl.plan(base, (15.0, 10.5))
    assert res is not None
    chk = measure_path(base, res.segments, pl.barriers)
    assert chk.blocked == ()
    # without the rock the shorter way is over the top (y > 10): now it is longer
    free = Planner([Barrier(obstacle, None, "x")]).plan(base, (15.0, 10.5))
    assert free is not None and free.exact
    assert res.length > free.length + 1e-3


def test_start_touching_the_oval():
    """A start in base contact with the oval (on the grown ellipse) leaves along the
    boundary; the length matches the reference from the touching point."""
    a, b, r = 2.0, 1.0, 0.5
    psi_s = 2.8
    S = point_ref(a, b, r, psi_s)
    G = np.array([6.0, -0.2])
    tg = tangent_normals_ref(a, b, r, G)
    u = lambda p: np.array([-math.sin(p), math.cos(p)])  # noqa: E731
    best = math.inf
    for sgn in (1, -1):
        pb = [p for p in tg if (G - point_ref(a, b, r, p)) @ u(p) * sgn > 0][0]
        lo, span = (psi_s, (pb - psi_s) % TWO_PI) if sgn > 0 else (pb, (psi_s - pb) % TWO_PI)
        best = min(best, arc_ref(a, b, r, lo, span) + float(np.hypot(*(G - point_ref(a, b, r, pb)))))
    c = np.array([10.0, 10.0])
    obstacle = Footprint((Ellipse(tuple(c), a, b, 0.0),), "oval", tuple(c))
    base = Footprint((Disc(tuple(c + S), r),), "round", tuple(c + S))
    res = Planner([Barrier(obstacle, None, "x")]).plan(base, tuple(c + G))
    assert res is not None and res.exact
    assert abs(res.length - best) <= 1e-6


def test_recorded_curves_are_measured_and_checked():
    """measure_path (the validator's measure) takes curve pieces as recorded: a curve
    whose ends are not its body's points is refused, and a curve that runs through
    another obstacle is reported as blocked by it."""
    from chargeref.geometry.paths import piece_from_dict

    c = (10.0, 10.0)
    obstacle = Footprint((Ellipse(c, 2.0, 1.0, 0.0),), "oval", c)
    base = Footprint((Disc((4.0, 10.4), 0.5),), "round", (4.0, 10.4))
    pl = Planner([Barrier(obstacle, None, "x")])
    res = pl.plan(base, (16.0, 10.4))
    assert res is not None and res.exact
    curve = next(s for s in res.segments if s["kind"] == "curve")
    bad = dict(curve, to=[curve["to"][0] + 1e-5, curve["to"][1]])
    with pytest.raises(ValueError):
        piece_from_dict(bad)
    # a rock on top of the oval's boundary, where the curve runs
    top = max(res.points, key=lambda p: p[1])
    rock = Barrier(Footprint((Disc(top, 0.2),), "round", top), None, "rock")
    chk = measure_path(base, res.segments, [Barrier(obstacle, None, "x"), rock])
    assert chk.blocked == ("rock",)
    # the same rock 0.21 + 0.5 above the path's top only touches nothing
    clear = (top[0], top[1] + 0.7 + 1e-3)
    rock2 = Barrier(Footprint((Disc(clear, 0.2),), "round", clear), None, "rock")
    assert measure_path(base, res.segments, [Barrier(obstacle, None, "x"), rock2]).blocked == ()
    # and 0.699 above it is entered by 1e-3: blocked (the curve's own top decides)
    near = (top[0], top[1] + 0.7 - 1e-3)
    rock3 = Barrier(Footprint((Disc(near, 0.2),), "round", near), None, "rock")
    assert measure_path(base, res.segments, [Barrier(obstacle, None, "x"), rock3]).blocked == ("rock",)
