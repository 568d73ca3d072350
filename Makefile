# vegas-desk — make run opens the app, make test runs every test.
GO      ?= go
# Go's usual place on Debian when it is not on the path yet.
export PATH := $(PATH):/usr/local/go/bin
PKG     := ./...
APP     := ./cmd/vegas-desk
# Packages a real window (GLFW through cgo) needs on Debian.
GUI_DEBS := gcc libc6-dev pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev \
            libxinerama-dev libxi-dev libxxf86vm-dev
# What the tests and benchmarks need besides Go: the sqlite3 tool (the
# reference of the ledger benchmarks and the tamper tests), a PostgreSQL
# server (the tests start their own, as the postgres account, in a
# temporary directory on a free port), poppler-utils (pdftotext reads the
# PDFs in internal/paper's tests, pdftoppm prints them to images),
# zbar-tools (zbarimg reads the pack labels' barcodes back from those
# images), a C compiler for the race detector, and CUPS's client and
# scheduler (cups-client, cups-daemon): internal/printer's tests start
# their own cupsd on a free port of 127.0.0.1 and check, with the real lp
# and lpstat, the answers printertest's stand-ins replay to the others.
# strace: the durability tests trace a claim's process (its writes, its
# syncs and its answer, in order). systemd, for systemd-analyze: verify and
# security --offline check the unit of serve --install-unit (neither needs
# systemd running as PID 1). git: the upgrade tests build the vegas-desk of
# earlier commits from the clone's history (git archive), which a clean
# machine may lack, the clone made by other means.
TEST_DEBS := sqlite3 gcc libc6-dev postgresql poppler-utils zbar-tools cups-client cups-daemon strace systemd git prometheus

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build cli run package claim-files test test-failover bench bench-national fuzz deps-gui deps-test clean windows test-windows

all: build

# Install the Debian packages that are missing, and only those.
define apt_install
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
endef

deps-gui:
	$(call apt_install,$(GUI_DEBS))

deps-test:
	$(call apt_install,$(TEST_DEBS))

build: deps-gui
	$(GO) build -tags migrated_fynedo -o bin/vegas-desk $(APP)

run: build
	./bin/vegas-desk

# The command line alone, without the desktop app: no cgo, no Fyne linked,
# so each command process starts about three times faster (for scripts).
# Without symbol table and DWARF (-s -w; a panic still names its functions
# and lines): 23 MB where it was 33 (internal/ledger/testdata/bench.sh
# builds it so too).
CLI_FLAGS = -tags nogui -trimpath -ldflags '-s -w'
cli:
	CGO_ENABLED=0 $(GO) build $(CLI_FLAGS) -o bin/vegas-desk-cli $(APP)

# A Linux package (bin/vegas-desk.tar.xz: binary, icon, .desktop file and an
# install Makefile) made by fyne.io/tools from the binary and FyneApp.toml.
FYNE ?= $(shell $(GO) env GOPATH)/bin/fyne
package: build
	@[ -x $(FYNE) ] || $(GO) install fyne.io/tools/cmd/fyne@v1.7.4
	$(FYNE) package --os linux --executable bin/vegas-desk --name vegas-desk \
		--icon Icon.png --app-id fr.vegasdesk.app
	mv vegas-desk.tar.xz bin/

