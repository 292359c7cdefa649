# bash completion for geo 0.3.0, printed by 'geo completion bash'.
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

# The words of an option's value that begin with $cur, each quoted as one word (a PROJ
# string holds spaces), less the part of $cur up to its last colon, which bash keeps (as
# bash-completion's __ltrim_colon_completions does). A function's opening, gradient(,
# takes no space after it.
_geo_values() {
    local word
    COMPREPLY=()
    for word in "$@"; do
        [[ $word == "$cur"* ]] || continue
        [[ $cur == *:* ]] && word=${word#"${cur%:*}:"}
        COMPREPLY+=("$(printf '%q' "$word")")
    done
    [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *'\(' ]] && compopt -o nospace 2>/dev/null
}

_geo() {
    local cur prev cword i=$COMP_CWORD
    cur=${COMP_WORDS[i]}
    # A value with colons (EPSG:3857) is one word to complete, though bash splits it at
    # each ':' (as bash-completion's _get_comp_words_by_ref -n : joins it).
    while (( i > 2 )) && [[ ${COMP_WORDS[i]} == : || ${COMP_WORDS[i-1]} == : ]]; do
        (( i-- ))
        cur=${COMP_WORDS[i]}$cur
    done
    prev=${COMP_WORDS[i-1]}
    cword=$COMP_CWORD
    # --opt=value: bash splits at '=', so the option is two words back.
    if [[ $cur == = ]]; then cur=; elif [[ $prev == = ]]; then prev=${COMP_WORDS[i-2]}; fi
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
                --to-precision) return ;;
                --to) _geo_values 'polyline' 'geojson'; return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--to-precision --to --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        decode)
            case $prev in
                -p|--precision) return ;;
                --field) return ;;
                --to) _geo_values 'geojson' 'latlng'; return ;;
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
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
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
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
                -p|--precision) return ;;
                --to) _geo_values 'geojson' 'polyline'; return ;;
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
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --to) _geo_values 'geojson' 'polyline'; return ;;
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
                --style) _geo_values 'gradient(' 'sprite(' 'texture(' 'aqua' 'beige' 'black' 'blue' 'brown' 'chocolate' 'clear' 'coral' 'crimson' 'cyan' 'darkblue' 'darkgray' 'darkgreen' 'darkgrey' 'darkorange' 'darkred' 'firebrick' 'forestgreen' 'fuchsia' 'gold' 'gray' 'green' 'grey' 'hotpink' 'indigo' 'ivory' 'khaki' 'lavender' 'lightgray' 'lightgrey' 'lime' 'magenta' 'maroon' 'navy' 'olive' 'orange' 'orchid' 'pink' 'purple' 'red' 'royalblue' 'salmon' 'seagreen' 'silver' 'skyblue' 'slategray' 'slategrey' 'steelblue' 'tan' 'teal' 'tomato' 'transparent' 'turquoise' 'violet' 'white' 'yellow'; return ;;
                --length) return ;;
                --offset) return ;;
                --span) return ;;
                --width) return ;;
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
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
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
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
                --join) return ;;
                --tolerance) return ;;
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
                -p|--precision) return ;;
                --digits) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--point --shapes --within --limit --join --tolerance --kind --ellps --sphere --from -p --precision --digits --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        heading)
            case $prev in
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
                -p|--precision) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--final --kind --ellps --sphere --from -p --precision --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        offset)
            case $prev in
                --distance) return ;;
                --heading) return ;;
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
                -p|--precision) return ;;
                --to) _geo_values 'geojson' 'polyline'; return ;;
                --to-precision) return ;;
                --digits) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--distance --heading --origin --kind --ellps --sphere --from -p --precision --to --to-precision --digits --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        bbox)
            case $prev in
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
                -p|--precision) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--geodesic --all --kind --ellps --sphere --from -p --precision --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        simplify)
            case $prev in
                --tolerance) return ;;
                --keep) return ;;
                --max-points) return ;;
                --max-chars) return ;;
                --method) _geo_values 'dp' 'visvalingam' 'weighted'; return ;;
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
                -p|--precision) return ;;
                --to) _geo_values 'geojson' 'polyline'; return ;;
                --to-precision) return ;;
                --digits) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--tolerance --keep --max-points --max-chars --method --kind --ellps --sphere --from -p --precision --to --to-precision --digits --rs --collection -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        render)
            case $prev in
                --format) _geo_values 'svg' 'png' 'pdf'; return ;;
                --size) return ;;
                --bbox) return ;;
                --padding) return ;;
                --projection) _geo_values 'EPSG:3857' 'EPSG:4326' '+proj=ortho +lat_0=0 +lon_0=0'; return ;;
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --stamp) return ;;
                --graticule) return ;;
                --background) _geo_values 'none' 'white'; return ;;
                --antialias) _geo_values 'good' 'fast'; return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
                -p|--precision) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--format --size --bbox --padding --projection --geodesic --kind --ellps --sphere --stamp --graticule --background --antialias --from -p --precision -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
            else
                _geo_files
            fi
            ;;
        tiles)
            case $prev in
                --zoom) return ;;
                --scale) return ;;
                --bbox) return ;;
                --tile) return ;;
                --max-tiles) return ;;
                --partition) return ;;
                --kind) _geo_values 'geodesic' 'rhumb' 'projected'; return ;;
                --ellps) _geo_values 'MERIT' 'SGS85' 'GRS80' 'IAU76' 'airy' 'APL4.9' 'NWL9D' 'mod_airy' 'andrae' 'danish' 'aust_SA' 'GRS67' 'GSK2011' 'bessel' 'bess_nam' 'clrk66' 'clrk80' 'clrk80ign' 'CPM' 'delmbr' 'engelis' 'evrst30' 'evrst48' 'evrst56' 'evrst69' 'evrstSS' 'fschr60' 'fschr60m' 'fschr68' 'helmert' 'hough' 'intl' 'krass' 'kaula' 'lerch' 'mprts' 'new_intl' 'plessis' 'PZ90' 'SEasia' 'walbeck' 'WGS60' 'WGS66' 'WGS72' 'WGS84' 'sphere'; return ;;
                --sphere) return ;;
                --stamp) return ;;
                --graticule) return ;;
                --background) _geo_values 'none' 'white'; return ;;
                --antialias) _geo_values 'good' 'fast'; return ;;
                --from) _geo_values 'geojson' 'polyline' 'latlng'; return ;;
                -p|--precision) return ;;
                -o|--output) _geo_files; return ;;
                --rejects) _geo_files; return ;;
                -j|--jobs) return ;;
            esac
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--zoom --scale --bbox --tile --empty --max-tiles --force --html --partition --merge --geodesic --kind --ellps --sphere --stamp --graticule --background --antialias --from -p --precision -o --output --strict --rejects -j --jobs -q --quiet --progress -h --help" -- "$cur"))
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
