import Foundation

/// `oa-sync` and `oa-repl` in a build directory: symbolic links to the multi-call executable `oa`
/// beside them, which runs the program its link is named after. SwiftPM builds `oa` only, so
/// whatever runs these programs by name from a build directory (the tests, the benchmarks) makes
/// the links first; scripts do the same with tools/build/link-programs.
public enum ProgramLinks {
    /// The programs that are links to `oa`.
    public static let names = ["oa-sync", "oa-repl"]

    /// Makes each link in `directory` that is not there yet (or is not a link to `oa`, as an
    /// executable of a build from before `oa`). Safe when several processes do it at once: each
    /// link is made under a name of its own, then renamed into place in one step.
    public static func make(in directory: URL) throws(LinkError) {
        for name in names {
            let link = directory.appending(path: name)
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == "oa" { continue }
            let staging = directory.appending(path: ".\(name).\(getpid()).\(UUID().uuidString)")
            do {
                try FileManager.default.createSymbolicLink(atPath: staging.path, withDestinationPath: "oa")
            } catch {
                throw LinkError("cannot make \(staging.path): \(error)")
            }
            guard rename(staging.path, link.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: staging)
                throw LinkError("cannot rename \(staging.path) to \(link.path): \(reason)")
            }
        }
    }

    /// The program `name` in `directory`, once its link is made when it is one of `names`.
    public static func executable(_ name: String, in directory: URL) throws(LinkError) -> URL {
        if names.contains(name) { try make(in: directory) }
        return directory.appending(path: name)
    }

    /// Why a link could not be made.
    public struct LinkError: Error, CustomStringConvertible {
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }
}
