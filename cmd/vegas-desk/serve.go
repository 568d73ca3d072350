package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/platform"
	"vegas-desk/internal/server"
)

// The validation server's commands: serve --init makes the ledger's
// authority and the server's certificate, serve serves the ledger of --db,
// and desks add --out writes a desk file signed by the authority.

// defaultServeDir is the authority's directory when --dir names none.
func defaultServeDir() string { return filepath.Join(filepath.Dir(ledger.DefaultPath()), "serve") }

// shellWord is s as a shell reads it back: quoted unless it is a plain
// word (a path with a space, an accent).
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-") == "" {
		return s
	}
	if runtime.GOOS == "windows" {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// serveWith runs serve with the flags of args (the Windows service's).
func (c *cli) serveWith(args []string) error {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	w := c.serve(fs)
	if err := fs.Parse(goFlags(args)); err != nil {
		return badInput("serve: %v", err)
	}
	return c.perform(write, w, fs.Args())
}

func (c *cli) serve(fs *pflag.FlagSet) work {
	initDir := fs.Bool("init", false, "make the ledger's certificate authority and the server's certificate in --dir")
	dir := fs.String("dir", defaultServeDir(), "the authority's directory")
	listen := fs.String("listen", "127.0.0.1:8443", "the address to listen on (HOST:PORT)")
	hosts := fs.String("host", "localhost,127.0.0.1", "(--init) the server's names and addresses, comma-separated, in its certificate")
	cert := fs.String("cert", "", "the operator's own server certificate (PEM), instead of the one --init makes")
	key := fs.String("key", "", "its private key (PEM)")
	pass := fs.String("passphrase-file", "", "(--init) the file holding the authority key's passphrase")
	maxConns := fs.Int("max-conns", server.MaxConnsPerDesk, "the connections one desk may hold")
	backupDir := fs.String("backup-dir", "", "take a verified backup of the ledger into DIR every --backup-every")
	backupEvery := fs.Duration("backup-every", time.Hour, "(--backup-dir) the time between two backups")
	backupKeep := fs.Int("backup-keep", 24, "(--backup-dir) the backups kept, the most recent")
	logFormat := fs.String("log-format", "text", "the log lines on the standard error: text or json")
	check := fs.Bool("check", false, "check the settings (the ledger, the authority, the server's key, the addresses are free) and exit")
	unit := fs.Bool("install-unit", false, "print a systemd unit that serves the ledger with these settings (start at boot, restart on failure)")
	fs.String("unit-user", "", "(--install-unit) the account the service runs as (default: yours)")
	fs.String("pgpass", "", "(--install-unit, PostgreSQL) the pgpass file holding the password, the service's credential (default /etc/vegas-desk/pgpass)")
	metrics := fs.String("metrics", "", "serve GET /metrics (Prometheus) and GET /healthz on this address (HOST:PORT), plain HTTP, no desk certificate")
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if (*cert == "") != (*key == "") {
			return badInput("serve: give both --cert and --key, or neither")
		}
		if *backupDir != "" && *backupEvery < time.Minute {
			return badInput("serve: --backup-every %s: give a minute or more", *backupEvery)
		}
		if *logFormat != "text" && *logFormat != "json" {
			return badInput("serve: --log-format %s: give text or json", terminal(*logFormat))
		}
		if *backupDir != "" && !*initDir && !*unit {
			// Issue 36: refused at start, not at the first backup an hour
			// later (a unit's is the service's account's: checked there).
			if err := platform.PrivateDir(*backupDir); err != nil {
				return badInput("serve: --backup-dir: %v", err)
			}
		}
		return nil
	}, needs: func() access {
		if *initDir {
			return record // the authority is made for a ledger that may be read-only
		}
		return write
	}, run: func(l *ledger.Ledger, _ []string) error {
		if l.CounterDesk() != "" {
			return badInput("serve: %s is a counter's ledger; serve the back office's", l.Location())
		}
		if *unit {
			text, err := c.unitOf(l, fs)
			if err != nil {
				return err
			}
			fmt.Fprint(c.stdout, text)
			return nil
		}
		if *initDir {
			p, err := c.passphrase(*pass, true)
			if err != nil {
				return err
			}
			var hs []string
			for _, h := range strings.Split(*hosts, ",") {
				if h = strings.TrimSpace(h); h != "" {
					hs = append(hs, h)
				}
			}
			if len(hs) == 0 {
				return badInput("serve --init: --host names no host")
			}
			if err := server.Init(*dir, l.ID(), hs, p, *cert != ""); err != nil {
				return err
			}
			c.printf(c.stdout, "authority of ledger %s made in %s (%s, %s)\n", l.ID(), *dir, server.AuthorityCert, server.AuthorityKey)
			if *cert == "" {
				c.printf(c.stdout, "server certificate for %s: %s, %s\n", strings.Join(hs, ", "), server.ServerCert, server.ServerKey)
			}
			// The next commands, each to be run as it is written.
			db := programName() + " --db " + shellWord(c.dbPath())
			add, run := " --dir "+shellWord(*dir), " --dir "+shellWord(*dir)
			if *pass != "" {
				add += " --passphrase-file " + shellWord(*pass)
			}
			if *cert != "" {
				run += " --cert " + shellWord(*cert) + " --key " + shellWord(*key)
			}
			c.printf(c.stdout, "next: add a counter, which writes its desk file, then serve (--listen: an address the counters reach):\n  %s\n  %s\n",
				db+" desks add C1 --out C1.desk"+add, db+" serve"+run+" --listen "+shellWord(*listen))
			return nil
		}
		logger := server.NewLogger(c.stderr, *logFormat)
		s, err := server.New(l, server.Config{Dir: *dir, CertFile: *cert, KeyFile: *key, MaxConnsPerDesk: *maxConns, Log: logger})
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			return badInput("serve: --listen %s: %v", *listen, err)
		}
		var mln net.Listener
		if *metrics != "" {
			if mln, err = net.Listen("tcp", *metrics); err != nil {
				ln.Close()
				return badInput("serve: --metrics %s: %v", *metrics, err)
			}
		}
		if *check {
			ln.Close()
			if mln != nil {
				mln.Close()
			}
			c.printf(c.stdout, "serve: ready to serve ledger %s (%s) on %s\n", l.ID(), l.Location(), *listen)
			return nil
		}
		ctx, stop := signal.NotifyContext(c.ctx, syscall.SIGTERM)
		defer stop()
		if mln != nil {
			// Bounded (server.ServeMonitor); closed with the server.
			logger.Info("monitor", slog.String("metrics", "http://"+mln.Addr().String()+"/metrics"), slog.String("healthz", "http://"+mln.Addr().String()+"/healthz"))
			go s.ServeMonitor(mln)
		}
		// Told to stop (SIGTERM, Ctrl-C): the questions in flight end first.
		if *backupDir != "" {
			logger.Info("backups", slog.String("dir", *backupDir), server.Seconds("every", *backupEvery), slog.Int("keep", *backupKeep))
			go backups(ctx, l, *backupDir, *backupEvery, *backupKeep, logger)
		}
		defer serveGC()()
		defer context.AfterFunc(ctx, func() {
			logger.Info("stopping: the questions in flight end")
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s.Shutdown(sctx)
		})()
		return s.Serve(ln)
	}}
}

