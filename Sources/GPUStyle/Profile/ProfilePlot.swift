import Foundation

/// `gpustyle profile --plot`: the profile as a PNG a person can read at a glance. One panel per
/// profiled path, side by side; in each, one horizontal bar per plan step (its median ms, the
/// longest step spanning the full bar width), its ms and share of the steps' sum as text, and a
/// small gauge of the fraction of the device's roofline limit it reached; then the same per op
/// kind. Text is upper case in the built-in 5x7 font.
public struct ProfilePlot {
    /// Pixel geometry, public so tests can find the bars they measure.
    public enum Layout {
        public static let margin = 12
        public static let rowHeight = 12
        public static let barHeight = 8
        static let labelWidth = 162     // 26 characters: "12 NORM APPLY EXPAND.0"
        public static let barWidth = 320
        static let valueWidth = 110     // gap + "1234.56 MS 100.0%"
        public static let gaugeWidth = 60
        static let gaugeTextWidth = 46  // gap + "123% M"
        public static let panelWidth = 2 * margin + labelWidth + barWidth + valueWidth + gaugeWidth + gaugeTextWidth
        /// Title (double size), legend and key above the panels.
        static let titleHeight = margin + 14 + 8 + 7 + 6 + 7 + 12
        /// Path name (double size), device, times, limits, column headings.
        static let panelHeaderHeight = 14 + 6 + 4 * rowHeight

        public static func barLeft(panel: Int) -> Int { panel * panelWidth + margin + labelWidth }
        public static func gaugeLeft(panel: Int) -> Int { barLeft(panel: panel) + barWidth + valueWidth }
        /// Top of the row for plan step `row` (the same in every panel).
        public static func stepRowTop(_ row: Int) -> Int { titleHeight + panelHeaderHeight + row * rowHeight }
        /// Top of op-kind row `row`, below `steps` step rows, a gap and a heading.
        public static func kindRowTop(_ row: Int, steps: Int) -> Int { stepRowTop(steps + 2 + row) }
        /// The pixel row through the middle of the bars of a row starting at `top`.
        public static func barCenter(rowTop top: Int) -> Int { top + (rowHeight - barHeight) / 2 + barHeight / 2 }
    }

    /// Bars are scaled to the longest in their block, rounded to whole pixels.
    public static func barLength(_ milliseconds: Double, longest: Double) -> Int {
        longest > 0 ? Int((Double(Layout.barWidth) * milliseconds / longest).rounded()) : 0
    }

    public let reports: [ProfileReport]

    public init(reports: [ProfileReport]) {
        precondition(!reports.isEmpty, "nothing to plot")
        self.reports = reports
    }

    public var width: Int { reports.count * Layout.panelWidth }
    public var height: Int {
        let rows = reports.map { Layout.kindRowTop($0.kinds.count, steps: $0.steps.count) }.max()!
        return rows + Layout.margin
    }

    /// Renders and writes the chart by `OutputPath`'s rules (nothing is left behind on failure).
    public func write(to path: String) throws {
        try ImageIO.writePNG(render(), to: path)
    }

    private enum Palette {
        static let background = PlotCanvas.Color(1, 1, 1)
        static let ink = PlotCanvas.Color(0.1, 0.1, 0.12)
        static let muted = PlotCanvas.Color(0.42, 0.42, 0.45)
        static let gaugeTrack = PlotCanvas.Color(0.88, 0.88, 0.9)
        static let compute = PlotCanvas.Color(0.15, 0.3, 0.55)
        static let memory = PlotCanvas.Color(0.62, 0.3, 0.55)
        /// Bar colours by op kind, in legend order.
        static let kinds: [(prefix: String, name: String, color: PlotCanvas.Color)] = [
            ("conv", "CONVOLUTION", PlotCanvas.Color(0.22, 0.45, 0.76)),
            ("pad", "PAD", PlotCanvas.Color(0.6, 0.6, 0.64)),
            ("instance_norm stats", "NORM STATS", PlotCanvas.Color(0.93, 0.56, 0.2)),
            ("instance_norm apply", "NORM APPLY", PlotCanvas.Color(0.36, 0.66, 0.36)),
        ]
        static let other = PlotCanvas.Color(0.55, 0.4, 0.25)
        static func color(kind: String) -> PlotCanvas.Color {
            kinds.first { kind.hasPrefix($0.prefix) }?.color ?? other
        }
    }

    public func render() -> Image {
        var canvas = PlotCanvas(width: width, height: height, background: Palette.background)
        let first = reports[0]
        let runs = reports.map(\.runs).max()!
        canvas.text("GPUSTYLE PROFILE  \(first.width)X\(first.height)  MEDIAN OF \(runs) RUNS", x: Layout.margin, y: Layout.margin,
                    color: Palette.ink, scale: 2, maxWidth: width - 2 * Layout.margin)
        var x = Layout.margin
        let legendTop = Layout.margin + 14 + 8
        for entry in Palette.kinds {
            canvas.fill(x: x, y: legendTop, width: 14, height: 7, color: entry.color)
            canvas.text(entry.name, x: x + 18, y: legendTop, color: Palette.ink)
            x += 18 + PlotCanvas.textWidth(entry.name) + 14
        }
        canvas.text("BAR: MS, LONGEST = FULL WIDTH. SHARE: OF THE STEPS' SUM. GAUGE: ACHIEVED / ROOFLINE LIMIT"
                    + " (C: FMA PEAK, M: COPY BANDWIDTH)",
                    x: Layout.margin, y: legendTop + 7 + 6, color: Palette.muted, maxWidth: width - 2 * Layout.margin)
        for (panel, report) in reports.enumerated() { draw(report, panel: panel, on: &canvas) }
        return canvas.image
    }

