# smoke.sh — the checks of test-windows.sh (sourced by it: w, ok, bad, C, W,
# U, WU, LOCAL, PROGS are its). Each function is one step; a failed check
# says FAIL and counts, the step goes on.

EXE="$WU"'\AppData\Local\Programs\vegas-desk\vegas-desk-cli.exe'
APP="$WU"'\AppData\Local\Programs\vegas-desk\vegas-desk.exe'
DOCS="$WU"'\Mes documents'                 # a space, and an accent below
DB="$DOCS"'\caisse été.db'
UDOCS="$U/Mes documents"
OUT=$C/out.txt
ERR=$C/err.txt
SEED=$(printf 'ab%.0s' $(seq 32))

# --- the installer -----------------------------------------------------------
install_check() {
	# the setup program as a user runs it: silently, no administrator
	if w wine 'Z:\win4\files\vegas-desk-setup.exe' /S; then ok "setup /S exits 0"; else bad "setup /S: exit $?"; fi
	w wineserver -w
	local f
	for f in vegas-desk.exe vegas-desk-cli.exe uninstall.exe; do
		[ -f "$PROGS/$f" ] && ok "installed %LOCALAPPDATA%\\Programs\\vegas-desk\\$f" || bad "$f not installed in $PROGS"
	done
	cmp -s "$PROGS/vegas-desk.exe" "$BIN/vegas-desk.exe" && ok "the installed app is the one built" || bad "the installed app differs from $BIN/vegas-desk.exe"
	local lnk
	lnk=$(find "$U/AppData/Roaming/Microsoft/Windows/Start Menu" -name 'vegas-desk.lnk' 2>/dev/null | head -1)
	[ -n "$lnk" ] && ok "Start-menu entry: ${lnk#"$U/"}" || bad "no Start-menu entry vegas-desk.lnk"
	local key='HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\vegas-desk'
	if w wine reg query "$key" /v UninstallString 2>/dev/null | grep -q 'uninstall.exe'; then
		ok "the uninstaller is registered for this user ($key)"
	else
		bad "no UninstallString under $key"
	fi
}

uninstall_check() {
	if w wine "$WU"'\AppData\Local\Programs\vegas-desk\uninstall.exe' /S '_?='"$WU"'\AppData\Local\Programs\vegas-desk'; then
		ok "uninstall /S exits 0"
	else
		bad "uninstall /S: exit $?"
	fi
	w wineserver -w
	[ ! -e "$PROGS/vegas-desk.exe" ] && [ ! -e "$PROGS/vegas-desk-cli.exe" ] && ok "the program is removed" || bad "the program is still in $PROGS"
	[ -z "$(find "$U/AppData/Roaming/Microsoft/Windows/Start Menu" -name 'vegas-desk.lnk' 2>/dev/null)" ] &&
		ok "the Start-menu entry is removed" || bad "the Start-menu entry is still there"
	[ -s "$UDOCS/caisse été.db" ] && [ -s "$LOCAL/vegas-desk/ledger.db" ] &&
		ok "the ledgers are kept" || bad "a ledger went with the program"
}

