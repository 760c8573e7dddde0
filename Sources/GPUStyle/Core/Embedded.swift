/// SPIR-V of every shader in `Shaders/`, keyed by file name without extension; the
/// EmbedResources build plugin generates the contents.
enum EmbeddedShaders {}

/// Files of `Weights/`, keyed by file name without extension; generated at build time.
enum EmbeddedWeights {}
