package counter

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/signing"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/platform"
)

// Issue writes a new sealed counter ledger for spec.Desk at path, which
// must not exist, from the back office's ledger o (either engine), and
// records the issue in its journal (backoffice.RecordIssue). The file is
// made beside path, synced, and put in its place (its folder synced) before
// the issue's record commits: a failure leaves nothing, and an issue
// recorded names a file on disk.
func Issue(ctx context.Context, o *backoffice.Store, path string, spec core.CounterSpec) (core.CounterIssue, error) {
	if o.ReadOnly {
		return core.CounterIssue{}, core.ErrReadOnly
	}
	if spec.Key == nil {
		return core.CounterIssue{}, errors.New("issue a counter ledger: no signing key given")
	}
	if err := core.CheckRealDeskID(spec.Desk); err != nil {
		return core.CounterIssue{}, fmt.Errorf("counter ledger: %w", err)
	}
	if err := core.CheckText("operator", spec.Who.Operator, core.MaxText); err != nil {
		return core.CounterIssue{}, err
	}
	if _, err := os.Stat(path); err == nil {
		return core.CounterIssue{}, fmt.Errorf("%s exists: a counter ledger may hold payments not yet brought home (import-claims); choose another name", path)
	}
	tx, err := o.IssueTx(ctx)
	if err != nil {
		return core.CounterIssue{}, err
	}
	defer tx.Rollback()
	src, err := o.CounterSource(ctx, tx, spec, MaxBlocks)
	if err != nil {
		return core.CounterIssue{}, fmt.Errorf("counter ledger for desk %s: %w", spec.Desk, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return core.CounterIssue{}, err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+backoffice.NewLedgerID()[:8])
	defer removeSQLite(tmp)
	is, err := write(ctx, tx, tmp, o.ID, src, spec, now(o))
	if err != nil {
		return core.CounterIssue{}, fmt.Errorf("counter ledger for desk %s: %w", spec.Desk, err)
	}
	tx.Rollback()
	is.Entry, err = o.RecordIssue(ctx, is, src.Threshold(), spec.Who, func() error {
		if err := placeFile(tmp, path); err != nil {
			return fmt.Errorf("counter ledger: %w", err)
		}
		return nil
	})
	if err != nil {
		os.Remove(path)
		return core.CounterIssue{}, fmt.Errorf("counter ledger: record the issue: %w", err)
	}
	is.Path = path
	return is, nil
}

// now is the back office's time of the issue.
func now(o *backoffice.Store) time.Time {
	if o.Now != nil {
		if t := o.Now(); !t.IsZero() {
			return t
		}
	}
	return time.Now()
}

// placeFile gives the complete file tmp (on disk: write synced it) its
// name path, never replacing a file there: a hard link, or where the file
// system has none (a FAT removable drive, to carry the ledger to the
// counter) a rename after a last look. The folder is synced before it
// returns, so the name is on disk before the issue's record commits.
func placeFile(tmp, path string) error {
	err := os.Link(tmp, path)
	if errors.Is(err, os.ErrExist) {
		return err
	}
	if err != nil {
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("%s: %w", path, os.ErrExist)
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	return platform.SyncDir(filepath.Dir(path))
}

// removeSQLite removes a SQLite file and what may lie beside it.
func removeSQLite(path string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}

// write makes the counter ledger file at path from src, for back office
// backOffice, issued at time issued: its tables, each block's sealed
// records, the seal over them, and the journal's first entry (the issue).
func write(ctx context.Context, q core.Querier, path, backOffice string, src *backoffice.CounterSource, spec core.CounterSpec, issued time.Time) (core.CounterIssue, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return core.CounterIssue{}, err
	}
	f.Close()
	if err := platform.OwnerOnly(path); err != nil {
		return core.CounterIssue{}, err
	}
	db, err := sqlx.Open("sqlite", sqlite.DSN(path, "_pragma=page_size(16384)", "_pragma=synchronous(OFF)",
		"_pragma=foreign_keys(ON)", "_pragma=trusted_schema(0)", "_pragma=cache_size(-262144)", "_txlock=immediate"))
	if err != nil {
		return core.CounterIssue{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	w, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return core.CounterIssue{}, err
	}
	defer w.Rollback()
	is := core.CounterIssue{ID: backoffice.NewLedgerID(), Desk: spec.Desk, Limit: src.Limit, Blocks: src.Blocks}
	if err := writeTables(ctx, w, is, backOffice, src, issued); err != nil {
		return core.CounterIssue{}, err
	}
	total := len(src.Blocks) * (game.BlockSize + game.Winners)
	for i, b := range src.Blocks {
		var progress func(done, t int)
		if spec.Progress != nil {
			base := i * (game.BlockSize + game.Winners)
			progress = func(done, _ int) { spec.Progress(base+done, total) }
		}
		if err := writeBlock(ctx, q, w, b, src.States[b.ID], src.Paid[b.ID], progress); err != nil {
			return core.CounterIssue{}, err
		}
	}
	if err := seal(ctx, w, &is, spec, issued); err != nil {
		return core.CounterIssue{}, err
	}
	if err := w.Commit(); err != nil {
		return core.CounterIssue{}, err
	}
	// Handed over in WAL mode, as a ledger is opened: its first open then
	// writes no rollback journal to switch it (a switch whose sync failed
	// left a journal beside it, which a ledger's open refuses).
	var mode string
	if err := db.GetContext(ctx, &mode, "PRAGMA journal_mode = WAL"); err != nil || mode != "wal" {
		return core.CounterIssue{}, fmt.Errorf("switch to WAL: %q, %v", mode, err)
	}
	if err := db.Close(); err != nil {
		return core.CounterIssue{}, err
	}
	// Written with synchronous(OFF), in one transaction: the whole file is
	// synced once, here, before it is given its name.
	f, err = os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return core.CounterIssue{}, err
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return core.CounterIssue{}, err
	}
	return is, nil
}

// writeTables writes the schema, the meta rows, the games and settings.
func writeTables(ctx context.Context, w *sqlx.Tx, is core.CounterIssue, backOffice string, src *backoffice.CounterSource, issued time.Time) error {
	if _, err := w.ExecContext(ctx, counterSQL()); err != nil {
		return fmt.Errorf("create the schema: %w", err)
	}
	limit, _ := is.Limit.Euros()
	meta := [][2]string{{"id", is.ID}, {"kind", "counter"}, {"demo", "0"}, {"created_at", core.FormatTime(issued)},
		{"back_office", backOffice}, {"desk", is.Desk}, {"payout_limit", strconv.Itoa(limit)}}
	for _, m := range meta {
		if _, err := w.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES (?, ?)", m[0], m[1]); err != nil {
			return err
		}
	}
	for _, g := range src.Games {
		if _, err := w.ExecContext(ctx, "INSERT INTO games (code, name, price, on_sale, end_of_sale, deadline) VALUES (?, ?, ?, ?, ?, ?)",
			g.Code, g.Name, g.Price, g.OnSale, g.EndOfSale, g.Deadline); err != nil {
			return err
		}
	}
	for _, s := range src.Settings {
		if _, err := w.ExecContext(ctx, "INSERT INTO settings (key, value) VALUES (?, ?)", s[0], s[1]); err != nil {
			return err
		}
	}
	return nil
}

