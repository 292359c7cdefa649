/// Options declared once, typed (swift-argument-parser's idea, in miniature): each declaration
/// carries its name, value type and parser, default, help and completion. Commands keep their
/// declarations as statics, list them in their description (from which help, man pages and
/// completions are made) and read values back typed: `arguments[Length.field]`.

/// What every declaration gives the description: the spec that help, man pages and completions
/// read, and the parser that checks a value on the command line.
public protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

/// An option that takes a value. Read as `Value?` (nil when not given); `defaulting(to:)` makes
/// one that is read as `Value`.
public struct Option<Value: Sendable>: OptionDeclaration {
    public private(set) var spec: OptionSpec

    init(_ spec: OptionSpec, parse: @escaping @Sendable (String) throws(UsageError) -> Value) {
        var spec = spec
        spec.parse = { text throws(UsageError) in try parse(text) }
        self.spec = spec
    }

    /// The same option, read as `Value`: `value` when it is not given (and said so in help, as
    /// `shown`). The overloads below show numbers and choices without `"\(value)"`, whose
    /// reflection costs a millisecond of every run's start (descriptions are built at startup).
    public func defaulting(to value: Value, shown: String) -> DefaultedOption<Value> {
        var copy = self
        copy.spec.defaultValue = shown
        return DefaultedOption(option: copy, value: value)
    }

    public func defaulting(to value: Value) -> DefaultedOption<Value> where Value: LosslessStringConvertible {
        defaulting(to: value, shown: value.description)
    }

    public func defaulting(to value: Value) -> DefaultedOption<Value> where Value: RawRepresentable, Value.RawValue == String {
        defaulting(to: value, shown: value.rawValue)
    }

    /// The same option, also read under old names (`--precision`, `-p`) that help, man pages
    /// and completions do not show: a rename that breaks no script.
    public func hiddenAliases(_ longs: String..., short: Character? = nil) -> Option {
        var copy = self
        copy.spec.hiddenLongs = longs
        copy.spec.hiddenShort = short
        return copy
    }

    /// The same option, which may be given several times (read with `arguments.all(_:)`).
    public func repeatable() -> Option {
        var copy = self
        copy.spec.repeatable = true
        return copy
    }
}

/// An option with a default: read as `Value`.
public struct DefaultedOption<Value: Sendable>: OptionDeclaration {
    public let option: Option<Value>
    public let value: Value
    public var spec: OptionSpec { option.spec }
}

/// A flag: no value; read as `Bool` (given or not).
public struct Flag: OptionDeclaration {
    public let spec: OptionSpec
    public init(_ long: String, short: Character? = nil, help: String) {
        spec = OptionSpec(long, short: short, value: .none, help: help)
    }
}

extension Option where Value == Int {
    /// A whole number in `range`.
    public init(integer long: String, short: Character? = nil, in range: ClosedRange<Int>, valueName: String = "N", help: String) {
        self.init(OptionSpec(long, short: short, value: .integer(range), valueName: valueName, help: help)) { text throws(UsageError) in
            guard let number = Int(text), range.contains(number) else {
                throw UsageError("option '--\(long)' takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
    }
}

extension Option where Value == Double {
    /// A finite decimal number; `check` may refuse some (it names what the number must be).
    public init(number long: String, short: Character? = nil, valueName: String = "X",
                check: (@Sendable (Double) -> String?)? = nil, help: String) {
        self.init(OptionSpec(long, short: short, value: .number, valueName: valueName, help: help)) { text throws(UsageError) in
            // Plain decimals only: Double() would also take "0x10", "inf" and "nan".
            guard text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) }), let number = Double(text), number.isFinite else {
                throw UsageError("option '--\(long)' takes a finite number, not '\(text)'")
            }
            if let problem = check?(number) { throw UsageError("option '--\(long)' takes \(problem), not '\(text)'") }
            return number
        }
    }
}

extension Option where Value == String {
    /// Free text (a property name, a style); `suggestions` are what completion offers.
    public init(text long: String, short: Character? = nil, valueName: String = "TEXT", suggestions: [String] = [], help: String) {
        var spec = OptionSpec(long, short: short, value: .text, valueName: valueName, help: help)
        spec.suggestions = suggestions
        self.init(spec) { text in text }
    }

    /// A file name ("-" for standard input or output, where the option says so); completions
    /// offer directories and the files ending in `extensions` (any file when there are none).
    public init(file long: String, short: Character? = nil, extensions: [String] = [], help: String) {
        var spec = OptionSpec(long, short: short, value: .file, help: help)
        spec.fileExtensions = extensions
        self.init(spec) { text in text }
    }
}

extension Option where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// One of an enumeration's raw values, or an old word for one (`aliases`, read but never
    /// shown: a renamed value breaks no script).
    public init(choice long: String, short: Character? = nil, of type: Value.Type, aliases: [String: Value] = [:],
                valueName: String? = nil, help: String) {
        self.init(choice: long, short: short, among: Array(Value.allCases), aliases: aliases, valueName: valueName, help: help)
    }
}

extension Option where Value: RawRepresentable & Sendable, Value.RawValue == String {
    /// The raw value of one of `values` (some of an enumeration's cases, listed in this order),
    /// or an old word for one (`aliases`, read but never shown: a renamed value breaks no script).
    public init(choice long: String, short: Character? = nil, among values: [Value], aliases: [String: Value] = [:],
                valueName: String? = nil, help: String) {
        let words = values.map(\.rawValue)
        self.init(OptionSpec(long, short: short, value: .choice(Choices(words)), valueName: valueName, help: help)) { text throws(UsageError) in
            guard let value = values.first(where: { $0.rawValue == text }) ?? aliases[text] else {
                throw UsageError("option '--\(long)' takes one of \(words.joined(separator: ", ")), not '\(text)'"
                                 + ArgumentParser.suggestion(for: text, among: words, prefix: ""))
            }
            return value
        }
    }
}

extension Option {
    /// A value of any type, parsed by `parse` (which throws a usage error naming the problem).
    public init(custom long: String, short: Character? = nil, value kind: OptionValue = .text, valueName: String,
                suggestions: [String] = [], help: String, parse: @escaping @Sendable (String) throws(UsageError) -> Value) {
        var spec = OptionSpec(long, short: short, value: kind, valueName: valueName, help: help)
        spec.suggestions = suggestions
        self.init(spec, parse: parse)
    }
}
