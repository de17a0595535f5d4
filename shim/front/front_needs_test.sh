#!/bin/sh
# The front (libprotond_shim.so) must not need the libraries that make the core slow to load:
# the C++ library, Abseil, gRPC, protobuf. Usage: front_needs_test.sh LIBRARY
set -eu
needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || { echo "cannot read the NEEDED entries of $1"; exit 1; }
if echo "$needed" | grep -Eq 'stdc\+\+|absl|grpc|protobuf'; then
  echo "$1 needs:"; echo "$needed"; exit 1
fi
echo "$1 needs only: $(echo "$needed" | tr '\n' ' ')"
