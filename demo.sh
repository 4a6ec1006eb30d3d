#!/bin/sh
# demo.sh - install what is needed, build, and run the main job: a 3D stencil
# whose ranks are numbered without regard to locality, mapped onto a fat tree
# of 16 nodes x 2 sockets x 16 cores with the natural (round-robin)
# placement, a random one, and the topology-aware mappers.  Idempotent.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
./contrib/deps.sh
echo "demo: building"
./contrib/build.sh "$top/build"
tm="$top/build/tools/topomatch"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

topo="tleaf 3 16 100 2 10 16 1"
"$tm" gen stencil3d --dims 8x8x8 --weights 1000,500,100 --shuffle 7 --out "$work/stencil.mtx"
echo "demo: 512-task 3D stencil (8x8x8, face weights 1000/500/100, ranks shuffled) on '$topo'"
for mapper in round-robin random scotch treematch auto; do
	hb=$("$tm" map -t "$topo" -c "$work/stencil.mtx" --mapper $mapper --json |
		sed 's/.*"hop_bytes": \([^,]*\),.*/\1/')
	printf 'demo: %-12s hop-bytes %s\n' "$mapper" "$hb"
done
"$tm" map -t "$topo" -c "$work/stencil.mtx"