# make test: vet, every test without cgo (-tags ci gives Fyne its software
# driver: no display needed), and the race detector (cgo for it alone:
# gcc) over the tests that run goroutines and concurrent ledgers, by name
# (RACE_TESTS, below). Those run under the race detector only: the other
# runs skip them, so no test runs twice. The tests share their fixtures
# through one cache (internal/testcache), the machine's like Go's build
# cache ($VEGAS_TEST_CACHE, else vegas-desk-test-cache in the temporary
# directory): a block is generated, and sealed, once while the sources
# that make it are unchanged, whichever checkout asks, and a run never
# removes a fixture another run reads. testlog reads go test -json: each
# package as it ends, the output of what fails, and last the wall time,
# the CPU of each package and the ten slowest tests (TEST_OUT keeps the
# streams). go test runs each test binary through testlog -exec, which
# measures the CPU of the binary and of every process it starts, the
# PostgreSQL servers included, per package and per top-level test.
# Four runs at once: the race
# pass; cmd/vegas-desk's tests in two halves (CMD_HALF, below, and the
# others: one test process runs its tests one after another, and the
# command line's are a third of the CPU); the other packages, the longest
# first (TEST_FIRST). A test that waits (a sync, a server starting) leaves
# its core to the others, and the run ends when the CPU is spent, not
# after the sum of the longest packages' times (5m56s, as two passes one
# after the other, 3m of CPU idle). The race run's test processes one at a
# time (-p 1): its tests time answers over TLS, and each process of it is
# several of the others' in CPU. The fixtures are built before the runs
# (internal/testcache/fixtures), by a process without the race detector.
TEST_OUT ?= $(CURDIR)/.testcache
# The race pass: the tests whose code runs goroutines of its own, by
# package. ui: the app's background tasks (generate, export, verify,
# report, samples) and their Cancel, the window closed during a task, a
# shared ledger's screens. game: a generation stopped across its workers.
# ledger: a generation cancelled, an export whose writer fails, on every
# core. ledger/sqlite: the group commit (one sync for the questions
# waiting). ledger/postgres: the sequencer's rounds, the waiting entries,
# a write checked again, a payment made once by concurrent questions.
# ledger/counter: a seal on every core. server: counters claiming at once
# through one and two servers, PostgreSQL restarted behind them, an
# answer lost, lock-outs, slow clients, the log and metrics observed
# while it answers, connections evicted. cmd/vegas-desk: serve and its
# scheduled backups (a backup taken by serve's scheduler while it
# answers). Not here: cmd/vegas-desk's TestSharedLedgerCLI, commands one
# after another against a server whose concurrency the server's tests
# run under the detector (a block copied into PostgreSQL and verified
# twice: 30 s of CPU under it, a third of that without).
RACE_TESTS := TestBlocksGenerateCancel|TestBlocksCancelExportAndVerify|TestBlocksReportAndVerify|TestCloseDuringTask|TestSamples|TestSamplesNextUnpaid|TestSharedLedger|TestConcurrentCounters|TestRestartDuringClaims|TestLostAnswer|TestUnreachable|TestGenerateCancel|TestSealSmall|TestExportWriteError|TestGenerateStops|TestConfirmWithKeys|TestRaceOneServer|TestRaceTwoServersOnePostgres|TestSlowClients|TestCounterThroughServer|TestLockOutOneServerFile|TestLockOutTwoServersOnePostgres|TestGroupCommit|TestMetrics|TestServerLog|TestSequencerRounds|TestWriteChecksAgain|TestScheduledBackups|TestWaitingStaysInside|TestPaidOnce|TestRevokedConnectionsDoNotCount|TestMonitorChecksShareARead|TestCounterServers
RACE_PKGS  := ./internal/ui/ ./internal/game/ ./internal/ledger/ ./internal/ledger/sqlite/ ./internal/ledger/postgres/ ./internal/ledger/counter/ ./internal/server/ ./cmd/vegas-desk/
# The half of cmd/vegas-desk's tests that runs in a process of its own
# (the others, and those added later, run in the other half): about half
# of the package's CPU; the tests that build the command (build in
# cli_test.go) are all in the other half, which builds it once.
CMD_HALF   := TestBackupWhileServing|TestSealCLI|TestConformanceCLI|TestFrenchLines|TestRestoreFencesTheOriginal|TestRestoreOfACopysBackup|TestRestoreSealedPaymentsHome|TestSharedLedgerCLI|TestLoadRealLedger|TestLoadCLI
# The packages whose tests take longest, started first.
TEST_FIRST := ./internal/ui/ ./internal/ledger/ ./internal/server/ ./internal/ledger/backoffice/ ./internal/game/
# GOGC for the runs without the race detector: the collector was 9 % of
# cmd/vegas-desk's test CPU and 15 % of internal/ui's at 100 (the heap of a
# test process is a few hundred megabytes; the race detector's is several
# times that, left at 100).
TEST_GOGC  ?= 400
TEST_GO     = $(GO) test -json -exec '$(TEST_OUT)/testlog -exec' -tags ci,migrated_fynedo -count=1 -timeout 20m
test: deps-test
	@mkdir -p $(TEST_OUT)
	@echo $$(date +%s) > $(TEST_OUT)/start
	CGO_ENABLED=0 $(GO) vet -tags ci,migrated_fynedo $(PKG)
	CGO_ENABLED=0 $(GO) vet -tags nogui $(APP)
	CGO_ENABLED=0 $(GO) build -o $(TEST_OUT)/testlog ./internal/testlog
	# The fixtures, before the runs side by side: see internal/testcache/fixtures.
	CGO_ENABLED=0 $(GO) run ./internal/testcache/fixtures
	@rm -f $(TEST_OUT)/pass.json $(TEST_OUT)/race.json $(TEST_OUT)/cmd.json $(TEST_OUT)/cmd-half.json
	status=0; \
	(CGO_ENABLED=1 $(TEST_GO) -race -p 1 -run '^($(RACE_TESTS))$$' $(RACE_PKGS) \
		| $(TEST_OUT)/testlog -o $(TEST_OUT)/race.json) & race=$$!; \
	(CGO_ENABLED=0 GOGC=$(TEST_GOGC) $(TEST_GO) -run '^($(CMD_HALF))$$' $(APP) | $(TEST_OUT)/testlog -o $(TEST_OUT)/cmd-half.json) & half=$$!; \
	(CGO_ENABLED=0 GOGC=$(TEST_GOGC) $(TEST_GO) -skip '^($(RACE_TESTS)|$(CMD_HALF))$$' $(APP) | $(TEST_OUT)/testlog -o $(TEST_OUT)/cmd.json) & cmd=$$!; \
	(CGO_ENABLED=0 GOGC=$(TEST_GOGC) $(TEST_GO) -skip '^($(RACE_TESTS))$$' $(TEST_FIRST) $$($(GO) list $(PKG) | grep -vx 'vegas-desk/cmd/vegas-desk') \
		| $(TEST_OUT)/testlog -o $(TEST_OUT)/pass.json) & pass=$$!; \
	wait $$race || status=1; wait $$half || status=1; wait $$cmd || status=1; wait $$pass || status=1; \
	$(TEST_OUT)/testlog -summary -start $$(cat $(TEST_OUT)/start) $(TEST_OUT)/pass.json $(TEST_OUT)/cmd.json $(TEST_OUT)/cmd-half.json \
		$(TEST_OUT)/race.json; \
	exit $$status

