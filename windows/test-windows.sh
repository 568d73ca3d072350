#!/bin/bash
# test-windows.sh — make test-windows: the Windows build of vegas-desk run
# under wine, on a Debian host, as root. Every check says ok or FAIL; the
# script exits 1 when one failed.
#
# Debian bookworm's wine 8.0 cannot start Go >= 1.22 programs (Go's runtime
# needs ProcessPrng, from bcryptprimitives.dll); trixie's wine 10 can. So
# wine runs in a Debian trixie chroot, made once (debootstrap, then wine
# and Mesa inside it) and kept in the cache with a fresh wine prefix. The
# host gets only Debian packages (debootstrap, xvfb, xdotool, imagemagick,
# installed by make test-windows); everything else stays under WIN_CACHE.
#
# What it runs, on binaries make windows built (bin/windows):
#   1. the installer, silently (/S), without an administrator: the files
#      under %LOCALAPPDATA%\Programs\vegas-desk, the Start-menu entry, the
#      uninstaller's registry key;
#   2. the installed vegas-desk-cli.exe on a ledger whose path has spaces
#      and accents: generate, export (the same tickets as the Linux build's
#      for the same seed; a closed pipe ends quietly), lookup, claim twice,
#      claims at once from several processes, void, verify, a receipt PDF,
#      keygen, a counter ledger and a payment on it, import-claims, the
#      default ledger under %LOCALAPPDATA%\vegas-desk;
#   2b. the Windows service: service install, start (a counter pays through
#      it, /healthz answers), stop, remove (windows/smoke.sh service_check);
#   3. Go tests built for Windows (go test -c) of the packages whose code
#      differs there (ACLs, paths, locale, operator name, printers);
#   4. the installed vegas-desk.exe on Xvfb: a window opens, a serial typed
#      like a scanner (digits, Enter) gets its verdict (docs/windows.png),
#      PAY pays it, a command run meanwhile pays another ticket;
#   5. the uninstaller, silently: the program gone, the ledger kept.
#
# Cache (WIN_CACHE, required; make test-windows: ~/.cache/vegas-desk/windows):
#   trixie/          the chroot with wine (about 700 MB; made once)
#   work/            bind-mounted as /win4 in the chroot:
#     prefix0/       a new wine prefix (made once), copied to prefix/ each run
#     prefix/        this run's prefix (C:\ is prefix/drive_c)
#     files/         this run's inputs: installer, test binaries, passphrase
#   linux/           the Linux build of the command line (the reference)
#   cli.txt          the transcript of this run's commands
#   timings.txt      seconds per step
# Env: WIN_CACHE, BIN (default bin/windows), GO (default go), MIRROR (default:
# the host's Debian mirror), KEEP_SHOTS=1 keeps every screenshot in the cache.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")
BIN=${BIN:-$TOP/bin/windows}
GO=${GO:-go}
[ "$(id -u)" = 0 ] || { echo "$0: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
C=${WIN_CACHE:?set WIN_CACHE to the cache directory}
mkdir -p "$C"
C=$(cd "$C" && pwd)
R=$C/trixie
W=$C/work
for t in debootstrap Xvfb xdotool import makensis; do
	command -v "$t" >/dev/null || { echo "$0: $t is missing: run make test-windows (it installs it)" >&2; exit 2; }
done
for f in vegas-desk.exe vegas-desk-cli.exe vegas-desk-setup.exe; do
	[ -f "$BIN/$f" ] || { echo "$0: $BIN/$f is missing: run make windows" >&2; exit 2; }
done
# (grep's status is ignored: a deb822 host has no /etc/apt/sources.list)
MIRROR=${MIRROR:-$( { grep -rhoE "^(URIs:|deb) +[a-z]+://[^ ]+/debian\b" /etc/apt/sources.list /etc/apt/sources.list.d 2>/dev/null || true; } | head -1 | grep -oE "[a-z]+://[^ ]+" || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
: > "$C/timings.txt"

FAILS=0
ok() { printf 'ok    %s\n' "$*"; }
bad() {
	printf 'FAIL  %s\n' "$*"
	FAILS=$((FAILS + 1))
}
# step NAME CMD...: run CMD, note its wall time; a failing step stops the run.
step() {
	local name=$1 t0 rc=0
	shift
	printf '\n### %s\n' "$name"
	t0=$(date +%s%N)
	"$@" || rc=$?
	printf '%-22s %6d s  rc=%d\n' "$name" $((($(date +%s%N) - t0) / 1000000000)) "$rc" | tee -a "$C/timings.txt"
	[ "$rc" = 0 ] || { bad "step $name"; exit 1; }
}

# --- cleanup: stop what this script started, unmount what it mounted -------
XVFB_PID=
GUI_PID=
cleanup() {
	set +e
	[ -n "$GUI_PID" ] && kill "$GUI_PID" 2>/dev/null
	if [ -f "$R/.wine-done" ] && mountpoint -q "$R/win4"; then
		w wineserver -k 2>/dev/null
		w wineserver -w 2>/dev/null
	fi
	# until no process lives in the chroot (10 s at most), else umount is busy
	local p n busy
	for n in $(seq 100); do
		busy=
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && busy=1 && break
		done
		[ -z "$busy" ] && break
		sleep 0.1
	done
	[ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null && wait "$XVFB_PID" 2>/dev/null
	for m in tmp/.X11-unix win4 dev/pts dev sys proc; do
		mountpoint -q "$R/$m" && umount "$R/$m"
	done
	return 0
}
trap cleanup EXIT

# w CMD...: CMD in the chroot, in this run's wine prefix, with a Windows
# user's environment: no USER, no Unix HOME or XDG_DATA_HOME for the program
# to take; a French session in Paris (wine derives the Windows locale and
# time zone from LANG and TZ).
w() {
	chroot "$R" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/win4/home WINEPREFIX="${PREFIX:-/win4/prefix}" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" \
		XDG_RUNTIME_DIR=/win4/xdg LANG="${WLANG:-fr_FR.UTF-8}" TZ=Europe/Paris DISPLAY="${WDISPLAY:-}" "$@"
}

# --- 1. the chroot, wine and a prefix: made once ----------------------------
chroot_base() {
	[ -f "$R/.debootstrap-done" ] && { echo "cached"; return 0; }
	rm -rf "$R"
	debootstrap --variant=minbase --include=ca-certificates trixie "$R" "$MIRROR" > "$C/debootstrap.log" 2>&1 ||
		{ tail -20 "$C/debootstrap.log"; return 1; }
	touch "$R/.debootstrap-done"
}
mounts() {
	mkdir -p "$W/xdg" "$W/home" "$R/win4" "$R/tmp/.X11-unix" /tmp/.X11-unix
	chmod 700 "$W/xdg"
	cp /etc/resolv.conf "$R/etc/resolv.conf"
	mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
	mountpoint -q "$R/sys" || mount -t sysfs sys "$R/sys"
	mountpoint -q "$R/dev" || mount --bind /dev "$R/dev"
	mountpoint -q "$R/dev/pts" || mount --bind /dev/pts "$R/dev/pts"
	mountpoint -q "$R/win4" || mount --bind "$W" "$R/win4"
	mountpoint -q "$R/tmp/.X11-unix" || mount --bind /tmp/.X11-unix "$R/tmp/.X11-unix"
}
chroot_wine() {
	[ -f "$R/.wine-done" ] && { echo "cached"; return 0; }
	chroot "$R" apt-get update -q > "$C/wine-install.log" 2>&1
	chroot "$R" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		wine wine64 libgl1 libegl1 libgl1-mesa-dri libosmesa6 libxcursor1 libxi6 libxinerama1 \
		libxrandr2 libxrender1 libxxf86vm1 libxcomposite1 libxfixes3 fonts-wine fonts-liberation \
		libgnutls30t64 locales >> "$C/wine-install.log" 2>&1 || { tail -20 "$C/wine-install.log"; return 1; }
	chroot "$R" apt-get clean
	# wine takes the Windows locale from LANG when the Unix locale exists
	printf 'fr_FR.UTF-8 UTF-8\nen_US.UTF-8 UTF-8\n' > "$R/etc/locale.gen"
	chroot "$R" locale-gen > /dev/null
	touch "$R/.wine-done"
}
prefix0() {
	[ -f "$W/prefix0/.done" ] && { echo "cached"; return 0; }
	rm -rf "$W/prefix0"
	# "failed to open syswow64\rundll32.exe" is expected: no 32-bit wine, none needed.
	PREFIX=/win4/prefix0 w wineboot --init > "$C/wineboot.log" 2>&1 || { tail -20 "$C/wineboot.log"; return 1; }
	PREFIX=/win4/prefix0 w wineserver -w
	touch "$W/prefix0/.done"
}
step debootstrap chroot_base
step mounts mounts
step wine chroot_wine
step wine-prefix prefix0
chroot "$R" wine --version

# --- 2. this run: a new prefix, the inputs ----------------------------------
fresh() {
	rm -rf "$W/prefix" "$W/files" "$W/home"
	cp -a "$W/prefix0" "$W/prefix"
	mkdir -p "$W/files" "$W/home"
	cp "$BIN"/vegas-desk-setup.exe "$W/files/"
	# the reference: the Linux build of the command line, from the same sources
	(cd "$TOP" && CGO_ENABLED=0 "$GO" build -tags nogui -o "$C/linux/vegas-desk-cli" ./cmd/vegas-desk)
}
step fresh-prefix fresh

U=$W/prefix/drive_c/users/root         # C:\users\root, from the host
WU='C:\users\root'
LOCAL=$U/AppData/Local
PROGS=$LOCAL/Programs/vegas-desk

. "$HERE/smoke.sh"

step installer install_check
step cli cli_suite
step service service_check
step go-tests go_tests
step app app_check
step uninstaller uninstall_check

cat "$C/timings.txt"
if [ "$FAILS" != 0 ]; then
	echo "test-windows: $FAILS check(s) failed (transcript: $C/cli.txt)"
	exit 1
fi
echo "test-windows: every check passed"
