// Package pgtest runs a real PostgreSQL server for the tests of the packages
// that speak to one: Debian's postgresql package, its initdb and postgres
// binaries started as an unprivileged user (the postgres account when the
// tests run as root, since initdb refuses root) in a temporary directory, on
// a free port of the loopback, with a socket directory of its own. One
// server serves a whole test binary; each test gets its own database.
//
// The server runs with PostgreSQL's settings for data one can lose
// (fsync, synchronous_commit and full_page_writes off: the manual's
// "Non-Durable Settings"), which a test's databases are; StartDurable
// starts one with the defaults, for a test of what a restart keeps.
//
// It never skips: without PostgreSQL installed, Start fails and says how to
// install it (make test does).
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Owner is the role that owns the test databases: it connects as the back
// office (and a validation server) does, with no other privilege: the
// ledger makes no role.
const Owner = "vegas_owner"

// Server is a running PostgreSQL server.
type Server struct {
	Dir      string // data directory's parent, removed by Stop
	Port     int
	Password string // the owner's and the superuser's password

	bin     string
	data    string
	sock    string
	runAs   *user.User // nil: run as the current user
	durable bool
	// settings are more of the server's settings (name=value), given
	// at each start (StartDurableWith).
	settings []string
	mu       sync.Mutex
	nextDB   int
}

// Start initialises and starts a server whose data may be lost in a crash.
// The caller must Stop it.
func Start() (*Server, error) { return start(false) }

// StartDurable initialises and starts a server with PostgreSQL's durable
// defaults. The caller must Stop it.
func StartDurable() (*Server, error) { return start(true) }

// StartDurableWith starts a server as StartDurable does, with more
// settings (name=value: wal_writer_delay=10s, autovacuum=off…).
func StartDurableWith(settings ...string) (*Server, error) { return start(true, settings...) }

func start(durable bool, settings ...string) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, durable: durable, settings: settings}
	if err := s.prepare(); err != nil {
		return nil, err
	}
	pw := make([]byte, 16)
	rand.Read(pw)
	s.Password = hex.EncodeToString(pw)
	pwfile := filepath.Join(s.Dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return nil, err
	}
	if s.runAs != nil {
		uid, _ := strconv.Atoi(s.runAs.Uid)
		gid, _ := strconv.Atoi(s.runAs.Gid)
		os.Chown(pwfile, uid, gid)
	}
	initdb := []string{"-D", s.data, "-U", "postgres", "--pwfile", pwfile, "-E", "UTF8",
		"--locale", "C", "--auth-local", "trust", "--auth-host", "scram-sha-256"}
	if !durable {
		initdb = append(initdb, "--no-sync")
	}
	if out, err := s.cmd("initdb", initdb...).CombinedOutput(); err != nil {
		s.Stop()
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	if err := s.start(); err != nil {
		s.Stop()
		return nil, err
	}
	db, err := s.open("postgres", "postgres")
	if err != nil {
		s.Stop()
		return nil, err
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", Owner, s.Password)); err != nil {
		s.Stop()
		return nil, fmt.Errorf("pgtest: create the owner role: %w", err)
	}
	return s, nil
}

// Save stops the server cleanly (a fast shutdown: its data consistent, no
// recovery at the next start), copies its data directory and password into
// dir, and starts it again. StartSaved starts servers on copies of it: a
// server whose databases (the tests' fixtures) are loaded already, for the
// cost of a copy rather than of initdb and a load each time.
func (s *Server) Save(dir string) error {
	start, err := s.Stopped()
	if err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", s.data, filepath.Join(dir, "data")).CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: save the data directory: %w: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "password"), []byte(s.Password), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "version"), []byte(strconv.Itoa(s.Version())), 0o600); err != nil {
		return err
	}
	return start()
}

// StartSaved starts a server, whose data may be lost in a crash, on a copy
// of the data directory Save wrote into dir. The caller must Stop it.
func StartSaved(dir string) (*Server, error) { return startSaved(dir, false) }

