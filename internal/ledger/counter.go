package ledger

import (
	"bytes"
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

	"github.com/jmoiron/sqlx"

	vegasdesk "vegas-desk"
	"vegas-desk/internal/game"
	"vegas-desk/internal/signing"
)

// A sealed counter ledger is a SQLite file of its own kind (counter.sql)
// that the back office writes for one offline counter: its blocks as
// sealed records (seal.go), the packs' states, the emissions' dates and the
// desk's payout limit at the issue, all signed by the back office's key;
// then the counter's own journal of payments and refused attempts. Lookup,
// Claim, FindByContents and CheckContents work on it as on the back
// office's ledger, with the same verdicts (rules.go, decide); what needs a
// prize in clear or a serial key is refused (backOffice).

// counterInfo is what a sealed counter ledger says of itself (its meta).
type counterInfo struct {
	desk       string
	backOffice string // the issuing ledger's id
	limit      int    // the desk's payout limit, euros (0: none)
	seal       string // the signed seal text
}

// readCounterMeta reads a counter ledger's meta rows; a back-office
// ledger's are left alone.
func (l *Ledger) readCounterMeta(meta map[string]string) error {
	kind := meta["kind"]
	if kind == "" || kind == "back-office" {
		return nil
	}
	if kind != "counter" || l.eng != sqliteEngine {
		return fmt.Errorf("%w: %s is a ledger of kind %q, which this vegas-desk does not know", ErrNotLedger, l.location, kind)
	}
	limit, err := strconv.Atoi(meta["payout_limit"])
	if err != nil || meta["desk"] == "" || meta["seal"] == "" || meta["back_office"] == "" {
		return fmt.Errorf("%w: %s is a counter ledger whose description is damaged", ErrNotLedger, l.location)
	}
	l.counter = &counterInfo{desk: meta["desk"], backOffice: meta["back_office"], limit: limit, seal: meta["seal"]}
	return nil
}

// Kind is "back-office" for the back office's ledger (a file or a shared
// database) and "counter" for a sealed counter ledger.
func (l *Ledger) Kind() string {
	if l.counter != nil {
		return "counter"
	}
	return "back-office"
}

// limitFor is the payout limit a verdict applies: a counter ledger's own,
// whatever the caller asked.
func (l *Ledger) limitFor(asked int) int {
	if l.counter != nil {
		return l.counter.limit
	}
	return asked
}

// publicSerial is the part of a serial printed outside the scratch layer:
// game, block and position, "531-0001-0456789".
func publicSerial(s game.Serial) string {
	return fmt.Sprintf("%03d-%04d-%07d", s.Game, s.Block, s.Position)
}

// refusedSerial is what a refusal or a referral records of serial s: the
// whole serial on the back office, the public part on a counter ledger
// (whose file may be lost with the unpaid winners' serials it saw).
func (l *Ledger) refusedSerial(s game.Serial) string {
	if l.counter != nil {
		return publicSerial(s)
	}
	return s.String()
}

// forgetWinner makes a refusal or a referral entry e keep, on a counter
// ledger, neither the ticket's number nor its prize: the file may be lost
// with the unpaid winners it saw (the answer at the counter still shows the
// prize, read from the sealed record). Nothing reads them back: the counter
// verifies and exports only its payments' tickets.
func (l *Ledger) forgetWinner(e *entry) {
	if l.counter != nil {
		e.Ticket, e.Amount = sql.NullInt64{}, 0
	}
}

// serialFacts returns the facts of the ticket of serial s, or a *Refusal
// with UnknownSerial.
func (l *Ledger) serialFacts(ctx context.Context, q querier, s game.Serial) (*facts, error) {
	if l.counter != nil {
		return counterFacts(ctx, q, s)
	}
	return factsBySerial(ctx, q, s)
}

const counterBlockCols = "id, game, number, first_pack, tickets, pack_size, winners, payout, x'' AS serial_key, digest, created_at"

