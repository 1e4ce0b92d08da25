import Observation
import StateCore

/// One render of an `Observable` model, as SwiftUI would run it: `body`
/// runs under `withObservationTracking`, and each `onChange` counts one
/// invalidation.
package final class Render: Sendable {
    /// The invalidations counted since the last ``take()``.
    package let invalidations = LockedValue(0)
    private let body: @Sendable () -> Void

    /// Runs `body` once, tracked.
    package init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        arm()
    }

    private func arm() {
        withObservationTracking(body) { [invalidations] in invalidations.modify { $0 += 1 } }
    }

    /// The invalidations since the last call; renders again (tracked) after one.
    package func take() -> Int {
        let count = invalidations.modify { count in
            defer { count = 0 }
            return count
        }
        if count > 0 { arm() }
        return count
    }
}