// StartSavedDurableWith starts a server as StartDurableWith does (durable,
// with more settings), on a copy of the data directory Save wrote into
// dir. The caller must Stop it.
func StartSavedDurableWith(dir string, settings ...string) (*Server, error) {
	return startSaved(dir, true, settings...)
}

func startSaved(dir string, durable bool, settings ...string) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, durable: durable, settings: settings}
	if v, err := os.ReadFile(filepath.Join(dir, "version")); err != nil || string(v) != strconv.Itoa(s.Version()) {
		return nil, fmt.Errorf("pgtest: %s was saved by another PostgreSQL than %s's (%q, %v)", dir, bin, v, err)
	}
	pw, err := os.ReadFile(filepath.Join(dir, "password"))
	if err != nil {
		return nil, err
	}
	s.Password = string(pw)
	if err := s.prepare(); err != nil {
		return nil, err
	}
	// cp -a keeps the files' owner (the postgres account under root) and
	// the directory's mode 0700, which the server requires.
	if out, err := exec.Command("cp", "-a", filepath.Join(dir, "data"), s.data).CombinedOutput(); err != nil {
		s.Stop()
		return nil, fmt.Errorf("pgtest: copy the saved data directory: %w: %s", err, out)
	}
	if durable { // the copy on disk before a durable server relies on it
		if out, err := exec.Command("sync", "-f", s.data).CombinedOutput(); err != nil {
			s.Stop()
			return nil, fmt.Errorf("pgtest: sync the copied data directory: %w: %s", err, out)
		}
	}
	if err := s.start(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// prepare makes the server's directory and its socket directory, owned by
// the account the server runs as.
func (s *Server) prepare() error {
	var err error
	s.Dir, err = os.MkdirTemp("", "vegas-pg-")
	if err != nil {
		return err
	}
	s.data = filepath.Join(s.Dir, "data")
	s.sock = filepath.Join(s.Dir, "sock")
	if err := os.Mkdir(s.sock, 0o700); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("pgtest: running as root, the server must run as the postgres account, which is missing (install the postgresql package): %w", err)
		}
		s.runAs = u
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{s.Dir, s.sock} {
			if err := os.Chown(p, uid, gid); err != nil {
				return err
			}
		}
	}
	return nil
}

// InstalledVersion is the major version of the server Start starts.
func InstalledVersion() (int, error) {
	bin, err := binDir()
	if err != nil {
		return 0, err
	}
	return version(bin), nil
}

// binDir finds the newest PostgreSQL server binaries Debian installed.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("pgtest: no PostgreSQL server in /usr/lib/postgresql/*/bin: install it (apt-get install postgresql; make test does)")
}

func version(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// Bin is the path of the server's program name (pgbench, psql…), of the
// same version.
func (s *Server) Bin(name string) string { return filepath.Join(s.bin, name) }

// Version is the server's major version.
func (s *Server) Version() int { return version(s.bin) }

// cmd runs a server binary as the server's account.
func (s *Server) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(filepath.Join(s.bin, name), args...)
	c.Dir = s.Dir
	if s.runAs != nil {
		uid, _ := strconv.Atoi(s.runAs.Uid)
		gid, _ := strconv.Atoi(s.runAs.Gid)
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		c.Env = append(os.Environ(), "HOME="+s.Dir)
	}
	return c
}

// start starts the server on a free port, trying another if it was taken
// in between.
func (s *Server) start() error {
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		s.Port = port
		out, err := s.pgctlStart()
		if err == nil {
			return nil
		}
		if attempt == 3 {
			log, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
			return fmt.Errorf("pgtest: pg_ctl start: %w\n%s\n%s", err, out, log)
		}
	}
}

