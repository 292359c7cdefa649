import GeoCommandLine

/// bash, zsh and fish completion scripts from the descriptions. Commands come from
/// `geo commands` at completion time, so plugins complete too; flags and flag values (kinds,
/// ellipsoids, formats, suggested words, files) come from each command's options.
public enum Completions {
    /// The shells there is a script for: `geo completion SHELL` prints it.
    public static let shells = ["bash", "zsh", "fish"]

    /// The script for `shell`, or nil for a shell geo has none for.
    public static func script(_ shell: String, for program: ProgramDescription) -> String? {
        switch shell {
        case "bash": bash(program)
        case "zsh": zsh(program)
        case "fish": fish(program)
        default: nil
        }
    }

    /// How each shell loads the script from a bare binary, for the start-up file named after `#`.
    public static func loading(_ name: String) -> [String] {
        ["source <(\(name) completion bash)      # ~/.bashrc",
         "source <(\(name) completion zsh)       # ~/.zshrc, after compinit",
         "\(name) completion fish | source       # ~/.config/fish/config.fish"]
    }

    /// File name → contents, named as each shell looks them up (bash-completion, zsh's fpath, fish).
    public static func scripts(for program: ProgramDescription) -> [(String, String)] {
        let names = ["bash": "\(program.name).bash", "zsh": "_\(program.name)", "fish": "\(program.name).fish"]
        return shells.map { (names[$0]!, script($0, for: program)!) }
    }

    /// The words the dispatcher itself takes besides the commands, with what they do.
    /// Shown beside the commands' summaries, so written as they are: lower case, no full stop.
    static let dispatcherWords = [
        ("help", "describe a command"),
        ("commands", "list the built-in commands and the plugins"),
        completionWord,
    ]
    static let completionWord = ("completion", "print the completion script for bash, zsh or fish")

    static func header(_ program: ProgramDescription, _ shell: String, loading: String) -> String {
        "# \(shell) completion for \(program.name) \(program.version), printed by '\(program.name) completion \(shell)'.\n"
            + "# Generated from the command descriptions: do not edit.\n# \(loading)\n\n"
    }

    /// The words an option's value completes to (its choices, or the words suggested for free
    /// text), or nil for files and other free text.
    static func values(_ option: OptionSpec) -> [String]? {
        if case .choice(let choices) = option.value { return choices.words }
        return option.suggestions.isEmpty ? nil : option.suggestions
    }

    static func takesFile(_ option: OptionSpec) -> Bool { option.value == .file }

    /// A word in single quotes, for bash and zsh.
    static func singleQuoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    static func spellings(_ option: OptionSpec) -> [String] {
        (option.short.map { ["-\($0)"] } ?? []) + ["--\(option.long)"]
    }

    static func flags(_ command: CommandDescription) -> [String] {
        command.options.flatMap(spellings) + ["-h", "--help"]
    }

    /// The widest description beside an option, so that a line of a completion menu fits a
    /// terminal: zsh and fish show it after the option's spellings.
    static let summaryWidth = 80

    /// An option's help as a one-line description: its first sentence (which may hold dots, as
    /// in properties.cumulative_m), without the full stop. A longer sentence is cut where its first
    /// clause ends (a colon, semicolon or parenthesis), unless that leaves too little to say what
    /// the option is; else after a word, with an ellipsis.
    static func summary(_ text: String) -> String {
        var sentence = ManPage.sentences(text).first ?? text
        if sentence.hasSuffix(".") { sentence.removeLast() }
        guard sentence.count > summaryWidth else { return sentence }
        let clauseEnd = sentence.indices.first { index in
            [": ", "; ", " ("].contains { sentence[index...].hasPrefix($0) }
        }
        if let clauseEnd, (20...summaryWidth).contains(sentence.distance(from: sentence.startIndex, to: clauseEnd)) {
            return String(sentence[..<clauseEnd])
        }
        var cut = ""
        for word in sentence.split(separator: " ") {
            guard cut.count + word.count + 2 <= summaryWidth else { break }  // a space and the ellipsis
            cut += cut.isEmpty ? String(word) : " " + word
        }
        return cut + "…"
    }

    // MARK: bash

