/// Eigen-decomposition of a small real symmetric matrix by the cyclic Jacobi method (Golub and
/// Van Loan, "Matrix Computations", §8.5): plane rotations zero the off-diagonal entries one by
/// one until they vanish. Slow for large n, but for the 9 × 9 normal matrices of a homography
/// fit it is a few hundred rotations, and it is accurate for the small eigenvalues that matter.
enum SymmetricEigen {
    /// Eigenvalues (ascending) and the matching unit eigenvectors (`vectors[k]` goes with
    /// `values[k]`) of the n × n row-major symmetric matrix `a`.
    static func decompose(_ a: [Double], size n: Int) -> (values: [Double], vectors: [[Double]]) {
        precondition(a.count == n * n, "matrix must be n × n")
        var a = a
        var v = [Double](repeating: 0, count: n * n)
        for i in 0..<n { v[i * n + i] = 1 }
        let scale = a.map { $0 * $0 }.reduce(0, +)
        for _ in 0..<60 {
            var off = 0.0
            for p in 0..<n { for q in (p + 1)..<n { off += a[p * n + q] * a[p * n + q] } }
            // Converged to working precision (relative to the whole matrix) or the matrix is zero.
            if off <= 1e-30 * scale || off == 0 { break }
            for p in 0..<(n - 1) {
                for q in (p + 1)..<n {
                    let apq = a[p * n + q]
                    if apq == 0 { continue }
                    // The rotation that zeroes a[p][q]: t = tan θ, the smaller root of
                    // t² + 2 τ t − 1 = 0 with τ = (a_qq − a_pp) / (2 a_pq), for stability.
                    let tau = (a[q * n + q] - a[p * n + p]) / (2 * apq)
                    let t = (tau >= 0 ? 1.0 : -1.0) / (abs(tau) + (1 + tau * tau).squareRoot())
                    let c = 1 / (1 + t * t).squareRoot(), s = t * c
                    for k in 0..<n {
                        let akp = a[k * n + p], akq = a[k * n + q]
                        a[k * n + p] = c * akp - s * akq
                        a[k * n + q] = s * akp + c * akq
                    }
                    for k in 0..<n {
                        let apk = a[p * n + k], aqk = a[q * n + k]
                        a[p * n + k] = c * apk - s * aqk
                        a[q * n + k] = s * apk + c * aqk
                    }
                    for k in 0..<n {
                        let vkp = v[k * n + p], vkq = v[k * n + q]
                        v[k * n + p] = c * vkp - s * vkq
                        v[k * n + q] = s * vkp + c * vkq
                    }
                }
            }
        }
        let order = (0..<n).sorted { a[$0 * n + $0] < a[$1 * n + $1] }
        return (order.map { a[$0 * n + $0] }, order.map { k in (0..<n).map { v[$0 * n + k] } })
    }
}
