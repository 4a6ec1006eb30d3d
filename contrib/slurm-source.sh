#!/bin/sh
# contrib/slurm-source.sh [DIR] - fetch and configure the Slurm source of the
# installed Slurm version, which select/topomatch is compiled against.
#
#   DIR   where the configured source tree goes
#         (default: /var/cache/slurm-topomatch/slurm-<Debian version>)
#
# The version is the one of the installed slurmctld package (installed here,
# together with libslurm-dev, when missing).  The source comes from Debian
# (`apt-get source slurm-wlm=<version>`, Debian's patches applied); a deb-src
# entry mirroring the configured bookworm "deb" entries is added in its own
# file, /etc/apt/sources.list.d/slurm-topomatch-src.sources, when apt has no
# source entry for that version yet.  The tree is then configured once the
# way Debian-like installs need it (--sysconfdir=/etc/slurm
# --enable-multiple-slurmd), which takes 20 to 90 s.
#
# Idempotent: a tree whose stamp file (.slurm-topomatch-source) and config.h
# match the installed version is reused as it is.  Progress goes to stderr;
# the last line on stdout is the source directory, e.g.
#   ./configure --with-slurm-source="$(contrib/slurm-source.sh | tail -n 1)"
# Never writes in the project tree.  Needs root only for what it installs,
# for the apt source entry, and for the default cache directory.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu

me=slurm-source
top=$(cd "$(dirname "$0")/.." && pwd -P)
APT="apt-get -o DPkg::Lock::Timeout=600"
SRC_LIST=/etc/apt/sources.list.d/slurm-topomatch-src.sources
CONFIGURE_ARGS="--sysconfdir=/etc/slurm --enable-multiple-slurmd"
STAMP=.slurm-topomatch-source

log() { echo "$me: $*" >&2; }
die() {
	echo "$me: error: $*" >&2
	exit 1
}

[ $# -le 1 ] || die "usage: $0 [DIR]"
case "${1:-}" in -h | --help)
	sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
esac

is_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

apt_updated=no
apt_update() {
	if [ "$apt_updated" = no ]; then
		log "apt-get update"
		$APT update -qq >&2 || die "apt-get update failed"
		apt_updated=yes
	fi
}

install_packages() { # PACKAGE...
	missing=""
	for p in "$@"; do
		is_installed "$p" || missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	[ "$(id -u)" -eq 0 ] || die "missing Debian packages:$missing (run as root, or: apt-get install$missing)"
	log "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! $APT install -y -qq --no-install-recommends $missing >&2; then
		apt_update
		# shellcheck disable=SC2086
		$APT install -y -qq --no-install-recommends $missing >&2 ||
			die "cannot install$missing"
	fi
}

# --------------------------------------------------------------- version
command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: this script is for Debian systems"
# slurmctld: the daemon the plugin is loaded by; libslurm-dev: the public
# headers configure compares the version with; dpkg-dev: dpkg-source, which
# `apt-get source` unpacks with.
install_packages slurmctld libslurm-dev dpkg-dev
version=$(dpkg-query -W -f='${Version}' slurmctld)
[ -n "$version" ] || die "cannot read the version of the installed slurmctld package"
devversion=$(dpkg-query -W -f='${Version}' libslurm-dev)
[ "$devversion" = "$version" ] ||
	die "slurmctld is $version but libslurm-dev is $devversion: install the same version of both"
upstream=${version#*:}
upstream=${upstream%%-*} # 22.05.8
case "$upstream" in
[0-9]*.[0-9]*.[0-9]*) ;;
*) die "unexpected Slurm version '$version'" ;;
esac
want_number=$(echo "$upstream" | awk -F. '{ printf "0x%02x%02x%02x", $1, $2, $3 }')

