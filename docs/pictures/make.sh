#!/usr/bin/env bash
# The Maps SDK shapes guide's figures, drawn by geo from the guide's own coordinates and styles.
# Usage: docs/pictures/make.sh [OUTDIR]   (default: docs/; GEO: the geo to use)
# Tests/EndToEnd/test_render.py runs this into a temporary directory and probes the pictures.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:-$repo/docs}"
geo="${GEO:-$repo/.build/release/geo}"
examples="$repo/examples"
mkdir -p "$out"

# "Add a polyline": Sydney, three points, the SDK's default stroke.
printf '%s\n' '{"type":"Feature","properties":{"stroke":"blue","stroke-width":5},"geometry":{"type":"LineString","coordinates":[[151.20,-33.85],[151.40,-33.70],[151.41,-33.73]]}}' \
    | "$geo" render --size 480x360 -o "$out/polyline.png"

# "Add a rectangle": a closed polyline.
printf '%s\n' '{"type":"Feature","properties":{"stroke":"black","stroke-width":4},"geometry":{"type":"LineString","coordinates":[[-122.0,37.36],[-122.0,37.45],[-122.2,37.45],[-122.2,37.36],[-122.0,37.36]]}}' \
    | "$geo" render --size 480x360 -o "$out/rectangle.png"

# "Add a polygon with holes": Hyde Park, Sydney, as the guide's encoded paths (every ring
# clockwise), restored by geo decode --field; fill red at alpha 0.2, stroke red, width 2.
printf '%s\n' '{"type":"Feature","properties":{"fillColor":"rgba(1,0,0,0.2)","strokeColor":"rgba(1,0,0,1)","strokeWidth":2,"polyline":"tpwmEkd|y[QVe@Pk@BsHe@mGc@iNaAKMaBIYIq@qAMo@Eo@@[Fe@DoALu@HUb@c@XUZS^ELGxOhAd@@ZB`@J^BhFRlBN\\BZ@`AFrATAJAR?rAE\\C~BIpD","holes":["tlvmEqq|y[NNCXSJQOB[TI","bewmEwk|y[Dm@zAPEj@{AO"]},"geometry":null}' \
    | "$geo" decode --field polyline | "$geo" render --size 360x480 -o "$out/hollow-polygon.png"

# "Add a circle": 1000 m round (37.35, -122.0), red stroke 5, fill rgba(0.35,0,0,0.05).
"$geo" circle-to-polygon --center 37.35,-122.0 --radius 1000 \
    | sed 's/"properties":{/"properties":{"stroke":"red","stroke-width":5,"fill":"rgba(0.35,0,0,0.05)",/' \
    | "$geo" render --size 480x480 -o "$out/circle.png"

# "Multi-coloured spans": red for 1.5 segments (half way through the second), then a red to
# yellow gradient over the rest, on the rectangle's path.
printf '%s\n' '{"type":"LineString","coordinates":[[-122.0,37.36],[-122.0,37.45],[-122.2,37.45],[-122.2,37.36],[-122.0,37.36]]}' \
    | "$geo" spans --span red:1.5 --span 'gradient(red,yellow)' \
    | sed 's/"properties":{/"properties":{"stroke-width":10,/' \
    | "$geo" render --size 480x360 -o "$out/spans.png"

# "Repeating pattern" (GMSStyleSpans): white 100 km and black 50 km along rhumb lines from San
# Francisco to New York by way of Denver, on a map-blue ground.
printf '%s\n' '{"type":"LineString","coordinates":[[-122.4194,37.7749],[-104.9903,39.7392],[-74.0060,40.7128]]}' \
    | "$geo" spans --kind rhumb --style white --style black --length 100000 --length 50000 \
    | sed 's/"properties":{/"properties":{"stroke-width":6,/' \
    | "$geo" render --kind rhumb --geodesic --background '#aad3df' --graticule 5 --size 720x360 -o "$out/pattern.png"

# "Stamped polylines": an arrow sprite (GMSSpriteStyle) along the first half, a rail texture
# (GMSTextureStyle) along the second, from geo spans --style.
printf '%s\n' '{"type":"LineString","coordinates":[[151.20,-33.85],[151.40,-33.70],[151.41,-33.73]]}' \
    | "$geo" spans --style 'sprite(arrow)' --style 'texture(rail)' --length 14000 \
    | sed 's/"properties":{/"properties":{"stroke-width":12,/' \
    | "$geo" render --stamp arrow="$examples/arrow.png" --stamp rail="$examples/rail.png" --size 480x360 -o "$out/stamped.png"

# Tokyo to San Francisco, straight in Web Mercator and as the geodesic, drawn across the Pacific.
printf '%s\n' '{"type":"Feature","properties":{"stroke":"#888888","stroke-width":3},"geometry":{"type":"LineString","coordinates":[[139.6917,35.6895],[-122.4194,37.7749]]}}' \
              '{"type":"Feature","properties":{"stroke":"orange","stroke-width":4,"geodesic":true},"geometry":{"type":"LineString","coordinates":[[139.6917,35.6895],[-122.4194,37.7749]]}}' \
    | "$geo" render --graticule 10 --size 720x360 -o "$out/pacific.png"
