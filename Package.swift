// swift-tools-version: 6.2
import PackageDescription

// Tools 6.2: the code uses `SendableMetatype` and `weak let`. Tested with 6.3.1.
let package = Package(
    name: "StateFlavours",
    // Synchronization's `Atomic` (used by StateCore's registry) sets the floor on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // The four flavours: each re-exports StateCore.
        .library(name: "ReactorStyle", targets: ["ReactorStyle"]),
        .library(name: "DucksStyle", targets: ["DucksStyle"]),
        .library(name: "ReceiverStyle", targets: ["ReceiverStyle"]),
        .library(name: "DeltaStyle", targets: ["DeltaStyle"]),
        // The tools, one job each.
        .library(name: "StateInspector", targets: ["StateInspector"]),
        .library(name: "StateConformance", targets: ["StateConformance"]),
        .library(name: "StateTesting", targets: ["StateTesting"]),
        // Each flavour's test front: that flavour and StateTesting, nothing else.
        .library(name: "ReactorStyleTesting", targets: ["ReactorStyleTesting"]),
        .library(name: "DucksStyleTesting", targets: ["DucksStyleTesting"]),
        .library(name: "ReceiverStyleTesting", targets: ["ReceiverStyleTesting"]),
        .library(name: "DeltaStyleTesting", targets: ["DeltaStyleTesting"]),
        .executable(name: "state-tour", targets: ["state-tour"]),
        .executable(name: "state-conformance", targets: ["state-conformance"]),
        .executable(name: "state-inspect", targets: ["state-inspect"]),
    ],
    targets: [
        // The mechanism: locks, disposables, schedulers, the registry, the
        // state source, and the seams the inspector reads. No Foundation.
        .target(name: "StateCore"),
        .target(name: "StateInspector", dependencies: ["StateCore"]),
        .target(name: "ReactorStyle", dependencies: ["StateCore"]),
        .target(name: "DucksStyle", dependencies: ["StateCore"]),
        .target(name: "ReceiverStyle", dependencies: ["StateCore"]),
        .target(name: "DeltaStyle", dependencies: ["StateCore"]),
        .target(name: "StateConformance", dependencies: ["StateCore", "StateInspector"]),
        // The one library that imports the test frameworks.
        .target(name: "StateTesting", dependencies: ["StateCore", "StateInspector", "StateConformance"]),
        .target(name: "ReactorStyleTesting", dependencies: ["StateTesting", "ReactorStyle"]),
        .target(name: "DucksStyleTesting", dependencies: ["StateTesting", "DucksStyle"]),
        .target(name: "ReceiverStyleTesting", dependencies: ["StateTesting", "ReceiverStyle"]),
        .target(name: "DeltaStyleTesting", dependencies: ["StateTesting", "DeltaStyle"]),
        // Not a product: the package's own sources adapted to the rules, for
        // the scorecard command and the tests.
        .target(
            name: "PackageSources",
            dependencies: ["StateConformance", "ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle"]
        ),
        .executableTarget(name: "state-conformance", dependencies: ["StateConformance", "PackageSources"]),
        .target(
            name: "Scenarios",
            dependencies: [
                "StateCore", "StateInspector", "StateConformance", "ReactorStyle", "DucksStyle", "ReceiverStyle",
                "DeltaStyle", "PackageSupport",
            ]
        ),
        .executableTarget(
            name: "state-tour",
            dependencies: ["Scenarios", "StateCore", "SVGText"]
        ),
        // Not a product: a recorded session as one offline page, for
        // state-inspect.
        .target(name: "SessionPage", dependencies: ["SVGText"]),
        .executableTarget(name: "state-inspect", dependencies: ["SessionPage"]),
        // Text in the tour's timeline, the bench chart and the session page,
        // escaped in one place.
        .target(name: "SVGText"),
        .target(name: "TestSupport", dependencies: ["StateCore", "PackageSupport"], path: "Tests/TestSupport"),
        // Not a product: helpers the package's tools and tests share.
        .target(name: "PackageSupport", dependencies: ["StateCore"]),
        .executableTarget(
            name: "state-bench",
            dependencies: ["StateInspector", "ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle", "SVGText"]
        ),
        .testTarget(name: "StateCoreTests", dependencies: ["StateCore", "TestSupport"]),
        .testTarget(
            name: "StateInspectorTests",
            dependencies: [
                "StateInspector", "StateCore", "TestSupport", "ReactorStyle", "DucksStyle", "ReceiverStyle",
                "DeltaStyle", "Scenarios",
            ]
        ),
        .testTarget(name: "ReactorStyleTests", dependencies: ["ReactorStyle", "StateInspector", "TestSupport"]),
        .testTarget(
            name: "DucksStyleTests", dependencies: ["DucksStyle", "StateInspector", "Scenarios", "TestSupport"]),
        .testTarget(name: "ReceiverStyleTests", dependencies: ["ReceiverStyle", "StateInspector", "TestSupport"]),
        .testTarget(name: "DeltaStyleTests", dependencies: ["DeltaStyle", "StateInspector", "TestSupport"]),
        .testTarget(
            name: "BridgeTests",
            dependencies: [
                "ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle", "StateInspector", "TestSupport",
            ]),
        .testTarget(
            name: "ObservationTests",
            dependencies: [
                "ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle", "StateInspector", "TestSupport",
            ]),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "Scenarios", "StateConformance", "ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle",
                "PackageSupport",
            ]),
        .testTarget(
            name: "StateTestingTests",
            dependencies: [
                "StateTesting", "ReactorStyleTesting", "DucksStyleTesting", "ReceiverStyleTesting",
                "DeltaStyleTesting", "StateInspector", "Scenarios", "DucksStyle", "ReactorStyle", "ReceiverStyle",
                "DeltaStyle", "StateCore", "TestSupport",
            ],
            // Read by path: the golden sessions the tests replay.
            exclude: ["GoldenSessions/Sessions"]),
        .testTarget(
            name: "StateConformanceTests",
            dependencies: [
                "StateConformance", "StateTesting", "PackageSources", "StateCore", "TestSupport",
                "state-conformance",
            ]
        ),
        .testTarget(
            name: "SessionPageTests",
            dependencies: ["SessionPage", "TestSupport", "state-inspect", "StateInspector", "DucksStyle"]),
        .testTarget(
            name: "StateTourTests",
            dependencies: [
                "state-tour", "Scenarios", "TestSupport", "StateInspector", "ReactorStyle", "DucksStyle",
                "ReceiverStyle", "DeltaStyle", "SVGText",
            ],
            // Read by path: a recorded session that every run replays.
            exclude: ["session-recording.jsonl"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