# make test-failover: a pilot that loses a machine (issues 40, 43): a
# PostgreSQL primary and its synchronous standby made by the test
# (pg_basebackup -R, synchronous_standby_names, synchronous_commit on and
# remote_apply), two serve on the multi-host URL, eight counters claiming;
# the standby killed (-9), then the primary killed and the standby
# promoted. A few minutes (servers started and killed): not in make test.
# -v: what each counter saw is logged. FAILOVER_RUN narrows it (go test
# -run); FAILOVER_BENCH=Standby runs BenchmarkStandby, what the synchronous
# standby costs (claims/s and p99 with it and without, alternating), for a
# quiet machine.
FAILOVER_RUN   ?= TestStandby$$|TestFailover
FAILOVER_BENCH ?= ^$$
test-failover: deps-test
	CGO_ENABLED=0 $(GO) test -tags ci,migrated_fynedo,failover -count=1 -timeout 30m -v -run '$(FAILOVER_RUN)' \
		-bench '$(FAILOVER_BENCH)' -benchtime 1x ./internal/pgtest/ ./cmd/vegas-desk/

# Benchmarks, then the ledger's figures beside their references measured in
# the same run (internal/ledger/testdata/bench.sh).
BENCH := CGO_ENABLED=0 $(GO) test -tags ci,migrated_fynedo -run '^$$' -timeout 60m
bench: deps-test
	$(BENCH) -bench 'GenerateBlock' -benchtime 3x ./internal/game/
	$(BENCH) -bench 'Evaluate|Encode|DecodeValidate|ParseDoc' ./internal/game/
	$(BENCH) -bench 'Generate$$|Verify' -benchtime 2x ./internal/ledger/
	$(BENCH) -bench 'Lookup|FindByContents' -benchtime 200x ./internal/ledger/
	$(BENCH) -bench 'PostgresFigures' -benchtime 1x ./internal/ledger/
	# Claims decided in Go on PostgreSQL (the back office's login, as a
	# validation server asks them) beside pgbench -N, and the chain's delay.
	$(BENCH) -bench 'GoClaims' -benchtime 1x ./internal/ledger/
	# A pilot's capacity through the validation server: vegas-desk load
	# --server against serve on PostgreSQL beside pgbench -N (1, 4, 16
	# clients), the chain's delay, and the same against serve of a SQLite file.
	$(BENCH) -bench 'Load$$' -benchtime 1x ./cmd/vegas-desk/
	# A question's cost does not grow with history: load --server for 60 s
	# after 200,000 claims and 100,000 refusals of the same desks, answers a
	# second by 10 s window (last within 15 % of the first).
	$(BENCH) -bench 'LoadHistory' -benchtime 1x ./cmd/vegas-desk/
	# serve against the limit of its own stack: a bare validation server
	# (internal/benchref: net/http, TLS 1.3 client certificates, one
	# autocommit UPDATE … RETURNING through pgxpool; one SQLite writer on
	# a file), each in its own process, alternating at 1, 4 and 16
	# counters: answers/s, p99, the server side's CPU an answer apart from
	# the clients', pgbench -N beside (goal: >= 0.7x, CPU <= 1.5x).
	$(BENCH) -bench 'Bare$$' -benchtime 1x ./cmd/vegas-desk/
	# Claims a second on a SQLite file, in-process and through serve: the
	# group commit every file runs with (each answer after its WAL's sync)
	# beside synchronous=FULL and NORMAL (no sync), same run.
	$(BENCH) -bench 'DurableClaims' -benchtime 1x ./internal/ledger/
	# A counter's lookup round trip through vegas-desk serve over loopback,
	# then the same with its JSON log line written (what the log costs).
	$(BENCH) -bench 'ServerLookup' -benchtime 2000x ./internal/server/
	# Sealing a block for a counter ledger (target: at most 10 s on 2
	# cores), beside generating the same block in memory, in the same run.
	$(BENCH) -bench 'SealBlock' -benchtime 3x ./internal/ledger/
	GO=$(GO) ./internal/ledger/testdata/bench.sh

