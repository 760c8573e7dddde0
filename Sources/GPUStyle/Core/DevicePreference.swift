/// Which path the user asked for (`--device auto|gpu|cpu`, `--gpu-id N`).
public enum DevicePreference: Sendable, Equatable {
    case auto
    case gpu(index: Int?)
    case cpu
}
