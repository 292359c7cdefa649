/// A usage error: wrong flags or operands. Exit status 64, with the usage line and a pointer to
/// `--help` (SPEC §3).
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The outcome of parsing one command's arguments.
public struct ParsedArguments: Sendable {
    /// Values by long option name, in the order given (flags map to `[""]` per use).
    public private(set) var values: [String: [String]] = [:]
    public private(set) var operands: [String] = []
    public var helpRequested = false
    public var versionRequested = false

    public init() {}

    mutating func add(_ long: String, _ value: String) { values[long, default: []].append(value) }
    mutating func addOperand(_ operand: String) { operands.append(operand) }

    public func has(_ long: String) -> Bool { values[long] != nil }
    /// The last value given (options given twice: the last one wins, as in GNU tools).
    public func value(_ long: String) -> String? { values[long]?.last }
    public func all(_ long: String) -> [String] { values[long] ?? [] }

    public func integer(_ long: String) -> Int? { value(long).flatMap { Int($0) } }
    public func number(_ long: String) -> Double? { value(long).flatMap { Double($0) } }
}

/// POSIX/GNU argument syntax (SPEC §1): `--opt=v`, `--opt v`, `-p6`, `-p 6`, clustered short
/// flags (`-qs`), `--` ends options, `-` is an operand (stdin). Long options are never abbreviated.
public enum ArgumentParser {
    public static func parse(_ arguments: [String], for command: CommandDescription) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
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
                if name == "help" { parsed.helpRequested = true; index += 1; continue }
                if name == "version" { parsed.versionRequested = true; index += 1; continue }
                guard let spec = command.option(named: name) else {
                    throw UsageError("unknown option '--\(name)'" + suggestion(for: name, among: command.options.map(\.long) + ["help", "version"], prefix: "--"))
                }
                if spec.takesValue {
                    let value: String
                    if let inline { value = inline } else { value = try needValue(spec, "--\(name)") }
                    try validate(value, for: spec, shown: "--\(name)")
                    parsed.add(name, value)
                } else {
                    if inline != nil { throw UsageError("option '--\(name)' takes no value") }
                    parsed.add(name, "")
                }
            } else if argument.hasPrefix("-") && argument.count > 1 {
                // One or more short options: flags may cluster; a value option takes the rest.
                var letters = Substring(argument.dropFirst())
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    if letter == "h" { parsed.helpRequested = true; continue }
                    guard let spec = command.options.first(where: { $0.short == letter }) else {
                        throw UsageError("unknown option '-\(letter)'" + suggestion(for: String(letter), among: command.options.compactMap { $0.short.map(String.init) }, prefix: "-"))
                    }
                    if spec.takesValue {
                        let value: String
                        if letters.isEmpty { value = try needValue(spec, "-\(letter)") } else { value = String(letters.drop { $0 == "=" }) }
                        try validate(value, for: spec, shown: "-\(letter)")
                        parsed.add(spec.long, value)
                        break
                    }
                    parsed.add(spec.long, "")
                }
            } else {
                parsed.addOperand(argument)
            }
            index += 1
        }
        return parsed
    }

    static func validate(_ value: String, for spec: OptionSpec, shown: String) throws(UsageError) {
        switch spec.value {
        case .none, .file, .text:
            return
        case .integer(let range):
            guard let number = Int(value), range.contains(number) else {
                throw UsageError("option '\(shown)' takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
            }
        case .number:
            // Plain decimals only: Double() would also take "0x10", "inf" and "nan".
            guard value.allSatisfy({ $0.isNumber || "+-.eE".contains($0) }), let number = Double(value), number.isFinite else {
                throw UsageError("option '\(shown)' takes a finite number, not '\(value)'")
            }
        case .choice(let words):
            guard words.contains(value) else {
                throw UsageError("option '\(shown)' takes one of \(words.joined(separator: ", ")), not '\(value)'" + suggestion(for: value, among: words, prefix: ""))
            }
        }
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