// counterBlocks lists a counter ledger's blocks, by game and number.
func counterBlocks(ctx context.Context, q querier) ([]Block, error) {
	var rows []blockRow
	if err := sel(ctx, q, &rows, "SELECT "+counterBlockCols+" FROM blocks ORDER BY game, number"); err != nil {
		return nil, fmt.Errorf("list blocks: %w", err)
	}
	out := make([]Block, len(rows))
	for i := range rows {
		out[i] = rows[i].block()
	}
	return out, nil
}

// counterFacts finds the ticket of serial s in a counter ledger by its
// serial record, which only the full serial finds and opens.
func counterFacts(ctx context.Context, q querier, s game.Serial) (*facts, error) {
	unknown := &Refusal{Verdict: UnknownSerial, Serial: s.String()}
	var r blockRow
	err := get(ctx, q, &r, "SELECT "+counterBlockCols+" FROM blocks WHERE game = ? AND number = ?", s.Game, s.Block)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unknown
	}
	if err != nil {
		return nil, err
	}
	b := r.block()
	if s.Position < 0 || s.Position >= b.Tickets || s.Secret < 0 || s.Secret >= game.SecretModulus {
		return nil, unknown
	}
	h := serialHash(s.Game, s.Block, s.Position, s.Secret)
	recs, err := findRecords(ctx, q, "serials", b.ID, h[:sealIndexSize], serialRecordSize)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", b.Name(), err)
	}
	pad := serialPad(&h)
	for _, rec := range recs {
		code := make([]byte, game.EncodedSize)
		for i := range code {
			code[i] = rec[sealIndexSize+i] ^ pad[i]
		}
		t, err := game.Decode(code)
		if err != nil || game.Validate(&t) != nil {
			continue // another serial's record with the same index (2^-96)
		}
		f := &facts{block: b, position: s.Position, ticket: b.first + int64(s.Position), secret: s.Secret,
			prize: game.Prize(&t), code: code}
		err = get(ctx, q, &f.packState, "SELECT state FROM pack_states WHERE block = ? AND pack = ?", b.ID, s.Position/game.PackSize)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if f.paid, err = paidClaim(ctx, q, f.ticket); err != nil {
			return nil, err
		}
		return f, nil
	}
	return nil, unknown
}

// findCounter finds the winners of a counter ledger with encoding code by
// their contents records, one block after the other.
func (l *Ledger) findCounter(ctx context.Context, code []byte) ([]Ticket, error) {
	blocks := func(q querier) ([]Block, error) { return counterBlocks(ctx, q) }
	candidates := func(q querier, b Block) ([]*facts, error) {
		h := contentsHash(b.Game, b.Number, code)
		recs, err := findRecords(ctx, q, "contents", b.ID, h[:sealIndexSize], contentsRecordSize)
		if err != nil {
			return nil, err
		}
		var fs []*facts
		for j, rec := range recs {
			pad := contentsPad(&h, j)
			pos, secret := openContents(rec[sealIndexSize:], &pad)
			f, err := counterFacts(ctx, q, game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: secret})
			var r *Refusal
			if errors.As(err, &r) {
				continue // damaged: verify names it
			}
			if err != nil {
				return nil, err
			}
			fs = append(fs, f)
		}
		return fs, nil
	}
	return l.findIn(ctx, code, l.counter.limit, blocks, candidates)
}

// CounterSpec says what counter ledger to issue.
type CounterSpec struct {
	// Desk is the counter's id (letters, digits, _ and -).
	Desk string
	// Blocks are the blocks to seal, as (game, number); none: every block
	// of the ledger. At most MaxCounterBlocks.
	Blocks [][2]int
	// Limit is the desk's payout limit in euros (0: none); -1 takes the
	// desk's limit in the back office's ledger.
	Limit int
	// Key signs the counter ledger.
	Key *signing.Key
	// Who issues it, for the journal.
	Who Identity
	// Progress, if not nil, is called with the tickets sealed so far and
	// the total, from any goroutine.
	Progress func(done, total int)
}

