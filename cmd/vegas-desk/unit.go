package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/server"
)

// serveUnit is what a systemd unit of serve runs.
type serveUnit struct {
	exe, user, ledgerID, db, dir, listen, cert, key, metrics, logFormat, pgpass string
	maxConns                                                                    int
}

// unitOf is the unit of serve with these settings, its paths made
// absolute: checked now as serve would (the ledger opened, the authority
// and the server's key read), so that the unit starts what was checked.
func (c *cli) unitOf(l *ledger.Ledger, u serveUnit) (string, error) {
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
	abs := func(p *string) {
		if *p != "" && !ledger.IsURL(*p) {
			if a, err := filepath.Abs(*p); err == nil {
				*p = a
			}
		}
	}
	for _, p := range []*string{&u.db, &u.dir, &u.cert, &u.key, &u.pgpass} {
		abs(p)
	}
	if u.cert == "" {
		u.cert, u.key = filepath.Join(u.dir, server.ServerCert), filepath.Join(u.dir, server.ServerKey)
	}
	if _, err := server.New(l, server.Config{Dir: u.dir, CertFile: u.cert, KeyFile: u.key}); err != nil {
		return "", err
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
	args := []string{u.exe, "--db", u.db, "serve", "--dir", u.dir, "--listen", u.listen, "--cert", u.cert}
	if u.metrics != "" {
		args = append(args, "--metrics", u.metrics)
	}
	if u.maxConns != server.MaxConnsPerDesk {
		args = append(args, "--max-conns", strconv.Itoa(u.maxConns))
	}
	args = append(args, "--log-format", u.logFormat)
	for i, a := range args {
		args[i] = systemdArg(a)
	}
	args = append(args, "--key", "%d/server.key")
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("# vegas-desk serve: the validation server of ledger %s.", u.ledgerID)
	w("# Made by vegas-desk serve --install-unit (README: Running a pilot); install it with:")
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
	w("# Hardening: the ledger's directory is all it writes.")
	w("NoNewPrivileges=yes")
	w("ProtectSystem=strict")
	if !ledger.IsURL(u.db) {
		w("ReadWritePaths=%s", systemdArg(filepath.Dir(u.db)))
	}
	// Its files under a home or /tmp stay visible (read-only, but for the
	// ledger's directory).
	home, tmp := "yes", true
	for _, p := range []string{u.db, u.dir, u.cert, u.exe} {
		for _, h := range []string{"/home/", "/root/", "/run/user/"} {
			if strings.HasPrefix(p, h) {
				home = "read-only"
			}
		}
		if strings.HasPrefix(p, "/tmp/") || strings.HasPrefix(p, "/var/tmp/") {
			tmp = false
		}
	}
	w("ProtectHome=%s", home)
	if tmp {
		w("PrivateTmp=yes")
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
