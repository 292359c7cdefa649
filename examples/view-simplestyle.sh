#!/usr/bin/env bash
# view-simplestyle.sh: draw GeoJSON the way geojson.io does, offline, and optionally screenshot it.
#
#   geo decode routes.polyline | geo spans --split --style red --style blue --length 50000 \
#       --width 4 --collection > spans.geojson
#   examples/view-simplestyle.sh INPUT HTML [PNG]   e.g. spans.geojson spans.html spans.png
#
# INPUT is geo's output, NDJSON or --collection. Writes HTML: a Leaflet map (Debian's
# libjs-leaflet, no network) of the features, each line drawn with its simplestyle properties as
# geojson.io draws them: `stroke` (colour), `stroke-width`, `stroke-opacity`. With PNG, headless
# Chromium (Debian's chromium) renders the page to that file. geo's `stroke-end` (a gradient
# piece's colour at its far end) is not simplestyle and viewers ignore it; gradients still show,
# since they are cut at every vertex, each piece with its own `stroke`.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,12s/^# \{0,1\}//p' "$0" >&2; exit 64; }
input=$1 html=$2 png=${3:-}
leaflet=/usr/share/javascript/leaflet
[ -f "$leaflet/leaflet.js" ] || { echo "view-simplestyle.sh: apt-get install libjs-leaflet" >&2; exit 69; }

{
  cat <<EOF
<!doctype html><meta charset="utf-8"><title>$(basename "$input")</title>
<link rel="stylesheet" href="file://$leaflet/leaflet.css"><script src="file://$leaflet/leaflet.js"></script>
<style>html,body,#map{margin:0;height:100%;background:#fff}</style><div id="map"></div>
<script>
const data =
EOF
  # NDJSON or a FeatureCollection: one FeatureCollection for Leaflet. `</` is escaped so that
  # a property holding "</script>" cannot end the script early.
  jq -cs '{type: "FeatureCollection", features: [.[] | if .type == "FeatureCollection" then
    .features[] elif .type == "Feature" then . else {type: "Feature", properties: {}, geometry: .}
    end]}' "$input" | sed 's#</#<\\/#g'
  cat <<'EOF'
;
const map = L.map("map", {zoomSnap: 0.1});
const layer = L.geoJSON(data, {style: ({properties: p}) => ({
  color: p?.stroke || "#555555",
  weight: p?.["stroke-width"] ?? 2,
  opacity: p?.["stroke-opacity"] ?? 1,
})}).addTo(map);
map.fitBounds(layer.getBounds(), {padding: [20, 20]});
</script>
EOF
} > "$html"

if [ -n "$png" ]; then
  browser=$(command -v chromium || command -v chromium-browser || true)
  [ -n "$browser" ] || { echo "view-simplestyle.sh: apt-get install chromium" >&2; exit 69; }
  "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
    --window-size=1000,700 --virtual-time-budget=2000 --screenshot="$(realpath -m "$png")" \
    "file://$(realpath "$html")" 2>/dev/null
fi
