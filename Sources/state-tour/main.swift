import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("state-tour: error: \(error)\n\n\(Options.usage)\n".utf8))
    exit(2)
}

if options.help {
    print(Options.usage)
    exit(0)
}

do {
    let allMatched = try Tour(options: options, isTerminal: isatty(STDOUT_FILENO) == 1).run()
    exit(allMatched ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("state-tour: error: \(error)\n".utf8))
    exit(1)
}