// CounterIssue is a counter ledger issued.
type CounterIssue struct {
	Path, ID, Desk string
	Blocks         []Block
	Limit          int
	// Seal is the signed text of the counter ledger; Digest is its SHA-256
	// in hex, which the counter's first journal entry names, and Genesis
	// that entry's hash.
	Seal, Digest, Genesis string
	// Entry is the back office's journal entry that records the issue.
	Entry int64
}

// IssueCounter writes a new sealed counter ledger for spec.Desk at path,
// which must not exist, from this back office's ledger (either engine), and
// records the issue in the journal (a 'checkpoint' entry, method
// "counter-ledger", request = the counter ledger's id, detail = its seal
// digest and first entry's hash). The file is made beside path and renamed
// only when complete: a failure leaves nothing.
func (l *Ledger) IssueCounter(ctx context.Context, path string, spec CounterSpec) (CounterIssue, error) {
	if err := l.backOffice("issue a counter ledger"); err != nil {
		return CounterIssue{}, err
	}
	if l.readOnly {
		return CounterIssue{}, ErrReadOnly
	}
	if spec.Key == nil {
		return CounterIssue{}, errors.New("issue a counter ledger: no signing key given")
	}
	if err := checkDeskID(spec.Desk); err != nil {
		return CounterIssue{}, fmt.Errorf("counter ledger: %w", err)
	}
	if err := checkText("operator", spec.Who.Operator); err != nil {
		return CounterIssue{}, err
	}
	if _, err := os.Stat(path); err == nil {
		return CounterIssue{}, fmt.Errorf("%s exists: a counter ledger may hold payments not yet brought home (import-claims); choose another name", path)
	}
	tx, err := l.read(ctx)
	if err != nil {
		return CounterIssue{}, err
	}
	defer tx.Rollback()
	src, err := l.counterSource(ctx, tx, spec)
	if err != nil {
		return CounterIssue{}, fmt.Errorf("counter ledger for desk %s: %w", spec.Desk, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return CounterIssue{}, err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+newLedgerID()[:8])
	defer removeSQLite(tmp)
	is, err := l.writeCounter(ctx, tx, tmp, src, spec)
	if err != nil {
		return CounterIssue{}, fmt.Errorf("counter ledger for desk %s: %w", spec.Desk, err)
	}
	tx.Rollback()
	// The back office's record of the issue, then the file in place.
	w, err := l.begin(ctx)
	if err != nil {
		return CounterIssue{}, err
	}
	defer w.Rollback()
	// What the import checks the counter's payments against is recorded
	// here, not read from the file its holder can change: the payout limit
	// (amount), the identity threshold and the blocks sealed.
	ids := make([]string, len(is.Blocks))
	for i, b := range is.Blocks {
		ids[i] = strconv.FormatInt(b.ID, 10)
	}
	e := entry{Kind: "checkpoint", Desk: spec.Desk, Operator: spec.Who.Operator, Method: "counter-ledger",
		Amount: is.Limit, Request: is.ID, Detail: "ledger=" + is.ID + "\nseal=" + is.Digest + "\ngenesis=" + is.Genesis +
			"\nidentity_threshold=" + strconv.Itoa(src.threshold()) + "\nblocks=" + strings.Join(ids, " ")}
	if err := l.appendJournal(ctx, w, &e); err != nil {
		return CounterIssue{}, err
	}
	if err := placeFile(tmp, path); err != nil {
		return CounterIssue{}, fmt.Errorf("counter ledger: %w", err)
	}
	if err := w.Commit(); err != nil {
		os.Remove(path)
		return CounterIssue{}, fmt.Errorf("counter ledger: record the issue: %w", l.classify(err))
	}
	syncDir(filepath.Dir(path))
	is.Path, is.Entry = path, e.ID
	return is, nil
}

// placeFile gives the complete file tmp its name path, never replacing a
// file there: a hard link, or where the file system has none (a FAT
// removable drive, to carry the ledger to the counter) a rename after a
// last look.
func placeFile(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, os.ErrExist) {
		return err
	}
	if _, serr := os.Lstat(path); serr == nil {
		return fmt.Errorf("%s: %w", path, os.ErrExist)
	}
	return os.Rename(tmp, path)
}