    static func bash(_ program: ProgramDescription) -> String {
        let name = program.name
        let listCommands = "$(\(name) commands 2>/dev/null | cut -f1)"
        var script = header(program, "bash", loading: "Load it with: source <(\(name) completion bash)")
        script += """
        # Files and directories, as readline shows them: a name with spaces stays one word, a
        # directory gets a slash and no space. bash-completion's _filedir when it is loaded.
        _\(name)_files() {
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
        _\(name)_values() {
            local word
            COMPREPLY=()
            for word in "$@"; do
                [[ $word == "$cur"* ]] || continue
                [[ $cur == *:* ]] && word=${word#"${cur%:*}:"}
                COMPREPLY+=("$(printf '%q' "$word")")
            done
            [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *'\\(' ]] && compopt -o nospace 2>/dev/null
        }

        _\(name)() {
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
                COMPREPLY=($(compgen -W "\(listCommands) \(dispatcherWords.map(\.0).joined(separator: " ")) --help --version" -- "$cur"))
                return
            fi
            local command=${COMP_WORDS[1]}
            case $command in
                help|--help|-h)
                    (( cword == 2 )) && COMPREPLY=($(compgen -W "\(listCommands) completion" -- "$cur"))
                    return
                    ;;
                commands)
                    return
                    ;;
                completion)
                    (( cword == 2 )) && COMPREPLY=($(compgen -W "\(shells.joined(separator: " "))" -- "$cur"))
                    return
                    ;;

        """
        for command in program.commands {
            script += "        \(command.name))\n            case $prev in\n"
            for option in command.options where option.takesValue {
                let pattern = spellings(option).joined(separator: "|")
                if let words = values(option) {
                    script += "                \(pattern)) _\(name)_values \(words.map(singleQuoted).joined(separator: " ")); return ;;\n"
                } else if takesFile(option) {
                    script += "                \(pattern)) _\(name)_files; return ;;\n"
                } else {
                    script += "                \(pattern)) return ;;\n"
                }
            }
            script += "            esac\n"
            script += "            if [[ $cur == -* ]]; then\n"
            script += "                COMPREPLY=($(compgen -W \"\(flags(command).joined(separator: " "))\" -- \"$cur\"))\n"
            script += "            else\n                _\(name)_files\n            fi\n            ;;\n"
        }
        script += """
                *)
                    # A plugin: its arguments are files.
                    _\(name)_files
                    ;;
            esac
        }
        complete -F _\(name) \(name)

        """
        return script
    }

    // MARK: zsh

