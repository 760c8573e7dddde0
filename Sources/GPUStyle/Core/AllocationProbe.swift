import CImageShims

/// Swift arrays trap (exit 134, a backtrace) when their allocation fails, and `Image` holds
/// its planes in arrays. So before a large array is made, the same number of bytes is asked of
/// malloc and given straight back: a refusal becomes an `OutOfMemoryError` the caller reports
/// in one line. This catches an address-space limit (`ulimit -v`) and sizes the kernel's
/// overcommit heuristic refuses outright (more than RAM + swap); the array allocated right
/// after reuses the range just unmapped. It cannot foresee memory taken between the probe and
/// the allocation, nor a cgroup limit enforced later by the OOM killer when pages are touched.
public enum AllocationProbe {
    /// Throws `OutOfMemoryError(what:bytes:purpose:)` when `bytes` cannot be allocated now.
    public static func check(bytes: Int, what: String, purpose: String? = nil) throws {
        guard bytes > 0 else { return }
        // In C, where the optimizer cannot drop the malloc/free pair (see gps_can_allocate).
        guard gps_can_allocate(bytes) != 0 else {
            throw OutOfMemoryError(what: what, bytes: bytes, purpose: purpose)
        }
    }
}
