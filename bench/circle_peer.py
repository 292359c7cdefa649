#!/usr/bin/env python3
"""The pyproj peer for circle-to-polygon: each Point record to a 64-vertex geodesic circle with
pyproj.Geod.fwd, vectorised over the vertices (numpy), as a user would script it.

usage: circle_peer.py POINTS.ndjson RADIUS_M > circles.ndjson
"""
import json
import sys

import numpy as np
from pyproj import Geod

SEGMENTS = 64
geod = Geod(ellps="WGS84")
azimuths = -360.0 * np.arange(SEGMENTS) / SEGMENTS
radius = float(sys.argv[2])
distances = np.full(SEGMENTS, radius)
out = sys.stdout
for line in open(sys.argv[1]):
    feature = json.loads(line)
    lon, lat = feature["geometry"]["coordinates"]
    lons, lats, _ = geod.fwd(np.full(SEGMENTS, lon), np.full(SEGMENTS, lat), azimuths, distances)
    ring = [[x, y] for x, y in zip(lons.tolist(), lats.tolist())]
    ring.append(ring[0])
    feature["geometry"] = {"type": "Polygon", "coordinates": [ring]}
    feature["properties"]["radius_m"] = radius
    out.write(json.dumps(feature, separators=(",", ":")) + "\n")
