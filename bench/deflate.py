#!/usr/bin/env python3
"""geo's tile deflater against zlib, on real tiles: the inflated rows of every tile of a tile
directory (default: bench/out/tiles/europe-geo, which `python3 bench/tiles.py` leaves), deflated
by RunDeflate as geo tiles calls it and by zlib at levels 1, 2 and 6, one core, best of
--repeat passes; palette tiles (one byte a pixel) and RGBA ones (four) apart, a table each.
Builds bench/out/deflate_tiles from bench/deflate_tiles.c (cc, zlib1g-dev).

usage: python3 bench/deflate.py [--tiles DIR] [--repeat N]
"""
import argparse, os, struct, subprocess, sys, zlib
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"


def rows_of(png):
    """(width, height, bytes a pixel, inflated IDAT) of a PNG file's bytes."""
    at, stream, width, height, pixel = 8, b"", 0, 0, 4
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        payload = png[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", payload[:8])
            pixel = 1 if payload[9] == 3 else 4   # colour type 3: a palette index a pixel
        elif kind == b"IDAT":
            stream += payload
        at += 12 + length
    return width, height, pixel, zlib.decompress(stream)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tiles", type=Path, default=OUT / "tiles" / "europe-geo")
    p.add_argument("--repeat", type=int, default=3)
    options = p.parse_args()
    paths = sorted(options.tiles.glob("*/*/*.png"))
    if not paths:
        sys.exit(f"no tiles under {options.tiles}: run python3 bench/tiles.py first (or give --tiles)")
    OUT.mkdir(parents=True, exist_ok=True)
    size, kinds = None, {}   # bytes a pixel: (rows file, tiles)
    for path in paths:
        width, height, pixel, raw = rows_of(path.read_bytes())
        if size not in (None, (width, height)):
            sys.exit(f"{path}: {width}x{height}, the others {size[0]}x{size[1]}")
        size = (width, height)
        if pixel not in kinds:
            kinds[pixel] = [open(OUT / f"deflate-rows-{pixel}.bin", "wb"), 0]
        kinds[pixel][0].write(raw)
        kinds[pixel][1] += 1
    exe, sources = OUT / "deflate_tiles", [BENCH / "deflate_tiles.c", REPO / "Sources" / "RunDeflate" / "run_deflate.c"]
    if not exe.exists() or any(s.stat().st_mtime > exe.stat().st_mtime for s in sources):
        subprocess.run(["cc", "-O3", "-I", str(REPO / "Sources" / "RunDeflate" / "include"), *map(str, sources), "-lz", "-o", str(exe)], check=True)
    for pixel, (rows, count) in sorted(kinds.items()):
        rows.close()
        text = subprocess.run([str(exe), rows.name, str(1 + pixel * size[0]), str(size[1]), str(pixel), str(options.repeat)],
                              check=True, capture_output=True, text=True).stdout
        r = dict(line.split() for line in text.splitlines())
        run_us, run_mb = float(r["run_us_per_tile"]), int(r["run_bytes"]) / 1e6
        kind = "palette" if pixel == 1 else "RGBA"
        print(f"\n{r['tiles']} {kind} tiles of {size[0]}x{size[1]} from {options.tiles}, one core, best of {options.repeat}")
        print("| deflater | µs a tile | MB | time vs run deflater | size vs run deflater |")
        print("|---|---:|---:|---:|---:|")
        print(f"| geo's run deflater | {run_us:.0f} | {run_mb:.1f} | 1.00× | 1.00× |")
        for level in (1, 2, 6):
            us, mb = float(r[f"zlib{level}_us_per_tile"]), int(r[f"zlib{level}_bytes"]) / 1e6
            print(f"| zlib level {level} | {us:.0f} | {mb:.1f} | {us / run_us:.2f}× | {mb / run_mb:.3f}× |")


if __name__ == "__main__":
    main()
