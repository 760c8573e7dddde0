import XCTest
@testable import GPUStyle

/// `--shard`: the partition (against tools/shard_reference.py, an independent implementation of
/// the same hash), and how I/N, auto and auto/N are read from a Slurm array's variables.
final class ShardTests: XCTestCase {
    func testHashIsTheReferenceOne() {
        // tools/shard_reference.py "" a IMG_0001.jpg "photo é.png" x/y.heic
        let expected: [(String, UInt64)] = [
            ("", 0xf52a_15e9_a9b5_e89b), ("a", 0x02c0_bdbf_4814_20f8), ("IMG_0001.jpg", 0x5ffd_ba62_4945_ae68),
            ("photo é.png", 0x0b92_1e3d_c269_cc0c), ("x/y.heic", 0xa5bd_ddbe_9289_20a0),
        ]
        for (key, hash) in expected { XCTAssertEqual(Shard.stableHash(key), hash, key) }
    }

    func testEveryKeyBelongsToExactlyOneShardAndTheyAreBalanced() throws {
        let keys = (0..<4000).map { "IMG_\($0).jpg" }
        for count in [1, 2, 3, 7, 16] {
            let shards = try (0..<count).map { try Shard(index: $0, count: count) }
            var sizes = [Int](repeating: 0, count: count)
            for key in keys {
                let owners = shards.filter { $0.owns(key) }
                XCTAssertEqual(owners.count, 1, key)
                sizes[owners[0].index] += 1
            }
            let mean = Double(keys.count) / Double(count)
            // Binomial spread: 5 standard deviations.
            let bound = 5 * (mean * (1 - 1 / Double(count))).squareRoot() + 1
            for size in sizes { XCTAssertLessThan(abs(Double(size) - mean), bound, "\(sizes)") }
        }
    }

    func testAddingFilesMovesOnlyTheNewOnes() throws {
        // The shard of a key depends on the key and the count only.
        let before = (0..<200).map { "a\($0).png" }
        let after = before + (0..<50).map { "b\($0).png" }
        let shard = try Shard(index: 2, count: 5)
        XCTAssertEqual(after.filter(shard.owns).filter(before.contains), before.filter(shard.owns))
    }

    func testExplicitValues() throws {
        XCTAssertEqual(try Shard.parse("1/4", environment: [:]), try Shard(index: 1, count: 4))
        XCTAssertEqual(try Shard.parse("0/1", environment: [:]), Shard.whole)
        for bad in ["4/4", "-1/4", "1/0", "1", "1/4/2", "a/4", "", "/", "1/", "1/2000000"] {
            XCTAssertThrowsError(try Shard.parse(bad, environment: [:]), bad)
        }
    }

    func testSlurmArrays() throws {
        func slurm(_ id: Int, _ min: Int, _ max: Int, extra: [String: String] = [:]) -> [String: String] {
            ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)", "SLURM_ARRAY_TASK_MAX": "\(max)"]
                .merging(extra) { $1 }
        }
        XCTAssertEqual(try Shard.parse("auto", environment: slurm(2, 0, 3)), try Shard(index: 2, count: 4))
        // An array from 1: tasks 1, 2, 3, 4 are shards 1, 2, 3, 0, each once.
        let fromOne = try (1...4).map { try Shard.parse("auto", environment: slurm($0, 1, 4)).index }
        XCTAssertEqual(fromOne, [1, 2, 3, 0])
        // Re-running task 2 of --array=1-4 as --array=2 keeps its shard with auto/4.
        XCTAssertEqual(try Shard.parse("auto/4", environment: slurm(2, 2, 2, extra: ["SLURM_ARRAY_TASK_COUNT": "1"])),
                       try Shard(index: 2, count: 4))
        XCTAssertEqual(try Shard.parse("auto", environment: slurm(3, 0, 3, extra: ["SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "1"])),
                       try Shard(index: 3, count: 4))
    }

    func testSlurmMistakesAreExplained() {
        let cases: [(String, [String: String], String)] = [
            ("auto", [:], "SLURM_ARRAY_TASK_ID is not set"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "1"], "SLURM_ARRAY_TASK_MIN"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3"], "outside"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3"], "not a task number"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "6", "SLURM_ARRAY_TASK_STEP": "2"], "step 2"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "5", "SLURM_ARRAY_TASK_COUNT": "2"], "not one range"),
            ("auto/2", ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3"], "more than 2 shards"),
        ]
        for (text, environment, phrase) in cases {
            XCTAssertThrowsError(try Shard.parse(text, environment: environment)) { error in
                XCTAssertTrue("\(error)".contains(phrase), "\(text) \(environment): \(error)")
            }
        }
    }
}
