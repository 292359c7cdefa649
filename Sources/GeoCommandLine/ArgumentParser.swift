/// A usage error: wrong flags or operands. Exit status 64, with the usage line and a pointer to
/// `--help` (docs/records.md, exit status).
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The outcome of parsing one command's arguments: values already checked and typed by their
/// declarations, read back through them (`arguments[Length.field]`).
public struct ParsedArguments: Sendable {
    /// Values by long option name, in the order given (a flag maps to one `true` per use).
    private var values: [String: [any Sendable]] = [:]
    public private(set) var operands: [String] = []
    public var helpRequested = false
    public var versionRequested = false
    /// The long names the command declares: reading any other option is a programming error.
    private let declared: Set<String>

    public init(declaring options: [OptionSpec] = []) {
        declared = Set(options.map(\.long))
    }

    mutating func add(_ long: String, _ value: any Sendable) { values[long, default: []].append(value) }
    mutating func addOperand(_ operand: String) { operands.append(operand) }

    private func given(_ spec: OptionSpec) -> [any Sendable] {
        precondition(declared.contains(spec.long), "option '--\(spec.long)' is read but not declared by this command")
        return values[spec.long] ?? []
    }

    /// The value given last (options given twice: the last one wins, as in GNU tools), or nil.
    public subscript<Value>(option: Option<Value>) -> Value? { given(option.spec).last.map { $0 as! Value } }
    /// The value given last, or the declaration's default.
    public subscript<Value>(option: DefaultedOption<Value>) -> Value { self[option.option] ?? option.value }
    /// Whether the flag was given.
    public subscript(flag: Flag) -> Bool { !given(flag.spec).isEmpty }
    /// Whether the command declares the option (for option groups that some commands leave out).
    public func declares(_ option: any OptionDeclaration) -> Bool { declared.contains(option.spec.long) }
    /// Whether the option was given at all.
    public func has(_ option: any OptionDeclaration) -> Bool { !given(option.spec).isEmpty }
    /// Every value of a repeatable option, in order.
    public func all<Value>(_ option: Option<Value>) -> [Value] { given(option.spec).map { $0 as! Value } }

    /// The one value given among options that exclude each other (interpolate's modes,
    /// simplify's amounts), each paired with what it made of its value: a usage error naming
    /// them all when none was given, or the first two when several were.
    public func exactlyOne<Value>(of choices: [(any OptionDeclaration, Value?)]) throws(UsageError) -> Value {
        let given = choices.filter { $0.1 != nil }
        guard given.count == 1, let value = given[0].1 else {
            let names = choices.map { "--\($0.0.spec.long)" }
            throw UsageError(given.isEmpty ? "give one of \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")"
                                           : "--\(given[0].0.spec.long) and --\(given[1].0.spec.long) cannot be combined")
        }
        return value
    }
}

/// POSIX/GNU argument syntax (docs/records.md, command line): `--opt=v`, `--opt v`, `-p6`, `-p 6`, clustered short
/// flags (`-qs`), `--` ends options, `-` is an operand (stdin). Long options are never abbreviated.
public enum ArgumentParser {
    public static func parse(_ arguments: [String], for command: CommandDescription) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments(declaring: command.options)
        var index = 0
        func needValue(_ spec: OptionSpec, _ shown: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("option '\(shown)' needs a value (\(spec.valueName))") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                for operand in arguments[(index + 1)...] { parsed.addOperand(operand) }
                break
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inline: String? = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                if name == "help" || name == "version" {
                    if inline != nil { throw UsageError("option '--\(name)' takes no value") }
                    if name == "help" { parsed.helpRequested = true } else { parsed.versionRequested = true }
                    index += 1
                    continue
                }
                guard let spec = command.option(given: name) else {
                    throw UsageError("unknown option '--\(name)'" + suggestion(for: name, among: command.options.flatMap { [$0.long] + $0.hiddenLongs } + ["help", "version"], prefix: "--"))
                }
                if spec.takesValue {
                    let value: String
                    if let inline { value = inline } else { value = try needValue(spec, "--\(name)") }
                    parsed.add(spec.long, try spec.parse(value))
                } else {
                    if inline != nil { throw UsageError("option '--\(name)' takes no value") }
                    parsed.add(spec.long, true)
                }
            } else if argument.hasPrefix("-") && argument.count > 1 {
                // One or more short options: flags may cluster; a value option takes the rest.
                var letters = Substring(argument.dropFirst())
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    if letter == "h" { parsed.helpRequested = true; continue }
                    guard let spec = command.option(givenShort: letter) else {
                        throw UsageError("unknown option '-\(letter)'" + suggestion(for: String(letter), among: command.options.compactMap { $0.short.map(String.init) }, prefix: "-"))
                    }
                    if spec.takesValue {
                        let value: String
                        if letters.isEmpty { value = try needValue(spec, "-\(letter)") } else { value = String(letters.drop { $0 == "=" }) }
                        parsed.add(spec.long, try spec.parse(value))
                        break
                    }
                    parsed.add(spec.long, true)
                }
            } else {
                parsed.addOperand(argument)
            }
            index += 1
        }
        return parsed
    }

    /// "; did you mean '--precision'?" for the candidate the word most likely meant: one it
    /// begins (`--prec`), else the nearest by edit distance if that is near enough.
    public static func suggestion(for word: String, among candidates: [String], prefix: String) -> String {
        guard word.count > 1 else { return "" }
        if let sameLetters = candidates.first(where: { $0.lowercased() == word.lowercased() }) {
            return "; did you mean '\(prefix)\(sameLetters)'?"
        }
        if word.count >= 3, let extended = candidates.first(where: { $0.hasPrefix(word) }) {
            return "; did you mean '\(prefix)\(extended)'?"
        }
        let scored = candidates.map { (candidate: $0, distance: editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
              best.distance <= max(1, min(3, word.count / 3)) else { return "" }
        return "; did you mean '\(prefix)\(best.candidate)'?"
    }

    /// Levenshtein distance with adjacent transpositions (optimal string alignment).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
