import CKernels
#if canImport(Glibc)
import Glibc
#endif

/// Large allocations that report failure: Swift's own allocators trap when the system refuses
/// memory (exit 134 with a backtrace), these throw `OutOfMemoryError` instead.
enum CheckedAllocation {
    /// Uninitialised floats from `malloc`; free with `deallocate()` (malloc and Swift's
    /// allocator are the same on Linux).
    static func floats(_ count: Int, for what: @autoclosure () -> String) throws -> UnsafeMutableBufferPointer<Float> {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<Float>.stride)
        guard !overflow, let raw = malloc(max(bytes, 1)) else { throw OutOfMemoryError(what: what(), bytes: bytes) }
        return UnsafeMutableBufferPointer(start: raw.bindMemory(to: Float.self, capacity: count), count: count)
    }

    /// Uninitialised floats for a large working buffer (`gs_allocate_large`: 2 MiB-aligned on
    /// transparent huge pages from 2 MiB up); free with `deallocate()`.
    static func largeFloats(_ count: Int, for what: @autoclosure () -> String) throws -> UnsafeMutableBufferPointer<Float> {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<Float>.stride)
        guard !overflow, let raw = gs_allocate_large(max(bytes, 1)) else { throw OutOfMemoryError(what: what(), bytes: bytes) }
        return UnsafeMutableBufferPointer(start: raw.bindMemory(to: Float.self, capacity: count), count: count)
    }

    /// `count` elements of `T`, zero-filled.
    static func zeroed<T>(_ count: Int, of type: T.Type, for what: @autoclosure () -> String) throws -> UnsafeMutableBufferPointer<T> {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<T>.stride)
        guard !overflow, let raw = calloc(max(count, 1), MemoryLayout<T>.stride) else {
            throw OutOfMemoryError(what: what(), bytes: bytes)
        }
        return UnsafeMutableBufferPointer(start: raw.bindMemory(to: T.self, capacity: count), count: count)
    }

    /// A float array of `count` elements (contents unspecified), or `OutOfMemoryError`: Swift
    /// arrays trap when their allocation fails, so `AllocationProbe` asks first.
    static func floatArray(_ count: Int, for what: @autoclosure () -> String) throws -> [Float] {
        try AllocationProbe.check(bytes: count * MemoryLayout<Float>.stride, what: what())
        return [Float](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }
}
