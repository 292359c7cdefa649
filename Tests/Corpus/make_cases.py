#!/usr/bin/env python3
"""Writes the hostile-input corpus: one file per case, and manifest.json with what each command
must do with it ("ok": a record out; "bad": a line-numbered error, the other records intact;
"partial": a collection whose good features come out while each bad one is reported by itself).

Each case file holds ONE hostile line; Tests/EndToEnd/test_hostile.py puts it between good records
and checks every command on it. Cases too big to keep in git (a 100 MB line, 100,000-deep
nesting, a FeatureCollection of 1 M features) are described here and built by the test.
Run this script again after changing a case; the files are checked in.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# The commands under test, by the name the manifest uses.
COMMANDS = {
    "encode": ["encode"],
    "encode-json": ["encode", "--to", "geojson"],
    "length": ["length", "--cumulative"],
    "length-projected": ["length", "--kind", "projected"],
    "interpolate": ["interpolate", "--fraction", "0.5"],
    "densify": ["interpolate", "--densify", "100000", "--kind", "rhumb"],
    "circle": ["circle-to-polygon", "--radius", "1000", "--segments", "8"],
    "spans": ["spans", "--span", "red", "--span", "gradient(red,blue)", "--split"],
    "area": ["area", "--signed"],
    "locate": ["locate", "--point", "20.5,10.5"],
    "simplify": ["simplify", "--tolerance", "1000"],
}

# area and simplify read what length reads; locate --point too, but a shape without positions has
# nothing to locate against.
NOTHING_TO_LOCATE = {"null-geometry", "empty-ring"}

def feature(geometry, properties=None):
    return {"type": "Feature", "properties": properties if properties is not None else {}, "geometry": geometry}

def line(value):
    return json.dumps(value, separators=(",", ":")).encode()

ALL_OK = {name: "ok" for name in COMMANDS}
ALL_BAD = {name: "bad" for name in COMMANDS}
ALL_PARTIAL = {name: "partial" for name in COMMANDS}

def outcome(ok=(), bad=()):
    result = dict(ALL_OK)
    for name in bad:
        result[name] = "bad"
    return result

# Which commands take which geometry type (SPEC §5 and each command's --help).
PATHLESS = ["interpolate", "circle", "spans"]
GEOMETRIES = {
    "point": ({"type": "Point", "coordinates": [10, 20]}, outcome(bad=[])),
    "multipoint": ({"type": "MultiPoint", "coordinates": [[10, 20], [11, 21]]}, outcome(bad=["interpolate", "circle", "spans"])),
    "linestring": ({"type": "LineString", "coordinates": [[10, 20], [11, 21]]}, outcome(bad=["circle"])),
    "multilinestring": ({"type": "MultiLineString", "coordinates": [[[10, 20], [11, 21]], [[0, 0], [1, 1]]]},
                        outcome(bad=["encode", "circle"])),
    "polygon": ({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}, outcome(bad=PATHLESS)),
    "polygon-with-hole": ({"type": "Polygon", "coordinates": [[[0, 0], [3, 0], [3, 3], [0, 0]], [[1, 1], [2, 1], [1, 2], [1, 1]]]},
                          outcome(bad=["encode"] + PATHLESS)),
    "multipolygon": ({"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]]},
                     outcome(bad=["encode"] + PATHLESS)),
    "geometrycollection": ({"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [1, 2]}]},
                           outcome(bad=["encode"] + PATHLESS)),
}

def cases():
    for name, (geometry, expected) in GEOMETRIES.items():
        yield f"type-{name}", line(feature(geometry)), expected
        yield f"bare-{name}", line(geometry), expected
    yield "null-geometry", line(feature(None)), outcome(bad=["interpolate", "circle", "spans"])
    lines = {"type": "LineString", "coordinates": [[10, 20], [11, 21]]}
    path_ok = outcome(bad=["circle"])
    yield "invalid-utf8", b'{"type":"Feature","properties":{"name":"caf\xe9 \xff\xfe"},"geometry":null}', ALL_BAD
    yield "overlong-utf8", b'{"type":"Feature","properties":{"name":"\xc0\xaf"},"geometry":null}', ALL_BAD
    yield "nul-in-string", b'{"type":"Feature","properties":{"name":"a\x00b"},"geometry":null}', ALL_BAD
    yield "nul-outside-string", b'{"type":"Point",\x00"coordinates":[1,2]}', ALL_BAD
    yield "bom-in-the-middle", b"\xef\xbb\xbf" + line(lines), ALL_BAD
    yield "one-byte-line", b"x", ALL_BAD
    yield "one-brace", b"{", ALL_BAD
    yield "truncated-line", line(lines)[:-7], ALL_BAD
    yield "not-an-object", b"[1,2,3]", ALL_BAD
    yield "nan-literal", b'{"type":"Point","coordinates":[NaN,1]}', ALL_BAD
    yield "coordinate-1e999", b'{"type":"Point","coordinates":[1e999,1]}', ALL_BAD
    yield "property-1e999", b'{"type":"Feature","properties":{"big":1e999},"geometry":{"type":"LineString","coordinates":[[10,20],[11,21]]}}', path_ok
    yield "minus-zero", b'{"type":"LineString","coordinates":[[-0,-0.0],[1,1]]}', path_ok
    yield "underflow-1e-400", b'{"type":"LineString","coordinates":[[1e-400,-1e-400],[1,1]]}', path_ok
    yield "seventeen-digit-mantissas", b'{"type":"LineString","coordinates":[[12.345678901234567,-1.2345678901234567],[179.99999999999997,89.999999999999986]]}', path_ok
    yield "very-long-mantissa", b'{"type":"LineString","coordinates":[[1.' + b"1" * 400 + b',2],[3,4]]}', path_ok
    yield "duplicate-geometry-key", b'{"type":"Feature","properties":{},"geometry":null,"geometry":{"type":"Point","coordinates":[1,2]}}', ALL_BAD
    yield "duplicate-foreign-key", b'{"type":"Feature","x":1,"x":2,"properties":{"a":1,"a":2},"geometry":{"type":"LineString","coordinates":[[10,20],[11,21]]}}', path_ok
    yield "coordinates-null", b'{"type":"LineString","coordinates":null}', ALL_BAD
    yield "mixed-dimensions", b'{"type":"LineString","coordinates":[[10,20,100],[11,21,200,7],[12,22]]}', path_ok
    yield "empty-ring", line({"type": "Polygon", "coordinates": [[]]}), outcome(bad=PATHLESS)
    yield "unclosed-ring", line({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1]]]}), outcome(bad=PATHLESS)
    yield "self-crossing-ring", line({"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}), outcome(bad=PATHLESS)
    yield "latitude-just-past-90", b'{"type":"Point","coordinates":[0,90.0000000001]}', ALL_BAD
    yield "latitude-exactly-90", b'{"type":"LineString","coordinates":[[0,90],[10,80]]}', outcome(bad=["circle", "length-projected"])
    yield "longitudes-plus-minus-1e6", b'{"type":"LineString","coordinates":[[1000000,10],[-1000000,11]]}', path_ok
    yield "position-with-one-number", b'{"type":"LineString","coordinates":[[1],[2,3]]}', ALL_BAD
    yield "unknown-type", b'{"type":"Circle","coordinates":[1,2]}', ALL_BAD
    yield "feature-without-geometry", b'{"type":"Feature","properties":{}}', ALL_BAD
    yield "string-escapes", b'{"type":"Feature","properties":{"s":"\\u00e9\\ud83d\\ude00\\"\\\\\\/\\b\\f\\n\\r\\t","lone":"\\udc00"},"geometry":{"type":"LineString","coordinates":[[10,20],[11,21]]}}', path_ok
    yield "whitespace-everywhere", b' \t{ "type" :\t"LineString" , "coordinates" : [ [ 10 , 20 ] , [ 11 , 21 ] ] } \t', path_ok
    yield "feature-collection-mixed", line({"type": "FeatureCollection", "features": [feature(lines), feature({"type": "Point", "coordinates": [1, 95]})]}), ALL_PARTIAL

GENERATED = {
    "line-of-100-mb": {"what": "one LineString of about 100 MB (4.8 M positions)", "commands": ["encode", "length"], "outcome": "ok"},
    "nesting-100000-deep": {"what": "100,000 nested arrays inside properties", "commands": list(COMMANDS), "outcome": "bad"},
    "feature-collection-of-1m": {"what": "a FeatureCollection of 1,000,000 Point features on one line", "commands": ["encode", "length"], "outcome": "ok"},
}

def main():
    manifest = {"commands": COMMANDS, "cases": {}, "generated": GENERATED}
    for name, data, expected in cases():
        assert b"\n" not in data and b"\r" not in data, name
        with open(os.path.join(HERE, "cases", name + ".ndjson"), "wb") as f:
            f.write(data + b"\n")
        expected = dict(expected, area=expected["length"],
                        locate="bad" if name in NOTHING_TO_LOCATE and expected["length"] == "ok" else expected["length"],
                        simplify=expected["length"])
        manifest["cases"][name] = expected
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")

if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    main()
