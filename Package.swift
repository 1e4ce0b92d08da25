// swift-tools-version: 6.2
import PackageDescription

// Tools 6.2: the code uses `SendableMetatype` and `weak let`. Tested with 6.3.1.
let package = Package(
    name: "StateFlavours",
    // Synchronization's `Atomic` (used by StateCore's registry) sets the floor on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "ReactorStyle", targets: ["ReactorStyle"]),
        .library(name: "DucksStyle", targets: ["DucksStyle"]),
        .library(name: "ReceiverStyle", targets: ["ReceiverStyle"]),
        .library(name: "DeltaStyle", targets: ["DeltaStyle"]),
        .library(name: "StateConformance", targets: ["StateConformance", "StateConformanceTesting"]),
        .library(name: "StateTesting", targets: ["StateTesting"]),
        .executable(name: "state-tour", targets: ["state-tour"]),
        .executable(name: "state-conformance", targets: ["state-conformance"]),
    ],
    targets: [
        .target(name: "StateCore"),
        .target(name: "ReactorStyle", dependencies: ["StateCore"]),
        .target(name: "DucksStyle", dependencies: ["StateCore"]),
        .target(name: "ReceiverStyle", dependencies: ["StateCore"]),
        .target(name: "DeltaStyle", dependencies: ["StateCore"]),
        .target(
            name: "StateConformance",
            dependencies: ["StateCore", "ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle"]
        ),
        // The one target that imports the test frameworks, shared by the kits'
        // runners; the kits' cores (and the scorecard command) do not.
        .target(name: "StateReporting"),
        .target(name: "StateConformanceTesting", dependencies: ["StateConformance", "StateReporting"]),
        .executableTarget(name: "state-conformance", dependencies: ["StateConformance"]),
        .target(
            name: "StateTesting",
            dependencies: [
                "StateCore", "StateConformance", "StateReporting", "ReactorStyle", "DucksStyle", "ReceiverStyle",
                "DeltaStyle",
            ]
        ),
        .target(
            name: "Scenarios",
            dependencies: [
                "StateCore", "StateConformance", "ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle",
            ]
        ),
        .executableTarget(
            name: "state-tour",
            dependencies: ["Scenarios", "StateCore"]
        ),
        .target(name: "TestSupport", dependencies: ["StateCore"], path: "Tests/TestSupport"),
        .executableTarget(
            name: "state-bench",
            dependencies: ["ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle"]
        ),
        .testTarget(name: "StateCoreTests", dependencies: ["StateCore", "TestSupport"]),
        .testTarget(name: "ReactorStyleTests", dependencies: ["ReactorStyle", "TestSupport"]),
        .testTarget(name: "DucksStyleTests", dependencies: ["DucksStyle", "Scenarios", "TestSupport"]),
        .testTarget(name: "ReceiverStyleTests", dependencies: ["ReceiverStyle", "TestSupport"]),
        .testTarget(name: "DeltaStyleTests", dependencies: ["DeltaStyle", "TestSupport"]),
        .testTarget(name: "ConformanceTests", dependencies: ["Scenarios", "StateConformance"]),
        .testTarget(
            name: "StateTestingTests",
            dependencies: [
                "StateTesting", "Scenarios", "DucksStyle", "ReactorStyle", "ReceiverStyle", "DeltaStyle", "StateCore",
            ]),
        .testTarget(
            name: "StateConformanceTests",
            dependencies: [
                "StateConformance", "StateConformanceTesting", "StateCore", "TestSupport", "state-conformance",
            ]
        ),
        .testTarget(
            name: "StateTourTests",
            dependencies: [
                "state-tour", "Scenarios", "TestSupport", "ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle",
            ],
            // Read by path: a recorded session that every run replays.
            exclude: ["session-recording.jsonl"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
