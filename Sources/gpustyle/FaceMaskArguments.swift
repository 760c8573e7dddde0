import ArgumentParser
import GPUStyle

/// `--mask REGION=IMAGE` of `gpustyle faces` and `gpustyle live --faces`: each region once, a
/// region of `FaceRegion`, an image file.
enum FaceMaskArguments {
    /// The region and image file of each argument.
    static func parse(_ arguments: [String]) throws -> [(FaceRegion, String)] {
        var seen = Set<FaceRegion>()
        return try arguments.map { argument in
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let region = FaceRegion(rawValue: parts[0]), !parts[1].isEmpty else {
                throw ValidationError("--mask \(argument): give REGION=IMAGE with a region of "
                                      + FaceRegion.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard seen.insert(region).inserted else { throw ValidationError("--mask: \(region.rawValue) is given twice") }
            return (region, parts[1])
        }
    }

    /// The images, read (a bad file is the user's error: one line naming it, exit 2).
    static func load(_ arguments: [String], limits: DecodeLimits) throws -> [FaceRegion: Image] {
        var masks: [FaceRegion: Image] = [:]
        for (region, file) in try parse(arguments) { masks[region] = try ImageIO.read(path: file, limits: limits) }
        return masks
    }
}
