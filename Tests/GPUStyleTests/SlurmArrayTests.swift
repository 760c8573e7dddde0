#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import GPUStyle

/// A real Slurm cluster (issue 38): tools/slurm-cluster starts a throw-away one-node cluster in a
/// temporary folder, job arrays run `gpustyle --shard auto` on it, one task is killed mid-run and
/// re-run, and the result must be the one-process run's, file for file and pixel for pixel.
///
/// Skipped only when not root or the Slurm packages are missing (CI installs them with
/// tools/install-deps and runs as root, so there it runs).
final class SlurmArrayTests: XCTestCase {
    private var cluster: SlurmCluster?
    private var scratch: ScratchDirectory?

    override func setUpWithError() throws {
        if let reason = SlurmCluster.unavailableReason() { throw XCTSkip(reason) }
        let scratch = try ScratchDirectory()
        self.scratch = scratch
        cluster = try SlurmCluster.start(in: scratch.url.appendingPathComponent("cluster"))
    }

    override func tearDown() {
        // Stops the daemons even when a test failed half-way, and checks none is left.
        if let cluster {
            do {
                try cluster.stop()
                // The daemons' logs are complete once they have stopped.
                if (testRun?.failureCount ?? 0) + (testRun?.unexpectedExceptionCount ?? 0) > 0 { print(cluster.logTails()) }
                XCTAssertEqual(cluster.leftoverProcesses(), [], "processes of the cluster left after stopping it")
            } catch {
                XCTFail("stopping the cluster: \(error)")
            }
        }
        scratch?.remove()
    }

    /// The harness itself on a trivial array: every task sees its index and the array's range,
    /// a failing task's exit code is in the job completion log, and a requeued task keeps the array.
    func testArrayTasksSeeTheirIndexAndExitCodesAreLogged() throws {
        let cluster = try XCTUnwrap(cluster)
        let work = try XCTUnwrap(scratch).url.appendingPathComponent("echo")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let script = try cluster.writeScript(in: work, name: "echo.sh", body: """
            echo "$SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_MAX $SLURM_ARRAY_TASK_COUNT" > "task-$SLURM_ARRAY_TASK_ID.txt"
            [ "$SLURM_ARRAY_TASK_ID" = 3 ] && [ ! -e again ] && exit 3
            exit 0
            """)
        let job = try cluster.submit(["--array=0-3", script], in: work)
        try cluster.waitUntilGone(job, timeout: 30)
        for task in 0...3 {
            let line = try String(contentsOf: work.appendingPathComponent("task-\(task).txt"), encoding: .utf8)
            XCTAssertEqual(line, "\(task) 0 3 4\n")
        }
        var ends = try cluster.lastEnds(of: job)
        XCTAssertEqual(ends.mapValues(\.state), [0: "COMPLETED", 1: "COMPLETED", 2: "COMPLETED", 3: "FAILED"])
        XCTAssertEqual(ends[3]?.exitCode, "3:0")

        try Data().write(to: work.appendingPathComponent("again"))
        try cluster.requeue(job, task: 3)
        try cluster.waitUntilGone(job, timeout: 30)
        ends = try cluster.lastEnds(of: job)
        XCTAssertEqual(ends[3]?.state, "COMPLETED")
        XCTAssertEqual(ends[3]?.exitCode, "0:0")
        XCTAssertEqual(try String(contentsOf: work.appendingPathComponent("task-3.txt"), encoding: .utf8), "3 0 3 4\n",
                       "a requeued task is still task 3 of the array 0-3")
    }

