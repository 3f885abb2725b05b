"""The detour search's witness margins (``Search._margins``, the fast path: polygons
stacked per search, exact distances skipped where a lower bound already clears, an
early stop) against the plain expression it replaced (``_margins_plain`` below, one
obstacle at a time, every distance exact).

A box is dropped when a margin is negative, so the fast path must give every
negative value exactly and never a negative value where the plain one is not; the
edge tests move each pose's bound so that the plain margin sits at zero, just below
and just above it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.shapes import TOL
from chargeref.systems.t9a import detour
from chargeref.systems.t9a.detour import Search
from chargeref.systems.t9a.detour_witness import _body_samples, _sd_cap, _sd_poly

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def _margins_plain(self: Search, Fs: np.ndarray, fs: np.ndarray, Ms: np.ndarray,
                   hw: float | None = None) -> np.ndarray:
    """The margins as the search first computed them: every obstacle on its own,
    its constants worked out on each call, every distance exact."""
    depth = self.ch.depth
    if hw is None or hw >= self.g.w / 2:
        w, B = self.g.w, self.body
    else:
        w, B = 2 * hw, _body_samples(2 * hw, depth)
    ls = np.stack([-fs[:, 1], fs[:, 0]], axis=1)
    pts = Fs[:, None, :] + B[None, :, 0:1] * fs[:, None, :] + B[None, :, 1:2] * ls[:, None, :]
    n = len(Fs)
    flat = pts.reshape(-1, 2)
    Mp = np.repeat(Ms, len(B))
    W, D = self.world.board
    edge = np.minimum(np.minimum(flat[:, 0], flat[:, 1]), np.minimum(W - flat[:, 0], D - flat[:, 1]))
    out = np.min((edge + Mp + TOL).reshape(n, -1), axis=1)
    reach = self.g.R + float(np.max(Ms))
    for k, ob in enumerate(self.obst):
        sh = ob.shape
        oc, orad = self.ocirc[k]
        if float(np.min(np.hypot(Fs[:, 0] - oc[0], Fs[:, 1] - oc[1]))) - orad - reach >= self.thr[k]:
            continue
        if sh.kind == "poly":
            sd = _sd_poly(flat, sh.V, inside_only=self.thr[k] - float(np.min(Mp)) <= 0)
        else:
            sd = _sd_cap(flat, sh.a, sh.b, sh.r)
        out = np.minimum(out, np.min((sd + Mp - self.thr[k]).reshape(n, -1), axis=1))
        Q = self.osamp[k]
        rel = Q[None, :, :] - Fs[:, None, :]
        ax = np.einsum("pqk,pk->pq", rel, fs) + depth / 2
        ay = np.einsum("pqk,pk->pq", rel, ls)
        qx = np.abs(ax) - depth / 2
        qy = np.abs(ay) - w / 2
        sdb = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)
        out = np.minimum(out, np.min(sdb, axis=1) + Ms - self.thr[k])
        if sh.kind != "poly":
            out = np.minimum(out, self._cap_witness(ob, Fs, fs, ls) + Ms - self.thr[k])
    return out


def _agree(fast: np.ndarray, plain: np.ndarray) -> None:
    neg = plain < 0
    assert np.array_equal(fast < 0, neg)
    assert np.array_equal(fast[neg], plain[neg])


@pytest.fixture(scope="module")
def captured() -> list[tuple[Search, np.ndarray, np.ndarray, np.ndarray, float | None]]:
    """Every margins call of the three-unit combined charge (the benchmark case whose
    move-order search runs the detour search), with its search."""
    import bench_t9a

    calls: list[tuple[Search, np.ndarray, np.ndarray, np.ndarray, float | None]] = []
    orig = Search._margins

    def spy(self: Search, Fs: np.ndarray, fs: np.ndarray, Ms: np.ndarray, hw: float | None = None,
            stop: bool = False) -> np.ndarray:
        calls.append((self, Fs.copy(), fs.copy(), Ms.copy(), hw))
        return orig(self, Fs, fs, Ms, hw, stop)

    Search._margins = spy  # type: ignore[method-assign]
    try:
        bench_t9a.combined_three()
    finally:
        Search._margins = orig  # type: ignore[method-assign]
    assert len(calls) >= 10
    return calls


def test_every_call_of_a_combined_charge(captured: list) -> None:
    blocked = 0
    for s, Fs, fs, Ms, hw in captured:
        plain = _margins_plain(s, Fs, fs, Ms, hw)
        _agree(s._margins(Fs, fs, Ms, hw), plain)
        # the early stop still says blocked exactly when the plain margins do
        assert (float(np.min(s._margins(Fs, fs, Ms, hw, stop=True))) < 0) == (float(np.min(plain)) < 0)
        blocked += float(np.min(plain)) < 0
    assert 0 < blocked < len(captured)  # both outcomes are exercised


@pytest.mark.parametrize("shift", [0.0, 1e-12, -1e-12, 1e-9, -1e-9, 1e-3, -1e-3])
def test_margins_at_zero(captured: list, shift: float) -> None:
    """Each pose's bound moved so that its plain margin is (about) zero, then by
    ``shift``: the two agree on every sign and every negative value."""
    for s, Fs, fs, Ms, hw in captured:
        m0 = _margins_plain(s, Fs, fs, Ms, hw)
        Ms2 = np.maximum(Ms - m0 + shift, 0.0)
        _agree(s._margins(Fs, fs, Ms2, hw), _margins_plain(s, Fs, fs, Ms2, hw))


@SETTINGS
@given(i=st.integers(0, 10_000), dx=st.floats(-3, 3), dy=st.floats(-3, 3), turn=st.floats(-3.2, 3.2),
       m=st.floats(0, 2), gap=st.sampled_from([0.0, 0.5, 1.0]))
@example(i=0, dx=0.0, dy=0.0, turn=0.0, m=0.0, gap=1.0)
@example(i=3, dx=1.0, dy=-1.0, turn=1.0, m=1e-9, gap=0.5)
def test_moved_poses_and_gaps(captured: list, i: int, dx: float, dy: float, turn: float, m: float,
                              gap: float) -> None:
    """Poses moved and turned, bounds changed, and obstacles that keep a gap (so the
    exact outside distances are needed): the fast path agrees."""
    s, Fs, fs, Ms, hw = captured[i % len(captured)]
    c, sn = np.cos(turn), np.sin(turn)
    fs2 = np.stack([c * fs[:, 0] - sn * fs[:, 1], sn * fs[:, 0] + c * fs[:, 1]], axis=1)
    Fs2 = Fs + np.array([dx, dy])
    Ms2 = Ms * 0 + m
    if gap:
        obst = [detour.Obstacle(o.uid, o.cls, o.shape, gap, o.strict) for o in s.obst]
        s = Search(s.world, s.ch, s.fr, obst, s.clear)
    _agree(s._margins(Fs2, fs2, Ms2, hw), _margins_plain(s, Fs2, fs2, Ms2, hw))


def _at3_plain(g: detour._Geo, c: detour.Cell, S: tuple[float, ...], d: float) -> dict[str, list[float]]:
    """``_Geo.at3`` as first written (the frames read from numpy on each call, a dict
    of lists filled value by value)."""
    import math

    fr, w = g.fr, g.w
    mx, my = float(fr.mid[0]) - float(g.F0[0]), float(fr.mid[1]) - float(g.F0[1])
    tx, ty, nx, ny = float(fr.t[0]), float(fr.t[1]), float(fr.n[0]), float(fr.n[1])
    fx, fy, lx, ly = float(g.f0[0]), float(g.f0[1]), float(g.l0[0]), float(g.l0[1])
    a = math.radians(-d)
    ca, sa = math.cos(a), math.sin(a)
    th = math.radians(c.th0 - (d - c.d0))
    h = c.h * w / 2
    st, ct = math.sin(th), math.cos(th)
    tt = math.tan(th / 2)
    sg = (th > 0) - (th < 0)
    out: dict[str, list[float]] = {k: [] for k in ("Px", "Py", "th", "dist", "n1", "n2", "rho", "st", "ddist")}
    for S_ in S:
        xp = c.alpha * S_ + c.beta
        vx = S_ - xp
        px, py = xp + ca * vx, sa * vx
        X, Y = mx + px * tx + py * nx, my + px * ty + py * ny
        Px, Py = X * fx + Y * fy, X * lx + Y * ly
        dpx, dpy = sa * vx, -ca * vx
        dX, dY = dpx * tx + dpy * nx, dpx * ty + dpy * ny
        dPx, dPy = dX * fx + dY * fy, dX * lx + dY * ly
        for k, val in (("Px", Px), ("Py", Py), ("th", th), ("dist", Px + (Py - 2 * h) * tt + w * abs(th)),
                       ("n1", Px * st - Py * ct - h * (1 - ct)), ("n2", Py - h * (1 - ct)), ("rho", abs(vx)),
                       ("st", st), ("ddist", dPx + dPy * tt - (Py - 2 * h) * (1 + tt * tt) / 2 - w * sg)):
            out[k].append(val)
    return out


@SETTINGS
@given(i=st.integers(0, 10_000), u=st.floats(0, 1), v=st.floats(0, 1), x=st.floats(0, 1))
@example(i=0, u=0.0, v=1.0, x=0.0)
@example(i=1, u=1.0, v=0.0, x=1.0)
def test_at3_is_the_plain_expression(captured: list, i: int, u: float, v: float, x: float) -> None:
    """The box bounds' plain-float closed forms: the same floats as first written, and
    within rounding of the numpy ``at``; at the cell's ends and inside."""
    s = captured[i % len(captured)][0]
    cs = detour.cells(s.ch, s.fr)
    c = cs[i % len(cs)]
    S = (c.pa + u * (c.pb - c.pa), c.pa + v * (c.pb - c.pa), (c.pa + c.pb) / 2)
    d = c.dlo + x * (c.dhi - c.dlo)
    fast = s.g.at3(c, S, d)
    assert fast == _at3_plain(s.g, c, S, d)
    ref = s.g.at(c, np.array(S), np.full(3, d))
    for k, vals in fast.items():
        assert np.allclose(vals, ref[k], rtol=0, atol=1e-9), k
