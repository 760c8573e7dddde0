#!/usr/bin/env bash
# Regenerates Sources/GPUStyle/Runtime/ONNX/onnx.pb.swift from the committed onnx.proto.
# Run by hand after changing the schema or the swift-protobuf version; the output is committed
# so that building the package never needs protoc or swift-protobuf's build plugin (whose first
# build took about 10 minutes on the 2-core machine).
#
# Needs: protoc (Debian's protobuf-compiler, installed here if missing), git, swift.
# protoc-gen-swift is built from swift-protobuf at the version Package.swift names, in a
# temporary folder that is removed afterwards.
set -euo pipefail

SWIFT_PROTOBUF_VERSION=1.39.0
repo="$(cd "$(dirname "$0")/.." && pwd)"
proto_dir="$repo/Sources/GPUStyle/Runtime/ONNX"

if ! command -v protoc >/dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends protobuf-compiler >/dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git -c advice.detachedHead=false clone -q --branch "$SWIFT_PROTOBUF_VERSION" https://github.com/apple/swift-protobuf "$work/swift-protobuf"
swift build -c release --package-path "$work/swift-protobuf" --product protoc-gen-swift >&2
plugin="$(swift build -c release --package-path "$work/swift-protobuf" --show-bin-path)/protoc-gen-swift"

# Visibility=Internal: the ONNX message types stay inside GPUStyle (ONNXImporter is the API).
protoc --plugin=protoc-gen-swift="$plugin" \
  --proto_path="$proto_dir" \
  --swift_out="$proto_dir" \
  --swift_opt=Visibility=Internal \
  "$proto_dir/onnx.proto"
echo "wrote $proto_dir/onnx.pb.swift" >&2
