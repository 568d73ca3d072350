// Package benchref is the reference vegas-desk serve is measured against
// (issue 38): a bare validation server as a competent engineer writes one
// in an afternoon, and its load client. It is used only by tests and
// benchmarks (cmd/vegas-desk's BenchmarkBare), never linked into the
// shipped binary.
//
// The server is net/http over TLS 1.3 with client certificates; a claim is
// POST /claim with a JSON body {"serial": "…"}, answered by one autocommit
// statement, UPDATE tickets SET paid_at = now() WHERE serial = $1 AND
// paid_at IS NULL RETURNING prize, through a pgxpool on PostgreSQL (each
// commit durable: synchronous_commit=on, the server's default), or through
// one writer connection of a SQLite file in WAL mode with synchronous=FULL
// (each commit synced). 200 {"prize": N}: paid (prize 0: a loser, marked
// as checked); 409: unknown or already paid. It has none of what serve
// adds (journal chain, lock-out, gate, idempotency, desks, logs, metrics):
// it is the limit of the stack, not a product.
package benchref

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Store answers a claim: the ticket's prize when this claim paid it, ok
// false when the serial is unknown or already paid.
type Store interface {
	Claim(ctx context.Context, serial string) (prize int, ok bool, err error)
	Close()
}

// Chained marks a postgres:// URL whose server also chains each payment
// (chainedStore): Open(ctx, Chained+url).
const Chained = "chained+"

// Open opens the tickets table of db: a postgres:// URL (a pgxpool of its
// default size), the same after Chained (chainedStore), or a SQLite file
// (WAL, synchronous=FULL, one connection).
func Open(ctx context.Context, db string) (Store, error) {
	if url, ok := strings.CutPrefix(db, Chained); ok {
		return openChained(ctx, url)
	}
	if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		pool, err := pgxpool.New(ctx, db)
		if err != nil {
			return nil, err
		}
		if err := pool.Ping(ctx); err != nil {
			pool.Close()
			return nil, err
		}
		return &pgStore{pool}, nil
	}
	if _, err := os.Stat(db); err != nil {
		return nil, err
	}
	d, err := sql.Open("sqlite", liteDSN(db, "journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(5000)"))
	if err != nil {
		return nil, err
	}
	d.SetMaxOpenConns(1) // one writer
	var mode string
	if err := d.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		d.Close()
		return nil, fmt.Errorf("benchref: %s: journal_mode %q (want wal): %v", db, mode, err)
	}
	return &liteStore{d}, nil
}

func liteDSN(path string, pragmas ...string) string {
	u := url.URL{Path: path}
	var q []string
	for _, p := range pragmas {
		q = append(q, "_pragma="+p)
	}
	return "file:" + u.EscapedPath() + "?" + strings.Join(q, "&")
}

type pgStore struct{ pool *pgxpool.Pool }

func (s *pgStore) Claim(ctx context.Context, serial string) (int, bool, error) {
	var prize int
	err := s.pool.QueryRow(ctx, "UPDATE tickets SET paid_at = now() WHERE serial = $1 AND paid_at IS NULL RETURNING prize", serial).Scan(&prize)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return prize, err == nil, err
}

func (s *pgStore) Close() { s.pool.Close() }

type liteStore struct{ db *sql.DB }

func (s *liteStore) Claim(ctx context.Context, serial string) (int, bool, error) {
	var prize int
	err := s.db.QueryRowContext(ctx, "UPDATE tickets SET paid_at = CURRENT_TIMESTAMP WHERE serial = ? AND paid_at IS NULL RETURNING prize", serial).Scan(&prize)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return prize, err == nil, err
}

func (s *liteStore) Close() { s.db.Close() }

// Files of a server's directory (MakePKI writes them).
const (
	CAFile   = "ca.pem"
	CertFile = "server.pem"
	KeyFile  = "server.key"
)

// Handler is the server's API: POST /claim.
func Handler(st Store) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /claim", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Serial string `json:"serial"`
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1024)).Decode(&req); err != nil || req.Serial == "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"give {\"serial\": \"…\"}"}`)
			return
		}
		prize, ok, err := st.Claim(r.Context(), req.Serial)
		switch {
		case err != nil:
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":"database unavailable"}`)
		case !ok:
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"error":"unknown serial, or already paid"}`)
		default:
			fmt.Fprintf(w, `{"prize":%d}`, prize)
		}
	})
	return mux
}

// NewServer is the HTTPS server of dir's certificates (MakePKI): TLS 1.3,
// a client certificate the authority signed required.
func NewServer(dir string, st Store) (*http.Server, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile))
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, CAFile))
	if err != nil {
		return nil, err
	}
	cas := x509.NewCertPool()
	if !cas.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("benchref: %s holds no certificate", CAFile)
	}
	return &http.Server{
		Handler: Handler(st),
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert},
			ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: cas},
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
	}, nil
}

// Serve serves db's tickets with dir's certificates on ln until ctx ends,
// then lets the questions in flight end.
func Serve(ctx context.Context, ln net.Listener, dir, db string) error {
	st, err := Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := NewServer(dir, st)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	})
	defer stop()
	if err := srv.ServeTLS(ln, "", ""); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