    /// Style transfer over a folder as a 4-task array; task 2's process is killed with SIGKILL
    /// while it writes its third output (a partial file left behind) and the task is re-run
    /// (requeued in the same array); then a new one-task array
    /// (`--array=2`, `--shard auto/4`) finds everything of its shard done. The outputs are the
    /// one-process run's, every input is done exactly once, nothing temporary is left.
    func testStyleArrayWithAKilledTaskMatchesOneProcess() throws {
        let cluster = try XCTUnwrap(cluster)
        let root = try XCTUnwrap(scratch).url
        let photos = root.appendingPathComponent("photos"), out = root.appendingPathComponent("out")
        let ref = root.appendingPathComponent("ref")
        let names = Self.photoNames()
        let killed = try Shard(index: 2, count: 4)
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for (i, name) in names.enumerated() {
            // The killed task's photos are larger, so that it is still working when it is killed.
            let (width, height) = killed.owns(name) ? (320, 240) : (64, 48)
            try ImageIO.writePNG(Self.photo(i, width: width, height: height), to: photos.appendingPathComponent(name).path)
        }
        let expectedAssigned = (0..<4).map { index in names.filter { Shard.stableHash($0) % 4 == UInt64(index) }.count }
        XCTAssertGreaterThanOrEqual(expectedAssigned[2], 6, "shard 2 needs a few photos to be killed in the middle of")

        let reference = try TestProcess.gpustyle(["--style", "2", "--device", "cpu", photos.path, ref.path])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let referenceNames = try Self.visibleNames(ref)
        XCTAssertEqual(referenceNames, names.sorted(), "a PNG's output keeps its name")

        let gpustyle = TestProcess.productsDirectory.appendingPathComponent("gpustyle").path
        let script = try cluster.writeScript(in: root, name: "style.sh", body: """
            exec \(SlurmCluster.quoted(gpustyle)) --style 2 --device cpu --shard auto \(SlurmCluster.quoted(photos.path)) \
              \(SlurmCluster.quoted(out.path)) --summary "sum-$SLURM_ARRAY_TASK_ID.json"
            """)
        let summary2 = root.appendingPathComponent("sum-2.json")
        let job = try cluster.submit(["--array=0-3", script], in: root)

        // Kill task 2's process (SIGKILL: no chance to clean up; kill(2) itself, since scancel's
        // round trip is longer than writing a photo) once it has finished two outputs, if it can
        // be caught writing a third (its `.NAME.partial-*` file is there) then, so that the re-run
        // has a leftover to remove; else after its fifth.
        let ownedOutputs = Set(names.filter(killed.owns))  // a PNG's output has its name
        let deadline = Date().addingTimeInterval(40)
        var process: pid_t?
        var caughtWriting = false
        while true {
            let entries = FileManager.default.fileExists(atPath: out.path) ? try FileManager.default.contentsOfDirectory(atPath: out.path) : []
            let finished = entries.filter(ownedOutputs.contains).count
            if finished >= 1, process == nil { process = cluster.taskProcess(named: "gpustyle", task: 2) }
            caughtWriting = entries.contains { entry in entry.contains(".partial-") && ownedOutputs.contains { entry.hasPrefix(".\($0).partial-") } }
            if let process, finished >= 5 || (finished >= 2 && caughtWriting) {
                kill(process, SIGKILL)
                break
            }
            if FileManager.default.fileExists(atPath: summary2.path) {
                throw SlurmCluster.Failure("task 2 finished before it could be killed: \(cluster.taskLog(root, 2))")
            }
            if Date() > deadline { throw SlurmCluster.Failure("task 2 wrote fewer than 5 outputs in 40 s: \(cluster.taskLog(root, 2))") }
            usleep(finished >= 2 ? 200 : 10_000)
        }
        try cluster.waitUntilNotRunning(job, task: 2, timeout: 20)
        XCTAssertEqual(try cluster.lastEnds(of: job)[2]?.exitCode, "0:9", "task 2 ended by SIGKILL")
        XCTAssertFalse(FileManager.default.fileExists(atPath: summary2.path), "task 2 finished before it was killed")
        // Finished = output and its manifest record both there (the record is written after the
        // output is renamed into place; an output without one is redone, by design).
        let records = out.appendingPathComponent(ResumeManifest.folderName)
        let finishedByKilled = try Self.visibleNames(out).filter {
            ownedOutputs.contains($0) && FileManager.default.fileExists(atPath: records.appendingPathComponent($0 + ".json").path)
        }
        let before = try Self.identities(out, finishedByKilled)
        let partials = try Self.allNames(out).filter { $0.contains(".partial") }
        print("SlurmArrayTests: task 2 killed after \(finishedByKilled.count) of \(ownedOutputs.count) outputs\(caughtWriting ? ", while writing one" : ""); partial files left by the kill: \(partials.count)")
        XCTAssertLessThan(finishedByKilled.count, ownedOutputs.count, "task 2 was killed before it finished")

        try cluster.requeue(job, task: 2)
        try cluster.waitUntilGone(job, timeout: 40)
        let ends = try cluster.lastEnds(of: job)
        for task in 0...3 {
            let summary = (try? String(contentsOf: root.appendingPathComponent("sum-\(task).json"), encoding: .utf8)) ?? "(no summary)"
            XCTAssertEqual(ends[task]?.state, "COMPLETED", "task \(task): \(cluster.taskLog(root, task))\n\(summary)")
            XCTAssertEqual(ends[task]?.exitCode, "0:0", "task \(task)")
        }

        // The outputs: the reference's names, the reference's pixels, nothing temporary.
        XCTAssertEqual(try Self.visibleNames(out), referenceNames)
        XCTAssertEqual(try Self.allNames(out).filter { $0.contains(".partial") }, [], "temporary files left")
        var differentBytes = 0
        for name in referenceNames {
            let a = ref.appendingPathComponent(name).path, b = out.appendingPathComponent(name).path
            if try Data(contentsOf: URL(fileURLWithPath: a)) != Data(contentsOf: URL(fileURLWithPath: b)) { differentBytes += 1 }
            let expected = try ImageIO.read(path: a), actual = try ImageIO.read(path: b)
            XCTAssertEqual(actual.width, expected.width, name)
            XCTAssertEqual(actual.height, expected.height, name)
            XCTAssertTrue(actual.rgb == expected.rgb, "\(name): pixels differ from the one-process run's")
        }
        XCTAssertEqual(differentBytes, 0, "PNG bytes differ from the one-process run's (the encoder is deterministic)")
        XCTAssertEqual(try Self.identities(out, finishedByKilled), before, "outputs the killed task finished were not redone")

        // The summaries: every input assigned once, done once.
        let summaries = try (0...3).map { try Summary(root.appendingPathComponent("sum-\($0).json")) }
        XCTAssertEqual(summaries.map(\.shard), ["0/4", "1/4", "2/4", "3/4"])
        XCTAssertEqual(summaries.map(\.assigned), expectedAssigned)
        XCTAssertEqual(summaries.map(\.assigned).reduce(0, +), names.count)
        for (task, summary) in summaries.enumerated() {
            XCTAssertEqual(summary.failed, 0, "task \(task)")
            XCTAssertEqual(summary.failures, 0, "task \(task)")
            XCTAssertEqual(summary.done + summary.skipped, summary.assigned, "task \(task)")
            XCTAssertEqual(summary.skipped, task == 2 ? finishedByKilled.count : 0,
                           "task \(task): skipped is what the killed run finished")
        }
        XCTAssertEqual(summaries.map(\.done).reduce(0, +) + finishedByKilled.count, names.count, "every input done exactly once")

        // Re-running one index as a new array keeps its shard with auto/4: all of it is done.
        let again = try cluster.writeScript(in: root, name: "again.sh", body: """
            exec \(SlurmCluster.quoted(gpustyle)) --style 2 --device cpu --shard auto/4 \(SlurmCluster.quoted(photos.path)) \
              \(SlurmCluster.quoted(out.path)) --summary "again-$SLURM_ARRAY_TASK_ID.json"
            """)
        let rerun = try cluster.submit(["--array=2", again], in: root)
        try cluster.waitUntilGone(rerun, timeout: 30)
        XCTAssertEqual(try cluster.lastEnds(of: rerun)[2]?.exitCode, "0:0", cluster.taskLog(root, 2))
        let last = try Summary(root.appendingPathComponent("again-2.json"))
        XCTAssertEqual(last.shard, "2/4")
        XCTAssertEqual(last.assigned, expectedAssigned[2])
        XCTAssertEqual(last.skipped, expectedAssigned[2])
        XCTAssertEqual(last.done, 0)
    }

