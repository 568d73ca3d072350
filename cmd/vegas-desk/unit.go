package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/server"
)

// serveUnit is what a systemd unit of serve runs.
type serveUnit struct {
	exe, user, ledgerID, db, dir, listen, cert, key, logFormat, pgpass string
	// args are serve's flags as the unit gives them (--dir … --key
	// %d/server.key), rw the directories it writes (ReadWritePaths=).
	args, rw []string
}

// unitFlags says what the unit does with each flag of serve given with
// --install-unit: "unit" the unit itself takes it, "path" it goes to
// ExecStart as an absolute path, "refused" it is refused (unitRefusal);
// any other flag (and any flag added later) goes to ExecStart as it was
// given.
var unitFlags = map[string]string{
	"install-unit": "unit", "unit-user": "unit", "pgpass": "unit", "key": "unit",
	"dir": "path", "cert": "path", "backup-dir": "path",
	"init": "refused", "check": "refused", "host": "refused", "passphrase-file": "refused",
}

// unitRefusal is why flag is refused with --install-unit.
func unitRefusal(flag string) error {
	switch flag {
	case "init":
		return badInput("serve --install-unit: --init makes the authority once, before the service: run serve --init first, then --install-unit without it")
	case "check":
		return badInput("serve --install-unit: --check checks the settings and exits, which a service must not: --install-unit checks them itself; drop --check")
	case "host":
		return badInput("serve --install-unit: --host is for serve --init (the server's certificate), not for the service: drop it")
	}
	return badInput("serve --install-unit: --%s is for serve --init (the authority's key), which the service never reads: drop it", flag)
}