# --------------------------------------------------------------- directory
dir=${1:-/var/cache/slurm-topomatch/slurm-$version}
case "$dir" in /*) ;; *) dir=$(pwd -P)/$dir ;; esac
dir=$(realpath -m "$dir")
case "$dir/" in
"$top"/*) die "$dir is inside the project tree ($top): choose a directory outside it" ;;
esac
want_stamp="version=$version
configure=$CONFIGURE_ARGS"

config_number() { # the SLURM_VERSION_NUMBER in $dir/config.h, or nothing
	awk '$1 == "#define" && $2 == "SLURM_VERSION_NUMBER" { print tolower($3) }' \
		"$dir/config.h" 2>/dev/null
}

# The stamp is written last: a tree that has it is complete.
done_already() {
	if [ -f "$dir/config.h" ] && [ -f "$dir/$STAMP" ] &&
		[ "$(cat "$dir/$STAMP")" = "$want_stamp" ] && [ "$(config_number)" = "$want_number" ]; then
		log "Slurm $version source already configured in $dir"
		echo "$dir"
		exit 0
	fi
}
done_already

parent=$(dirname "$dir")
mkdir -p "$parent" 2>/dev/null || die "cannot create $parent (run as root, or give a DIR you can write)"
[ -w "$parent" ] || die "cannot write in $parent (run as root, or give a DIR you can write)"

# One run at a time per directory (two builds may call this together); the
# other one may have finished meanwhile.
exec 9>"$dir.lock"
flock 9
done_already

# --------------------------------------------------------------- fetch
if [ -d "$dir" ] && [ -f "$dir/$STAMP.fetched" ] &&
	[ "$(cat "$dir/$STAMP.fetched")" = "version=$version" ]; then
	log "reusing the fetched source in $dir"
else
	if [ -e "$dir" ]; then
		# a tree of another version, or a fetch cut short: start again,
		# but only in a directory this script made
		if [ -f "$dir/$STAMP.fetched" ] || [ -z "$(ls -A "$dir")" ]; then
			log "removing the old tree in $dir"
			rm -rf "$dir"
		else
			die "$dir exists and was not made by this script: remove it or choose another DIR"
		fi
	fi
	has_source() { # apt knows the source package of that exact version
		apt-cache showsrc slurm-wlm 2>/dev/null | grep -qx "Version: $version"
	}
	if ! has_source; then
		if [ ! -e "$SRC_LIST" ]; then
			[ "$(id -u)" -eq 0 ] || die "apt knows no source of slurm-wlm $version; run as root to add $SRC_LIST"
			# shellcheck disable=SC1091
			codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
			[ -n "$codename" ] || die "cannot read VERSION_CODENAME from /etc/os-release"
			# mirror the configured binary entries of this release (main)
			# shellcheck disable=SC2016 # apt's own $(...) placeholders
			entries=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
				'Identifier: Packages' 2>/dev/null | awk -v c="$codename" \
				'$3 == "main" && ($2 == c || index($2, c "-") == 1) { print $1, $2 }' | sort -u)
			[ -n "$entries" ] || entries="http://deb.debian.org/debian/ $codename
http://deb.debian.org/debian-security/ $codename-security"
			keyring=/usr/share/keyrings/debian-archive-keyring.gpg
			log "adding deb-src entries in $SRC_LIST"
			{
				echo "# added by slurm-topomatch contrib/slurm-source.sh: Slurm source for select/topomatch"
				echo "$entries" | while read -r uri suite; do
					echo
					echo "Types: deb-src"
					echo "URIs: $uri"
					echo "Suites: $suite"
					echo "Components: main"
					if [ -f "$keyring" ]; then
						echo "Signed-By: $keyring"
					fi
				done
			} >"$SRC_LIST.tmp"
			mv "$SRC_LIST.tmp" "$SRC_LIST"
		fi
		apt_updated=no
		apt_update
		has_source || die "apt knows no source package slurm-wlm $version (apt-cache showsrc slurm-wlm);
the installed version may have been superseded: upgrade slurmctld and libslurm-dev, then run again"
	fi

	log "fetching the Slurm $version source (apt-get source slurm-wlm=$version)"
	t0=$(date +%s)
	fetch=$(mktemp -d "$parent/.slurm-fetch.XXXXXX")
	trap 'rm -rf "$fetch"' EXIT
	# apt downloads as user _apt when it can write there
	chmod 755 "$fetch"
	if id _apt >/dev/null 2>&1; then
		chown _apt "$fetch" 2>/dev/null || true
	fi
	if ! (cd "$fetch" && $APT source -qq "slurm-wlm=$version" >&2); then
		die "apt-get source slurm-wlm=$version failed"
	fi
	src=$(find "$fetch" -mindepth 1 -maxdepth 1 -type d -name 'slurm-wlm-*' | head -n 1)
	if [ -z "$src" ] || [ ! -f "$src/configure" ]; then
		die "apt-get source gave no slurm-wlm-* tree with a configure script"
	fi
	chown -R "$(id -u):$(id -g)" "$src"
	echo "version=$version" >"$src/$STAMP.fetched"
	mv "$src" "$dir"
	rm -rf "$fetch"
	trap - EXIT
	log "fetched in $(($(date +%s) - t0)) s"
fi

# --------------------------------------------------------------- configure
cd "$dir"
rm -f "$STAMP"
log "running ./configure $CONFIGURE_ARGS in $dir (under 2 minutes; log: $dir/config.log)"
t0=$(date +%s)
# shellcheck disable=SC2086
if ! ./configure $CONFIGURE_ARGS >configure.out 2>&1; then
	tail -n 30 configure.out >&2
	die "Slurm's configure failed in $dir (see $dir/config.log)"
fi
got=$(config_number)
[ "$got" = "$want_number" ] ||
	die "$dir/config.h has SLURM_VERSION_NUMBER '${got:-none}', expected $want_number for $version"
if [ ! -d src/plugins/select/cons_tres ] || [ ! -d src/plugins/select/cons_common ]; then
	die "$dir has no src/plugins/select/cons_tres or cons_common"
fi
printf '%s\n' "$want_stamp" >"$STAMP"
log "configured in $(($(date +%s) - t0)) s"
echo "$dir"