    // MARK: - Video (issue 38): `gpustyle --style 2 film.mp4 styled.mkv --shard auto` and `gpustyle join`

    /// A clip stylized as a 3-task array, one part per task (lossless FFV1, so that pixels can be
    /// compared); task 1's process is killed with SIGKILL while it writes its part and the task is
    /// requeued; `gpustyle join` then gives the one-process run's frames, timestamps and audio.
    func testVideoArrayWithAKilledTaskJoinsToTheOneProcessRun() throws {
        let cluster = try XCTUnwrap(cluster)
        let root = try XCTUnwrap(scratch).url
        let ffmpeg = try XCTUnwrap(SlurmCluster.find("ffmpeg"), "ffmpeg (tools/install-deps installs it)")
        let clip = root.appendingPathComponent("clip.mp4").path
        // 4 s at 12 fps with a keyframe every 4 frames and a tone: 48 frames, 16 a task.
        let made = try TestProcess.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=256x192:rate=12:duration=4",
                                                "-f", "lavfi", "-i", "sine=frequency=440:duration=4", "-c:v", "libx264",
                                                "-g", "4", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", clip])
        XCTAssertEqual(made.status, 0, made.stderr)
        let gpustyle = TestProcess.productsDirectory.appendingPathComponent("gpustyle").path
        let ref = root.appendingPathComponent("ref.mkv").path, out = root.appendingPathComponent("styled.mkv").path
        let reference = try TestProcess.gpustyle(["--style", "2", "--device", "cpu", "--video-codec", "ffv1", clip, ref])
        XCTAssertEqual(reference.status, 0, reference.stderr)

        let script = try cluster.writeScript(in: root, name: "video.sh", body: """
            exec \(SlurmCluster.quoted(gpustyle)) --style 2 --device cpu --video-codec ffv1 --shard auto \(SlurmCluster.quoted(clip)) \
              \(SlurmCluster.quoted(out)) --summary "video-$SLURM_ARRAY_TASK_ID.json"
            """)
        let job = try cluster.submit(["--array=0-2", script], in: root)
        // Task 1 is killed once its temporary part is being written.
        let deadline = Date().addingTimeInterval(40)
        while true {
            let writing = try Self.allNames(root).contains { $0.hasPrefix(".styled.part-1-of-3.nut.partial-") }
            if writing, let process = cluster.taskProcess(named: "gpustyle", task: 1) {
                usleep(200_000)
                kill(process, SIGKILL)
                break
            }
            if FileManager.default.fileExists(atPath: root.appendingPathComponent("video-1.json").path) {
                throw SlurmCluster.Failure("task 1 finished before it could be killed: \(cluster.taskLog(root, 1))")
            }
            if Date() > deadline { throw SlurmCluster.Failure("task 1 wrote no part in 40 s: \(cluster.taskLog(root, 1))") }
            usleep(10_000)
        }
        try cluster.waitUntilNotRunning(job, task: 1, timeout: 20)
        XCTAssertEqual(try cluster.lastEnds(of: job)[1]?.exitCode, "0:9", "task 1 ended by SIGKILL")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("styled.part-1-of-3.json").path),
                       "a killed task leaves no record claiming its part")
        try cluster.requeue(job, task: 1)
        try cluster.waitUntilGone(job, timeout: 60)
        let ends = try cluster.lastEnds(of: job)
        for task in 0...2 {
            XCTAssertEqual(ends[task]?.exitCode, "0:0", "task \(task): \(cluster.taskLog(root, task))")
            let summary = try Summary(root.appendingPathComponent("video-\(task).json"))
            XCTAssertEqual(summary.shard, "\(task)/3")
            XCTAssertEqual(summary.done, 1, "task \(task)")
        }
        XCTAssertEqual(try Self.allNames(root).filter { $0.contains(".partial") }, [], "temporary files left")

        let parts = (0...2).map { root.appendingPathComponent("styled.part-\($0)-of-3.nut").path }
        let joined = try TestProcess.gpustyle(["join"] + parts + [out])
        XCTAssertEqual(joined.status, 0, joined.stderr)
        // Frame for frame: the decoded pixels, every frame's timestamp, and the audio packets.
        func frames(_ path: String) throws -> Data {
            let result = try TestProcess.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:v", "-fps_mode", "passthrough",
                                                      "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout
        }
        func entries(_ path: String, _ stream: String, _ fields: String) throws -> String {
            let ffprobe = try XCTUnwrap(SlurmCluster.find("ffprobe"))
            let result = try TestProcess.run(ffprobe, ["-v", "error", "-select_streams", stream, "-show_entries", fields, "-of", "csv", path])
            XCTAssertEqual(result.status, 0, result.stderr)
            return String(decoding: result.stdout, as: UTF8.self)
        }
        let expected = try frames(ref), actual = try frames(out)
        XCTAssertEqual(expected.count, 48 * 256 * 192 * 3, "48 frames in the one-process run")
        XCTAssertTrue(actual == expected, "the joined frames are the one-process run's, pixel for pixel")
        XCTAssertEqual(try entries(out, "v", "frame=pts_time"), try entries(ref, "v", "frame=pts_time"), "timestamps")
        XCTAssertEqual(try entries(out, "a", "packet=pts,size"), try entries(ref, "a", "packet=pts,size"), "audio")
    }

    // MARK: - Photos and files

    /// 48 names, some with a space, some not ASCII.
    static func photoNames() -> [String] {
        let stems = ["photo", "holiday shot", "café", "Ærøskøbing", "夏の海", "img"]
        return (0..<48).map { String(format: "%@ %02d.png", stems[$0 % stems.count], $0) }
    }

    /// A photo-ish picture: smooth gradients and a few edges, different for every `index`.
    static func photo(_ index: Int, width: Int, height: Int) -> Image {
        var rgb = [Float](repeating: 0, count: 3 * width * height)
        let phase = Float(index) * 0.37
        for c in 0..<3 {
            for y in 0..<height {
                for x in 0..<width {
                    let u = Float(x) / Float(width), v = Float(y) / Float(height)
                    var value = 0.5 + 0.4 * sin(6 * u + 4 * v * Float(c + 1) + phase)
                    if (x / 16 + y / 12 + index) % 5 == 0 { value = 1 - value }
                    rgb[(c * height + y) * width + x] = value
                }
            }
        }
        return Image(width: width, height: height, rgb: rgb)
    }

    /// The folder's entries not starting with "." (the outputs), sorted.
    static func visibleNames(_ folder: URL) throws -> [String] {
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Every file and folder below `folder`, as relative paths.
    static func allNames(_ folder: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return walker.compactMap { $0 as? String }.sorted()
    }

    struct Identity: Equatable {
        let inode: UInt64
        let modified: Date
    }

    /// Inode and modification time: a file written again (renamed into place) gets a new inode.
    static func identities(_ folder: URL, _ names: [String]) throws -> [String: Identity] {
        var result: [String: Identity] = [:]
        for name in names {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            result[name] = Identity(inode: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0,
                                    modified: attributes[.modificationDate] as? Date ?? .distantPast)
        }
        return result
    }

    /// `--summary`'s JSON.
    struct Summary {
        let shard: String
        let assigned, done, skipped, failed, failures: Int

        init(_ url: URL) throws {
            let data = try Data(contentsOf: url)
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw SlurmCluster.Failure("\(url.lastPathComponent): not a JSON object")
            }
            func int(_ key: String) throws -> Int {
                guard let value = object[key] as? Int else { throw SlurmCluster.Failure("\(url.lastPathComponent): no \(key)") }
                return value
            }
            shard = object["shard"] as? String ?? ""
            assigned = try int("assigned")
            done = try int("done")
            skipped = try int("skipped")
            failed = try int("failed")
            failures = (object["failures"] as? [Any])?.count ?? -1
        }
    }
}