// unitOf is the unit of serve with the flags of fs as given, its paths
// made absolute: checked now as serve would (the ledger opened, the
// authority and the server's key read), so that the unit starts what was
// checked. Every flag given is in the unit or refused by name.
func (c *cli) unitOf(l *ledger.Ledger, fs *pflag.FlagSet) (string, error) {
	if c.server != "" || c.deskCert != "" {
		return "", badInput("serve --install-unit: --server and --desk-cert are a counter's: the service serves the ledger of --db")
	}
	value := func(name string) string { return fs.Lookup(name).Value.String() }
	u := serveUnit{user: value("unit-user"), dir: value("dir"), listen: value("listen"), cert: value("cert"), key: value("key"),
		logFormat: value("log-format"), pgpass: value("pgpass")}
	var err error
	if u.exe, err = os.Executable(); err == nil {
		u.exe, err = filepath.EvalSymlinks(u.exe)
	}
	if err != nil {
		return "", failf("serve --install-unit: this program's path: %w", err)
	}
	if u.user == "" {
		me, err := user.Current()
		if err != nil {
			return "", badInput("serve --install-unit: give --unit-user NAME, the account the service runs as (%v)", err)
		}
		u.user = me.Username
	}
	if u.user == "root" {
		return "", badInput("serve --install-unit: the service would run as root: give --unit-user NAME, an account that owns the ledger and --dir (0600 files)")
	}
	account, err := user.Lookup(u.user)
	if err != nil {
		return "", badInput("serve --install-unit: --unit-user %s: no such account on this machine (%v): make it (useradd --system %s) or name an existing one", terminal(u.user), err, shellWord(u.user))
	}
	if u.user == "nobody" || account.Uid == "65534" {
		return "", badInput("serve --install-unit: --unit-user %s: the account of no one shares its files with every service that runs as it: make an account of the service's own (useradd --system vegas-desk)", u.user)
	}
	u.db = c.dbPath()
	if ledger.IsURL(u.db) {
		if passwordIn(u.db) {
			return "", badInput("serve --install-unit: --db holds a password, and a unit file is readable by every account: give the URL without it, and the password in a pgpass file (--pgpass FILE, loaded as the service's credential)")
		}
		if u.pgpass == "" {
			u.pgpass = "/etc/vegas-desk/pgpass"
		}
	} else if u.pgpass != "" {
		return "", badInput("serve --install-unit: --pgpass is for a ledger on PostgreSQL; %s is a file", u.db)
	}
	abs := func(p string) string {
		if p != "" && !ledger.IsURL(p) {
			if a, err := filepath.Abs(p); err == nil {
				return a
			}
		}
		return p
	}
	u.db, u.dir, u.cert, u.key, u.pgpass = abs(u.db), abs(u.dir), abs(u.cert), abs(u.key), abs(u.pgpass)
	if u.cert == "" {
		u.cert, u.key = filepath.Join(u.dir, server.ServerCert), filepath.Join(u.dir, server.ServerKey)
	}
	if _, err := server.New(l, server.Config{Dir: u.dir, CertFile: u.cert, KeyFile: u.key}); err != nil {
		return "", err
	}
	// The account must own what the service opens: the ledger's files are
	// 0600, the authority's directory 0700.
	owned := []string{u.dir}
	if !ledger.IsURL(u.db) {
		owned = append(owned, u.db, filepath.Dir(u.db))
		u.rw = append(u.rw, filepath.Dir(u.db))
	}
	// ExecStart: --dir, --listen, --cert always, then every other flag
	// given, by name (a flag added to serve later goes with them).
	u.args = []string{"--dir", u.dir, "--listen", u.listen, "--cert", u.cert}
	var refused error
	fs.VisitAll(func(f *pflag.Flag) {
		how := unitFlags[f.Name]
		switch {
		case !f.Changed || refused != nil || how == "unit" || f.Name == "dir" || f.Name == "listen" || f.Name == "cert":
		case how == "path":
			p := abs(f.Value.String())
			u.args = append(u.args, "--"+f.Name, p)
			if f.Name == "backup-dir" {
				st, err := os.Stat(p)
				if err != nil || !st.IsDir() {
					refused = badInput("serve --install-unit: --backup-dir %s is not a directory: make it, owned by %s (install -d -m 0700 -o %s %s), as the service may write there alone", p, u.user, shellWord(u.user), shellWord(p))
					return
				}
				owned = append(owned, p)
				u.rw = append(u.rw, p)
			}
		case how == "refused":
			refused = unitRefusal(f.Name)
		case f.Value.Type() == "bool":
			u.args = append(u.args, "--"+f.Name+"="+f.Value.String())
		default:
			u.args = append(u.args, "--"+f.Name, f.Value.String())
		}
	})
	if refused != nil {
		return "", refused
	}
	for _, p := range owned {
		if uid, ok := ownerOf(p); ok && strconv.Itoa(uid) != account.Uid {
			return "", badInput("serve --install-unit: %s is not %s's, the account of the service (--unit-user), which could not open it: chown -R %s %s, or give --unit-user its owner", p, u.user, shellWord(u.user), shellWord(p))
		}
	}
	u.ledgerID = l.ID()
	return u.text(), nil
}

// passwordIn reports whether the PostgreSQL URL db holds a password (or
// is not a URL at all).
func passwordIn(db string) bool {
	u, err := url.Parse(db)
	if err != nil {
		return true
	}
	_, has := u.User.Password()
	return has || u.Query().Has("password")
}