    /// Text inside an _arguments spec (itself in single quotes): no unescaped brackets or colons,
    /// which would end the description or the message and start an action.
    static func zshText(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "[", with: "\\[")
            .replacingOccurrences(of: "]", with: "\\]").replacingOccurrences(of: ":", with: "\\:")
            .replacingOccurrences(of: "'", with: "'\\''")
    }

    /// An _arguments message (after the colon that follows the description): only a colon ends
    /// it, and zsh shows any other backslash as it is.
    static func zshMessage(_ text: String) -> String {
        text.replacingOccurrences(of: ":", with: "\\:").replacingOccurrences(of: "'", with: "'\\''")
    }

    /// `name:description` entries of a _describe array, single-quoted.
    static func zshDescribed(_ entries: [(String, String)]) -> String {
        entries.map { "'\($0.0):\(zshText($0.1))'" }.joined(separator: " ")
    }

    /// A word of an _arguments action (inside the spec's single quotes), which zsh evaluates:
    /// every character but letters, digits and `_+=.,/-` behind a backslash (a colon, a space,
    /// a parenthesis), a single quote as the spec's quoting needs it.
    static func zshWord(_ word: String) -> String {
        word.map { character in
            character.isLetter || character.isNumber || "_+=.,/-".contains(character) ? String(character) : "\\" + String(character)
        }.joined().replacingOccurrences(of: "'", with: "'\\''")
    }

    /// _files, or, for a file of the formats geo writes, _files -g, which offers those files and
    /// every directory.
    static func zshFiles(_ option: OptionSpec) -> String {
        let extensions = option.fileExtensions
        guard !extensions.isEmpty else { return "_files" }
        return "_files -g \"*.\(extensions.count == 1 ? extensions[0] : "(" + extensions.joined(separator: "|") + ")")\""
    }

    static func zsh(_ program: ProgramDescription) -> String {
        let name = program.name
        var script = "#compdef \(name)\n"
        script += header(program, "zsh", loading: "Put it on $fpath as _\(name) before compinit, or after compinit: source <(\(name) completion zsh)")
        script += """
        # An option's value: the words after '--', with the compadd options _arguments puts
        # before it; a function's opening, gradient(, takes no space after it.
        _\(name)_values() {
            local -a options
            while (( $# )) && [[ $1 != -- ]]; do options+=("$1"); shift; done
            shift
            compadd "${options[@]}" -S '' -- ${(M)@:#*\\(}
            compadd "${options[@]}" -- ${@:#*\\(}
        }

        _\(name)_commands() {
            local -a commands
            commands=(${(f)"$(\(name) commands 2>/dev/null | sed -e 's/:/\\\\:/g' -e 's/\\t/:/')"} "$@")
            _describe -t commands '\(name) command' commands
        }

        _\(name)() {
            if (( CURRENT == 2 )); then
                if [[ $PREFIX == -* ]]; then
                    local -a options
                    options=('--help:Show help, or a command'\\''s help' '--version:Show the version of \(name) and of PROJ')
                    _describe -t options '\(name) option' options
                else
                    _\(name)_commands \(zshDescribed(dispatcherWords))
                fi
                return
            fi
            local command=$words[2]
            case $command in
                help|--help|-h)
                    (( CURRENT == 3 )) && _\(name)_commands \(zshDescribed([completionWord]))
                    return
                    ;;
                commands)
                    return 1
                    ;;
                completion)
                    (( CURRENT == 3 )) && _values shell \(shells.joined(separator: " "))
                    return
                    ;;
            esac
            shift words
            (( CURRENT-- ))
            case $command in

        """
        for command in program.commands {
            script += "        \(command.name))\n            _arguments -s -S \\\n"
            for option in command.options {
                let help = zshText(summary(option.help))
                var action = ""
                if option.takesValue {
                    if let words = values(option) { action = ":\(option.long):_\(name)_values -- \(words.map(zshWord).joined(separator: " "))" }
                    else if takesFile(option) { action = ":\(option.long):" + zshFiles(option) }
                    else { action = ":\(zshMessage(option.valueName.lowercased())): " }
                }
                let repeatable = option.repeatable ? "*" : ""
                let longSpelling = "--\(option.long)" + (option.takesValue ? "=" : "")
                if let short = option.short {
                    let shortSpelling = "-\(short)" + (option.takesValue ? "+" : "")
                    let exclusion = option.repeatable ? "" : "(-\(short) --\(option.long))"
                    script += "                '\(exclusion)\(repeatable)'{\(shortSpelling),\(longSpelling)}'[\(help)]\(action)' \\\n"
                } else {
                    script += "                '\(repeatable)\(longSpelling)[\(help)]\(action)' \\\n"
                }
            }
            script += "                '(- *)'{-h,--help}'[Show help]' \\\n"
            script += "                '*:file:_files'\n            ;;\n"
        }
        script += """
                *)
                    # A plugin: its arguments are files.
                    _files
                    ;;
            esac
        }

        # Autoloaded from $fpath, this file is _\(name)'s body; sourced, it registers _\(name).
        if [[ $funcstack[1] == _\(name) ]]; then
            _\(name) "$@"
        else
            compdef _\(name) \(name)
        fi

        """
        return script
    }

    // MARK: fish

    /// A word in fish's double quotes.
    static func fishDoubleQuoted(_ word: String) -> String {
        "\"" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "$", with: "\\$") + "\""
    }

    static func fishText(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }

    static func fish(_ program: ProgramDescription) -> String {
        let name = program.name
        let builtins = program.commands.map(\.name) + dispatcherWords.map(\.0)
        var script = header(program, "fish", loading: "Load it with: \(name) completion fish | source")
        script += """
        # Whether the command (the word after \(name)) is one of the arguments.
        function __\(name)_using
            set -l words (commandline -opc)
            set -q words[2]; and contains -- $words[2] $argv
        end

        # Directories, and the files whose names end in .EXTENSION for one of the arguments: what
        # -o can write. Each with an empty description, so that the option's is not shown after it.
        function __\(name)_files_ending
            set -l files (complete -C "__fish_command_without_completions "(commandline -ct))
            string match -r -- '^[^\\t]*(?:/|\\.(?:'(string join '|' -- $argv)'))(?=\\t|$)' $files | string replace -r '$' '\\t'
        end

        # Whether the command is a plugin: a word that is not an option, a built-in or a helper.
        function __\(name)_plugin
            set -l words (commandline -opc)
            set -q words[2]; and not string match -q -- '-*' $words[2]
            and not contains -- $words[2] \(builtins.joined(separator: " "))
        end

        complete -c \(name) -f
        complete -c \(name) -n __fish_use_subcommand -l help -d 'Show help, or a command\\'s help'
        complete -c \(name) -n __fish_use_subcommand -l version -d 'Show the version of \(name) and of PROJ'
        complete -c \(name) -n __fish_use_subcommand -a '(\(name) commands 2>/dev/null)'

        """
        for (word, help) in dispatcherWords {
            script += "complete -c \(name) -n __fish_use_subcommand -a \(word) -d '\(fishText(help))'\n"
        }
        script += "complete -c \(name) -n '__\(name)_using help; and test (count (commandline -opc)) -eq 2' -a '(\(name) commands 2>/dev/null)'\n"
        script += "complete -c \(name) -n '__\(name)_using help; and test (count (commandline -opc)) -eq 2' -a \(completionWord.0) -d '\(fishText(completionWord.1))'\n"
        script += "complete -c \(name) -n '__\(name)_using completion; and test (count (commandline -opc)) -eq 2' -a '\(shells.joined(separator: " "))'\n"
        script += "complete -c \(name) -n __\(name)_plugin -F\n"
        for command in program.commands {
            let condition = "-n '__\(name)_using \(command.name)'"
            script += "complete -c \(name) \(condition) -F\n"
            for option in command.options {
                var line = "complete -c \(name) \(condition)"
                if let short = option.short { line += " -s \(short)" }
                line += " -l \(option.long)"
                if option.takesValue {
                    // One word per line, each with an empty description of its own, so that a PROJ
                    // string stays one word and the option's description is not shown after each.
                    if let words = values(option) {
                        line += " -x -a '\(fishText("(printf \"%s\\t\\n\" " + words.map(fishDoubleQuoted).joined(separator: " ") + ")"))'"
                    }
                    else if takesFile(option) {
                        line += option.fileExtensions.isEmpty ? " -r -F"
                            : " -x -a '(__\(name)_files_ending \(option.fileExtensions.joined(separator: " ")))'"
                    }
                    else { line += " -x" }
                }
                script += line + " -d '\(fishText(summary(option.help)))'\n"
            }
        }
        return script
    }
}