# --- the Windows service: serve under the service manager --------------------
# (after cli_suite: its ledger and passphrase file). service install refuses
# a --db holding a password, checks serve's flags and registers the service (as an administrator: wine's
# user is one), start waits until it runs, then a counter pays through it
# and /healthz answers from the host; stop ends it (its log says stopped),
# remove unregisters it.
SVC_DIR="$DOCS"'\autorité du serveur'
service_check() {
	vx "$DB" 0 'authority of ledger|autorité du registre' '' serve --init --dir "$SVC_DIR" --host 127.0.0.1 --passphrase-file "$DOCS"'\phrase.txt'
	vx "$DB" 0 '' 'desk file .* written|fichier de guichet .* écrit' desks add S1 --limit 10000 --out "$DOCS"'\S1.desk' --dir "$SVC_DIR" --passphrase-file "$DOCS"'\phrase.txt'
	vx 'postgres://backoffice:hunter2@127.0.0.1/pilot' 2 '' 'holds a password|contient un mot de passe' service install --dir "$SVC_DIR"
	vx "$DB" 2 '' 'serve ?: --listen 127.0.0.1:notaport' service install --dir "$SVC_DIR" --listen 127.0.0.1:notaport
	vx "$DB" 0 'service vegas-desk (installed|installé)' '' service install --dir "$SVC_DIR" --listen 127.0.0.1:18443 --metrics 127.0.0.1:19464
	vx "$DB" 2 '' 'exists already|existe déjà' service install --dir "$SVC_DIR" --listen 127.0.0.1:18443
	if w wine reg query 'HKLM\System\CurrentControlSet\Services\vegas-desk' /v Start 2>&1 | grep -q '0x2'; then
		ok "vegas-desk starts at boot (its Start is 2, automatic)"
	else
		bad "vegas-desk: not started at boot: $(w wine reg query 'HKLM\System\CurrentControlSet\Services\vegas-desk' 2>&1)"
	fi
	# wine ends its services with its last program: one waits meanwhile
	(sleep 120 | w wine cmd > /dev/null 2>&1 &)
	vx - 0 'service vegas-desk ?: (running|en marche)' '' service start
	# running: its process started; it answers once it listens
	local h=
	until_ok 20 curl -fsS --max-time 2 http://127.0.0.1:19464/healthz && h=$(curl -fsS http://127.0.0.1:19464/healthz 2>&1)
	[[ $h == *'"ok":true'* ]] && ok "the service's /healthz: $h" || bad "the service's /healthz: $h"
	vx - 0 '^PAY(EZ)? ' '' --server https://127.0.0.1:18443 --desk-cert "$DOCS"'\S1.desk' claim "$(serial 12 "$C/winners.txt")"
	vx - 0 'service vegas-desk ?: (stopped|arrêté)' '' service stop
	local log=$W/prefix/drive_c/ProgramData/vegas-desk/serve.log
	grep -q 'msg=serving' "$log" && grep -q 'question=claim .*verdict=paid' "$log" && grep -q 'msg=stopped' "$log" &&
		ok "the service's log (C:\ProgramData\vegas-desk\serve.log): start, the claim, stop" || bad "the service's log: $(cat "$log" 2>&1 | tail -5)"
	vx - 0 'service vegas-desk (removed|supprimé)' '' service remove
	vx - 2 '' '(no|pas de) service vegas-desk' service start
	vx "$DB" 2 '' 'what the service manager starts|ce que lance le gestionnaire de services' service run
}

# --- the command line ---------------------------------------------------------
# vx DB RC OUT_RE ERR_RE ARGS...: the installed command line on ledger DB
# (none: "-"); checks its exit status and that its standard output and error
# match the extended regular expressions (an empty one matches anything).
vx() {
	local db=$1 want=$2 ore=$3 ere=$4 rc=0
	shift 4
	local args=("$@")
	[ "$db" = - ] || args=(--db "$db" "$@")
	printf '\n$ vegas-desk %s\n' "${args[*]}" >> "$C/cli.txt"
	w wine "$EXE" "${args[@]}" < /dev/null > "$OUT" 2> "$ERR" || rc=$?
	cat "$OUT" "$ERR" >> "$C/cli.txt"
	printf '[exit %d]\n' "$rc" >> "$C/cli.txt"
	local what="${args[*]:0:6}"
	if [ "$rc" != "$want" ]; then
		bad "$what: exit $rc, want $want"
		head -c 600 "$ERR"
		return 0
	fi
	if [ -n "$ore" ] && ! grep -qE -- "$ore" "$OUT"; then
		bad "$what: stdout lacks /$ore/"
		head -c 600 "$OUT"
		return 0
	fi
	if [ -n "$ere" ] && ! grep -qE -- "$ere" "$ERR"; then
		bad "$what: stderr lacks /$ere/"
		head -c 600 "$ERR"
		return 0
	fi
	ok "$what: exit $rc"
}

