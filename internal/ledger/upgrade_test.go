package ledger

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/testcache"
)

// The schema versions this project has shipped, each with the commit of
// main whose vegas-desk made its fixture: the first build of SQLite's
// version 2 (the only one since version 1, a development format still
// refused), and the last build of PostgreSQL's version 5 (versions 2 to 4
// lived a few hours each and stay refused: TestUpgradeRefusals).
const (
	sqliteV2Commit   = "efadd69"  // ledger: schema 2 on two engines
	postgresV5Commit = "983eb61^" // the last build before schema 6
)

// oldVegasDesk is the vegas-desk of commit, built (CGO_ENABLED=0, no app)
// from the repository's history into the test cache.
func oldVegasDesk(t *testing.T, commit string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rev := oldRev(t, commit)
	// Built once per commit and Go: today's sources do not change it.
	key := sha256.Sum256([]byte(rev + " " + runtime.Version()))
	dir, err := testcache.GetFor("vegas-desk-"+rev, hex.EncodeToString(key[:])[:16], func(dir string) error {
		src := filepath.Join(dir, "src")
		if err := os.Mkdir(src, 0o700); err != nil {
			return err
		}
		archive := exec.Command("sh", "-c", fmt.Sprintf("git -C %q archive %s | tar -x -C %q", root, rev, src))
		if out, err := archive.CombinedOutput(); err != nil {
			return fmt.Errorf("git archive %s: %w: %s", rev, err, out)
		}
		build := exec.Command("go", "build", "-tags", "nogui", "-o", filepath.Join(dir, "vegas-desk"), "./cmd/vegas-desk")
		build.Dir = src
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("build vegas-desk %s: %w: %s", rev, err, out)
		}
		return os.RemoveAll(src)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "vegas-desk")
}

// oldRev is commit's abbreviated hash (12 digits).
func oldRev(t *testing.T, commit string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", "../..", "rev-parse", "--short=12", commit).Output()
	if err != nil {
		t.Fatalf("the commit %s of an earlier vegas-desk is not in this repository's history (a clone with its history is needed): %v", commit, err)
	}
	return strings.TrimSpace(string(out))
}

