import Records

/// OUT/index.html: the tiles shown with pan (drag, arrow keys) and zoom (wheel, + and -,
/// double click), over a plain background, by a small script of geo's own: nothing from the
/// network, so it opens from the disk as it is. index.html#ZOOM/LAT/LON opens at that view.
enum TileViewer {
    static func write(into directory: String, _ metadata: TileMetadata) throws(RunFailure) {
        let c = metadata.center
        let page = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(metadata.name)): geo tiles</title>
        <style>
          html, body { margin: 0; height: 100%; font: 13px system-ui, sans-serif; }
          #map { position: absolute; inset: 0; overflow: hidden; background: #f2efe9; cursor: grab; touch-action: none; }
          #map img { position: absolute; width: 256px; height: 256px; user-select: none; -webkit-user-drag: none; }
          #bar { position: absolute; top: 8px; left: 8px; background: #fffd; padding: 4px 8px; border-radius: 4px; }
          #bar button { width: 28px; height: 28px; font-size: 16px; }
        </style>
        </head>
        <body>
        <div id="map"></div>
        <div id="bar"><button id="in" title="Zoom in">+</button> <button id="out" title="Zoom out">&minus;</button> <span id="where"></span></div>
        <script>
        // Tiles in the XYZ scheme: zoom z is 2^z tiles of 256 px across; (cx, cy) is the view's
        // centre in world pixels at zoom z.
        const minZoom = \(metadata.zooms.lowerBound), maxZoom = \(metadata.zooms.upperBound);
        const map = document.getElementById("map"), where = document.getElementById("where");
        function worldX(lon, z) { return (lon + 180) / 360 * 256 * 2 ** z; }
        function worldY(lat, z) {
          const s = Math.sin(lat * Math.PI / 180);
          return (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * 256 * 2 ** z;
        }
        // It opens where the ink is: the metadata's center (across ±180 when the shapes are).
        let z = \(c.zoom);
        let cx = worldX(\(c.longitude), z), cy = worldY(\(c.latitude), z);
        // index.html#ZOOM/LAT/LON opens there (the address bar follows the view).
        const asked = location.hash.slice(1).split("/").map(Number);
        if (asked.length === 3 && asked.every(Number.isFinite)) {
          z = Math.max(minZoom, Math.min(maxZoom, Math.round(asked[0])));
          cx = worldX(asked[2], z); cy = worldY(asked[1], z);
        }
        const shown = new Map();
        function draw() {
          const w = map.clientWidth, h = map.clientHeight, n = 2 ** z;
          const left = cx - w / 2, top = cy - h / 2, wanted = new Set();
          for (let x = Math.floor(left / 256); x <= Math.floor((left + w) / 256); x++) {
            for (let y = Math.max(0, Math.floor(top / 256)); y <= Math.min(n - 1, Math.floor((top + h) / 256)); y++) {
              const wrapped = ((x % n) + n) % n, key = z + "/" + x + "/" + y;
              wanted.add(key);
              let img = shown.get(key);
              if (!img) {
                img = new Image();
                // Shown once loaded: a tile with no ink is not written, and a browser draws a
                // missing image's outline until its error arrives.
                img.style.visibility = "hidden";
                img.onload = () => { img.style.visibility = "visible"; };
                img.src = z + "/" + wrapped + "/" + y + ".png";
                shown.set(key, img);
                map.appendChild(img);
              }
              img.style.left = Math.round(x * 256 - left) + "px";
              img.style.top = Math.round(y * 256 - top) + "px";
            }
          }
          for (const [key, img] of shown) if (!wanted.has(key)) { img.remove(); shown.delete(key); }
          const lon = cx / (256 * n) * 360 - 180, lat = Math.atan(Math.sinh(Math.PI * (1 - 2 * cy / (256 * n)))) * 180 / Math.PI;
          where.textContent = "zoom " + z + "  " + lat.toFixed(4) + ", " + lon.toFixed(4);
          history.replaceState(null, "", "#" + z + "/" + lat.toFixed(5) + "/" + lon.toFixed(5));
        }
        function zoomTo(next, px, py) {
          next = Math.max(minZoom, Math.min(maxZoom, next));
          if (next === z) return;
          const f = 2 ** (next - z), w = map.clientWidth, h = map.clientHeight;
          const ax = cx - w / 2 + px, ay = cy - h / 2 + py;
          cx = ax * f - px + w / 2; cy = ay * f - py + h / 2; z = next;
          draw();
        }
        let drag = null;
        map.addEventListener("pointerdown", e => { drag = [e.clientX, e.clientY]; map.setPointerCapture(e.pointerId); });
        map.addEventListener("pointermove", e => {
          if (!drag) return;
          cx -= e.clientX - drag[0]; cy -= e.clientY - drag[1]; drag = [e.clientX, e.clientY];
          draw();
        });
        map.addEventListener("pointerup", () => { drag = null; });
        map.addEventListener("wheel", e => { e.preventDefault(); zoomTo(z + (e.deltaY < 0 ? 1 : -1), e.clientX, e.clientY); }, { passive: false });
        map.addEventListener("dblclick", e => zoomTo(z + 1, e.clientX, e.clientY));
        document.getElementById("in").onclick = () => zoomTo(z + 1, map.clientWidth / 2, map.clientHeight / 2);
        document.getElementById("out").onclick = () => zoomTo(z - 1, map.clientWidth / 2, map.clientHeight / 2);
        addEventListener("keydown", e => {
          const step = { ArrowLeft: [-64, 0], ArrowRight: [64, 0], ArrowUp: [0, -64], ArrowDown: [0, 64] }[e.key];
          if (step) { cx += step[0]; cy += step[1]; draw(); }
          if (e.key === "+" || e.key === "=") zoomTo(z + 1, map.clientWidth / 2, map.clientHeight / 2);
          if (e.key === "-") zoomTo(z - 1, map.clientWidth / 2, map.clientHeight / 2);
        });
        addEventListener("resize", draw);
        draw();
        </script>
        </body>
        </html>

        """
        let output = try WholeFileOutput(directory + "/index.html")
        if let reason = Array(page.utf8).withUnsafeBytes({ writeAll(output.fd, $0) }) {
            output.discard()
            throw RunFailure("cannot write '\(directory)/index.html': \(reason)", status: .ioError)
        }
        try output.commit()
    }

    static func escape(_ text: String) -> String {
        text.replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;").replacingAll(">", with: "&gt;")
    }
}

private extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}
