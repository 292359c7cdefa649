# fish completion for geo 0.2.0, printed by 'geo completion fish'.
# Generated from the command descriptions: do not edit.
# Load it with: geo completion fish | source

# Whether the command (the word after geo) is one of the arguments.
function __geo_using
    set -l words (commandline -opc)
    set -q words[2]; and contains -- $words[2] $argv
end

# Whether the command is a plugin: a word that is not an option, a built-in or a helper.
function __geo_plugin
    set -l words (commandline -opc)
    set -q words[2]; and not string match -q -- '-*' $words[2]
    and not contains -- $words[2] encode decode length interpolate circle-to-polygon spans help commands completion
end

complete -c geo -f
complete -c geo -n __fish_use_subcommand -l help -d 'Show help, or a command\'s help'
complete -c geo -n __fish_use_subcommand -l version -d 'Show the version of geo and of PROJ'
complete -c geo -n __fish_use_subcommand -a '(geo commands 2>/dev/null)'
complete -c geo -n __fish_use_subcommand -a help -d 'Describe a command'
complete -c geo -n __fish_use_subcommand -a commands -d 'List the built-in commands and the plugins'
complete -c geo -n __fish_use_subcommand -a completion -d 'Print the completion script for bash, zsh or fish'
complete -c geo -n '__geo_using help; and test (count (commandline -opc)) -eq 2' -a '(geo commands 2>/dev/null)'
complete -c geo -n '__geo_using help; and test (count (commandline -opc)) -eq 2' -a completion -d 'Print the completion script for bash, zsh or fish'
complete -c geo -n '__geo_using completion; and test (count (commandline -opc)) -eq 2' -a 'bash zsh fish'
complete -c geo -n __geo_plugin -F
complete -c geo -n '__geo_using encode' -F
complete -c geo -n '__geo_using encode' -s p -l precision -x -d 'Decimal digits kept: 5 for Google, 6 for OSRM/Valhalla polyline6'
complete -c geo -n '__geo_using encode' -l to -x -a 'text json' -d 'Output: one polyline per line, or the Feature with properties.polyline'
complete -c geo -n '__geo_using encode' -l rs -d 'Write RFC 8142 GeoJSON text sequences: an RS byte (0x1E) before each record'
complete -c geo -n '__geo_using encode' -l collection -d 'Wrap the output in one FeatureCollection (a single JSON document)'
complete -c geo -n '__geo_using encode' -s o -l output -r -F -d 'Write to FILE instead of standard output'
complete -c geo -n '__geo_using encode' -l strict -d 'Stop at the first bad record (exit 65) instead of reporting it and going on'
complete -c geo -n '__geo_using encode' -l rejects -r -F -d 'Also write each bad record to FILE as {"source","line","error","input"} so nothing is lost (no file is left when no record is bad)'
complete -c geo -n '__geo_using encode' -s j -l jobs -x -d 'Process records on N threads; output stays in input order'
complete -c geo -n '__geo_using encode' -s q -l quiet -d 'Never show the progress line'
complete -c geo -n '__geo_using encode' -l progress -d 'Show the progress line on standard error even when it is not a terminal'
complete -c geo -n '__geo_using decode' -F
complete -c geo -n '__geo_using decode' -s p -l precision -x -d 'Decimal digits of the polylines: 5 for Google, 6 for OSRM/Valhalla polyline6'
complete -c geo -n '__geo_using decode' -l field -x -d 'Read Features and decode the polyline in properties.NAME'
complete -c geo -n '__geo_using decode' -l to -x -a 'geojson json text' -d 'Output: GeoJSON Features (json is the same), or lines of "lat,lng" pairs'
complete -c geo -n '__geo_using decode' -l digits -x -d 'Round output coordinates to N decimals (half away from zero); default: the shortest digits that read back exactly'
complete -c geo -n '__geo_using decode' -l rs -d 'Write RFC 8142 GeoJSON text sequences: an RS byte (0x1E) before each record'
complete -c geo -n '__geo_using decode' -l collection -d 'Wrap the output in one FeatureCollection (a single JSON document)'
complete -c geo -n '__geo_using decode' -s o -l output -r -F -d 'Write to FILE instead of standard output'
complete -c geo -n '__geo_using decode' -l strict -d 'Stop at the first bad record (exit 65) instead of reporting it and going on'
complete -c geo -n '__geo_using decode' -l rejects -r -F -d 'Also write each bad record to FILE as {"source","line","error","input"} so nothing is lost (no file is left when no record is bad)'
complete -c geo -n '__geo_using decode' -s j -l jobs -x -d 'Process records on N threads; output stays in input order'
complete -c geo -n '__geo_using decode' -s q -l quiet -d 'Never show the progress line'
complete -c geo -n '__geo_using decode' -l progress -d 'Show the progress line on standard error even when it is not a terminal'
complete -c geo -n '__geo_using length' -F
complete -c geo -n '__geo_using length' -l field -x -d 'The property the length goes in'
complete -c geo -n '__geo_using length' -l cumulative -d 'Also add properties.cumulative_m, the distance from the start at each vertex'
complete -c geo -n '__geo_using length' -l kind -x -a 'geodesic rhumb projected' -d 'How edges run and are measured: geodesic (shortest path on the ellipsoid), rhumb (constant bearing), or projected (straight in Web Mercator, lengths in Web Mercator metres)'
complete -c geo -n '__geo_using length' -l ellps -x -a 'MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere' -d 'The ellipsoid, by PROJ\'s name (WGS84, GRS80, intl, clrk66, ...: \'proj -le\' lists them)'
complete -c geo -n '__geo_using length' -l sphere -x -d 'A sphere of radius R metres instead of an ellipsoid; 6371009 reproduces the Maps SDK\'s figures'
complete -c geo -n '__geo_using length' -l from -x -a 'geojson polyline' -d 'Input format: GeoJSON records, or one encoded polyline per line (raw or a JSON string)'
complete -c geo -n '__geo_using length' -s p -l precision -x -d 'Decimal digits of the encoded polylines read with --from polyline (6 for OSRM/Valhalla)'
complete -c geo -n '__geo_using length' -l rs -d 'Write RFC 8142 GeoJSON text sequences: an RS byte (0x1E) before each record'
complete -c geo -n '__geo_using length' -l collection -d 'Wrap the output in one FeatureCollection (a single JSON document)'
complete -c geo -n '__geo_using length' -s o -l output -r -F -d 'Write to FILE instead of standard output'
complete -c geo -n '__geo_using length' -l strict -d 'Stop at the first bad record (exit 65) instead of reporting it and going on'
complete -c geo -n '__geo_using length' -l rejects -r -F -d 'Also write each bad record to FILE as {"source","line","error","input"} so nothing is lost (no file is left when no record is bad)'
complete -c geo -n '__geo_using length' -s j -l jobs -x -d 'Process records on N threads; output stays in input order'
complete -c geo -n '__geo_using length' -s q -l quiet -d 'Never show the progress line'
complete -c geo -n '__geo_using length' -l progress -d 'Show the progress line on standard error even when it is not a terminal'
complete -c geo -n '__geo_using interpolate' -F
complete -c geo -n '__geo_using interpolate' -l fraction -x -d 'One point at this fraction (0 to 1) of the path\'s length'
complete -c geo -n '__geo_using interpolate' -l distance -x -d 'One point D metres from the start (negative: from the end)'
complete -c geo -n '__geo_using interpolate' -l every -x -d 'Points every D metres, the end included (a MultiPoint)'
complete -c geo -n '__geo_using interpolate' -l count -x -d 'N points evenly spaced by length, both ends included (a MultiPoint)'
complete -c geo -n '__geo_using interpolate' -l densify -x -d 'The path with points inserted so that no edge is longer than D metres'
complete -c geo -n '__geo_using interpolate' -l kind -x -a 'geodesic rhumb projected' -d 'How edges run and are measured: geodesic (shortest path on the ellipsoid), rhumb (constant bearing), or projected (straight in Web Mercator, lengths in Web Mercator metres)'
complete -c geo -n '__geo_using interpolate' -l ellps -x -a 'MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere' -d 'The ellipsoid, by PROJ\'s name (WGS84, GRS80, intl, clrk66, ...: \'proj -le\' lists them)'
complete -c geo -n '__geo_using interpolate' -l sphere -x -d 'A sphere of radius R metres instead of an ellipsoid; 6371009 reproduces the Maps SDK\'s figures'
complete -c geo -n '__geo_using interpolate' -l from -x -a 'geojson polyline' -d 'Input format: GeoJSON records, or one encoded polyline per line (raw or a JSON string)'
complete -c geo -n '__geo_using interpolate' -s p -l precision -x -d 'Decimal digits of the encoded polylines read with --from polyline (6 for OSRM/Valhalla)'
complete -c geo -n '__geo_using interpolate' -l to -x -a 'geojson polyline' -d 'Output: GeoJSON Features, or each record\'s path as an encoded polyline line (at --precision)'
complete -c geo -n '__geo_using interpolate' -l digits -x -d 'Round output coordinates to N decimals (half away from zero); default: the shortest digits that read back exactly'
complete -c geo -n '__geo_using interpolate' -l rs -d 'Write RFC 8142 GeoJSON text sequences: an RS byte (0x1E) before each record'
complete -c geo -n '__geo_using interpolate' -l collection -d 'Wrap the output in one FeatureCollection (a single JSON document)'
complete -c geo -n '__geo_using interpolate' -s o -l output -r -F -d 'Write to FILE instead of standard output'
complete -c geo -n '__geo_using interpolate' -l strict -d 'Stop at the first bad record (exit 65) instead of reporting it and going on'
complete -c geo -n '__geo_using interpolate' -l rejects -r -F -d 'Also write each bad record to FILE as {"source","line","error","input"} so nothing is lost (no file is left when no record is bad)'
complete -c geo -n '__geo_using interpolate' -s j -l jobs -x -d 'Process records on N threads; output stays in input order'
complete -c geo -n '__geo_using interpolate' -s q -l quiet -d 'Never show the progress line'
complete -c geo -n '__geo_using interpolate' -l progress -d 'Show the progress line on standard error even when it is not a terminal'
complete -c geo -n '__geo_using circle-to-polygon' -F
complete -c geo -n '__geo_using circle-to-polygon' -l center -x -d 'One circle around this centre (latitude first, like CLLocationCoordinate2D); no input is read'
complete -c geo -n '__geo_using circle-to-polygon' -l radius -x -d 'The radius in metres'
complete -c geo -n '__geo_using circle-to-polygon' -l radius-field -x -d 'Take each circle\'s radius from properties.NAME (metres)'
complete -c geo -n '__geo_using circle-to-polygon' -l segments -x -d 'The number of vertices'
complete -c geo -n '__geo_using circle-to-polygon' -l tolerance -x -d 'The fewest vertices such that no edge strays more than M metres from the circle'
complete -c geo -n '__geo_using circle-to-polygon' -l ellps -x -a 'MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere' -d 'The ellipsoid, by PROJ\'s name (WGS84, GRS80, intl, clrk66, ...: \'proj -le\' lists them)'
complete -c geo -n '__geo_using circle-to-polygon' -l sphere -x -d 'A sphere of radius R metres instead of an ellipsoid; 6371009 reproduces the Maps SDK\'s figures'
complete -c geo -n '__geo_using circle-to-polygon' -l to -x -a 'geojson polyline' -d 'Output: GeoJSON Features, or each record\'s path as an encoded polyline line (at --precision)'
complete -c geo -n '__geo_using circle-to-polygon' -s p -l precision -x -d 'Decimal digits of --to polyline output'
complete -c geo -n '__geo_using circle-to-polygon' -l digits -x -d 'Round output coordinates to N decimals (half away from zero); default: the shortest digits that read back exactly'
complete -c geo -n '__geo_using circle-to-polygon' -l rs -d 'Write RFC 8142 GeoJSON text sequences: an RS byte (0x1E) before each record'
complete -c geo -n '__geo_using circle-to-polygon' -l collection -d 'Wrap the output in one FeatureCollection (a single JSON document)'
complete -c geo -n '__geo_using circle-to-polygon' -s o -l output -r -F -d 'Write to FILE instead of standard output'
complete -c geo -n '__geo_using circle-to-polygon' -l strict -d 'Stop at the first bad record (exit 65) instead of reporting it and going on'
complete -c geo -n '__geo_using circle-to-polygon' -l rejects -r -F -d 'Also write each bad record to FILE as {"source","line","error","input"} so nothing is lost (no file is left when no record is bad)'
complete -c geo -n '__geo_using circle-to-polygon' -s j -l jobs -x -d 'Process records on N threads; output stays in input order'
complete -c geo -n '__geo_using circle-to-polygon' -s q -l quiet -d 'Never show the progress line'
complete -c geo -n '__geo_using circle-to-polygon' -l progress -d 'Show the progress line on standard error even when it is not a terminal'
complete -c geo -n '__geo_using spans' -F
complete -c geo -n '__geo_using spans' -l style -x -a 'aqua beige black blue brown chocolate clear coral crimson cyan darkblue darkgray darkgreen darkorange darkred firebrick forestgreen fuchsia gold gray green hotpink indigo ivory khaki lavender lightgray lime magenta maroon navy olive orange orchid pink purple red royalblue salmon seagreen silver skyblue slategray steelblue tan teal tomato transparent turquoise violet white yellow' -d 'A pattern style: a colour or gradient(FROM,TO)'
complete -c geo -n '__geo_using spans' -l length -x -d 'A pattern length in metres'
complete -c geo -n '__geo_using spans' -l offset -x -d 'Skip X metres of pattern first (GMSStyleSpansOffset)'
complete -c geo -n '__geo_using spans' -l span -x -d 'An explicit span (GMSStyleSpan) covering SEGMENTS path segments (default 1)'
complete -c geo -n '__geo_using spans' -l split -d 'Output one LineString Feature per span piece, with simplestyle stroke properties'
complete -c geo -n '__geo_using spans' -l width -x -d 'With --split: stroke-width of every piece'
complete -c geo -n '__geo_using spans' -l kind -x -a 'geodesic rhumb projected' -d 'How edges run and are measured: geodesic (shortest path on the ellipsoid), rhumb (constant bearing), or projected (straight in Web Mercator, lengths in Web Mercator metres)'
complete -c geo -n '__geo_using spans' -l ellps -x -a 'MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere' -d 'The ellipsoid, by PROJ\'s name (WGS84, GRS80, intl, clrk66, ...: \'proj -le\' lists them)'
complete -c geo -n '__geo_using spans' -l sphere -x -d 'A sphere of radius R metres instead of an ellipsoid; 6371009 reproduces the Maps SDK\'s figures'
complete -c geo -n '__geo_using spans' -l from -x -a 'geojson polyline' -d 'Input format: GeoJSON records, or one encoded polyline per line (raw or a JSON string)'
complete -c geo -n '__geo_using spans' -s p -l precision -x -d 'Decimal digits of the encoded polylines read with --from polyline (6 for OSRM/Valhalla)'
complete -c geo -n '__geo_using spans' -l digits -x -d 'Round output coordinates to N decimals (half away from zero); default: the shortest digits that read back exactly'
complete -c geo -n '__geo_using spans' -l rs -d 'Write RFC 8142 GeoJSON text sequences: an RS byte (0x1E) before each record'
complete -c geo -n '__geo_using spans' -l collection -d 'Wrap the output in one FeatureCollection (a single JSON document)'
complete -c geo -n '__geo_using spans' -s o -l output -r -F -d 'Write to FILE instead of standard output'
complete -c geo -n '__geo_using spans' -l strict -d 'Stop at the first bad record (exit 65) instead of reporting it and going on'
complete -c geo -n '__geo_using spans' -l rejects -r -F -d 'Also write each bad record to FILE as {"source","line","error","input"} so nothing is lost (no file is left when no record is bad)'
complete -c geo -n '__geo_using spans' -s j -l jobs -x -d 'Process records on N threads; output stays in input order'
complete -c geo -n '__geo_using spans' -s q -l quiet -d 'Never show the progress line'
complete -c geo -n '__geo_using spans' -l progress -d 'Show the progress line on standard error even when it is not a terminal'