# serial N FILE: the serial of the Nth line of an export.
serial() { sed -n "${1}p" "$2" | grep -o '"serial":"[^"]*"' | cut -d'"' -f4; }

cli_suite() {
	: > "$C/cli.txt"
	mkdir -p "$UDOCS"
	local L=$C/linux/vegas-desk-cli LDB=$C/linux/ledger.db
	vx - 0 'VEGAS ledger|registre VEGAS' '' --help
	vx "$DB" 0 'block 531/1: .* tickets|bloc 531/1 : .* tickets' '' generate --demo --seed "$SEED"
	[ -f "$UDOCS/caisse été.db" ] && ok "the ledger is C:\\users\\root\\Mes documents\\caisse été.db" || bad "no ledger file in $UDOCS"
	# the Linux build makes the same block from the same seed
	rm -f "$LDB"*
	"$L" --db "$LDB" generate --demo --seed "$SEED" > "$C/linux/generate.txt"
	grep '^digest' "$C/linux/generate.txt" > "$C/linux/digest.txt"
	vx "$DB" 0 "$(cut -d' ' -f2 "$C/linux/digest.txt")" '' blocks
	# export | head: the first lines, then the pipe closes: a quiet end
	local rc=0
	{ w wine "$EXE" --db "$DB" export --block 1 < /dev/null 2> "$C/pipe-err.txt" || rc=$?; echo "$rc" > "$C/pipe-rc.txt"; } | head -200 > "$C/export.txt"
	"$L" --db "$LDB" export --block 1 2> /dev/null | head -200 > "$C/linux/export.txt" || true
	[ "$(wc -l < "$C/export.txt")" = 200 ] && cmp -s "$C/export.txt" "$C/linux/export.txt" &&
		ok "export | head -200: the Linux build's 200 lines" || bad "export | head -200 differs from the Linux build's"
	if [ "$(cat "$C/pipe-rc.txt")" = 0 ] && ! grep -qi 'pipe' "$C/pipe-err.txt"; then
		ok "export into a pipe closed early ends quietly (exit 0)"
	else
		bad "export into a closed pipe: exit $(cat "$C/pipe-rc.txt"), $(cat "$C/pipe-err.txt")"
	fi
	# winners of the first pack (its tickets are on sale in a demonstration)
	grep -v '"prize":0}' "$C/export.txt" | head -12 > "$C/winners.txt"
	local s1 s2 s3 s4 s5 s6
	s1=$(serial 1 "$C/winners.txt") s2=$(serial 2 "$C/winners.txt") s3=$(serial 3 "$C/winners.txt")
	s4=$(serial 4 "$C/winners.txt") s5=$(serial 5 "$C/winners.txt") s6=$(serial 6 "$C/winners.txt")
	serial 7 "$C/winners.txt" > "$C/gui-serial.txt"     # paid in the app
	serial 8 "$C/winners.txt" > "$C/gui-cli-serial.txt" # paid by a command while the app is open
	vx "$DB" 0 'verdict +(payable|à payer)' '' lookup "$s1"
	vx "$DB" 2 '' 'check digit does not match|clé de contrôle ne correspond pas' lookup "${s1%?}$(( (${s1: -1} + 1) % 10 ))"
	vx "$DB" 0 '^PAY(EZ)? ' '' claim "$s1" --desk D --operator ann
	vx "$DB" 1 '' 'already claimed|déjà payé' claim "$s1" --desk D --operator ann
	vx "$DB" 0 'payment 1 voided|paiement 1 annulé' '' void 1 --reason 'erreur de saisie'
	vx "$DB" 0 '^PAY(EZ)? ' '' claim "$s1" --desk D --operator ann
	# no --operator: the Windows user's name, without its DOMAIN\ part
	vx "$DB" 0 '^PAY(EZ)? ' '' claim "$s2" --desk D
	vx "$DB" 0 "$s2" '' claims --csv
	grep "$s2" "$OUT" | grep -q '\\' && bad "the operator keeps a DOMAIN\\ part: $(grep "$s2" "$OUT")" ||
		ok "the default operator has no DOMAIN\\ part"
	# four processes at once on two serials: each paid once (SQLite's locks)
	local i=0 s
	for s in "$s3" "$s4" "$s3" "$s4"; do
		i=$((i + 1))
		(w wine "$EXE" --db "$DB" claim "$s" --desk D --operator "p$i" < /dev/null > "$C/conc-$i.txt" 2>&1; echo "[exit $?]" >> "$C/conc-$i.txt") &
	done
	wait
	cat "$C"/conc-*.txt >> "$C/cli.txt"
	local paid refused
	paid=$(cat "$C"/conc-*.txt | grep -c '^\[exit 0\]' || true)
	refused=$(cat "$C"/conc-*.txt | grep -cE 'already claimed|déjà payé' || true)
	[ "$paid" = 2 ] && [ "$refused" = 2 ] && ok "4 claims at once on 2 tickets: 2 paid, 2 refused" ||
		bad "4 claims at once on 2 tickets: $paid paid, $refused refused"
	vx "$DB" 0 '^OK ?: 1 blo' '' verify
	vx "$DB" 0 '' 'receipt of payment 2 written|reçu du paiement 2 écrit' receipt 2 -o "$DOCS"'\reçu 2.pdf'
	[ "$(head -c 5 "$UDOCS/reçu 2.pdf" 2>/dev/null)" = "%PDF-" ] && ok "the receipt is a PDF" || bad "no receipt PDF"
	vx "$DB" 0 '' '' render "$s1" -o "$DOCS"'\ticket.png'
	file "$UDOCS/ticket.png" | grep -q 'PNG image' && ok "the ticket's picture is a PNG" || bad "no ticket picture"
	# the back office's key (a passphrase file as Notepad writes it: CRLF)
	printf 'une phrase de passe assez longue\r\n' > "$UDOCS/phrase.txt"
	vx "$DB" 0 '(public key|clé publique) +[0-9a-f]{64}' '' keygen -o "$DOCS"'\clé.key' --passphrase-file "$DOCS"'\phrase.txt'
	vx "$DB" 2 '' 'never replaced' keygen -o "$DOCS"'\clé.key' --passphrase-file "$DOCS"'\phrase.txt'
	# no passphrase and no console to type it at: said plainly, no "Linux only"
	vx "$DB" 2 '' 'type it at a terminal, or give --passphrase-file|tapez-la dans un terminal, ou donnez --passphrase-file' keygen -o "$DOCS"'\autre.key'
	grep -q 'Linux' "$ERR" && bad "keygen still says typing a passphrase is for Linux" || true
	# a counter ledger for desk C, a payment on it, brought home
	vx "$DB" 0 'counter ledger .* for desk C|registre de guichet .* pour le guichet C' '' counter-ledger --desk C --limit 100 --block 1 \
		--key-file "$DOCS"'\clé.key' --passphrase-file "$DOCS"'\phrase.txt' -o "$DOCS"'\guichet C.db'
	vx "$DOCS"'\guichet C.db' 0 '^PAY(EZ)? ' '' claim "$s5" --operator cat
	vx "$DOCS"'\guichet C.db' 1 '' 'already claimed|déjà payé' claim "$s5" --operator cat
	vx "$DOCS"'\guichet C.db' 0 '' '' claims --jsonl
	cp "$OUT" "$UDOCS/guichet C.jsonl"
	vx "$DB" 0 '1 recorded now|1 enregistré\(s\) maintenant' '' import-claims "$DOCS"'\guichet C.jsonl'
	vx "$DB" 0 '0 recorded now|0 enregistré\(s\) maintenant' '' import-claims "$DOCS"'\guichet C.jsonl'
	vx "$DB" 0 "$s5" '' claims --desk C
	vx "$DB" 0 '^OK ?: 1 blo' '' verify
	# forward slashes name the same file
	vx 'C:/users/root/Mes documents/caisse été.db' 0 '531/1' '' blocks
	# no --db: the ledger in %LOCALAPPDATA%\vegas-desk, where a copy makes one
	vx - 2 '' '(no ledger at|pas de registre à) C:\\users\\root\\AppData\\Local\\vegas-desk\\ledger\.db' blocks
	vx - 0 '' '' copy "$DB" "$WU"'\AppData\Local\vegas-desk\ledger.db'
	vx - 0 '531/1' '' blocks
}