# make bench-national (issue 38): a national network on one serve over
# PostgreSQL (the tests' own server, fsync on): a demonstration ledger of
# 2 blocks (1,049,444 winners), 30,000 desks and their desk files made by
# one desks add --count, serve, and load --server --desks --winners paying
# 1,000,000 winners, each once, each claim by the next desk on a new
# connection; checks they take at most an hour and stay flat (the last 10
# minutes' answers a second within 15 % of the first's), and prints serve's
# memory, PostgreSQL's size a desk and a million claims, the time to make
# the desks and the load average. About an hour; not in make test.
# NATIONAL_DESKS / NATIONAL_CLAIMS / NATIONAL_COUNTERS make a smaller run,
# NATIONAL_SECONDS a shorter one (the claims stopped sooner than the hour).
NATIONAL_DESKS    ?= 30000
NATIONAL_CLAIMS   ?= 1000000
NATIONAL_COUNTERS ?= 16
NATIONAL_SECONDS  ?= 3600
bench-national: deps-test
	VEGAS_NATIONAL_DESKS=$(NATIONAL_DESKS) VEGAS_NATIONAL_CLAIMS=$(NATIONAL_CLAIMS) VEGAS_NATIONAL_COUNTERS=$(NATIONAL_COUNTERS) \
		VEGAS_NATIONAL_SECONDS=$(NATIONAL_SECONDS) CGO_ENABLED=0 $(GO) test -tags ci,migrated_fynedo -run '^$$' -timeout 150m \
		-bench 'National$$' -benchtime 1x ./cmd/vegas-desk/

# Each fuzz target for a minute (the seed corpora also run in make test).
FUZZ := CGO_ENABLED=0 $(GO) test -tags ci,migrated_fynedo -run '^$$' -fuzztime 60s
fuzz:
	$(FUZZ) -fuzz '^FuzzParseDoc$$' ./internal/game/
	$(FUZZ) -fuzz '^FuzzParseSerial$$' ./internal/game/
	$(FUZZ) -fuzz '^FuzzParsePackCode$$' ./internal/game/
	$(FUZZ) -fuzz '^FuzzDecode$$' ./internal/game/
	$(FUZZ) -fuzz '^FuzzParseSeedFile$$' ./internal/game/
	$(FUZZ) -fuzz '^FuzzLookup$$' ./internal/ledger/
	$(FUZZ) -fuzz '^FuzzCheck$$' ./internal/ledger/
	# Ledger files of a few dozen kilobytes: minimizing each new input for
	# the default minute would leave no time to fuzz.
	$(FUZZ) -fuzz '^FuzzOpen$$' -fuzzminimizetime 20x ./internal/ledger/
	# A ledger's page 1 read from its bytes before SQLite opens it: what
	# passes there must pass SQLite's own check (16 KB inputs: minimized briefly).
	$(FUZZ) -fuzz '^FuzzRawSchema$$' -fuzzminimizetime 20x ./internal/ledger/sqlite/
	# Certificate PDFs as verify-certificate reads them, from anyone
	# (3.5 KB each: minimized for a minute, two new inputs stop the run).
	$(FUZZ) -fuzz '^FuzzCertificatePDF$$' -fuzzminimizetime 100x ./internal/ledger/
	# Counters' exports as import-claims reads them, from anyone (a few KB
	# each: minimized for a minute, a few new inputs stop the run).
	$(FUZZ) -fuzz '^FuzzImportClaims$$' -fuzzminimizetime 100x ./internal/ledger/
	# Every request body of the validation server's API, from a desk.
	$(FUZZ) -fuzz '^FuzzLookupBody$$' ./internal/server/
	$(FUZZ) -fuzz '^FuzzClaimBody$$' ./internal/server/
	$(FUZZ) -fuzz '^FuzzFindBody$$' ./internal/server/
	$(FUZZ) -fuzz '^FuzzMoveBody$$' ./internal/server/

