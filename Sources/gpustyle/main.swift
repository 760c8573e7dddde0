import GPUStyle
print(StyleNetwork.macs(height: 512, width: 512))
let m = try StyleModel.bundled()
print(m.convolutionWeights.count)
