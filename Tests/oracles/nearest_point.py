#!/usr/bin/env python3
"""Brute-force oracle for the nearest point on an edge (Tests/GeoTests/GeodesyNearestTests.swift).

Independent of geo's algorithm and of PROJ: positions along a geodesic edge come from the Python
`geographiclib` package (GeodesicLine), along a rhumb edge from GeographicLib's `RhumbSolve`
(direct problem, batched, one process per refinement stage); distances from p always from
python `geographiclib` (Geodesic.Inverse).

Method: sample the distance from p at 100 points evenly along the edge (ends included), keep
the deepest local minimum (and a second one nearly as deep), then repeatedly resample 12
points across the bracket around each (each stage shrinks it 6-fold) until it is narrower than
1e-5 m. That is dense sampling plus a golden-section-like refinement, done in batches so that
RhumbSolve runs once per stage for all cases.

stdin: {"a": equatorial radius, "f": flattening, "cases": [{"kind": "geodesic"|"rhumb",
         "a": [lat, lon], "b": [lat, lon], "p": [lat, lon], "along": s}, ...]}
  (`along`: geo's answer, at which the oracle also evaluates the edge, for consistency checks)
stdout: [{"distance": least distance found, "along": where, "distance_at_along": d(s),
          "position_at_along": [lat, lon] of the edge at s}, ...]

Numbers go to RhumbSolve as fixed-point decimals: it reads `e` as a hemisphere letter.
"""

import json
import math
import subprocess
import sys

from geographiclib.geodesic import Geodesic

FIRST = 100      # samples along the whole edge
STAGE = 12       # samples across each bracket per stage
KEEP = 2         # local minima refined
WIDTH = 1e-5     # metres: stop when brackets are this narrow


def fixed(x):
    return "%.17f" % x if abs(x) < 1e4 else "%.9f" % x


class Edges:
    def __init__(self, a, f, cases):
        self.geod = Geodesic(a, f)
        self.cases = cases
        self.lines = []
        for case in cases:
            (lat1, lon1), (lat2, lon2) = case["a"], case["b"]
            if case["kind"] == "geodesic":
                line = self.geod.InverseLine(lat1, lon1, lat2, lon2)
                self.lines.append(("geodesic", line, line.s13))
            else:
                out = subprocess.run(["RhumbSolve", "-i", "-p", "9", "-e", fixed(a), fixed(f)],
                                     input="%s %s %s %s\n" % (fixed(lat1), fixed(lon1), fixed(lat2), fixed(lon2)),
                                     capture_output=True, text=True, check=True).stdout.split()
                self.lines.append(("rhumb", (lat1, lon1, float(out[0])), float(out[1])))
        self.a, self.f = a, f

    def positions(self, requests):
        """requests: [(case index, s)] -> [(lat, lon)]"""
        result = [None] * len(requests)
        rhumb = []
        for k, (i, s) in enumerate(requests):
            kind, line, _ = self.lines[i]
            if kind == "geodesic":
                pos = line.Position(s, Geodesic.LATITUDE | Geodesic.LONGITUDE)
                result[k] = (pos["lat2"], pos["lon2"])
            else:
                rhumb.append(k)
        if rhumb:
            text = "".join("%s %s %s %s\n" % (fixed(self.lines[requests[k][0]][1][0]), fixed(self.lines[requests[k][0]][1][1]),
                                              fixed(self.lines[requests[k][0]][1][2]), fixed(requests[k][1]))
                           for k in rhumb)
            out = subprocess.run(["RhumbSolve", "-p", "9", "-e", fixed(self.a), fixed(self.f)], input=text,
                                 capture_output=True, text=True, check=True).stdout.splitlines()
            for k, line in zip(rhumb, out):
                lat, lon = line.split()[:2]
                result[k] = (float(lat), float(lon))
        return result

    def distances(self, requests):
        points = self.positions(requests)
        out = []
        for (i, _), (lat, lon) in zip(requests, points):
            plat, plon = self.cases[i]["p"]
            out.append(self.geod.Inverse(plat, plon, lat, lon, Geodesic.DISTANCE)["s12"])
        return out, points


def main():
    job = json.load(sys.stdin)
    cases = job["cases"]
    edges = Edges(job["a"], job["f"], cases)
    # Stage 0: even samples.
    requests = [(i, edges.lines[i][2] * k / FIRST) for i in range(len(cases)) for k in range(FIRST + 1)]
    dist, _ = edges.distances(requests)
    brackets = []  # (case, low, high)
    best = {}
    for i in range(len(cases)):
        d = dist[i * (FIRST + 1):(i + 1) * (FIRST + 1)]
        length = edges.lines[i][2]
        step = length / FIRST
        minima = [k for k in range(FIRST + 1)
                  if (k == 0 or d[k] <= d[k - 1]) and (k == FIRST or d[k] <= d[k + 1])]
        minima.sort(key=lambda k: d[k])
        best[i] = (d[minima[0]], step * minima[0])
        # Refine the deepest minimum, and a second one if it is nearly as deep.
        minima = [k for k in minima if d[k] <= d[minima[0]] * 1.01 + 100]
        for k in minima[:KEEP]:
            brackets.append((i, max(0.0, step * (k - 1)), min(length, step * (k + 1))))
    # Refinement stages.
    while brackets:
        requests = [(i, low + (high - low) * k / STAGE) for (i, low, high) in brackets for k in range(STAGE + 1)]
        dist, _ = edges.distances(requests)
        narrower = []
        for n, (i, low, high) in enumerate(brackets):
            d = dist[n * (STAGE + 1):(n + 1) * (STAGE + 1)]
            k = min(range(STAGE + 1), key=lambda j: d[j])
            step = (high - low) / STAGE
            s = low + step * k
            if d[k] < best[i][0]:
                best[i] = (d[k], s)
            if high - low > WIDTH:
                narrower.append((i, max(low, s - step), min(high, s + step)))
        brackets = narrower
    # geo's answers, evaluated on the oracle's edge.
    requests = [(i, min(max(case["along"], 0.0), edges.lines[i][2])) for i, case in enumerate(cases)]
    dist, points = edges.distances(requests)
    json.dump([{"distance": best[i][0], "along": best[i][1], "length": edges.lines[i][2],
                "distance_at_along": dist[i], "position_at_along": list(points[i])}
               for i in range(len(cases))], sys.stdout)


if __name__ == "__main__":
    main()