// serveGCPercent is the garbage collector's target while serve serves
// (GOGC's, unless the environment gives GOGC). An answer allocates about
// 57 KB (four fifths of it in the database's driver) over a live heap of
// about 7 MB: at Go's default, 100, the collector ran about every hundred
// answers and took some 6 % of serve's processor time; at 400 it runs a
// fifth as often, for a peak of about 40 MB (docs/performance.md).
const serveGCPercent = 400

// serveGC sets serveGCPercent, unless GOGC is given, until the function
// it returns is called.
func serveGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(serveGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// deskFile writes desk id's desk file to out, signed by the authority of
// dir (its passphrase from passFile, the environment or the terminal), and
// makes the desk accept its certificate: unless keepOld, the desk's earlier
// certificates are revoked (a terminal replaced, a desk file stolen).
func (c *cli) deskFile(l *ledger.Ledger, id, dir, out, passFile string, keepOld bool) error {
	if _, err := os.Lstat(out); err == nil {
		return badInput("desks add: --out %s exists: a desk file is written to a new file", out)
	}
	a, epoch, err := c.deskAuthority(l, dir, passFile)
	if err != nil {
		return err
	}
	data, d, err := newDeskFile(a, id, epoch)
	if err != nil {
		return err
	}
	if err := server.WriteDeskFile(out, data); err != nil {
		return err
	}
	revoked, err := l.AcceptDeskCert(c.ctx, id, d.Cert.Leaf, keepOld, defaultIdentity("", ""))
	if err != nil {
		return errors.Join(failf("desk %s does not accept the certificate of %s, removed: %w", id, out, err), os.Remove(out))
	}
	c.printf(c.stderr, "desk file %s written: desk %s of ledger %s, certificate %s valid until %s; give it to that counter alone\n",
		out, id, l.ID(), protocol.CertSerial(d.Cert.Leaf), c.day(d.Cert.Leaf.NotAfter))
	for _, r := range revoked {
		c.printf(c.stderr, "desk %s: certificate %s revoked: its desk file no longer opens the server\n", id, r)
	}
	return nil
}

// deskAuthority opens the authority of dir (serve --init), which signs
// ledger l's desk files, and reads the ledger's incarnation they name.
func (c *cli) deskAuthority(l *ledger.Ledger, dir, passFile string) (*server.Authority, int, error) {
	p, err := c.passphrase(passFile, false)
	if err != nil {
		return nil, 0, err
	}
	a, err := server.OpenAuthority(dir, p)
	if err != nil {
		return nil, 0, err
	}
	if a.Ledger() != l.ID() {
		return nil, 0, badInput("desks add: the authority of %s is ledger %s's, not %s's", dir, a.Ledger(), l.ID())
	}
	epoch, _, err := l.Epochs(c.ctx)
	if err != nil {
		return nil, 0, err
	}
	return a, epoch, nil
}

// newDeskFile is a new desk file of desk id signed by a (a key of its own
// and its certificate, valid server.DeskYears), and what it holds.
func newDeskFile(a *server.Authority, id string, epoch int) ([]byte, *protocol.Desk, error) {
	now := time.Now()
	data, err := a.DeskCertificate(id, epoch, now.Add(-time.Hour), now.AddDate(server.DeskYears, 0, 0))
	if err != nil {
		return nil, nil, err
	}
	d, err := protocol.ParseDeskFile(data)
	if err != nil {
		return nil, nil, err
	}
	return data, d, nil
}

// openServer opens the ledger of --server as the desk of --desk-cert.
func (c *cli) openServer() (*ledger.Ledger, error) {
	if c.deskCert == "" {
		return nil, badInput("--server %s needs --desk-cert FILE (or VEGAS_DESK_CERT): the desk file of desks add --out", c.server)
	}
	l, err := ledger.OpenServer(c.server, c.deskCert)
	if errors.Is(err, ledger.ErrUnreachable) {
		return nil, failf("REGISTRE INJOIGNABLE — NE PAS PAYER (ledger unreachable — do not pay): %w", err)
	}
	return clocked(l, err)
}

// desksCert writes a new desk file for a desk of the ledger (a counter's
// terminal replaced): desks cert ID --out FILE [--keep-old]. The desk's
// earlier certificates are revoked unless --keep-old.
func (c *cli) desksCert(fs *pflag.FlagSet) work {
	out := fs.String("out", "", "the desk file to write")
	dir := fs.String("dir", defaultServeDir(), "the authority's directory (serve --init)")
	pass := fs.String("passphrase-file", "", "the file holding the authority key's passphrase")
	keep := fs.Bool("keep-old", false, "keep the desk's earlier certificates (its other desk files) accepted")
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 1, "one desk ID"); err != nil {
			return err
		}
		if *out == "" {
			return badInput("desks cert: give --out FILE, the desk file to write")
		}
		return nil
	}, run: func(l *ledger.Ledger, pos []string) error {
		ds, err := l.Desks(c.ctx)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if d.ID == pos[0] {
				if err := c.deskFile(l, d.ID, *dir, *out, *pass, *keep); err != nil {
					return err
				}
				c.printf(c.stdout, "desk %s: desk file %s (payout limit %s)\n", d.ID, *out, game.FormatAmount(d.Limit))
				return nil
			}
		}
		return badInput("desks cert: no desk %s in the ledger (see desks list; desks add ID --out FILE adds one)", terminal(pos[0]))
	}}
}

