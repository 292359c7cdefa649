#!/usr/bin/env python3
"""The area of rhumb-line rings to 40 digits, for judging disagreements between geo and
Planimeter -R on ill-conditioned rings (long, nearly east-west edges whose terms cancel).
Run by hand (needs mpmath); the tests do not use it.

Each edge contributes S12 = c^2 * lambda12 * (1/psi12) * integral of sin(xi) dpsi, taken here
by mpmath's adaptive quadrature in phi with dpsi = (1 - e^2) / ((1 - e^2 sin^2 phi) cos phi)
dphi; the ring's area is -sum(S12) - w * A0/2 reduced to (-A0/2, A0/2] (w: windings round the
poles), as in docs/area-and-locate.md. No vertex may be at a pole.

usage: rhumb_area_mp.py A F < rings.json     (rings: [[[lon, lat], ...], ...])
prints one area (m^2) per ring.
"""

import json
import sys

import mpmath as mp

mp.mp.dps = 40


def ring_area(ring, a, f):
    a, f = mp.mpf(a), mp.mpf(f)
    e2 = f * (2 - f)
    e = mp.sqrt(e2) if e2 > 0 else mp.sqrt(-e2)

    def atanh_e(x):  # atanh(e x) / e, also for a sphere and a prolate spheroid
        if e2 > 0:
            return mp.atanh(e * x) / e
        if e2 < 0:
            return mp.atan(e * x) / e
        return x

    def q(s):
        return (1 - e2) * (s / (1 - e2 * s * s) + atanh_e(s))

    qp = q(mp.mpf(1))
    c2 = a * a * qp / 2

    def psi(phi):
        s = mp.sin(phi)
        return mp.asinh(mp.tan(phi)) - (e2 * atanh_e(s) if e2 != 0 else 0)

    def mean_sin_xi(p1, p2):
        if p1 == p2:
            return q(mp.sin(p1)) / qp
        integrand = lambda ph: q(mp.sin(ph)) / qp * (1 - e2) / ((1 - e2 * mp.sin(ph) ** 2) * mp.cos(ph))
        return mp.quad(integrand, [p1, p2]) / (psi(p2) - psi(p1))

    total, turns = mp.mpf(0), mp.mpf(0)
    for i in range(len(ring)):
        (lon1, lat1), (lon2, lat2) = ring[i], ring[(i + 1) % len(ring)]
        l12 = mp.mpf(lon2) - mp.mpf(lon1)
        l12 -= 360 * mp.nint(l12 / 360)
        turns += l12
        total += c2 * mp.radians(l12) * mean_sin_xi(mp.radians(mp.mpf(lat1)), mp.radians(mp.mpf(lat2)))
    w = int(mp.nint(turns / 360))
    whole = 4 * mp.pi * c2
    area = -total - w * whole / 2
    area -= whole * mp.nint(area / whole)
    return area


def main():
    a, f = float(sys.argv[1]), float(sys.argv[2])
    for ring in json.load(sys.stdin):
        print(mp.nstr(ring_area(ring, a, f), 25))


if __name__ == "__main__":
    main()
