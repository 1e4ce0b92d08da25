import StateCore

// A source of StateCore's kind is checked as it is: the kit drives it
// through `send(_:)` and `observe(_:)`, reads its current value through
// `currentValue`, and takes its replay from `replay`. Only what the type
// cannot say is given: the model of its output (an operator's), and a
// disposal weaker than the package's.

extension ConformanceSource {
    /// A source that takes and delivers integers, checked as it is.
    ///
    /// ```swift
    /// let relay = ConformanceSource(name: "PublishRelay") { PublishRelay<Int>() }
    /// let property = ConformanceSource { ObservableProperty(0) }
    /// ```
    ///
    /// Its traits are read from a first instance: its `replay`,
    /// whether it keeps a current value (`currentValue` is not
    /// `nil`), synchronous delivery (a source's observers are called on the
    /// delivering thread).
    ///
    /// - Parameters:
    ///   - name: The name the scorecard shows; the source's type by default.
    ///   - model: What an observer must see for the values sent; every
    ///     value, as sent, by default.
    ///   - disposal: What ending a subscription promises; final, waiting
    ///     for a running call (the package's promise), by default.
    ///   - make: Makes a fresh source, with nothing sent yet.
    public init<Made: Inlet & AnyObject & Sendable>(
        name: String? = nil,
        model: OutputModel = .identity,
        disposal: SourceTraits.Disposal = .waitsForRunningCall,
        make: @escaping @Sendable () -> Made
    ) where Made.Input == Int, Made.Value == Int {
        self.init(name: name, model: model, disposal: disposal) { () -> (Made, Made) in
            let made = make()
            return (made, made)
        }
    }

    /// A source that takes some other input or delivers some other value,
    /// checked through a mapping from and to integers.
    ///
    /// ```swift
    /// let core = ConformanceSource(
    ///     name: "Reactor Core",
    ///     make: { Core(state: Counter()) },
    ///     input: { SetCount(count: $0) },     // an Int, as an event
    ///     output: { $0.count }                // a state, as an Int
    /// )
    /// ```
    ///
    /// `input` and `output` must be inverse: the state after `input(n)` is
    /// one whose `output` is `n`, or the rules see values the source did not
    /// send. The initial state may stand for any integer: the rules read it
    /// through `currentValue` first.
    ///
    /// - Parameters:
    ///   - name: The name the scorecard shows; the source's type by default.
    ///   - model: What an observer must see, in terms of `output`.
    ///   - disposal: What ending a subscription promises.
    ///   - make: Makes a fresh source, with nothing sent yet.
    ///   - input: The source's input for an integer.
    ///   - output: The integer a delivered value stands for.
    public init<Made: Inlet & AnyObject & Sendable>(
        name: String? = nil,
        model: OutputModel = .identity,
        disposal: SourceTraits.Disposal = .waitsForRunningCall,
        make: @escaping @Sendable () -> Made,
        input: @escaping @Sendable (Int) -> Made.Input,
        output: @escaping @Sendable (Made.Value) -> Int
    ) {
        self.init(
            name: name, model: model, disposal: disposal,
            make: { () -> (Made, Made) in
                let made = make()
                return (made, made)
            },
            input: input, output: output)
    }

    /// A source whose input goes through another source: a `Receiver` and
    /// its transmitter, or an operator's output and the source it stands on.
    ///
    /// ```swift
    /// let warm = ConformanceSource(name: "Receiver warm") { Receiver<Int>.make(with: .warm(upTo: 3)) }
    /// let tripled = ConformanceSource(name: "Receiver cold.map(×3)", model: .map("×3") { $0 * 3 }) {
    ///     let (transmitter, receiver) = Receiver<Int>.make(with: .cold)
    ///     return (transmitter, receiver.map { $0 * 3 })
    /// }
    /// ```
    ///
    /// The traits are the output's; the scorecard checks the output, and the
    /// sender is kept alive with it.
    ///
    /// - Parameters:
    ///   - name: The name the scorecard shows; the output's type by default.
    ///   - model: What an observer of the output must see for the values
    ///     sent.
    ///   - disposal: What ending a subscription promises.
    ///   - make: Makes a fresh sender and the source it delivers through.
    public init<Sender: Inlet & Sendable, Output: Source & AnyObject & Sendable>(
        name: String? = nil,
        model: OutputModel = .identity,
        disposal: SourceTraits.Disposal = .waitsForRunningCall,
        make: @escaping @Sendable () -> (Sender, Output)
    ) where Sender.Input == Int, Output.Value == Int {
        let traits = Self.traits(of: make().1, model: model, disposal: disposal)
        self.init(name: name ?? "\(Output.self)", traits: traits) {
            let (sender, source) = make()
            // Integers straight through, with no mapping closure between
            // the kit's handlers and the source: a race rule's timing is the
            // source's own.
            return SourceUnderTest(sender: sender, source: source, keepsCurrentValue: traits.keepsCurrentValue)
        }
    }

    /// The traits of a source, read from `probe`.
    static func traits<Output: Source>(of probe: Output, model: OutputModel, disposal: SourceTraits.Disposal)
        -> SourceTraits
    {
        SourceTraits(
            replay: probe.replay, model: model, keepsCurrentValue: probe.currentValue != nil, disposal: disposal)
    }

