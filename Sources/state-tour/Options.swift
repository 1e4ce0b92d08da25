import Scenarios

/// The tour's command line.
struct Options: Equatable {
    var scenario = ScenarioKind.session
    var flavours = Flavour.allCases
    var json = false
    /// Whether to draw live bars; nil means "if standard output is a
    /// terminal".
    var animation: Bool?
    /// Where to write the scenario's timeline (an SVG file) instead of
    /// running the tour; nil to run the tour.
    var timeline: String?
    /// Where to write the session's action logs (JSON Lines); nil not to.
    var record: String?
    /// A file of session action logs to replay and check; nil not to.
    var replay: String?
    var help = false

    static let usage = """
        Usage: state-tour [--scenario NAME] [--flavour NAME]... [--json] [--no-animation]
                          [--timeline FILE.svg] [--record FILE | --replay FILE] [--help]

        Runs one app in the four flavours of StateFlavours side by side, checks every
        flavour against the scenario's fixture, and shows how the flavours differ.

        Options:
          --scenario NAME   counter, session (the default), contention, lifecycle or
                            mixed (the session with one store and a screen per
                            flavour, each through its own flavour's API)
          --flavour NAME    reactor, ducks, receiver or delta; repeat to pick several
                            (default: all four; for mixed, the screens shown)
          --json            print a JSON report instead of drawing
          --no-animation    plain lines instead of live progress bars (the default
                            when standard output is not a terminal)
          --timeline FILE   instead of the tour, run the scenario on virtual time and
                            write its timeline to FILE as an SVG picture: a lane per
                            flavour (for mixed, a lane per screen of its one store)
                            with every input, state, observer call and effect tick
                            in order (counter, session, lifecycle or mixed; not
                            with --json)
          --record FILE     instead of the tour, run the session on virtual time with an
                            action log attached to each flavour's store, and write the
                            logs to FILE as JSON Lines (each line names its flavour)
          --replay FILE     replay the logs in FILE, each into a fresh store of its
                            flavour, and check every state against the recording
          --help            show this help

        Exit status: 0 if every flavour matched its fixture, 1 if one did not,
        2 for a bad command line.
        """

    /// A command-line mistake.
    enum Problem: Error, Equatable, CustomStringConvertible {
        case unknownOption(String)
        case missingValue(option: String)
        case badValue(option: String, value: String, allowed: [String])
        case cannotCombine(String, String)
        case noTimeline(ScenarioKind)
        case onlySession(String)

        var description: String {
            switch self {
            case .unknownOption(let option):
                "unknown option '\(option)'"
            case .missingValue(let option):
                "\(option) needs a value"
            case .badValue(let option, let value, let allowed):
                "'\(value)' is not a valid value for \(option); use one of: \(allowed.joined(separator: ", "))"
            case .cannotCombine(let first, let second):
                "\(first) and \(second) cannot be combined"
            case .onlySession(let option):
                "\(option) records the session scenario only; leave out --scenario or use --scenario session"
            case .noTimeline(let scenario):
                "the \(scenario) scenario runs on real threads, so it has no timeline on virtual time; "
                    + "use --timeline with --scenario \(Options.timelineScenarios)"
            }
        }
    }

    /// The scenarios that have a timeline, as a list in words.
    fileprivate static var timelineScenarios: String {
        let names = ScenarioKind.allCases.filter(\.hasTimeline).map(\.rawValue)
        return names.count < 2
            ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(Problem) -> Options {
        var options = Options()
        var chosenFlavours: [Flavour] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let (name, inlineValue) = split(argument)
            func value() throws(Problem) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw .missingValue(option: name)
                }
                return next
            }
            switch name {
            case "--scenario":
                let value = try value()
                guard let scenario = ScenarioKind(rawValue: value) else {
                    throw .badValue(option: name, value: value, allowed: ScenarioKind.allCases.map(\.rawValue))
                }
                options.scenario = scenario
            case "--flavour", "--flavor":
                let value = try value()
                guard let flavour = Flavour(rawValue: value) else {
                    throw .badValue(option: "--flavour", value: value, allowed: Flavour.allCases.map(\.rawValue))
                }
                if !chosenFlavours.contains(flavour) { chosenFlavours.append(flavour) }
            case "--timeline":
                options.timeline = try value()
            case "--record":
                options.record = try value()
            case "--replay":
                options.replay = try value()
            case "--json" where inlineValue == nil:
                options.json = true
            case "--no-animation" where inlineValue == nil:
                options.animation = false
            case "--help" where inlineValue == nil, "-h" where inlineValue == nil:
                options.help = true
            default:
                throw .unknownOption(argument)
            }
        }
        if !chosenFlavours.isEmpty {
            options.flavours = chosenFlavours.sorted()
        }
        let modes = [("--timeline", options.timeline), ("--record", options.record), ("--replay", options.replay)]
            .filter { $0.1 != nil }.map(\.0)
        if modes.count > 1 { throw .cannotCombine(modes[0], modes[1]) }
        for option in ["--record", "--replay"] where modes == [option] {
            if options.json { throw .cannotCombine(option, "--json") }
            if options.scenario != .session { throw .onlySession(option) }
        }
        if options.timeline != nil {
            if options.json { throw .cannotCombine("--timeline", "--json") }
            if !options.scenario.hasTimeline { throw .noTimeline(options.scenario) }
        }
        return options
    }

    /// Splits `--name=value` into its parts.
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