// systemdArg is s as one argument of ExecStart: quoted when it holds a
// space or a quote, its specifiers (%) and variables ($) escaped.
func systemdArg(s string) string {
	s = strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
	if strings.ContainsAny(s, " \t\"'\\;") {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	return s
}

// text is the unit file. The server's key is the service's credential
// (LoadCredential=: systemd reads it as root and hands the service a copy
// only it can read, under $CREDENTIALS_DIRECTORY), and so is a PostgreSQL
// password (a pgpass file): neither is typed nor written in the unit.
func (u serveUnit) text() string {
	args := append([]string{u.exe, "--db", u.db, "serve"}, u.args...)
	for i, a := range args {
		args[i] = systemdArg(a)
	}
	args = append(args, "--key", "%d/server.key")
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("# vegas-desk serve: the validation server of ledger %s.", u.ledgerID)
	w("# Made by vegas-desk serve --install-unit (docs/runbook.md, The service); install it with:")
	w("#   sudo tee /etc/systemd/system/vegas-desk.service < this-file")
	w("#   sudo systemctl daemon-reload && sudo systemctl enable --now vegas-desk")
	w("[Unit]")
	w("Description=vegas-desk validation server (ledger %s)", u.ledgerID)
	w("Wants=network-online.target")
	if u.pgpass != "" {
		w("After=network-online.target postgresql.service")
	} else {
		w("After=network-online.target")
	}
	w("StartLimitIntervalSec=10min")
	w("StartLimitBurst=20")
	w("")
	w("[Service]")
	w("Type=exec")
	w("User=%s", u.user)
	w("ExecStart=%s", strings.Join(args, " "))
	w("# Only the service reads its key, and a PostgreSQL password, from its credentials.")
	w("LoadCredential=server.key:%s", u.key)
	if u.pgpass != "" {
		w("LoadCredential=pgpass:%s", u.pgpass)
		w("Environment=PGPASSFILE=%%d/pgpass")
	}
	w("Restart=on-failure")
	w("RestartSec=5s")
	w("# SIGTERM: the questions in flight end (within 10 s).")
	w("TimeoutStopSec=30s")
	w("UMask=0077")
	w("# Hardening: the ledger's directory (and its backups') is all it writes.")
	w("NoNewPrivileges=yes")
	w("ProtectSystem=strict")
	for _, p := range u.rw {
		w("ReadWritePaths=%s", systemdArg(p))
	}
	// Its files under a home stay visible (read-only, but for the
	// directories it writes); a /tmp of its own, where its files under
	// /tmp are bound.
	home := "yes"
	for _, p := range []string{u.db, u.dir, u.cert, u.exe} {
		for _, h := range []string{"/home/", "/root/", "/run/user/"} {
			if strings.HasPrefix(p, h) {
				home = "read-only"
			}
		}
	}
	w("ProtectHome=%s", home)
	w("PrivateTmp=yes")
	var bound []string
	for _, p := range append(slices.Clone(u.rw), u.exe, u.dir, u.cert) {
		under := func(b string) bool { return p == b || strings.HasPrefix(p, b+"/") }
		if !(strings.HasPrefix(p, "/tmp/") || strings.HasPrefix(p, "/var/tmp/")) || slices.ContainsFunc(bound, under) {
			continue
		}
		bound = append(bound, p)
		if slices.Contains(u.rw, p) {
			w("BindPaths=%s", systemdArg(p))
		} else {
			w("BindReadOnlyPaths=%s", systemdArg(p))
		}
	}
	w("PrivateDevices=yes")
	w("ProtectKernelTunables=yes")
	w("ProtectKernelModules=yes")
	w("ProtectKernelLogs=yes")
	w("ProtectControlGroups=yes")
	w("ProtectClock=yes")
	w("ProtectHostname=yes")
	w("ProtectProc=invisible")
	w("RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX")
	w("RestrictNamespaces=yes")
	w("RestrictRealtime=yes")
	w("RestrictSUIDSGID=yes")
	w("LockPersonality=yes")
	w("MemoryDenyWriteExecute=yes")
	w("SystemCallArchitectures=native")
	w("SystemCallFilter=@system-service")
	w("SystemCallFilter=~@privileged @resources")
	// A port under 1024 (443) is the one privilege it may need.
	_, port, _ := net.SplitHostPort(u.listen)
	if n, err := strconv.Atoi(port); err == nil && n > 0 && n < 1024 {
		w("AmbientCapabilities=CAP_NET_BIND_SERVICE")
		w("CapabilityBoundingSet=CAP_NET_BIND_SERVICE")
	} else {
		w("CapabilityBoundingSet=")
	}
	w("")
	w("[Install]")
	w("WantedBy=multi-user.target")
	return b.String()
}