// desksRevoke makes a desk refuse one of its certificates from its next
// question on: desks revoke ID --cert SERIAL|FILE (a serial desks list
// shows, or the desk file).
func (c *cli) desksRevoke(fs *pflag.FlagSet) work {
	cert := fs.String("cert", "", "the certificate to revoke: its serial (desks list) or its desk file")
	var serial string
	return work{check: func(args []string) error {
		pos, err := c.positional(fs, args, 1, "one desk ID")
		if err != nil {
			return err
		}
		serial = *cert
		switch {
		case serial == "":
			return badInput("desks revoke: give --cert SERIAL (as desks list shows it) or --cert FILE (the desk file)")
		case strings.ContainsAny(serial, `./\`):
			d, err := protocol.ReadDeskFile(serial)
			if err != nil {
				return badInput("desks revoke: --cert %s: %v", serial, err)
			}
			if d.ID != pos[0] {
				return badInput("desks revoke: %s is desk %s's desk file, not desk %s's", serial, d.ID, terminal(pos[0]))
			}
			serial = protocol.CertSerial(d.Cert.Leaf)
		}
		return nil
	}, run: func(l *ledger.Ledger, pos []string) error {
		if err := l.RevokeDeskCert(c.ctx, pos[0], serial, defaultIdentity("", "")); err != nil {
			if errors.Is(err, ledger.ErrNotFound) || errors.Is(err, ledger.ErrInvalid) {
				return badInput("desks revoke: %v", err)
			}
			return err
		}
		c.printf(c.stdout, "desk %s: certificate %s revoked: its desk file no longer opens the server\n", terminal(pos[0]), serial)
		return nil
	}}
}
