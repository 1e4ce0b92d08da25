import StateCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The calling thread as a log entry names it, read with pthread calls (the
/// inspector links no `Foundation`, which alone has `Thread`).
enum CurrentThread {
    /// A readable name for the calling thread: `"main"`, the thread's name,
    /// or its number.
    static var name: String {
        if isMain { return "main" }
        if let name = systemName, !name.isEmpty { return name }
        return "thread \(currentThreadIdentity())"
    }

    /// Whether the calling thread is the process's main thread.
    static var isMain: Bool {
        #if canImport(Darwin)
            pthread_main_np() != 0
        #else
            // On Linux the main thread's id is the process's.
            Linux.threadID.map { $0() == getpid() } ?? false
        #endif
    }

    /// The name the system keeps for the calling thread, if it has one.
    static var systemName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        #if canImport(Darwin)
            guard pthread_getname_np(pthread_self(), &buffer, buffer.count) == 0 else { return nil }
        #else
            guard let getName = Linux.threadName, getName(pthread_self(), &buffer, buffer.count) == 0 else {
                return nil
            }
        #endif
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    #if !canImport(Darwin)
        /// The C library's thread calls that its Swift module does not show
        /// (they need `_GNU_SOURCE`), looked up once.
        private enum Linux {
            typealias ThreadID = @convention(c) () -> pid_t
            typealias ThreadName = @convention(c) (pthread_t, UnsafeMutablePointer<CChar>, Int) -> Int32

            static let threadID: ThreadID? = symbol("gettid", as: ThreadID.self)
            static let threadName: ThreadName? = symbol("pthread_getname_np", as: ThreadName.self)

            private static func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
                // RTLD_DEFAULT: the symbols of everything the process has loaded.
                dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
            }
        }
    #endif
}
