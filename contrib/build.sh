#!/bin/sh
# contrib/build.sh DIR [configure args...] - configure (once) and build the
# project out of tree in DIR.  Used by demo.sh and check.sh.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
shift
cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
mkdir -p "$dir"
cd "$dir"
# reconfigure when the arguments changed or configure is newer
want="$*"
if [ ! -f Makefile ] || [ ! -f .configure-args ] || [ "$(cat .configure-args)" != "$want" ] ||
	[ "$top/configure" -nt Makefile ]; then
	# a rerun in a used tree has a core/ folder, which autoconf's conftest
	# clean-up (`rm -f core`, for core dumps) complains about: drop that noise
	if ! "$top/configure" -q "$@" >configure.out 2>&1; then
		cat configure.out >&2
		exit 1
	fi
	grep -v "cannot remove 'core'" configure.out >&2 || true
	printf '%s' "$want" >.configure-args
fi
make -s -j"$(nproc)" >/dev/null