// pgctlStart starts the server on s.Port and waits until it accepts
// connections: pg_ctl -w polls the server's own readiness.
func (s *Server) pgctlStart() ([]byte, error) {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200", s.Port, s.sock)
	if !s.durable {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	for _, set := range s.settings {
		opts += " -c " + set
	}
	return s.cmd("pg_ctl", "-D", s.data, "-l", filepath.Join(s.Dir, "server.log"), "-w", "-t", "60", "-o", opts, "start").CombinedOutput()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop stops the server and removes its directory.
func (s *Server) Stop() {
	if s == nil {
		return
	}
	if s.data != "" {
		if _, err := os.Stat(filepath.Join(s.data, "postmaster.pid")); err == nil {
			s.cmd("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop").Run()
		}
	}
	os.RemoveAll(s.Dir)
}

// Restart stops the server (fast shutdown: connections are cut) and starts
// it again on the same port.
func (s *Server) Restart() error {
	start, err := s.Stopped()
	if err != nil {
		return err
	}
	return start()
}

// Stopped stops the server (fast shutdown) until the returned function
// starts it again on the same port.
func (s *Server) Stopped() (start func() error, err error) {
	if out, err := s.cmd("pg_ctl", "-D", s.data, "-m", "fast", "-w", "stop").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgtest: stop: %w\n%s", err, out)
	}
	return func() error {
		if out, err := s.pgctlStart(); err != nil {
			return fmt.Errorf("pgtest: start again: %w\n%s", err, out)
		}
		return nil
	}, nil
}

// Crashed stops the server as a crash of the machine would, as far as
// PostgreSQL's own buffers go (pg_ctl stop -m immediate: no checkpoint, no
// flush; what its WAL buffers held and no commit flushed is gone, while
// what it wrote to the kernel stays), until the returned function starts
// it again on the same port (recovery replays its WAL).
func (s *Server) Crashed() (start func() error, err error) {
	if out, err := s.cmd("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgtest: crash: %w\n%s", err, out)
	}
	return func() error {
		if out, err := s.pgctlStart(); err != nil {
			return fmt.Errorf("pgtest: start again: %w\n%s", err, out)
		}
		return nil
	}, nil
}