// run runs an earlier vegas-desk and returns its output.
func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := runOld(bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runOld runs an earlier vegas-desk and returns its output.
func runOld(bin string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s%s", filepath.Base(bin), strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out), nil
}

// oldWinners are two winners of block 1 under a given prize, from an
// earlier vegas-desk's export.
func oldWinners(bin, db string) ([]string, error) {
	out, err := runOld(bin, "--db", db, "export", "--block", "1")
	if err != nil {
		return nil, err
	}
	var serials []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && len(serials) < 2 {
		var tk struct {
			Serial string `json:"serial"`
			Prize  int    `json:"prize"`
		}
		if err := json.Unmarshal(sc.Bytes(), &tk); err != nil {
			return nil, err
		}
		if tk.Prize > 0 && tk.Prize <= 20 {
			serials = append(serials, tk.Serial)
		}
	}
	if len(serials) < 2 {
		return nil, errors.New("no winners in the export")
	}
	return serials, nil
}

// oldHead is the journal head an earlier vegas-desk's verify reports, its
// ledger verifying.
func oldHead(bin, db string) (string, error) {
	var v struct {
		OK   bool   `json:"ok"`
		Head string `json:"head"`
	}
	out, err := runOld(bin, "--db", db, "verify", "--json")
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || !v.OK || v.Head == "" {
		return "", fmt.Errorf("the fixture does not verify with the vegas-desk that made it: %+v %v", v, err)
	}
	return v.Head, nil
}

// oldFixture is what an earlier vegas-desk made, for an upgrade test to
// start from: the ledger (a file, or a dump of a PostgreSQL database), the
// journal head its verify reported, the winners it claimed.
type oldFixture struct {
	Dir     string   `json:"-"` // the cache's directory, read-only: copy what is written to
	Head    string   `json:"head"`
	Winners []string `json:"winners"`
}

// oldFixtureRecipe changes whenever a maker of oldLedger changes what it
// makes: the fixtures are then made again.
const oldFixtureRecipe = "1"

// oldLedger is the fixture name that make makes with the vegas-desk of
// commit in a directory, cached like that vegas-desk (testcache.GetFor,
// keyed by the commit, Go and the recipe: today's sources do not change
// it), so that an upgrade test starts from an old ledger made once per
// machine rather than generate, export and verify a 2,000,000-ticket block
// with an earlier vegas-desk on every run.
func oldLedger(t *testing.T, commit, name string, make func(bin, dir string) (oldFixture, error)) oldFixture {
	t.Helper()
	rev := oldRev(t, commit)
	key := sha256.Sum256([]byte(rev + " " + runtime.Version() + " " + name + " " + oldFixtureRecipe))
	dir, err := testcache.GetFor("vegas-desk-"+rev+"-"+name, hex.EncodeToString(key[:])[:16], func(dir string) error {
		f, err := make(oldVegasDesk(t, commit), dir)
		if err != nil {
			return err
		}
		data, err := json.Marshal(f)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "fixture.json"), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	var f oldFixture
	data, err := os.ReadFile(filepath.Join(dir, "fixture.json"))
	if err == nil {
		err = json.Unmarshal(data, &f)
	}
	if err != nil || f.Head == "" || len(f.Winners) < 2 {
		t.Fatalf("the cached fixture %s: %+v %v", dir, f, err)
	}
	f.Dir = dir
	return f
}

// checkUpgraded opens an upgraded ledger and checks that it verifies, that
// its journal still holds the head recorded when the fixture was made, and
// that it holds the fixture's claims.
func checkUpgraded(t *testing.T, location, head string, claims int) {
	t.Helper()
	ctx := context.Background()
	l, err := Open(location)
	if err != nil {
		t.Fatalf("the upgraded ledger does not open: %v", err)
	}
	defer l.Close()
	r, err := l.Verify(ctx, 0, 0, nil)
	if err != nil || !r.OK() {
		t.Fatalf("the upgraded ledger does not verify: %v %+v", err, r.Problems)
	}
	if _, err := l.CheckHead(ctx, head); err != nil {
		t.Fatalf("the upgraded journal does not hold the fixture's head %s: %v", head, err)
	}
	cs, err := l.Claims(ctx, ClaimFilter{})
	if err != nil || len(cs) != claims {
		t.Fatalf("the upgraded ledger holds %d claims, the fixture %d (%v)", len(cs), claims, err)
	}
}

// makeSQLiteV2 makes, with the vegas-desk of schema 2, a ledger of a
// generated block with two of its winners paid.
func makeSQLiteV2(bin, dir string) (oldFixture, error) {
	var f oldFixture
	db := filepath.Join(dir, "v2.db")
	if _, err := runOld(bin, "--db", db, "generate", "--seed", strings.Repeat("07", 32), "--activate"); err != nil {
		return f, err
	}
	var err error
	if f.Winners, err = oldWinners(bin, db); err != nil {
		return f, err
	}
	for _, s := range f.Winners {
		if _, err := runOld(bin, "--db", db, "claim", s); err != nil {
			return f, err
		}
	}
	f.Head, err = oldHead(bin, db)
	return f, err
}

func TestUpgradeSQLiteV2(t *testing.T) {
	old := oldLedger(t, sqliteV2Commit, "sqlite-v2", makeSQLiteV2)
	db := filepath.Join(t.TempDir(), "v2.db")
	if err := copyFile(filepath.Join(old.Dir, "v2.db"), db); err != nil {
		t.Fatal(err)
	}
	head := old.Head
	dry, err := Upgrade(context.Background(), db, filepath.Join(t.TempDir(), "backups"), true)
	if err != nil || dry.From != 2 || dry.Done != (SchemaVersion == 2) {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	u, err := Upgrade(context.Background(), db, filepath.Join(t.TempDir(), "backups"), false) // a folder made 0700 (t.TempDir's are 0755)
	if err != nil || !u.Done || u.To != SchemaVersion || len(u.Steps) != SchemaVersion-2 {
		t.Fatalf("upgrade: %+v %v", u, err)
	}
	if st, err := os.Stat(u.Backup); err != nil {
		t.Error(err)
	} else if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 { // issue 36: 0644 under umask 022
		t.Errorf("the copy before the upgrade %s: mode %04o, 0600 wanted", u.Backup, st.Mode().Perm())
	}
	checkUpgraded(t, db, head, 2)
}

// v5Database is the name of the database of the PostgreSQL version 5
// fixture, whatever server it is restored on: its counter's login, which
// version 5 made, is named after it.
const v5Database = "vegas_v5"

// makePostgresV5 makes, with the last vegas-desk of PostgreSQL's schema 5,
// on server srv, a ledger of a generated block with a counter (its login)
// that received and activated ten packs, and one payment by the back
// office and one by the counter. It keeps a dump of the database
// (pg_dump --create: its grants with it) and the counter's login
// (roles.sql, from pg_dumpall), which restoreV5 restores.
func makePostgresV5(srv *pgtest.Server) func(bin, dir string) (oldFixture, error) {
	return func(bin, dir string) (oldFixture, error) {
		var f oldFixture
		if err := srv.Exec("postgres", fmt.Sprintf("CREATE DATABASE %s OWNER %s ENCODING 'UTF8' TEMPLATE template0", v5Database, pgtest.Owner)); err != nil {
			return f, err
		}
		defer srv.DropDatabase(v5Database)
		url := srv.URL(pgtest.Owner, v5Database)
		pw := filepath.Join(dir, "pw")
		if err := os.WriteFile(pw, []byte("counter-password-1\n"), 0o600); err != nil {
			return f, err
		}
		defer os.Remove(pw)
		login := "vd_" + v5Database + "_c1"
		counterURL := strings.Replace(srv.URLWithout(login, v5Database), "@", ":counter-password-1@", 1)
		for _, step := range [][]string{
			{url, "generate", "--seed", strings.Repeat("05", 32)},
			{url, "desks", "add", "c1", "--password-file", pw},
			{url, "packs", "deliver", "--block", "1", "--packs", "0-9", "--desk", "c1"},
			{counterURL, "packs", "receive", "--block", "1", "0-9"},
			{counterURL, "packs", "activate", "--block", "1", "0-9"},
		} {
			if _, err := runOld(bin, append([]string{"--db"}, step...)...); err != nil {
				return f, err
			}
		}
		var err error
		if f.Winners, err = oldWinners(bin, url); err != nil {
			return f, err
		}
		for i, db := range []string{url, counterURL} {
			if _, err := runOld(bin, "--db", db, "claim", f.Winners[i]); err != nil {
				return f, err
			}
		}
		if f.Head, err = oldHead(bin, url); err != nil {
			return f, err
		}
		su := srv.URL("postgres", "postgres")
		if out, err := exec.Command(srv.Bin("pg_dump"), "-Fc", "--create", "-f", filepath.Join(dir, "v5.dump"), "-d", srv.URL("postgres", v5Database)).CombinedOutput(); err != nil {
			return f, fmt.Errorf("pg_dump: %w: %s", err, out)
		}
		roles, err := exec.Command(srv.Bin("pg_dumpall"), "--roles-only", "-d", su).Output()
		if err != nil {
			return f, fmt.Errorf("pg_dumpall: %w", err)
		}
		// The roles version 5 made for this database (its counters'
		// group, their logins), and their memberships.
		var keep, made []string
		for _, line := range strings.Split(string(roles), "\n") {
			if strings.Contains(line, " vd_"+v5Database+"_") {
				keep = append(keep, line)
				if r, ok := strings.CutPrefix(line, "CREATE ROLE "); ok {
					made = append(made, strings.TrimSuffix(r, ";"))
				}
			}
		}
		if !slices.Contains(made, login) {
			return f, fmt.Errorf("no login %s in pg_dumpall's roles:\n%s", login, roles)
		}
		if err := os.WriteFile(filepath.Join(dir, "roles.sql"), []byte(strings.Join(keep, "\n")+"\n"), 0o600); err != nil {
			return f, err
		}
		if err := srv.Exec("postgres", "DROP DATABASE "+v5Database+" WITH (FORCE)"); err != nil {
			return f, err
		}
		return f, srv.Exec("postgres", "DROP ROLE "+strings.Join(made, ", "))
	}
}

// restoreV5 restores the version 5 fixture of dir on srv: its counter's
// login, then its database, which it returns the name of.
func restoreV5(t *testing.T, srv *pgtest.Server, dir string) string {
	t.Helper()
	roles, err := os.ReadFile(filepath.Join(dir, "roles.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Exec("postgres", string(roles)); err != nil {
		t.Fatalf("the version 5 fixture's login: %v", err)
	}
	if out, err := exec.Command(srv.Bin("pg_restore"), "--create", "--exit-on-error", "-d", srv.URL("postgres", "postgres"), filepath.Join(dir, "v5.dump")).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore of the version 5 fixture: %v: %s", err, out)
	}
	return v5Database
}

func TestUpgradePostgresV5(t *testing.T) {
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	// Version 5 made a login per counter: its owner needed CREATEROLE.
	if err := srv.Exec("postgres", "ALTER ROLE "+pgtest.Owner+" CREATEROLE"); err != nil {
		t.Fatal(err)
	}
	old := oldLedger(t, postgresV5Commit, "postgres-v5", makePostgresV5(srv))
	dbname := restoreV5(t, srv, old.Dir)
	url := srv.URL(pgtest.Owner, dbname)
	winners, head := old.Winners, old.Head

	if _, err := Open(url); !errors.Is(err, ErrNeedsUpgrade) || !strings.Contains(err.Error(), "upgrade") {
		t.Fatalf("a version 5 ledger opens: %v", err)
	}
	ctx := context.Background()
	dry, err := Upgrade(ctx, url, filepath.Join(t.TempDir(), "backups"), true)
	if err != nil || dry.From != 5 || dry.Done || len(dry.Steps) != postgres.SchemaVersion-5 || dry.Backup != "" {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	t.Setenv("PATH", filepath.Dir(srv.Bin("pg_dump"))+string(os.PathListSeparator)+os.Getenv("PATH"))
	backups := filepath.Join(t.TempDir(), "backups") // made 0700 (t.TempDir's are 0755)
	u, err := Upgrade(ctx, url, backups, false)
	if err != nil || !u.Done || u.From != 5 || u.To != postgres.SchemaVersion {
		t.Fatalf("upgrade: %+v %v", u, err)
	}
	t.Logf("upgrade: %+v", u)
	if st, err := os.Stat(u.Backup); err != nil || st.Size() < 1<<20 || filepath.Dir(u.Backup) != backups {
		t.Fatalf("backup %s: %v", u.Backup, err)
	} else if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 { // issue 36: pg_dump wrote it 0644 under umask 022
		t.Errorf("the dump %s: mode %04o, 0600 wanted", u.Backup, st.Mode().Perm())
	}
	checkUpgraded(t, url, head, 2)

	// A payment made before schema 8 (its paid row names its id) voided,
	// and its ticket paid again (its row names the new payment's record):
	// the ledger verifies.
	upgraded, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	who := Identity{Desk: "bureau", Operator: "boss"}
	if _, err := upgraded.Void(ctx, 1, "upgrade test", who); err != nil {
		t.Fatal(err)
	}
	if c, err := upgraded.Claim(ctx, claimReq(winners[0], who)); err != nil || c.Number != 3 {
		t.Fatalf("claimed again after its void: %+v, %v", c, err)
	}
	r, err := journalOnly(upgraded) // the tickets verified above (checkUpgraded)
	upgraded.Close()
	if err != nil || !r.OK() {
		t.Fatalf("verify after schema 8's payment: %v %+v", err, r.Problems)
	}

	// The catalog is a new ledger's, object for object; no login is left.
	fresh := srv.NewDatabase(t)
	l, err := Open(srv.URL(pgtest.Owner, fresh))
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if got, want := catalog(t, srv, dbname), catalog(t, srv, fresh); got != want {
		t.Fatalf("the upgraded catalog differs from a new ledger's:\n%s", lineDiff(got, want))
	}
	var logins int
	if err := srv.Exec(dbname, "DO $$ BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname LIKE 'vd\\_%') THEN RAISE 'logins left'; END IF; END $$"); err != nil {
		t.Fatalf("counters' logins left after the upgrade: %v %d", err, logins)
	}
}

// catalog describes schema vegas of database db: its relations, columns,
// indexes, constraints, triggers, routines and types.
func catalog(t *testing.T, srv *pgtest.Server, db string) string {
	t.Helper()
	out, err := exec.Command(srv.Bin("psql"), "-X", "-At", "-d", srv.URL(pgtest.Owner, db), "-c", `
		SELECT 'rel ' || relname || ' ' || relkind::text FROM pg_class WHERE relnamespace = 'vegas'::regnamespace
		UNION ALL SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE c.relnamespace = 'vegas'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'S')
		UNION ALL SELECT 'idx ' || indexdef FROM pg_indexes WHERE schemaname = 'vegas'
		UNION ALL SELECT 'con ' || conrelid::regclass || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'vegas'::regnamespace
		UNION ALL SELECT 'trg ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal AND tgrelid::regclass::text LIKE 'vegas.%'
		UNION ALL SELECT 'fn ' || oid::regprocedure || ' ' || md5(prosrc) FROM pg_proc WHERE pronamespace = 'vegas'::regnamespace
		UNION ALL SELECT 'acl ' || relname || ' ' || coalesce(relacl, acldefault((CASE relkind WHEN 'S' THEN 's' ELSE 'r' END)::"char", relowner))::text FROM pg_class WHERE relnamespace = 'vegas'::regnamespace
		ORDER BY 1`).CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v: %s", err, out)
	}
	return string(out)
}

// lineDiff lists the lines of a not in b and of b not in a.
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var d []string
	for l := range ma {
		if !mb[l] {
			d = append(d, "upgraded only: "+l)
		}
	}
	for l := range mb {
		if !ma[l] {
			d = append(d, "new only:      "+l)
		}
	}
	return strings.Join(d, "\n")
}

// A ledger newer than this vegas-desk, or of a version no step starts
// from, is refused by upgrade as by open, and left as it was.
func TestUpgradeRefusals(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "new.db")
	l, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wdb(l).Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	backups := t.TempDir()
	if _, err := Upgrade(ctx, file, backups, false); !errors.Is(err, ErrTooNew) {
		t.Fatalf("a newer file: %v", err)
	}
	srv := pg // the package's server: this test's database is its own
	db := srv.NewDatabase(t)
	url := srv.URL(pgtest.Owner, db)
	l, err = Open(url)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	for v, want := range map[int]error{postgres.SchemaVersion + 1: ErrTooNew, 4: ErrTooOld} {
		if err := srv.Exec(db, fmt.Sprintf("ALTER TABLE vegas.meta DISABLE TRIGGER meta_no_change; UPDATE vegas.meta SET value = '%d' WHERE key = 'schema'", v)); err != nil {
			t.Fatal(err)
		}
		if _, err := Upgrade(ctx, url, backups, false); !errors.Is(err, want) {
			t.Fatalf("version %d: %v, want %v", v, err, want)
		}
		if _, err := Open(url); !errors.Is(err, want) {
			t.Fatalf("version %d opens: %v, want %v", v, err, want)
		}
	}
	if entries, _ := os.ReadDir(backups); len(entries) != 0 {
		t.Fatalf("a refused upgrade left %v", entries)
	}
}
