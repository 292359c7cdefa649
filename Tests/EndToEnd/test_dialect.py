"""End-to-end tests of geo reading what people and other tools actually write: colours as CSS,
geojson.io and ogr2ogr write them, GPX tracks (MultiLineStrings) through ogr2ogr, projected
layers, Latin-1 files, kilometre radii, and the messages that point the way when geo still
cannot read them."""

import json
import shutil
import subprocess

import pytest

from conftest import ndjson, run, run_full
from test_render import BOX, LINE, WHITE, along, box_fit, close, feature, render


def ogr2ogr(*args):
    exe = shutil.which("ogr2ogr")
    if exe is None:
        pytest.fail("ogr2ogr is missing: install gdal-bin (make setup)", pytrace=False)
    subprocess.run([exe, *map(str, args)], check=True, capture_output=True)


# ---- 1. colours as people write them --------------------------------------------------------

@pytest.mark.parametrize("properties, expected", [
    ({"stroke": "#e00"}, (238, 0, 0)),                     # simplestyle's 3 digits, geojson.io's
    ({"stroke": "#E00"}, (238, 0, 0)),
    ({"stroke": "rgb(0, 0, 255)"}, (0, 0, 255)),           # CSS, 0-255
    ({"stroke": "rgba(255,0,0,0.5)"}, (255, 128, 128)),    # CSS: a channel above 1
    ({"stroke": "rgba(1,0,0,0.5)"}, (255, 128, 128)),      # UIColor's 0-1 floats still
    ({"stroke": "rgba(0,0,1,1)"}, (0, 0, 255)),
    ({"stroke": "grey"}, (128, 128, 128)),                 # CSS's spelling
    ({"stroke": "#00f", "stroke-opacity": "0.5"}, (128, 128, 255)),  # a numeric string (ogr2ogr from CSV)
])
def test_colours_as_css_and_simplestyle_write_them_are_drawn(tmp_path, properties, expected):
    image, err = render(tmp_path, [feature("LineString", LINE, **{"stroke-width": 12, **properties})],
                        ["--bbox", ",".join(map(str, BOX))])
    assert err == ""
    x, y = box_fit(*BOX).pixel(*along(LINE, 0.5))
    assert close(image.getpixel((int(x), int(y))), expected, 3), image.getpixel((int(x), int(y)))


def test_widths_and_z_indexes_as_numeric_strings(tmp_path):
    """ogr2ogr writes every CSV column as a string: "stroke-width": "9" is a width of 9 px."""
    records = [feature("LineString", LINE, stroke="red", **{"stroke-width": "20", "z-index": "2"}),
               feature("LineString", LINE, stroke="blue", **{"stroke-width": "2"})]
    image, err = render(tmp_path, records, ["--bbox", ",".join(map(str, BOX))])
    assert err == ""
    x, y = box_fit(*BOX).pixel(*along(LINE, 0.5))
    assert close(image.getpixel((int(x), int(y))), (255, 0, 0))        # z-index "2" above the blue
    assert close(image.getpixel((int(x) + 6, int(y))), (255, 0, 0))    # 20 px wide, not the default 2


def test_a_colour_that_cannot_be_read_names_the_forms_and_the_likely_name(tmp_path):
    records = [feature("LineString", LINE, stroke="rde"),
               feature("LineString", LINE, stroke="red", fill="Dark Gray"),
               feature("LineString", LINE, stroke="red", **{"stroke-width": "wide"}),
               feature("LineString", LINE, stroke="red", **{"stroke-width": 12})]
    image, err = render(tmp_path, records, ["--bbox", ",".join(map(str, BOX))], expect=65)
    lines = err.splitlines()
    assert lines[0] == ("geo render: <stdin>:1: properties.stroke: 'rde' is not a colour or style: use a name, "
                        "#RGB, #RRGGBB, #RRGGBBAA, rgb(R,G,B) or rgba(R,G,B,A), gradient(FROM,TO), sprite(NAME) "
                        "or texture(NAME); did you mean 'red'?"), err
    assert lines[1] == ("geo render: <stdin>:2: properties.fill: 'Dark Gray' is not a colour: use a name, #RGB, "
                        "#RRGGBB, #RRGGBBAA, rgb(R,G,B) or rgba(R,G,B,A); did you mean 'darkgray'?"), err
    assert lines[2] == 'geo render: <stdin>:3: properties.stroke-width: "wide" is not a width in pixels, 0 or more', err
    x, y = box_fit(*BOX).pixel(*along(LINE, 0.5))
    assert close(image.getpixel((int(x), int(y))), (255, 0, 0))  # the good record is drawn


def test_spans_reads_the_same_colours_and_suggests_names():
    path = {"type": "LineString", "coordinates": [[0, 0], [0.01, 0]]}
    rc, out, err = run(["spans", "--style", "#e00", "--style", "rgba(0,0,255,0.5)", "--length", "500", "--split"],
                       ndjson([path]))
    assert rc == 0, err
    pieces = [json.loads(line)["properties"] for line in out.decode().splitlines()]
    assert pieces[0]["stroke"] == "#ee0000"
    assert pieces[1]["stroke"] == "#0000ff" and abs(pieces[1]["stroke-opacity"] - 0.5) < 0.01
    rc, _, err = run(["spans", "--style", "purpel", "--length", "500"], ndjson([path]))
    assert rc == 64
    assert "'purpel' is not a style: use a colour (a name, #RGB, #RRGGBB, #RRGGBBAA, rgb(R,G,B) or rgba(R,G,B,A))" in err
    assert err.splitlines()[0].endswith("; did you mean 'purple'?"), err
