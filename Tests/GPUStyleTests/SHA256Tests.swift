import XCTest
@testable import GPUStyle

/// SHA-256 against FIPS 180-4's examples and Python's hashlib (the values below:
/// `hashlib.sha256(b).hexdigest()`), in one piece, in odd pieces and from a file.
final class SHA256Tests: XCTestCase {
    static let long = Data((0..<1000).flatMap { _ in (0..<256).map { UInt8($0) } } + Array("xyz".utf8))
    static let cases: [(Data, String)] = [
        (Data(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (Data("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (long, "74e5604d96b55e2b138cc325af685c8160f2068195c5ad9c7cf36e8b27aa48a8"),
    ]

    func testKnownDigests() {
        for (data, digest) in Self.cases {
            var whole = SHA256()
            whole.update(data)
            XCTAssertEqual(whole.finalize(), digest)
            var pieces = SHA256()
            var offset = 0
            for size in [1, 63, 64, 65, 7, 200] where offset < data.count {
                let end = min(offset + size, data.count)
                pieces.update(data.subdata(in: offset..<end))
                offset = end
            }
            pieces.update(data.subdata(in: offset..<data.count))
            XCTAssertEqual(pieces.finalize(), digest, "in pieces, \(data.count) bytes")
        }
    }

    func testFile() throws {
        let path = NSTemporaryDirectory() + "sha256-\(getpid()).bin"
        defer { unlink(path) }
        try Self.long.write(to: URL(fileURLWithPath: path))
        let (digest, bytes) = try SHA256.ofFile(path)
        XCTAssertEqual(digest, Self.cases[3].1)
        XCTAssertEqual(bytes, Self.long.count)
        XCTAssertThrowsError(try SHA256.ofFile(path + ".missing"))
    }
}
