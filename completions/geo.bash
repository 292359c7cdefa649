# bash completion for geo 0.2.0, printed by 'geo completion bash'.
# Generated from the command descriptions: do not edit.
# Load it with: source <(geo completion bash)

# Files and directories, as readline shows them: a name with spaces stays one word, a
# directory gets a slash and no space. bash-completion's _filedir when it is loaded.
_geo_files() {
    if declare -F _filedir >/dev/null; then
        _filedir
        return
    fi
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

_geo() {
    local cur prev cword
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cword=$COMP_CWORD
    # --opt=value: bash splits at '=', so the option is two words back.
    if [[ $cur == = ]]; then prev=${COMP_WORDS[COMP_CWORD-1]}; cur=; elif [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi
    if (( cword == 1 )); then
        COMPREPLY=($(compgen -W "$(geo commands 2>/dev/null | cut -f1) help commands completion --help --version" -- "$cur"))
        return
    fi
    local command=${COMP_WORDS[1]}
    case $command in
        help|--help|-h)
            (( cword == 2 )) && COMPREPLY=($(compgen -W "$(geo commands 2>/dev/null | cut -f1) completion" -- "$cur"))
            return
            ;;
        commands)
            return
            ;;
        completion)
            (( cword == 2 )) && COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
            return
            ;;
        encode)
            case $prev in
                -p|--precision) return ;;
                --to) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "-p --precision --to --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        decode)
            case $prev in
                -p|--precision) return ;;
                --field) return ;;
                --to) COMPREPLY=($(compgen -W "geojson json text" -- "$cur")); return ;;
                --digits) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "-p --precision --field --to --digits --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        length)
            case $prev in
                --field) return ;;
                --kind) COMPREPLY=($(compgen -W "geodesic rhumb projected" -- "$cur")); return ;;
                --ellps) COMPREPLY=($(compgen -W "MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere" -- "$cur")); return ;;
                --sphere) return ;;
                --from) COMPREPLY=($(compgen -W "geojson polyline text" -- "$cur")); return ;;
                -p|--precision) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--field --cumulative --kind --ellps --sphere --from -p --precision --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        interpolate)
            case $prev in
                --fraction) return ;;
                --distance) return ;;
                --every) return ;;
                --count) return ;;
                --densify) return ;;
                --kind) COMPREPLY=($(compgen -W "geodesic rhumb projected" -- "$cur")); return ;;
                --ellps) COMPREPLY=($(compgen -W "MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere" -- "$cur")); return ;;
                --sphere) return ;;
                --from) COMPREPLY=($(compgen -W "geojson polyline text" -- "$cur")); return ;;
                -p|--precision) return ;;
                --to) COMPREPLY=($(compgen -W "geojson polyline" -- "$cur")); return ;;
                --to-precision) return ;;
                --digits) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--fraction --distance --every --count --densify --kind --ellps --sphere --from -p --precision --to --to-precision --digits --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        circle-to-polygon)
            case $prev in
                --center) return ;;
                --radius) return ;;
                --radius-field) return ;;
                --segments) return ;;
                --tolerance) return ;;
                --ellps) COMPREPLY=($(compgen -W "MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere" -- "$cur")); return ;;
                --sphere) return ;;
                --to) COMPREPLY=($(compgen -W "geojson polyline" -- "$cur")); return ;;
                --to-precision) return ;;
                --digits) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--center --radius --radius-field --segments --tolerance --ellps --sphere --to --to-precision --digits --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        spans)
            case $prev in
                --style) COMPREPLY=($(compgen -W "aqua beige black blue brown chocolate clear coral crimson cyan darkblue darkgray darkgreen darkgrey darkorange darkred firebrick forestgreen fuchsia gold gray green grey hotpink indigo ivory khaki lavender lightgray lightgrey lime magenta maroon navy olive orange orchid pink purple red royalblue salmon seagreen silver skyblue slategray slategrey steelblue tan teal tomato transparent turquoise violet white yellow" -- "$cur")); return ;;
                --length) return ;;
                --offset) return ;;
                --span) return ;;
                --width) return ;;
                --kind) COMPREPLY=($(compgen -W "geodesic rhumb projected" -- "$cur")); return ;;
                --ellps) COMPREPLY=($(compgen -W "MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere" -- "$cur")); return ;;
                --sphere) return ;;
                --from) COMPREPLY=($(compgen -W "geojson polyline text" -- "$cur")); return ;;
                -p|--precision) return ;;
                --digits) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--style --length --offset --span --split --width --kind --ellps --sphere --from -p --precision --digits --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        area)
            case $prev in
                --field) return ;;
                --kind) COMPREPLY=($(compgen -W "geodesic rhumb projected" -- "$cur")); return ;;
                --ellps) COMPREPLY=($(compgen -W "MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere" -- "$cur")); return ;;
                --sphere) return ;;
                --from) COMPREPLY=($(compgen -W "geojson polyline text" -- "$cur")); return ;;
                -p|--precision) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--field --signed --kind --ellps --sphere --from -p --precision --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        locate)
            case $prev in
                --point) return ;;
                --shapes) _geo_files; return ;;
                --within) return ;;
                --limit) return ;;
                --tolerance) return ;;
                --kind) COMPREPLY=($(compgen -W "geodesic rhumb projected" -- "$cur")); return ;;
                --ellps) COMPREPLY=($(compgen -W "MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere" -- "$cur")); return ;;
                --sphere) return ;;
                --from) COMPREPLY=($(compgen -W "geojson polyline text" -- "$cur")); return ;;
                -p|--precision) return ;;
                --digits) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--point --shapes --within --limit --tolerance --kind --ellps --sphere --from -p --precision --digits --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        render)
            case $prev in
                -o|--output) _geo_files; return ;;
                --format) COMPREPLY=($(compgen -W "svg png pdf" -- "$cur")); return ;;
                --size) return ;;
                --bbox) return ;;
                --padding) return ;;
                --projection) COMPREPLY=($(compgen -W "EPSG:3857 EPSG:4326 +proj=ortho +lat_0=0 +lon_0=0" -- "$cur")); return ;;
                --kind) COMPREPLY=($(compgen -W "geodesic rhumb projected" -- "$cur")); return ;;
                --ellps) COMPREPLY=($(compgen -W "MERIT SGS85 GRS80 IAU76 airy APL4.9 NWL9D mod_airy andrae danish aust_SA GRS67 GSK2011 bessel bess_nam clrk66 clrk80 clrk80ign CPM delmbr engelis evrst30 evrst48 evrst56 evrst69 evrstSS fschr60 fschr60m fschr68 helmert hough intl krass kaula lerch mprts new_intl plessis PZ90 SEasia walbeck WGS60 WGS66 WGS72 WGS84 sphere" -- "$cur")); return ;;
                --sphere) return ;;
                --stamp) return ;;
                --graticule) return ;;
                --background) COMPREPLY=($(compgen -W "none white" -- "$cur")); return ;;
                --antialias) COMPREPLY=($(compgen -W "good fast" -- "$cur")); return ;;
                --from) COMPREPLY=($(compgen -W "geojson polyline text" -- "$cur")); return ;;
                -p|--precision) return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "-o --output --format --size --bbox --padding --projection --geodesic --kind --ellps --sphere --stamp --graticule --background --antialias --from -p --precision --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        *)
            # A plugin: its arguments are files.
            _geo_files
            ;;
    esac
}
complete -F _geo geo