# --- Go tests built for Windows -------------------------------------------------
# The packages whose code differs on Windows, built with go test -c and run
# under wine: in a French session, then in an American one (the locale and
# the language follow), both in Paris.
WIN_TEST_PKGS=${WIN_TEST_PKGS:-internal/platform internal/printer}
go_tests() {
	local p name rc loc
	for p in $WIN_TEST_PKGS; do
		name=$(echo "$p" | tr / _)
		(cd "$TOP" && CGO_ENABLED=0 GOOS=windows GOARCH=amd64 "$GO" test -c -tags ci -o "$W/files/$name.test.exe" "./$p") ||
			{ bad "go test -c ./$p for Windows"; continue; }
		for loc in fr-FR en-US; do
			rc=0
			WLANG=$(echo "$loc" | tr - _).UTF-8 w env VEGAS_TEST_LOCALE="$loc" VEGAS_TEST_PARIS=1 \
				wine 'Z:\win4\files\'"$name"'.test.exe' -test.count=1 -test.v < /dev/null > "$C/$name-$loc.txt" 2>&1 || rc=$?
			grep -E '^(--- FAIL|FAIL|PASS|ok)|_test.go:' "$C/$name-$loc.txt" | head -40
			if [ "$rc" = 0 ] && tail -1 "$C/$name-$loc.txt" | grep -q '^PASS'; then
				ok "go test ./$p under wine in $loc ($(grep -c '^=== RUN' "$C/$name-$loc.txt") tests and subtests)"
			else
				bad "go test ./$p under wine in $loc: exit $rc (see $C/$name-$loc.txt)"
			fi
		done
	done
}