    private func draw(_ report: ProfileReport, panel: Int, on canvas: inout PlotCanvas) {
        let left = panel * Layout.panelWidth + Layout.margin
        let textWidth = Layout.panelWidth - 2 * Layout.margin
        var y = Layout.titleHeight
        canvas.text(report.path, x: left, y: y, color: Palette.ink, scale: 2, maxWidth: textWidth)
        y += 14 + 6
        canvas.text(report.device, x: left, y: y, color: Palette.muted, maxWidth: textWidth)
        y += Layout.rowHeight
        var times = String(format: "WALL %.1f MS/RUN, STEPS SUM %.1f MS", report.wallMilliseconds, report.stepsMilliseconds)
        if let device = report.deviceMilliseconds { times += String(format: ", DEVICE SPAN %.1f MS", device) }
        canvas.text(times, x: left, y: y, color: Palette.ink, maxWidth: textWidth)
        y += Layout.rowHeight
        let limits = report.limits.map {
            String(format: "LIMITS: FMA PEAK %.1f GFLOP/S, COPY %.1f GB/S, RIDGE %.2f FLOP/B", $0.gflops, $0.gbps, $0.ridge)
        } ?? "LIMITS NOT MEASURED: NO GAUGES"
        canvas.text(limits, x: left, y: y, color: Palette.ink, maxWidth: textWidth)
        y += Layout.rowHeight
        let longestStep = report.steps.map(\.milliseconds).max() ?? 0
        heading("STEP", longest: longestStep, top: y, panel: panel, on: &canvas)
        for (index, row) in report.steps.enumerated() {
            let label = "\(row.step ?? index) \(row.kind) \(row.layer)"
            bar(row, label: label, longest: longestStep, top: Layout.stepRowTop(index), panel: panel, on: &canvas)
        }
        let longestKind = report.kinds.map(\.milliseconds).max() ?? 0
        heading("OP KIND (STEPS)", longest: longestKind, top: Layout.kindRowTop(-1, steps: report.steps.count), panel: panel, on: &canvas)
        for (index, row) in report.kinds.enumerated() {
            bar(row, label: "\(row.kind) (\(row.count))", longest: longestKind,
                top: Layout.kindRowTop(index, steps: report.steps.count), panel: panel, on: &canvas)
        }
    }

    private func heading(_ label: String, longest: Double, top: Int, panel: Int, on canvas: inout PlotCanvas) {
        let y = top + (Layout.rowHeight - PlotFont.glyphHeight) / 2
        canvas.text(label, x: panel * Layout.panelWidth + Layout.margin, y: y, color: Palette.muted)
        canvas.text(String(format: "MS, SHARE  (FULL BAR = %.2f MS)", longest), x: Layout.barLeft(panel: panel), y: y,
                    color: Palette.muted)
        canvas.text("OF LIMIT", x: Layout.gaugeLeft(panel: panel), y: y, color: Palette.muted)
    }

    private func bar(_ row: ProfileReport.Row, label: String, longest: Double, top: Int, panel: Int, on canvas: inout PlotCanvas) {
        let textY = top + (Layout.rowHeight - PlotFont.glyphHeight) / 2
        let barY = top + (Layout.rowHeight - Layout.barHeight) / 2
        canvas.text(label, x: panel * Layout.panelWidth + Layout.margin, y: textY, color: Palette.ink,
                    maxWidth: Layout.barLeft(panel: panel) - panel * Layout.panelWidth - Layout.margin - 6)
        let length = Self.barLength(row.milliseconds, longest: longest)
        canvas.fill(x: Layout.barLeft(panel: panel), y: barY, width: length, height: Layout.barHeight,
                    color: Palette.color(kind: row.kind))
        canvas.text(String(format: "%.2f MS %.1f%%", row.milliseconds, 100 * row.share),
                    x: Layout.barLeft(panel: panel) + length + 4, y: textY, color: Palette.ink)
        guard let fraction = row.fractionOfLimit, let bound = row.bound else { return }
        let gauge = Layout.gaugeLeft(panel: panel)
        canvas.fill(x: gauge, y: barY, width: Layout.gaugeWidth, height: Layout.barHeight, color: Palette.gaugeTrack)
        // Above 100% (timing noise on tiny steps) the gauge is full; the text gives the number.
        let filled = Int((Double(Layout.gaugeWidth) * min(1, max(0, fraction))).rounded())
        let color = bound == "compute" ? Palette.compute : Palette.memory
        canvas.fill(x: gauge, y: barY, width: filled, height: Layout.barHeight, color: color)
        canvas.text(String(format: "%.0f%% ", 100 * fraction) + (bound == "compute" ? "C" : "M"),
                    x: gauge + Layout.gaugeWidth + 6, y: textY, color: Palette.ink)
    }
}
