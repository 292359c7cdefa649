"""Markers above shapes, as the Maps SDK draws them.

GMSOverlay's reference (https://developers.google.com/maps/documentation/ios-sdk/reference/objc/Classes/GMSOverlay):
higher zIndex overlays are drawn on top of lower ones, but markers are the exception: whatever
their zIndex, they are drawn above tile layers and every non-marker overlay (polylines,
polygons, circles). z-index orders markers among themselves, and shapes among themselves.

The first two tests fail until geo render draws its markers after its shapes; they are marked
xfail(strict=True), so that they fail loudly once it does: remove the marks with that change.
"""

import pytest

from conftest import ndjson, run
from test_render import box_fit, close, feature, merc, rasterise

GREEN, RED, BLUE = (0, 255, 0), (255, 0, 0), (0, 0, 255)
BOX = (-1.2, -1.2, 1.2, 1.2)


def draw(tmp_path, records):
    out = tmp_path / "out.png"
    rc, _, err = run(["render", "--bbox", ",".join(map(str, BOX)), "--size", "200x200", "-o", out], ndjson(records))
    assert rc == 0, err
    image = rasterise(out, "png", tmp_path)
    return lambda lon, lat: image.getpixel(tuple(map(int, box_fit(*BOX, 200, 200).pixel(*merc(lon, lat)))))


MARKER = feature("Point", [0, 0], **{"marker-color": "#00ff00", "marker-size": "large", "z-index": -5})


@pytest.mark.xfail(strict=True, reason="geo render still orders markers with shapes by z-index (RenderCommand)")
def test_a_marker_is_above_a_line_of_higher_z_index(tmp_path):
    at = draw(tmp_path, [MARKER, feature("LineString", [[-1, 0], [1, 0]], stroke="red", **{"stroke-width": 30, "z-index": 10})])
    assert close(at(0, 0), GREEN), at(0, 0)
    assert close(at(0.5, 0), RED)  # the line is drawn, under the marker


@pytest.mark.xfail(strict=True, reason="geo render still draws a later shape over an earlier marker (RenderCommand)")
def test_a_marker_is_above_a_polygon_drawn_after_it(tmp_path):
    square = [[[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]]
    at = draw(tmp_path, [MARKER, feature("Polygon", square, fill="#0000ff", **{"fill-opacity": 1, "stroke-width": 0})])
    assert close(at(0, 0), GREEN), at(0, 0)
    assert close(at(0.5, 0.5), BLUE)


def test_markers_keep_their_own_z_order(tmp_path):
    """Among markers, z-index then input order, as before."""
    records = [feature("Point", [0, 0], **{"marker-color": "#ff0000", "marker-size": "large", "z-index": 2}),
               feature("Point", [0, 0], **{"marker-color": "#0000ff", "marker-size": "large"}),
               feature("Point", [0.5, 0], **{"marker-color": "#0000ff", "marker-size": "large"}),
               feature("Point", [0.5, 0], **{"marker-color": "#00ff00", "marker-size": "small"})]
    at = draw(tmp_path, records)
    assert close(at(0, 0), RED)         # z 2 over z 0, though given first
    assert close(at(0.5, 0), GREEN)     # equal z: the later one on top