# --- the app ---------------------------------------------------------------------
# until SECONDS CMD...: run CMD every half second until it succeeds (0) or
# SECONDS have passed (1).
until_ok() {
	local end=$(($(date +%s) + $1))
	shift
	while ! "$@" > /dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.5
	done
}
paid() { w wine "$EXE" --db "$DB" lookup "$1" < /dev/null 2>&1 | grep -qE '^(status +paid|état +payé)'; }
# differ A B: A and B differ by more than a blinking caret (500 pixels).
differ() {
	local n
	n=$(compare -metric AE "$1" "$2" null: 2>&1 || true)
	[ "${n%%.*}" -gt 500 ] 2>/dev/null
}
# changed REF OUT SECONDS: screenshots into OUT until it differs from REF.
changed() {
	local end=$(($(date +%s) + $3))
	while import -window root "$2" && ! differ "$1" "$2"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.5
	done
}
# settle OUT SECONDS: screenshots into OUT until two a second apart are the
# same (the drawing has ended; a caret may blink).
settle() {
	local end=$(($(date +%s) + $2)) prev=$C/settle-prev.png
	import -window root "$1"
	while cp "$1" "$prev" && sleep 1 && import -window root "$1" && differ "$prev" "$1"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
	done
}

app_check() {
	local fd_file=$C/xvfb-display
	: > "$fd_file"
	Xvfb -displayfd 3 -screen 0 1366x768x24 -nolisten tcp 3> "$fd_file" > "$C/xvfb.log" 2>&1 &
	XVFB_PID=$!
	until_ok 20 test -s "$fd_file" || { bad "Xvfb did not start"; return 1; }
	export DISPLAY=:$(cat "$fd_file")
	# The app starts its own wineserver, on this display: one left running
	# by the commands before (started with no display, its desktop process
	# too) makes GLFW fail to create its helper window ("Failed to create
	# helper window: invalid window handle"). Should it fail all the same,
	# the app is started once more, said in the transcript.
	local win attempt
	for attempt in 1 2; do
		w wineserver -k 2>/dev/null
		w wineserver -w
		WDISPLAY=$DISPLAY w wine "$APP" --db "$DB" > "$C/app.log" 2>&1 < /dev/null &
		GUI_PID=$!
		until_ok 120 eval 'xdotool search --onlyvisible --name "^vegas-desk\$" || ! kill -0 $GUI_PID' || break
		xdotool search --onlyvisible --name '^vegas-desk$' > /dev/null 2>&1 && break
		[ "$attempt" = 1 ] && echo "note: the app exited without a window, started again: $(tr '\n' ' ' < "$C/app.log")"
	done
	if xdotool search --onlyvisible --name '^vegas-desk$' > /dev/null 2>&1; then
		win=$(xdotool search --onlyvisible --name '^vegas-desk$' | head -1)
		ok "the app's window opens"
	else
		import -window root "$C/shot-nowindow.png"
		bad "no vegas-desk window in 120 s"
		cat "$C/app.log"
		return 1
	fi
	local X Y WIDTH HEIGHT SCREEN WINDOW
	eval "$(xdotool getwindowgeometry --shell "$win")"
	echo "window $win at $X,$Y, ${WIDTH}x$HEIGHT"
	settle "$C/shot-1-start.png" 60 || { bad "the window is never drawn"; return 1; }
	# The counter: the serial typed as a scanner does (digits, dashes, Enter)
	# in the serial field, which has the keyboard.
	xdotool mousemove $((X + WIDTH / 5)) $((Y + 89)) click 1
	xdotool type --delay 20 "$(cat "$C/gui-serial.txt")"
	settle "$C/shot-typed.png" 30
	xdotool key Return
	changed "$C/shot-typed.png" "$C/shot-2-verdict.png" 30 && settle "$C/shot-2-verdict.png" 30 ||
		bad "no verdict drawn"
	convert "$C/shot-2-verdict.png" -crop "${WIDTH}x$HEIGHT+$X+$Y" +repage "$TOP/docs/windows.png"
	# PAY as a cashier at the keyboard does: Tab from the serial field goes
	# first to the verdict's button, Enter taps it (no click at a place of
	# the window, which moves when the window is resized); once its dialog
	# is drawn, Enter confirms it
	xdotool key Tab
	sleep 0.3
	xdotool key Return
	changed "$C/shot-2-verdict.png" "$C/shot-3-confirm.png" 30 && settle "$C/shot-3-confirm.png" 30 ||
		bad "no payment dialog drawn"
	xdotool key Return
	if until_ok 30 paid "$(cat "$C/gui-serial.txt")"; then
		ok "the serial typed in the app is paid by Tab, Enter and Enter"
	else
		bad "the ticket typed in the app is not paid (shots in $C)"
	fi
	import -window root "$C/shot-4-paid.png"
	# a command on the same ledger while the app has it open
	vx "$DB" 0 '^PAY(EZ)? ' '' claim "$(cat "$C/gui-cli-serial.txt")" --desk D --operator cli
	kill -0 "$GUI_PID" 2>/dev/null && ok "the app still runs" || bad "the app exited: $(cat "$C/app.log")"
	# the app closes (wine's processes end) before the uninstaller runs
	kill "$GUI_PID" 2>/dev/null
	w wineserver -k 2>/dev/null
	w wineserver -w
	wait "$GUI_PID" 2>/dev/null
	GUI_PID=
	kill "$XVFB_PID" 2>/dev/null && wait "$XVFB_PID" 2>/dev/null
	XVFB_PID=
}
