import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the threads of a round run.
///
/// On Linux each runs on a processor of its
/// own (of those the process may use), so that the scheduler cannot keep
/// them on one core taking turns while other work has the rest. A round's
/// threads start at a processor that moves on each time, so that on a
/// machine with more processors than threads no one busy core is always
/// one of theirs. Elsewhere the scheduler decides.
enum Processors {
    #if os(Linux)
        // GNU extensions, which the Glibc module does not import: looked up.
        private typealias Affinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32
        private static func lookUp(_ name: String) -> Affinity? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Affinity.self) }
        }
        private static let getAffinity = lookUp("sched_getaffinity")
        private static let setAffinity = lookUp("sched_setaffinity")

        private static let allowed: [Int] = {
            var set = cpu_set_t()
            guard let getAffinity, setAffinity != nil,
                getAffinity(0, MemoryLayout<cpu_set_t>.size, &set) == 0
            else { return [] }
            return withUnsafeBytes(of: &set) { bytes in
                bytes.indices.flatMap { byte in
                    (0..<8).filter { bit in bytes[byte] & (1 << bit) != 0 }.map { bit in byte * 8 + bit }
                }
            }
        }()
        private static let starts = Atomic<Int>(0)
    #endif

    /// Where the threads of a new round start counting processors.
    static func nextStart(for count: Int) -> Int {
        #if os(Linux)
            starts.add(count, ordering: .relaxed).oldValue
        #else
            0
        #endif
    }

    /// Whether ``pin(thread:of:startingAt:)`` gives each of `count` threads
    /// a processor of its own: on Linux, with at least two processors,
    /// and as many as threads.
    static func canPin(_ count: Int) -> Bool {
        #if os(Linux)
            setAffinity != nil && allowed.count >= 2 && count <= allowed.count
        #else
            false
        #endif
    }

    /// Pins the calling thread, the `thread`th of `count`, to a processor
    /// of its own if there are enough (on Linux; elsewhere it does nothing).
    static func pin(thread: Int, of count: Int, startingAt first: Int) {
        #if os(Linux)
            let processors = allowed
            guard canPin(count) else { return }
            let processor = processors[(first + thread) % processors.count]
            var set = cpu_set_t()
            withUnsafeMutableBytes(of: &set) { bytes in bytes[processor / 8] |= UInt8(1 << (processor % 8)) }
            // Best effort: a thread that cannot be pinned runs where the
            // scheduler puts it.
            _ = setAffinity?(0, MemoryLayout<cpu_set_t>.size, &set)
        #endif
    }
}