# make windows: bin/windows/vegas-desk.exe (the app: cgo through Debian's
# mingw-w64, Fyne's GLFW driver, no console window), vegas-desk-cli.exe (the
# commands, no cgo) and vegas-desk-setup.exe, the installer (Debian's nsis:
# per user, no administrator, a Start-menu entry, an uninstaller). Both
# binaries carry the icon and the version (windows/vegas-desk.rc).
WIN      := bin/windows
WIN_DEBS := gcc-mingw-w64-x86-64 imagemagick nsis
VERSION  := $(shell sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
BUILDNO  := $(shell sed -n 's/^Build *= *\([0-9]*\)/\1/p' FyneApp.toml)
WIN_SYSO := cmd/vegas-desk/rsrc_windows_amd64.syso
windows:
	$(call apt_install,$(WIN_DEBS))
	@mkdir -p $(WIN)
	convert Icon.png -define icon:auto-resize=256,64,48,32,16 $(WIN)/vegas-desk.ico
	printf '#define VERSION "%s"\n#define VERSION_COMMA %s,%s\n' $(VERSION) $$(echo $(VERSION) | tr . ,) $(BUILDNO) > $(WIN)/version.h
	x86_64-w64-mingw32-windres -I $(WIN) -i windows/vegas-desk.rc -O coff -o $(WIN_SYSO)
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -tags nogui -ldflags '-s -w' -o $(WIN)/vegas-desk-cli.exe $(APP)
	CC=x86_64-w64-mingw32-gcc CGO_ENABLED=1 GOOS=windows GOARCH=amd64 $(GO) build -tags migrated_fynedo \
		-ldflags '-H=windowsgui -s -w' -o $(WIN)/vegas-desk.exe $(APP)
	makensis -V2 -DVERSION=$(VERSION).$(BUILDNO) -DBIN=$(CURDIR)/$(WIN) -DOUT=$(CURDIR)/$(WIN)/vegas-desk-setup.exe windows/vegas-desk.nsi

# make test-windows: the Windows binaries and the installer under wine 10 in
# a Debian trixie chroot made once under $(WIN_CACHE) (windows/test-windows.sh):
# the commands, Go tests built for Windows, the installer, the app on Xvfb.
# The chroot (3 GB, about 15 minutes to make) is a cache of the machine's,
# like Go's build cache, not of the checkout: a new clone reuses it.
WIN_CACHE     ?= $(HOME)/.cache/vegas-desk/windows
WIN_TEST_DEBS := debootstrap xvfb xdotool imagemagick
test-windows: windows
	$(call apt_install,$(WIN_TEST_DEBS))
	WIN_CACHE=$(WIN_CACHE) GO=$(GO) ./windows/test-windows.sh

clean:
	rm -rf bin $(WIN_SYSO)

# The files of internal/ one claim enters (issue 37), counted by coverage:
# served on PostgreSQL, a SQLite file, a sealed counter ledger (see
# internal/server/claimfiles). CLAIM_FILES_FLAGS=-strict fails above the goals.
claim-files:
	CGO_ENABLED=0 $(GO) build -tags ci,migrated_fynedo -cover -covermode=atomic \
		-coverpkg=./cmd/...,./internal/... -o bin/claimfiles ./internal/server/claimfiles
	GOCOVERDIR=$$(mktemp -d) ./bin/claimfiles $(CLAIM_FILES_FLAGS)
