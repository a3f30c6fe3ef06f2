import Foundation

/// What the file system said when a file or directory could not be made or written: kept so that
/// how the failure is told can depend on it (a full disk, a refused permission), not only as text.
public struct FileSystemFailure: Sendable, Equatable {
    /// Foundation's code for it, when Foundation threw it.
    public var code: CocoaError.Code?
    /// The system's error number (`ENOSPC`, `EACCES`, …), when one is known.
    public var number: Int32?

    public init(code: CocoaError.Code? = nil, number: Int32? = nil) {
        self.code = code
        self.number = number
    }

    /// Reads them from what Foundation threw: its code, and the POSIX error underneath.
    public init(_ error: any Error) {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        self.init(code: (error as? CocoaError)?.code,
                  number: (error as? POSIXError).map { $0.code.rawValue }
                      ?? underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? Int32($0.code) : nil })
    }

    /// The disk, or the user's quota on it, is full.
    public var isOutOfSpace: Bool {
        code == .fileWriteOutOfSpace || number == ENOSPC || number == EDQUOT
    }

    /// The permissions, or a read-only file system, refuse the write.
    public var isPermissionDenied: Bool {
        code == .fileWriteNoPermission || code == .fileWriteVolumeReadOnly || [EACCES, EPERM, EROFS].contains(number)
    }
}
