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
    /// or its number; as it was when the thread first asked.
    ///
    /// Read once per thread and kept in the thread's own storage: a log
    /// records many inputs on one thread, and reading the name costs system
    /// calls and an allocation.
    static var name: String {
        if let stored = pthread_getspecific(key) {
            return Unmanaged<StoredName>.fromOpaque(stored).takeUnretainedValue().name
        }
        let name = readName()
        pthread_setspecific(key, Unmanaged.passRetained(StoredName(name)).toOpaque())
        return name
    }

    private static func readName() -> String {
        if isMain { return "main" }
        if let name = systemName, !name.isEmpty { return name }
        return "thread \(currentThreadIdentity())"
    }

    /// A thread's name, in its own storage.
    private final class StoredName {
        let name: String
        init(_ name: String) { self.name = name }
    }

    /// The key of the name in each thread's storage; the name is released
    /// when its thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { stored in
            // Linux passes an optional pointer, Darwin not.
            let pointer: UnsafeMutableRawPointer? = stored
            guard let pointer else { return }
            Unmanaged<StoredName>.fromOpaque(pointer).release()
        }
        precondition(created == 0, "StateInspector could not make a thread-storage key (\(created)).")
        return key
    }()

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
