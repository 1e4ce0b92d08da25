import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where a sending thread releases handlers: a source often drops its last
/// reference to a cancelled handler inside its own critical step (while it
/// rebuilds its list of handlers), so a handler whose release waits there a
/// moment lets another thread act inside that step.
final class ReleaseWatch: Sendable {
    private let watched = Atomic<UInt>(0)
    private let waiting = Atomic<Int>(0)
    private let letGoCount = Atomic<Int>(0)
    private let yielding: Bool
    private let whenWaiting: @Sendable () -> Void

    /// Creates a watch.
    ///
    /// - Parameters:
    ///   - yielding: Whether a waiting release yields its processor now
    ///     and then, in case the thread that lets it go shares it (false
    ///     for threads on processors of their own: on a machine busy with
    ///     other work a yield lasts milliseconds).
    ///   - whenWaiting: Called on the watched thread once a release waits,
    ///     to wake the thread that lets it go (`DisposalRace.wakeOther()`).
    init(yielding: Bool = true, whenWaiting: @escaping @Sendable () -> Void = {}) {
        self.yielding = yielding
        self.whenWaiting = whenWaiting
    }

    /// Watches the releases the calling thread makes.
    func watchThisThread() {
        watched.store(currentThreadIdentity(), ordering: .sequentiallyConsistent)
    }

    /// Whether a release on the watched thread waits to be let go.
    var isWaiting: Bool {
        waiting.load(ordering: .sequentiallyConsistent) > letGoCount.load(ordering: .sequentiallyConsistent)
    }

    /// Lets every waiting release go on.
    func letGo() {
        letGoCount.store(waiting.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
    }

    /// A release: on the watched thread, waits (a few microseconds at most)
    /// to be let go.
    func released() {
        guard currentThreadIdentity() == watched.load(ordering: .sequentiallyConsistent) else { return }
        let number = waiting.add(1, ordering: .sequentiallyConsistent).newValue
        whenWaiting()
        var spins = 0
        while letGoCount.load(ordering: .sequentiallyConsistent) < number && spins < 20_000 {
            spins += 1
            if yielding && spins % 64 == 0 { sched_yield() }
        }
        letGoCount.max(number, ordering: .sequentiallyConsistent)
    }
}

/// Captured by a handler: tells its ``ReleaseWatch`` when the source
/// releases the handler.
final class ReleaseProbe: Sendable {
    private let watch: ReleaseWatch

    init(_ watch: ReleaseWatch) {
        self.watch = watch
    }

    deinit {
        watch.released()
    }
}