// writeBlock writes block b's row, its packs' states, its tickets paid
// and its sealed records, read from the back office (q).
func writeBlock(ctx context.Context, q core.Querier, w *sqlx.Tx, b core.Block, states []core.PackStateRow, paid []backoffice.PaidBefore, progress func(done, total int)) error {
	if _, err := w.ExecContext(ctx, "INSERT INTO blocks (id, game, number, first_pack, tickets, pack_size, winners, payout, digest, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
		b.ID, b.Game, b.Number, b.FirstPack, b.Tickets, b.PackSize, b.Winners, b.Payout, mustHex(b.Digest), core.FormatTime(b.CreatedAt)); err != nil {
		return err
	}
	for _, p := range states {
		if _, err := w.ExecContext(ctx, "INSERT INTO pack_states (block, pack, state) VALUES (?, ?, ?)", b.ID, p.Pack, p.State); err != nil {
			return err
		}
	}
	for _, p := range paid {
		if _, err := w.ExecContext(ctx, "INSERT INTO paid_before (ticket, block, number, at, desk, operator, amount) VALUES (?, ?, ?, ?, ?, ?, ?)",
			p.Ticket, b.ID, p.Number, p.At, p.Desk, p.Operator, p.Amount); err != nil {
			return err
		}
	}
	codes, prizes, err := backoffice.BlockTickets(ctx, q, b)
	if err != nil {
		return err
	}
	sealed, err := sealBlock(ctx, b, &b.Key, codes, prizes, progress)
	if err != nil {
		return err
	}
	for _, t := range []struct {
		name string
		rows []sealRow
	}{{"serials", sealed.serials}, {"contents", sealed.contents}} {
		stmt, err := w.PrepareContext(ctx, "INSERT INTO "+t.name+" (id, records) VALUES (?, ?)")
		if err != nil {
			return err
		}
		for _, r := range t.rows {
			if _, err := stmt.ExecContext(ctx, r.id, r.records); err != nil {
				stmt.Close()
				return err
			}
		}
		stmt.Close()
	}
	return nil
}