// URL is the address of database db for role, password included.
func (s *Server) URL(role, db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(role, s.Password), Host: fmt.Sprintf("127.0.0.1:%d", s.Port),
		Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// URLWithout is the address of database db for role without a password (one
// comes from PGPASSWORD or ~/.pgpass, as libpq does).
func (s *Server) URLWithout(role, db string) string {
	u := url.URL{Scheme: "postgres", User: url.User(role), Host: fmt.Sprintf("127.0.0.1:%d", s.Port),
		Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

func (s *Server) open(role, db string) (*sql.DB, error) {
	d, err := sql.Open("pgx", s.URL(role, db))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.PingContext(ctx); err != nil {
		d.Close()
		return nil, fmt.Errorf("pgtest: connect as %s: %w", role, err)
	}
	return d, nil
}

// NewDatabase creates an empty database owned by Owner and returns its
// name. The database is dropped when tb ends.
func (s *Server) NewDatabase(tb testing.TB) string {
	return s.NewDatabaseFrom(tb, "template0")
}

// NewDatabaseFrom creates a database owned by Owner as a copy of template
// (which nobody may be connected to) and returns its name. The database is
// dropped when tb ends.
func (s *Server) NewDatabaseFrom(tb testing.TB, template string) string {
	tb.Helper()
	s.mu.Lock()
	s.nextDB++
	name := fmt.Sprintf("t%d_%s", s.nextDB, sanitize(tb.Name()))
	s.mu.Unlock()
	if len(name) > 50 {
		name = name[:50]
	}
	su, err := s.open("postgres", "postgres")
	if err != nil {
		tb.Fatal(err)
	}
	defer su.Close()
	if _, err := su.Exec(fmt.Sprintf(`CREATE DATABASE %q OWNER %s ENCODING 'UTF8' TEMPLATE %q STRATEGY FILE_COPY`, name, Owner, template)); err != nil {
		tb.Fatalf("pgtest: create database %s: %v", name, err)
	}
	tb.Cleanup(func() { s.DropDatabase(name) })
	return name
}

// DropDatabase drops db.
func (s *Server) DropDatabase(name string) {
	su, err := s.open("postgres", "postgres")
	if err != nil {
		return
	}
	defer su.Close()
	su.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, name))
}

// Exec runs statements as the superuser in database db.
func (s *Server) Exec(db, stmt string, args ...any) error {
	d, err := s.open("postgres", db)
	if err != nil {
		return err
	}
	defer d.Close()
	_, err = d.Exec(stmt, args...)
	return err
}

func sanitize(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// CPU is the processor time the server's processes used so far: the
// postmaster's, its ended children's (the connections closed) and its
// running children's (Linux's /proc; at the kernel's 100 ticks a second).
// A benchmark divides its difference by the work done meanwhile.
func (s *Server) CPU() (time.Duration, error) {
	pidText, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	pm, _, _ := strings.Cut(string(pidText), "\n")
	ticks := func(pid string, all bool) (int64, string, error) {
		data, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
		if err != nil {
			return 0, "", err
		}
		// After the command's closing parenthesis: state, ppid, ... utime
		// (14th field), stime, cutime, cstime.
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
		var n int64
		for i, k := range []int{11, 12, 13, 14} {
			if i < 2 || all {
				v, _ := strconv.ParseInt(f[k], 10, 64)
				n += v
			}
		}
		return n, f[1], nil
	}
	total, _, err := ticks(pm, true)
	if err != nil {
		return 0, err
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil || p.Name() == pm {
			continue
		}
		if n, ppid, err := ticks(p.Name(), false); err == nil && ppid == pm {
			total += n
		}
	}
	return time.Duration(total) * 10 * time.Millisecond, nil
}

// Replication: a primary and a streaming standby made from it, each a
// Server of its own (its own directory, port and socket), for the tests of
// a pilot that survives losing a machine. The primary is any durable
// server (its defaults stream: wal_level replica, max_wal_senders, and
// initdb's pg_hba lets the superuser replicate from the loopback with the
// password).

// Standby makes a streaming standby of s (pg_basebackup -R, the WAL
// streamed during the copy) and starts it, durable, on a free port of its
// own, with settings (name=value) of its own. Its application_name on the
// primary is name (what synchronous_standby_names names). The caller must
// Stop it.
func (s *Server) Standby(name string, settings ...string) (*Server, error) {
	st := &Server{bin: s.bin, durable: true, runAs: s.runAs, Password: s.Password, settings: settings}
	var err error
	if st.Dir, err = os.MkdirTemp("", "vegas-pg-standby-"); err != nil {
		return nil, err
	}
	st.data = filepath.Join(st.Dir, "data")
	st.sock = filepath.Join(st.Dir, "sock")
	if err := os.Mkdir(st.sock, 0o700); err != nil {
		return nil, err
	}
	if st.runAs != nil {
		uid, _ := strconv.Atoi(st.runAs.Uid)
		gid, _ := strconv.Atoi(st.runAs.Gid)
		for _, p := range []string{st.Dir, st.sock} {
			if err := os.Chown(p, uid, gid); err != nil {
				return nil, err
			}
		}
	}
	conn := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres password=%s application_name=%s", s.Port, s.Password, name)
	c := st.cmd("pg_basebackup", "-D", st.data, "-R", "-X", "stream", "-c", "fast", "-d", conn)
	if out, err := c.CombinedOutput(); err != nil {
		st.Stop()
		return nil, fmt.Errorf("pgtest: pg_basebackup: %w\n%s", err, out)
	}
	// -R wrote primary_conninfo (the connection above, application_name
	// included) and standby.signal.
	auto, err := os.ReadFile(filepath.Join(st.data, "postgresql.auto.conf"))
	if err != nil || !strings.Contains(string(auto), "application_name="+name) {
		st.Stop()
		return nil, fmt.Errorf("pgtest: pg_basebackup -R wrote no primary_conninfo naming %s: %v\n%s", name, err, auto)
	}
	if err := st.start(); err != nil {
		st.Stop()
		return nil, err
	}
	return st, nil
}

// Set sets a server's setting (ALTER SYSTEM, in its data directory alone:
// a standby made before keeps its own) and reloads its configuration.
func (s *Server) Set(setting, value string) error {
	d, err := s.open("postgres", "postgres")
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := d.Exec(fmt.Sprintf("ALTER SYSTEM SET %s = '%s'", setting, strings.ReplaceAll(value, "'", "''"))); err != nil {
		return fmt.Errorf("pgtest: set %s: %w", setting, err)
	}
	if _, err := d.Exec("SELECT pg_reload_conf()"); err != nil {
		return fmt.Errorf("pgtest: reload: %w", err)
	}
	return nil
}

// Kill kills the server as a machine that dies does: SIGKILL to the
// postmaster and every process of it at once (pg_ctl starts it in a
// session of its own: its process group), no shutdown, nothing flushed
// that was not.
func (s *Server) Kill() error {
	pidText, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return fmt.Errorf("pgtest: kill: %w", err)
	}
	first, _, _ := strings.Cut(string(pidText), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return fmt.Errorf("pgtest: kill: postmaster.pid: %w", err)
	}
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		return fmt.Errorf("pgtest: kill: %w", err)
	}
	if pgid != pid {
		return fmt.Errorf("pgtest: kill: the postmaster %d leads no process group of its own (%d)", pid, pgid)
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("pgtest: kill: %w", err)
	}
	// Gone once the group is empty (every process reaped by init).
	for i := 0; syscall.Kill(-pgid, 0) == nil; i++ {
		if i == 1000 {
			return fmt.Errorf("pgtest: kill: process group %d still alive after 10 s", pgid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// StartAgain starts a server that was killed or stopped, on its port,
// with its data as it was left: a primary recovers from its WAL, a
// standby comes back as a standby (read-only).
func (s *Server) StartAgain() error {
	if out, err := s.pgctlStart(); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
		return fmt.Errorf("pgtest: start again: %w\n%s\n%s", err, out, log)
	}
	return nil
}

// Promote makes a standby the primary (pg_ctl promote, waiting until it
// accepts writes).
func (s *Server) Promote() error {
	if out, err := s.cmd("pg_ctl", "-D", s.data, "-w", "-t", "60", "promote").CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: promote: %w\n%s", err, out)
	}
	return nil
}

// Query runs a query as the superuser in database db and scans its single
// row into dest.
func (s *Server) Query(db, query string, args []any, dest ...any) error {
	d, err := s.open("postgres", db)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.QueryRow(query, args...).Scan(dest...)
}

// Open connects to database db as role (the superuser: "postgres"); the
// caller closes it.
func (s *Server) Open(role, db string) (*sql.DB, error) { return s.open(role, db) }

// Log is the server's log so far.
func (s *Server) Log() string {
	data, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
	return string(data)
}

// MultiURL is the address of database db for role, password included, on
// every server of servers in turn, with target_session_attrs=read-write:
// a client (pgx, libpq) connects to the first that accepts writes, the
// primary, whichever it is (a pilot's URL: the primary and its standby).
func MultiURL(role, db string, servers ...*Server) string {
	hosts := make([]string, len(servers))
	for i, s := range servers {
		hosts[i] = fmt.Sprintf("127.0.0.1:%d", s.Port)
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(role, servers[0].Password), Host: strings.Join(hosts, ","),
		Path: "/" + db, RawQuery: "sslmode=disable&target_session_attrs=read-write"}
	return u.String()
}
