import ArgumentParser
import GPUStyle

struct StylesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "styles",
        abstract: "Show the 26 styles: gpustyle styles --sheet photo.png sheet.png",
        discussion: "The sheet shows the photo (labelled -) and then styles 0 to 25, left to right, top to bottom."
    )

    @Option(name: .customLong("sheet"), help: "Photo to stylize with every style.")
    var photo: String?

    @Option(help: "Longest side of each thumbnail, in pixels.")
    var thumbnail: Int = 256

    @OptionGroup var deviceOptions: DeviceOptions

    @Argument(help: "Output PNG for the contact sheet.")
    var output: String?

    func validate() throws {
        guard (StyleNetwork.minimumInputSide...2048).contains(thumbnail) else {
            throw ValidationError("--thumbnail must be between \(StyleNetwork.minimumInputSide) and 2048")
        }
    }

    func run() throws {
        guard let photo, let output else {
            try StandardOutput.print("The network has \(StyleNetwork.styleCount) styles, numbered 0 to \(StyleNetwork.styleCount - 1) (the model ships no names).")
            try StandardOutput.print("See them on your own photo: gpustyle styles --sheet photo.png sheet.png")
            return
        }
        let image = try ImageIO.read(path: photo).downscaled(toFit: thumbnail)
        try Stylizer.validate(width: image.width, height: image.height)
        let stylizer = try deviceOptions.makeStylizer()
        var cells: [(label: String, image: Image)] = [("-", image)]
        for style in 0..<StyleNetwork.styleCount {
            cells.append(("\(style)", try stylizer.stylize(image, mix: try StyleMix(style: style))))
        }
        try ImageIO.writePNG(ContactSheet.make(cells: cells, columns: 7), to: output)
    }
}