// removeSQLite removes a SQLite file and what may lie beside it.
func removeSQLite(path string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// counterSource is what the back office gives a counter ledger.
type counterSource struct {
	blocks   []Block
	limit    int
	games    []gameRow
	settings [][2]string
	states   map[int64][]packStateRow // by block id
}

type gameRow struct {
	Code  int    `db:"code"`
	Name  string `db:"name"`
	Price int    `db:"price"`
	emission
}

// threshold is the identity threshold sealed in the counter ledger.
func (src *counterSource) threshold() int {
	for _, s := range src.settings {
		if s[0] == SettingIdentityThreshold {
			if n, err := strconv.Atoi(s[1]); err == nil {
				return n
			}
		}
	}
	return defaultIdentityThreshold
}

func (l *Ledger) counterSource(ctx context.Context, q querier, spec CounterSpec) (*counterSource, error) {
	src := &counterSource{states: map[int64][]packStateRow{}, limit: spec.Limit}
	all, err := listBlocks(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(spec.Blocks) == 0 {
		src.blocks = all
	}
	for _, want := range spec.Blocks {
		i := -1
		for k, b := range all {
			if b.Game == want[0] && b.Number == want[1] {
				i = k
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("block %d/%d: %w: the ledger has no such block (see blocks)", want[0], want[1], ErrNotFound)
		}
		for _, b := range src.blocks {
			if b.ID == all[i].ID {
				return nil, fmt.Errorf("block %s is named twice", b.Name())
			}
		}
		src.blocks = append(src.blocks, all[i])
	}
	switch {
	case len(src.blocks) == 0:
		return nil, errors.New("the ledger has no block to seal: generate one first")
	case len(src.blocks) > MaxCounterBlocks:
		return nil, fmt.Errorf("%d blocks: a counter ledger holds at most %d; name the blocks on sale with --block", len(src.blocks), MaxCounterBlocks)
	}
	var d deskRow
	err = get(ctx, q, &d, "SELECT id, role, payout_limit, disabled, locked_until, unlocked_at FROM desks WHERE id = ?", spec.Desk)
	switch {
	case err == nil && d.Disabled == 1:
		return nil, fmt.Errorf("desk %s is disabled: enable it first", spec.Desk)
	case err == nil && src.limit < 0:
		src.limit = d.Limit
	case errors.Is(err, sql.ErrNoRows) && src.limit < 0:
		return nil, fmt.Errorf("desk %s is not among the ledger's desks: give its payout limit (--limit EUROS)", spec.Desk)
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return nil, err
	}
	codes := map[int]bool{}
	for _, b := range src.blocks {
		codes[b.Game] = true
		var rows []packStateRow
		if err := sel(ctx, q, &rows, "SELECT block, pack, state, desk, entry FROM pack_states WHERE block = ? ORDER BY pack", b.ID); err != nil {
			return nil, err
		}
		src.states[b.ID] = rows
	}
	var games []gameRow
	if err := sel(ctx, q, &games, "SELECT code, name, price, on_sale, end_of_sale, deadline FROM games ORDER BY code"); err != nil {
		return nil, err
	}
	for _, g := range games {
		if codes[g.Code] {
			src.games = append(src.games, g)
		}
	}
	var settings []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := sel(ctx, q, &settings, "SELECT key, value FROM settings ORDER BY key"); err != nil {
		return nil, err
	}
	for _, s := range settings {
		src.settings = append(src.settings, [2]string{s.Key, s.Value})
	}
	return src, nil
}

// blockTickets reads the encodings and prize bytes of every ticket of b.
func blockTickets(ctx context.Context, q querier, b Block) (codes, prizes []byte, err error) {
	codes = make([]byte, 0, b.Tickets*game.EncodedSize)
	prizes = make([]byte, 0, b.Tickets)
	rows, err := queryRows(ctx, q, "SELECT id, prizes, codes FROM packs WHERE id >= ? AND id < ? ORDER BY id",
		b.firstPack, b.firstPack+int64(b.Tickets/game.PackSize))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var id int64
	var p, c sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &p, &c); err != nil {
			return nil, nil, err
		}
		if id != b.firstPack+int64(len(prizes)/game.PackSize) || len(p) != game.PackSize || len(c) != packCodesSize {
			return nil, nil, fmt.Errorf("block %s pack %d: missing or damaged (run verify)", b.Name(), len(prizes)/game.PackSize)
		}
		prizes, codes = append(prizes, p...), append(codes, c...)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(prizes) != b.Tickets {
		return nil, nil, fmt.Errorf("block %s has %d tickets, want %d (run verify)", b.Name(), len(prizes), b.Tickets)
	}
	return codes, prizes, nil
}

// writeCounter makes the counter ledger file at path.
func (l *Ledger) writeCounter(ctx context.Context, q querier, path string, src *counterSource, spec CounterSpec) (CounterIssue, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return CounterIssue{}, err
	}
	f.Close()
	db, err := sqlx.Open("sqlite", dsn(path, "_pragma=page_size(16384)", "_pragma=synchronous(OFF)",
		"_pragma=foreign_keys(ON)", "_pragma=trusted_schema(0)", "_pragma=cache_size(-262144)", "_txlock=immediate"))
	if err != nil {
		return CounterIssue{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	w, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return CounterIssue{}, err
	}
	defer w.Rollback()
	if _, err := w.ExecContext(ctx, vegasdesk.CounterSchema); err != nil {
		return CounterIssue{}, fmt.Errorf("create the schema: %w", err)
	}
	issued := l.now()
	is := CounterIssue{ID: newLedgerID(), Desk: spec.Desk, Limit: src.limit, Blocks: src.blocks}
	meta := [][2]string{{"id", is.ID}, {"kind", "counter"}, {"demo", "0"}, {"created_at", formatTime(issued)},
		{"back_office", l.id}, {"desk", spec.Desk}, {"payout_limit", strconv.Itoa(src.limit)}}
	for _, m := range meta {
		if _, err := w.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES (?, ?)", m[0], m[1]); err != nil {
			return CounterIssue{}, err
		}
	}
	for _, g := range src.games {
		if _, err := w.ExecContext(ctx, "INSERT INTO games (code, name, price, on_sale, end_of_sale, deadline) VALUES (?, ?, ?, ?, ?, ?)",
			g.Code, g.Name, g.Price, g.OnSale, g.EndOfSale, g.Deadline); err != nil {
			return CounterIssue{}, err
		}
	}
	for _, s := range src.settings {
		if _, err := w.ExecContext(ctx, "INSERT INTO settings (key, value) VALUES (?, ?)", s[0], s[1]); err != nil {
			return CounterIssue{}, err
		}
	}
	total := len(src.blocks) * (game.BlockSize + game.Winners)
	for i, b := range src.blocks {
		if _, err := w.ExecContext(ctx, "INSERT INTO blocks (id, game, number, first_pack, tickets, pack_size, winners, payout, digest, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
			b.ID, b.Game, b.Number, b.firstPack, b.Tickets, b.PackSize, b.Winners, b.Payout, mustHex(b.Digest), formatTime(b.CreatedAt)); err != nil {
			return CounterIssue{}, err
		}
		for _, p := range src.states[b.ID] {
			if _, err := w.ExecContext(ctx, "INSERT INTO pack_states (block, pack, state) VALUES (?, ?, ?)", b.ID, p.Pack, p.State); err != nil {
				return CounterIssue{}, err
			}
		}
		codes, prizes, err := blockTickets(ctx, q, b)
		if err != nil {
			return CounterIssue{}, err
		}
		var progress func(done, t int)
		if spec.Progress != nil {
			base := i * (game.BlockSize + game.Winners)
			progress = func(done, _ int) { spec.Progress(base+done, total) }
		}
		sealed, err := sealBlock(ctx, b, &b.key, codes, prizes, progress)
		if err != nil {
			return CounterIssue{}, err
		}
		for _, t := range []struct {
			name string
			rows []sealRow
		}{{"serials", sealed.serials}, {"contents", sealed.contents}} {
			stmt, err := w.PrepareContext(ctx, "INSERT INTO "+t.name+" (id, records) VALUES (?, ?)")
			if err != nil {
				return CounterIssue{}, err
			}
			for _, r := range t.rows {
				if _, err := stmt.ExecContext(ctx, r.id, r.records); err != nil {
					stmt.Close()
					return CounterIssue{}, err
				}
			}
			stmt.Close()
		}
	}
	body, err := sealBody(ctx, w)
	if err != nil {
		return CounterIssue{}, err
	}
	is.Seal = spec.Key.Sign(body)
	is.Digest = sealDigest(is.Seal)
	if _, err := w.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES ('seal', ?)", is.Seal); err != nil {
		return CounterIssue{}, err
	}
	e := entry{Kind: "issue", At: issued, Desk: spec.Desk, Operator: spec.Who.Operator, Amount: src.limit, Detail: is.Digest}
	if err := (&Ledger{eng: sqliteEngine}).appendJournal(ctx, w, &e); err != nil {
		return CounterIssue{}, err
	}
	is.Genesis = hex.EncodeToString(e.Hash)
	if _, err := w.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", CounterApplicationID, SchemaVersion)); err != nil {
		return CounterIssue{}, err
	}
	if err := w.Commit(); err != nil {
		return CounterIssue{}, err
	}
	if err := db.Close(); err != nil {
		return CounterIssue{}, err
	}
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		err = f.Sync()
		f.Close()
		if err != nil {
			return CounterIssue{}, err
		}
	}
	return is, nil
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
//	serials=<block id> <rows> <SHA-256 of its serial rows (rowsDigest)>
//	contents=<block id> <rows> <SHA-256 of its contents rows>
//
// (block, packs, serials and contents for each block, by id). Strings are
// Go-quoted.
func sealBody(ctx context.Context, q querier) (string, error) {
	var metaRows []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := sel(ctx, q, &metaRows, "SELECT key, value FROM meta"); err != nil {
		return "", err
	}
	meta := map[string]string{}
	for _, m := range metaRows {
		meta[m.Key] = m.Value
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	q1 := signing.Quote
	line("vegas-desk counter ledger 1")
	line("ledger=%s", meta["id"])
	line("back_office=%s", meta["back_office"])
	line("desk=%s", q1(meta["desk"]))
	line("issued_at=%s", q1(meta["created_at"]))
	line("payout_limit=%s", meta["payout_limit"])
	var games []gameRow
	if err := sel(ctx, q, &games, "SELECT code, name, price, on_sale, end_of_sale, deadline FROM games ORDER BY code"); err != nil {
		return "", err
	}
	for _, g := range games {
		line("game=%d %s %d %s %s %s", g.Code, q1(g.Name), g.Price, q1(g.OnSale), q1(g.EndOfSale), q1(g.Deadline))
	}
	var settings []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := sel(ctx, q, &settings, "SELECT key, value FROM settings ORDER BY key"); err != nil {
		return "", err
	}
	for _, s := range settings {
		line("setting=%s %s", q1(s.Key), q1(s.Value))
	}
	var blocks []blockRow
	if err := sel(ctx, q, &blocks, "SELECT "+counterBlockCols+" FROM blocks ORDER BY id"); err != nil {
		return "", err
	}
	for _, r := range blocks {
		line("block=%d %d %d %d %d %d %d %d %x %s", r.ID, r.Game, r.Number, r.FirstPack, r.Tickets, r.PackSize, r.Winners, r.Payout, r.Digest, q1(r.CreatedAt))
		var states []struct {
			Pack  int    `db:"pack"`
			State string `db:"state"`
		}
		if err := sel(ctx, q, &states, "SELECT pack, state FROM pack_states WHERE block = ? ORDER BY pack", r.ID); err != nil {
			return "", err
		}
		h := sha256.New()
		for _, s := range states {
			fmt.Fprintf(h, "%d %s\n", s.Pack, s.State)
		}
		line("packs=%d %d %x", r.ID, len(states), h.Sum(nil))
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
func tableDigest(ctx context.Context, q querier, table string, blockID int64) (int, [32]byte, error) {
	rows, err := queryRows(ctx, q, "SELECT id, records FROM "+table+" WHERE id >= ? AND id < ? ORDER BY id",
		finderID(blockID, 0), finderID(blockID+1, 0))
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

// verifyCounter checks a counter ledger: its seal (the signature, and
// every sealed table against it), its journal's chain from the issue, and
// every payment against its sealed ticket and the tickets kept paid.
func (l *Ledger) verifyCounter(ctx context.Context, progress func(done, total int)) (VerifyReport, error) {
	var rep VerifyReport
	tx, err := l.read(ctx)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	blocks, err := counterBlocks(ctx, tx)
	if err != nil {
		return rep, err
	}
	for _, b := range blocks {
		rep.Blocks++
		rep.Tickets += b.Tickets
	}
	s, err := signing.Verify([]byte(l.counter.seal), nil)
	if err != nil {
		rep.add("seal", "%v", err)
	} else {
		rep.Key = s.Key.String()
	}
	body, err := sealBody(ctx, tx)
	if err != nil {
		return rep, fmt.Errorf("verify: %w", err)
	}
	if signedBody, _, _ := strings.Cut(l.counter.seal, "public_key="); signedBody != body {
		rep.add("seal", "the sealed tables differ from what the back office signed: %s", firstDiff(signedBody, body))
	}
	if progress != nil {
		progress(rep.Tickets, rep.Tickets)
	}
	var entries []entry
	if err := sel(ctx, tx, &entries, "SELECT "+entryCols+" FROM journal ORDER BY id"); err != nil {
		return rep, err
	}
	digest := sealDigest(l.counter.seal)
	var prev []byte
	paid := map[int64]int64{}
	lastNum := map[string]int64{}
	for i := range entries {
		e := &entries[i]
		rep.Entries++
		where := fmt.Sprintf("journal entry %d", e.ID)
		if e.ID != int64(i+1) {
			rep.add(where, "is entry %d of the file: an entry was removed", i+1)
		}
		if !bytes.Equal(e.hash(prev), e.Hash) {
			rep.add(where, "hash does not match its contents and the previous entry: the entry or the one before it was changed")
		}
		prev = e.Hash
		if lastNum[e.Kind]+1 != e.Number {
			rep.add(where, "is number %d of its kind (%s), want %d: an entry was removed or renumbered", e.Number, e.Kind, lastNum[e.Kind]+1)
		}
		lastNum[e.Kind] = e.Number
		switch {
		case i == 0 && (e.Kind != "issue" || e.Detail != digest):
			rep.add(where, "the journal does not start with the issue of this seal")
		case i > 0 && e.Kind == "issue":
			rep.add(where, "a second issue entry")
		case e.Kind == "claim":
			sr, err := game.ParseSerial(e.Serial)
			if err != nil {
				rep.add(where, "serial %q: %v", e.Serial, err)
				continue
			}
			f, err := counterFacts(ctx, tx, sr)
			if err != nil {
				rep.add(where, "serial %s finds no ticket of the ledger", e.Serial)
				continue
			}
			if !e.Ticket.Valid || e.Ticket.Int64 != f.ticket || f.prize != e.Amount || f.prize == 0 {
				rep.add(where, "pays %d € for a ticket that wins %d €", e.Amount, f.prize)
			}
			if first, dup := paid[f.ticket]; dup {
				rep.add(where, "pays ticket %s again, already paid by entry %d", e.Serial, first)
			}
			paid[f.ticket] = e.ID
		}
	}
	rep.Head = hex.EncodeToString(prev)
	var kept []struct {
		Ticket int64 `db:"ticket"`
		Claim  int64 `db:"claim"`
	}
	if err := sel(ctx, tx, &kept, "SELECT ticket, claim FROM paid ORDER BY ticket"); err != nil {
		return rep, err
	}
	for _, p := range kept {
		if paid[p.Ticket] != p.Claim {
			rep.add(fmt.Sprintf("ticket %d", p.Ticket), "the ledger keeps it paid by entry %d; the journal says %d", p.Claim, paid[p.Ticket])
		}
		delete(paid, p.Ticket)
	}
	for t, c := range paid {
		rep.add(fmt.Sprintf("ticket %d", t), "entry %d pays it, but the ledger does not keep it paid", c)
	}
	if err := l.verifyStorage(ctx, tx, &rep); err != nil {
		return rep, fmt.Errorf("verify: %w", err)
	}
	return rep, nil
}

// firstDiff names the first line where two texts differ.
func firstDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("signed %q, found %q", x, y)
		}
	}
	return "no line differs"
}

// CounterSeal returns a counter ledger's signed seal.
func (l *Ledger) CounterSeal() (string, bool) {
	if l.counter == nil {
		return "", false
	}
	return l.counter.seal, true
}

// counterIssued is the back office's record of a counter ledger it issued:
// what the import of its payments trusts, rather than the file.
type counterIssued struct {
	entry         int64
	at            time.Time
	desk          string
	seal, genesis string
	limit         int            // the sealed payout limit, euros (0: none)
	threshold     int            // the sealed identity threshold, euros
	blocks        map[int64]bool // the ids of the sealed blocks
}

// issuedCounter reads the back office's record of counter ledger id. An
// issue recorded before the threshold and the blocks were named in it
// takes the threshold set then, and the blocks generated before it.
func issuedCounter(ctx context.Context, q querier, id string) (*counterIssued, error) {
	var e entry
	err := get(ctx, q, &e, "SELECT "+entryCols+" FROM journal WHERE kind = 'checkpoint' AND method = 'counter-ledger' AND request = ?", id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c := &counterIssued{entry: e.ID, at: parseTime(e.AtText), desk: e.Desk, limit: e.Amount, threshold: -1}
	for _, ln := range strings.Split(e.Detail, "\n") {
		k, v, _ := strings.Cut(ln, "=")
		switch k {
		case "seal":
			c.seal = v
		case "genesis":
			c.genesis = v
		case "identity_threshold":
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				c.threshold = n
			}
		case "blocks":
			c.blocks = map[int64]bool{}
			for _, f := range strings.Fields(v) {
				if n, err := strconv.ParseInt(f, 10, 64); err == nil {
					c.blocks[n] = true
				}
			}
		}
	}
	if c.threshold < 0 {
		c.threshold = defaultIdentityThreshold
		var v string
		err := get(ctx, q, &v, "SELECT detail FROM journal WHERE kind = 'setting' AND reason = ? AND id < ? ORDER BY id DESC LIMIT 1",
			SettingIdentityThreshold, e.ID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			c.threshold = n
		}
	}
	if c.blocks == nil {
		c.blocks = map[int64]bool{}
		var ids []int64
		if err := sel(ctx, q, &ids, `SELECT b.id FROM blocks b JOIN journal j ON j.kind = 'block' AND j.game = b.game
			AND j.block = b.number WHERE j.id < ?`, e.ID); err != nil {
			return nil, err
		}
		for _, id := range ids {
			c.blocks[id] = true
		}
	}
	return c, nil
}