/// A cluster started by tools/slurm-cluster in `directory`, and the client commands the tests use.
struct SlurmCluster {
    let directory: URL
    var conf: String { directory.appendingPathComponent("slurm.conf").path }
    var environment: [String: String] { ["SLURM_CONF": conf] }

    static let tool = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("tools/slurm-cluster").path

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Why the tests cannot run here, or nil when they can.
    static func unavailableReason() -> String? {
        if getuid() != 0 { return "needs root (tools/slurm-cluster runs munged, slurmctld and slurmd as root)" }
        let missing = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel", "sinfo"].filter { find($0) == nil }
        if !missing.isEmpty { return "Slurm is not installed (missing \(missing.joined(separator: ", "))): run tools/install-deps" }
        return nil
    }

    static func find(_ program: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/usr/bin:/sbin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    static func start(in directory: URL) throws -> SlurmCluster {
        let result = try TestProcess.run(tool, ["start", directory.path])
        guard result.status == 0 else { throw Failure("tools/slurm-cluster start: \(result.stderr)") }
        return SlurmCluster(directory: directory)
    }

    func stop() throws {
        let result = try TestProcess.run(Self.tool, ["stop", directory.path])
        guard result.status == 0 else { throw Failure("tools/slurm-cluster stop: \(result.stderr)") }
    }

    /// Live processes (not zombies) started for this cluster: the daemons and every job's
    /// processes inherit SLURM_CONF.
    func leftoverProcesses() -> [String] {
        let marker = Data("SLURM_CONF=\(conf)\0".utf8)
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { Int($0) != nil } ?? []
        return pids.compactMap { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"), environ.range(of: marker) != nil,
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
            guard state != "Z", state != "X" else { return nil }
            return "\(pid) \(stat[stat.startIndex...close])"
        }.sorted()
    }

    @discardableResult
    func run(_ program: String, _ arguments: [String], in directory: URL? = nil) throws -> String {
        guard let path = Self.find(program) else { throw Failure("\(program) not found") }
        let result = try TestProcess.run(path, arguments, environment: environment, in: directory)
        guard result.status == 0 else { throw Failure("\(program) \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)") }
        return String(decoding: result.stdout, as: UTF8.self)
    }

    /// A batch script that exports SLURM_CONF (for Slurm commands in it) and writes its output
    /// to NAME-TASK.out beside it.
    func writeScript(in folder: URL, name: String, body: String) throws -> String {
        let stem = (name as NSString).deletingPathExtension
        let text = """
            #!/bin/bash
            #SBATCH --output=\(folder.path)/\(stem)-%a.out
            export SLURM_CONF=\(Self.quoted(conf))
            \(body)

            """
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The job id of an array submitted with `arguments`.
    func submit(_ arguments: [String], in folder: URL) throws -> Int {
        let output = try run("sbatch", ["--parsable", "--chdir=\(folder.path)"] + arguments, in: folder)
        guard let id = Int(output.split(separator: ";").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw Failure("sbatch printed \(output)")
        }
        return id
    }

    /// Polls squeue (faster than `sbatch --wait`, which polls at 2, 10, 42 s) until no task of
    /// the job is pending, running or completing.
    func waitUntilGone(_ job: Int, timeout: TimeInterval) throws {
        try poll("job \(job)", timeout: timeout) { try run("squeue", ["-h", "-j", "\(job)"]).isEmpty }
    }

    func waitUntilNotRunning(_ job: Int, task: Int, timeout: TimeInterval) throws {
        try poll("job \(job)_\(task)", timeout: timeout) { try run("squeue", ["-h", "-t", "PD,R,CG", "-j", "\(job)_\(task)"]).isEmpty }
    }

    private func poll(_ what: String, timeout: TimeInterval, _ done: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !done() {
            guard Date() < deadline else {
                let queue = (try? run("squeue", ["-t", "all"])) ?? ""
                throw Failure("\(what) still queued after \(Int(timeout)) s:\n\(queue)")
            }
            usleep(50_000)
        }
    }

    /// Re-runs one finished task inside its array (it keeps SLURM_ARRAY_TASK_MIN/MAX/COUNT).
    /// Slurm holds a requeued task until its old job credential has expired (`cred_expire`,
    /// 5 s in tools/slurm-cluster's config, + 1 s): launched earlier, slurmd refuses it ("Job
    /// credential revoked") and the task fails at once. Once that time is over, StartTime=now
    /// starts it at once instead of at the scheduler's next periodic pass (up to a minute).
    func requeue(_ job: Int, task: Int) throws {
        do {
            try run("scontrol", ["requeue", "\(job)_\(task)"])
        } catch {
            throw Failure("\(error)\n" + ((try? run("scontrol", ["show", "job", "\(job)"])) ?? ""))
        }
        usleep(6_200_000)
        try run("scontrol", ["update", "jobid=\(job)_\(task)", "StartTime=now"])
    }

    struct End: Equatable {
        let state: String
        let exitCode: String
    }

    /// Each task's last finished run, from jobcomp/filetxt's log (there is no accounting).
    func lastEnds(of job: Int) throws -> [Int: End] {
        let log = try String(contentsOf: directory.appendingPathComponent("log/jobcomp.txt"), encoding: .utf8)
        var ends: [Int: End] = [:]
        for line in log.split(separator: "\n") {
            var fields: [String: String] = [:]
            for pair in line.split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            guard fields["ArrayJobId"] == "\(job)", let task = fields["ArrayTaskId"].flatMap(Int.init),
                  let state = fields["JobState"], state != "PENDING" else { continue }
            ends[task] = End(state: state, exitCode: fields["ExitCode"] ?? "")
        }
        return ends
    }

    /// The live process named `name` that array task `task` of this cluster runs.
    func taskProcess(named name: String, task: Int) -> pid_t? {
        let markers = [Data("SLURM_CONF=\(conf)\0".utf8), Data("SLURM_ARRAY_TASK_ID=\(task)\0".utf8)]
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
        return pids.first { pid in
            guard (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) == name + "\n",
                  let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return markers.allSatisfy { environ.range(of: $0) != nil }
        }
    }

    /// The daemons' last log lines, for failures.
    func logTails(lines: Int = 15) -> String {
        let names = ["slurmctld.log", "slurmd.log", "munged.log", "start.log"].map { directory.appendingPathComponent("log/\($0)").path }
        let result = try? TestProcess.run("/usr/bin/tail", ["-n", "\(lines)"] + names)
        return result.map { String(decoding: $0.stdout, as: UTF8.self) + $0.stderr } ?? "(no logs)"
    }

    /// A task's output, for failure messages.
    func taskLog(_ folder: URL, _ task: Int) -> String {
        let logs = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix("-\(task).out") }
        return logs.map { name in "\(name): " + ((try? String(contentsOfFile: folder.appendingPathComponent(name).path, encoding: .utf8)) ?? "") }
            .joined(separator: "\n")
    }
}