    /// A source whose input goes through another source, checked through a
    /// mapping from and to integers.
    ///
    /// - Parameters:
    ///   - name: The name the scorecard shows; the output's type by default.
    ///   - model: What an observer must see, in terms of `output`.
    ///   - disposal: What ending a subscription promises.
    ///   - make: Makes a fresh sender and the source it delivers through.
    ///   - input: The sender's input for an integer.
    ///   - output: The integer a delivered value stands for.
    public init<Sender: Inlet & Sendable, Output: Source & AnyObject & Sendable>(
        name: String? = nil,
        model: OutputModel = .identity,
        disposal: SourceTraits.Disposal = .waitsForRunningCall,
        make: @escaping @Sendable () -> (Sender, Output),
        input: @escaping @Sendable (Int) -> Sender.Input,
        output: @escaping @Sendable (Output.Value) -> Int
    ) {
        let traits = Self.traits(of: make().1, model: model, disposal: disposal)
        self.init(name: name ?? "\(Output.self)", traits: traits) {
            let (sender, source) = make()
            return SourceUnderTest(
                sender: sender, source: source, keepsCurrentValue: traits.keepsCurrentValue,
                input: input, output: output)
        }
    }
}

extension SourceUnderTest {
    /// An instance of a source of integers, driven through `sender`.
    convenience init<Sender: Inlet & Sendable, Output: Source & AnyObject & Sendable>(
        sender: Sender,
        source: Output,
        keepsCurrentValue: Bool
    ) where Sender.Input == Int, Output.Value == Int {
        var current: (@Sendable () -> Int?)?
        if keepsCurrentValue {
            current = { source.currentValue }
        }
        let send: @Sendable (Int) -> Void = { value in sender.send(value) }
        let subscribe: @Sendable (@escaping @Sendable (Int) -> Void) -> Disposable = { handler in
            source.observe(handler)
        }
        self.init(object: source, readingCurrent: current, send: send, subscribe: subscribe, keepAlive: [sender])
    }

    /// An instance of a source of StateCore's kind, driven through `sender`.
    convenience init<Sender: Inlet & Sendable, Output: Source & AnyObject & Sendable>(
        sender: Sender,
        source: Output,
        keepsCurrentValue: Bool,
        input: @escaping @Sendable (Int) -> Sender.Input,
        output: @escaping @Sendable (Output.Value) -> Int
    ) {
        var current: (@Sendable () -> Int?)?
        if keepsCurrentValue {
            current = { source.currentValue.map(output) }
        }
        let send: @Sendable (Int) -> Void = { value in sender.send(input(value)) }
        let subscribe: @Sendable (@escaping @Sendable (Int) -> Void) -> Disposable = { handler in
            source.observe { value in handler(output(value)) }
        }
        self.init(object: source, readingCurrent: current, send: send, subscribe: subscribe, keepAlive: [sender])
    }
}

extension Conformance {
    /// Checks every rule against a source of StateCore's kind, made fresh
    /// for each check, with no adapter.
    ///
    /// ```swift
    /// let results = Conformance.check(runs: 20) { PublishRelay<Int>() }
    /// print(Scorecard.table(results, rules: Conformance.rules))
    /// ```
    ///
    /// - Parameters:
    ///   - name: The name the scorecard shows; the source's type by default.
    ///   - rules: The rules; the built-in ones by default.
    ///   - runs: How many times to check each rule; 1 by default.
    ///   - make: Makes a fresh source, with nothing sent yet.
    /// - Returns: One result per rule, in order.
    public static func check<Made: Inlet & AnyObject & Sendable>(
        named name: String? = nil,
        rules: [Rule] = Conformance.rules,
        runs: Int = 1,
        _ make: @escaping @Sendable () -> Made
    ) -> [RuleResult] where Made.Input == Int, Made.Value == Int {
        check([ConformanceSource(name: name, make: make)], rules: rules, runs: runs)
    }

    /// Checks every rule against a source whose input goes through another
    /// source (a `Receiver` and its transmitter), with no adapter.
    ///
    /// ```swift
    /// let results = Conformance.check(runs: 20) { Receiver<Int>.make(with: .warm(upTo: 3)) }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The name the scorecard shows; the output's type by default.
    ///   - rules: The rules; the built-in ones by default.
    ///   - runs: How many times to check each rule; 1 by default.
    ///   - make: Makes a fresh sender and the source it delivers through.
    /// - Returns: One result per rule, in order.
    public static func check<Sender: Inlet & Sendable, Output: Source & AnyObject & Sendable>(
        named name: String? = nil,
        rules: [Rule] = Conformance.rules,
        runs: Int = 1,
        _ make: @escaping @Sendable () -> (Sender, Output)
    ) -> [RuleResult] where Sender.Input == Int, Output.Value == Int {
        check([ConformanceSource(name: name, make: make)], rules: rules, runs: runs)
    }

    /// Checks every rule against a source that takes some other input or
    /// delivers some other value, through a mapping from and to integers.
    ///
    /// ```swift
    /// let results = Conformance.check(
    ///     runs: 20,
    ///     make: { Core(state: Counter()) },
    ///     input: { SetCount(count: $0) },
    ///     output: { $0.count }
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - name: The name the scorecard shows; the source's type by default.
    ///   - rules: The rules; the built-in ones by default.
    ///   - runs: How many times to check each rule; 1 by default.
    ///   - make: Makes a fresh source, with nothing sent yet.
    ///   - input: The source's input for an integer.
    ///   - output: The integer a delivered value stands for (the inverse of
    ///     `input`).
    /// - Returns: One result per rule, in order.
    public static func check<Made: Inlet & AnyObject & Sendable>(
        named name: String? = nil,
        rules: [Rule] = Conformance.rules,
        runs: Int = 1,
        make: @escaping @Sendable () -> Made,
        input: @escaping @Sendable (Int) -> Made.Input,
        output: @escaping @Sendable (Made.Value) -> Int
    ) -> [RuleResult] {
        check([ConformanceSource(name: name, make: make, input: input, output: output)], rules: rules, runs: runs)
    }
}
