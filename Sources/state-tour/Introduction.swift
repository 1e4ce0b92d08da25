/// The package and its flavours, as the tour introduces them.
enum Introduction {
    /// One flavour of the package: its product, the library it re-expresses,
    /// and its style in one line.
    struct Flavour: Equatable {
        let product: String
        let seed: String
        let style: String
    }

    static let flavours = [
        Flavour(
            product: "ReactorStyle",
            seed: "Reactor",
            style:
                "Core<State>: events make the state react, commands run effects, subscribers are notified on their queue"
        ),
        Flavour(
            product: "DucksStyle",
            seed: "RxDucks",
            style: "Store<State>: actions pass through middlewares into a reducer, states arrive as observables"
        ),
        Flavour(
            product: "ReceiverStyle",
            seed: "Receiver",
            style: "Receiver<Wave>: a transmitter broadcasts, listeners hear hot, warm or cold, with operators"
        ),
        Flavour(
            product: "DeltaStyle",
            seed: "Delta",
            style: "StoreType: actions reduce an ObservableProperty, dynamic actions run effects"
        ),
    ]

    /// The text the tour prints.
    static var text: String {
        var lines = [
            "StateFlavours: unidirectional state management in Swift, in four flavours on one core.",
            "",
            "Every flavour re-exports StateCore (locks, disposables, schedulers, one observer registry):",
        ]
        let width = flavours.map(\.product.count).max() ?? 0
        for flavour in flavours {
            let padding = String(repeating: " ", count: width - flavour.product.count)
            lines.append("  \(flavour.product)\(padding)  (from \(flavour.seed)) \(flavour.style)")
        }
        lines += [
            "",
            "The side-by-side tour of one app in all four flavours is being built;",
            "meanwhile, `swift test` runs every flavour's tests.",
        ]
        return lines.joined(separator: "\n")
    }
}