// seal signs the file's tables (sealBody) with the back office's key, and
// starts the journal with the issue, which names the seal's digest.
func seal(ctx context.Context, w *sqlx.Tx, is *core.CounterIssue, spec core.CounterSpec, issued time.Time) error {
	body, err := sealBody(ctx, w)
	if err != nil {
		return err
	}
	is.Seal = spec.Key.Sign(body)
	is.Digest = core.SealDigest(is.Seal)
	if _, err := w.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES ('seal', ?)", is.Seal); err != nil {
		return err
	}
	limit, _ := is.Limit.Euros()
	e := core.Entry{Kind: "issue", At: issued, Desk: spec.Desk, Operator: spec.Who.Operator, Amount: limit, Detail: is.Digest}
	if err := sqlite.Append(ctx, w, &e); err != nil {
		return err
	}
	is.Genesis = hex.EncodeToString(e.Hash)
	_, err = w.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", ApplicationID, core.SchemaVersion))
	return err
}

func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

// The seal of a counter ledger is this text, signed by the back office's
// key (signing.Sign adds public_key and signature); each line is made from
// the file's tables as written at the issue, so that verify rebuilds it:
//
//	vegas-desk counter ledger 1
//	ledger=<the counter ledger's id>
//	back_office=<the issuing ledger's id>
//	desk="D1"
//	issued_at="2025-05-01T10:00:00.000000000Z"
//	payout_limit=500
//	game=531 "VEGAS" 3 "<on_sale>" "<end_of_sale>" "<deadline>"      (one per game)
//	setting="identity_threshold" "5000"                              (one per setting)
//	block=<id> <game> <number> <first_pack> <tickets> <pack_size> <winners> <payout> <digest> "<created_at>"
//	packs=<block id> <n> <SHA-256 of the lines "pack state\n" of its packs out of stock>
//	paid=<block id> <n> <SHA-256 of the lines "ticket number "at" "desk" "operator" amount\n" of its tickets paid>
//	serials=<block id> <rows> <SHA-256 of its serial rows (rowsDigest)>
//	contents=<block id> <rows> <SHA-256 of its contents rows>
//
// (block, packs, serials and contents for each block, by id). Strings are
// Go-quoted.
func sealBody(ctx context.Context, q core.Querier) (string, error) {
	var metaRows []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := core.Select(ctx, q, &metaRows, "SELECT key, value FROM meta"); err != nil {
		return "", err
	}
	meta := map[string]string{}
	for _, m := range metaRows {
		meta[m.Key] = m.Value
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	q1 := signing.Quote
	line("vegas-desk counter ledger 2")
	line("ledger=%s", meta["id"])
	line("back_office=%s", meta["back_office"])
	line("desk=%s", q1(meta["desk"]))
	line("issued_at=%s", q1(meta["created_at"]))
	line("payout_limit=%s", meta["payout_limit"])
	var games []core.Game
	if err := core.Select(ctx, q, &games, "SELECT code, name, price, on_sale, end_of_sale, deadline FROM games ORDER BY code"); err != nil {
		return "", err
	}
	for _, g := range games {
		line("game=%d %s %d %s %s %s", g.Code, q1(g.Name), g.Price, q1(g.OnSale), q1(g.EndOfSale), q1(g.Deadline))
	}
	var settings []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := core.Select(ctx, q, &settings, "SELECT key, value FROM settings ORDER BY key"); err != nil {
		return "", err
	}
	for _, s := range settings {
		line("setting=%s %s", q1(s.Key), q1(s.Value))
	}
	var blocks []backoffice.BlockRow
	if err := core.Select(ctx, q, &blocks, "SELECT "+blockCols+" FROM blocks ORDER BY id"); err != nil {
		return "", err
	}
	for _, r := range blocks {
		line("block=%d %d %d %d %d %d %d %d %x %s", r.ID, r.Game, r.Number, r.FirstPack, r.Tickets, r.PackSize, r.Winners, r.Payout, r.Digest, q1(r.CreatedAt))
		var states []struct {
			Pack  int    `db:"pack"`
			State string `db:"state"`
		}
		if err := core.Select(ctx, q, &states, "SELECT pack, state FROM pack_states WHERE block = ? ORDER BY pack", r.ID); err != nil {
			return "", err
		}
		h := sha256.New()
		for _, s := range states {
			fmt.Fprintf(h, "%d %s\n", s.Pack, s.State)
		}
		line("packs=%d %d %x", r.ID, len(states), h.Sum(nil))
		var paid []backoffice.PaidBefore
		if err := core.Select(ctx, q, &paid, "SELECT ticket, number, at, desk, operator, amount FROM paid_before WHERE block = ? ORDER BY ticket", r.ID); err != nil {
			return "", err
		}
		h.Reset()
		for _, p := range paid {
			fmt.Fprintf(h, "%d %d %s %s %s %d\n", p.Ticket, p.Number, q1(p.At), q1(p.Desk), q1(p.Operator), p.Amount)
		}
		line("paid=%d %d %x", r.ID, len(paid), h.Sum(nil))
		for _, table := range []string{"serials", "contents"} {
			n, sum, err := tableDigest(ctx, q, table, r.ID)
			if err != nil {
				return "", err
			}
			line("%s=%d %d %x", table, r.ID, n, sum)
		}
	}
	return b.String(), nil
}

// tableDigest is rowsDigest of block id's rows of table, read from the
// file.
func tableDigest(ctx context.Context, q core.Querier, table string, blockID int64) (int, [32]byte, error) {
	rows, err := core.Query(ctx, q, "SELECT id, records FROM "+table+" WHERE id >= ? AND id < ? ORDER BY id",
		core.FinderID(blockID, 0), core.FinderID(blockID+1, 0))
	if err != nil {
		return 0, [32]byte{}, err
	}
	defer rows.Close()
	h := sha256.New()
	n := 0
	var hdr [12]byte
	for rows.Next() {
		var id int64
		var rec sql.RawBytes
		if err := rows.Scan(&id, &rec); err != nil {
			return 0, [32]byte{}, err
		}
		putRowHeader(hdr[:], id, len(rec))
		h.Write(hdr[:])
		h.Write(rec)
		n++
	}
	var out [32]byte
	h.Sum(out[:0])
	return n, out, rows.Err()
}
