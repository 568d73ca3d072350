// Package counter is the sealed counter ledger: a SQLite file of its own
// kind (counter.sql) that the back office writes for one offline counter
// (Issue): its blocks as sealed records (records.go), the packs' states,
// the emissions' dates and the desk's payout limit at the issue, all
// signed by the back office's key; then the counter's own journal of
// payments and refused attempts, which comes home (ExportJournal,
// backoffice.ImportClaims). Lookups, claims and searches by contents
// decide in Go with core's rule, as a SQLite back office does; what needs a
// prize in clear or a serial key is refused.
package counter

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/ledger/tables"
)

// ApplicationID marks a SQLite file as a sealed counter ledger ("VGDC").
const ApplicationID = 0x56474443

// counterSQL is counter.sql with the tables declared once for every
// engine (internal/ledger/tables) written in.
var counterSQL = sync.OnceValue(func() string { return tables.Counter.Expand(counterText) })

//go:embed counter.sql
var counterText string

// SchemaDigest is the digest of sqlite_master in a counter ledger file
// (sqlite.Schema.Digest). A change of counter.sql changes it:
// TestSchemaDigests prints the new one.
const SchemaDigest = "d82e9b6304170a337d380202400d6d3f7b1068640cad8202f6ed5751fc7df011"

// Schema is a counter ledger's schema (counter.sql).
var Schema = sqlite.NewSchema(counterSQL, SchemaDigest)

// Backend is an open sealed counter ledger.
type Backend struct {
	file       *sqlite.File
	store      *backoffice.Store // the tables it shares with a back office's
	desk       string
	backOffice string                // the issuing ledger's id
	limit      core.Limit            // the desk's payout limit, sealed
	seal       string                // the signed seal text
	blocks     backoffice.BlockCache // the sealed blocks its questions read (blockOf)
}

// Open opens the counter ledger at path (it is never made by opening: the
// back office issues it); now gives the time of what it records.
func Open(path string, readOnly bool, now func() time.Time) (*Backend, error) {
	f, err := sqlite.Open(path, readOnly, sqlite.Kind{AppID: ApplicationID, Schema: Schema})
	if err != nil {
		return nil, err
	}
	meta, err := f.Meta(context.Background())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	limit, lerr := strconv.Atoi(meta["payout_limit"])
	if meta["kind"] != "counter" || meta["id"] == "" || lerr != nil || limit < 0 || meta["desk"] == "" || meta["seal"] == "" || meta["back_office"] == "" {
		f.Close()
		return nil, fmt.Errorf("open ledger %s: %w: a counter ledger whose description is damaged", path, core.ErrNotLedger)
	}
	b := &Backend{file: f, desk: meta["desk"], backOffice: meta["back_office"], limit: core.LimitOf(limit), seal: meta["seal"]}
	b.blocks.Read = blockOf
	b.store = &backoffice.Store{E: engine{sqlite.Engine{F: f}}, ID: meta["id"], Location: path, ReadOnly: readOnly, Now: now}
	return b, nil
}

// Info says what the ledger is.
func (b *Backend) Info() core.Info {
	return core.Info{Location: b.store.Location, Kind: "counter", ID: b.store.ID, ReadOnly: b.store.ReadOnly, Desk: b.desk, Limit: b.limit}
}

// Seal is the ledger's signed seal.
func (b *Backend) Seal() string { return b.seal }

// Close closes the file.
func (b *Backend) Close() error { return b.file.Close() }

// Ping says the file answers.
func (b *Backend) Ping(ctx context.Context) error {
	if err := b.store.E.Failed(); err != nil {
		return err
	}
	return b.file.R.PingContext(ctx)
}

// Refuse refuses the back office's work: a counter ledger holds no prize in
// clear and no serial key.
func (b *Backend) Refuse(what string) error {
	return fmt.Errorf("%s: %w: %s is the sealed ledger of counter %s, which holds no prize in clear; do it on the back office's ledger",
		what, core.ErrCounterOnly, b.store.Location, b.desk)
}

// Questions are the back office's questions (backoffice/question.go)
// on the sealed records (sealed, the Source), asked by core.Ask: an entry
// keeps no serial's secret part (forgetSecrets), and the payout limit is
// the sealed one. A counter ledger locks no one out; its questions are
// its desk's (Info.Desk: the ledger asks as its desk).
func (b *Backend) Questions() core.Questions {
	return core.Local{Storage: b.store.FileStorage(sealed{b}, forgetSecrets)}
}

// blockCols read a counter ledger's blocks, which hold no serial key.
const blockCols = "id, game, number, first_pack, tickets, pack_size, winners, payout, x'' AS serial_key, digest, created_at"

// blocks lists a counter ledger's blocks, by game and number.
func blocks(ctx context.Context, q core.Querier) ([]core.Block, error) {
	var rows []backoffice.BlockRow
	if err := core.Select(ctx, q, &rows, "SELECT "+blockCols+" FROM blocks ORDER BY game, number"); err != nil {
		return nil, fmt.Errorf("list blocks: %w", err)
	}
	out := make([]core.Block, len(rows))
	for i := range rows {
		out[i] = rows[i].Block()
	}
	return out, nil
}

// blockOf is sealed block number of game gameCode.
func blockOf(ctx context.Context, q core.Querier, gameCode, number int) (core.Block, error) {
	var r backoffice.BlockRow
	if err := core.Get(ctx, q, &r, "SELECT "+blockCols+" FROM blocks WHERE game = ? AND number = ?", gameCode, number); err != nil {
		return core.Block{}, err
	}
	return r.Block(), nil
}

// Blocks lists the sealed blocks.
func (b *Backend) Blocks(ctx context.Context) ([]core.Block, error) {
	bs, err := blocks(ctx, b.file.R)
	return bs, sqlite.Classify(err)
}

// facts finds the ticket of serial s by its serial record, which only the
// full serial finds and opens; its block read from blocks, once. The
// record's code is decoded (the prize is its contents', the file holding
// none in clear); one that does not decode is another serial's record
// with the same index (2^-96): the sealed records were written of a
// verified block, and the seal's digest, which verify checks, is what
// tells a record altered since.
func facts(ctx context.Context, q core.Querier, blocks *backoffice.BlockCache, s game.Serial) (*core.Facts, error) {
	unknown := &core.Refusal{Verdict: core.UnknownSerial, Serial: s.String()}
	b, err := blocks.Get(ctx, q, s.Game, s.Block)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unknown
	}
	if err != nil {
		return nil, err
	}
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
		if err != nil {
			continue // another serial's record with the same index
		}
		f := &core.Facts{Block: b, Position: s.Position, Ticket: b.TicketNumber(s.Position), Secret: s.Secret,
			Prize: game.Prize(&t), Code: code, Contents: &t}
		if err := backoffice.TicketState(ctx, q, f); err != nil {
			return nil, err
		}
		if f.Paid == nil {
			if f.Paid, err = paidBefore(ctx, q, f); err != nil {
				return nil, err
			}
		}
		return f, nil
	}
	return nil, unknown
}

// paidBefore is the payment of f's ticket made before the issue, or nil: a
// claim whose entry is the issue, which sealed it.
func paidBefore(ctx context.Context, q core.Querier, f *core.Facts) (*core.Claim, error) {
	var rows []struct {
		backoffice.PaidBefore
		Issue int64 `db:"issue"`
	}
	err := core.Select(ctx, q, &rows, `SELECT ticket, number, at, desk, operator, amount,
		(SELECT id FROM journal WHERE kind = 'issue') AS issue FROM paid_before WHERE ticket = ?`, f.Ticket)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	p := rows[0]
	s := game.Serial{Game: f.Block.Game, Block: f.Block.Number, Position: f.Position, Secret: f.Secret}
	return &core.Claim{Entry: p.Issue, Number: p.Number, Serial: s.String(), Game: f.Block.Game, Block: f.Block.Number,
		Position: f.Position, Amount: p.Amount, Desk: p.Desk, Operator: p.Operator, Method: "issue", At: core.ParseTime(p.At)}, nil
}

// sealed reads a question's tickets from the sealed records.
type sealed struct{ b *Backend }

// Prior: the file's journal, as a back office's.
func (sealed) Prior(ctx context.Context, q core.Querier, desk, request string) (*core.Entry, *core.Claim, error) {
	return backoffice.Tables{}.Prior(ctx, q, desk, request)
}

// Facts: nil for an unknown serial.
func (r sealed) Facts(ctx context.Context, q core.Querier, s game.Serial) (*core.Facts, error) {
	f, err := facts(ctx, q, &r.b.blocks, s)
	if r := (*core.Refusal)(nil); errors.As(err, &r) {
		return nil, nil
	}
	return f, err
}

// Rules: the dates and identity threshold sealed at the issue, and the
// sealed payout limit lowered by asked.
func (r sealed) Rules(ctx context.Context, q core.Querier, gameCode int, _ string, asked core.Limit, at time.Time) (core.Rules, error) {
	return backoffice.ReadRules(ctx, q, gameCode, r.b.limit, asked, at)
}

func (sealed) Blocks(ctx context.Context, q core.Querier) ([]core.Block, error) {
	return blocks(ctx, q)
}

// Candidates are the facts of block b's winners whose contents records
// code's index finds.
func (r sealed) Candidates(ctx context.Context, q core.Querier, b core.Block, code []byte) ([]*core.Facts, error) {
	h := contentsHash(b.Game, b.Number, code)
	recs, err := findRecords(ctx, q, "contents", b.ID, h[:sealIndexSize], contentsRecordSize)
	if err != nil {
		return nil, err
	}
	var fs []*core.Facts
	for j, rec := range recs {
		pad := contentsPad(&h, j)
		pos, secret := openContents(rec[sealIndexSize:], &pad)
		f, err := facts(ctx, q, &r.b.blocks, game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: secret})
		if r := (*core.Refusal)(nil); errors.As(err, &r) {
			continue // damaged: verify names it
		}
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// forgetSecrets makes an entry keep no serial's secret part: the file may
// be copied or lost. A payment keeps the public part and the serial's
// proof, which the back office checks at the import (core.SerialProof),
// with the hash of the winner's identity; a refusal or a referral keeps
// the public part, and neither the ticket's number nor its prize (the
// answer at the counter still shows the prize, read from the sealed
// record). s is the serial the question asked, parsed once (the entry's
// serial, in full, is its text).
func forgetSecrets(e *core.Entry, s game.Serial) {
	switch {
	case e.Kind == "claim":
		e.Detail = core.ClaimDetail(core.SerialProof(s), e.Detail)
	case e.Kind == "refusal" || e.Kind == "referral":
		e.Ticket, e.Amount = sql.NullInt64{}, 0
	}
	if e.Serial != "" {
		e.Serial = game.PublicSerial(e.Game, e.Block, e.Position)
	}
}

// Claims lists the counter's payments that f selects.
func (b *Backend) Claims(ctx context.Context, f core.ClaimFilter) ([]core.Claim, error) {
	return b.store.Claims(ctx, f)
}

// VoidsBetween: a counter voids nothing (the back office does).
func (b *Backend) VoidsBetween(context.Context, string, time.Time, time.Time) ([]core.Claim, error) {
	return nil, nil
}

// ReferralsBetween lists the counter's referrals from since until before
// until: their serials are the part printed outside the ticket, their
// amounts 0 (forgetSecrets).
func (b *Backend) ReferralsBetween(ctx context.Context, desk string, since, until time.Time) ([]core.Referral, error) {
	return b.store.ReferralsBetween(ctx, desk, since, until)
}

// Packs lists the packs' states sealed at the issue, the issue their last
// move; the stock is nobody's.
func (b *Backend) Packs(ctx context.Context, f core.PackFilter) ([]core.PackRun, error) {
	if err := core.CheckPackFilter(f); err != nil || f.State == "stock" {
		return nil, err
	}
	var rows []core.PackRow
	err := core.Select(ctx, b.file.R, &rows, `SELECT b.game, b.number AS block, s.pack, s.state, '' AS desk, j.id AS entry, j.at, j.operator, 'issue' AS method
		FROM pack_states s JOIN blocks b ON b.id = s.block JOIN journal j ON j.kind = 'issue'
		ORDER BY b.game, b.number, s.pack`)
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", sqlite.Classify(err))
	}
	return core.PackRuns(rows, f), nil
}

// PackEntries: a counter ledger records no move of packs.
func (b *Backend) PackEntries(context.Context, core.PackEntryFilter) ([]core.PackEntry, error) {
	return nil, nil
}

// MovePacks is refused: the packs are sealed as they were at the issue.
func (b *Backend) MovePacks(_ context.Context, m core.PackMove, _ core.Identity) error {
	return fmt.Errorf("%s packs: %w: %s is the sealed ledger of counter %s, whose packs are sealed as they were at its issue; move them on the back office's ledger, then issue a new counter ledger",
		m.Move, core.ErrCounterOnly, b.store.Location, b.desk)
}

// Game reads a game's row as sealed.
func (b *Backend) Game(ctx context.Context, code int) (core.Game, error) {
	return b.store.Game(ctx, code)
}

// Head is the counter's journal's head.
func (b *Backend) Head(ctx context.Context) (string, error) { return b.store.Head(ctx) }

// CheckHead: see backoffice.CheckHead.
func (b *Backend) CheckHead(ctx context.Context, head string) (core.Anchor, error) {
	tx, err := b.file.R.BeginTxx(ctx, nil)
	if err != nil {
		return core.Anchor{}, err
	}
	defer tx.Rollback()
	ps, err := sqlite.Storage(ctx, tx, []sqlite.StorageTable{sqlite.JournalStorage}, 1)
	if err != nil {
		return core.Anchor{}, err
	}
	return backoffice.CheckHead(ctx, tx, head, ps)
}

// engine is what the counter's file gives the store of the tables it
// shares with a back office (its journal, paid, identities, games,
// settings): a file's, but it keeps its own tables.
type engine struct{ sqlite.Engine }

// Skeletonless: a counter ledger's identities keep no skeleton
// (counter.sql); the back office keeps it when it imports them.
func (engine) Skeletonless() {}

func (e engine) Storage(ctx context.Context, q core.Querier, journalOnly bool, limit int) ([]core.Problem, error) {
	tables := []sqlite.StorageTable{sqlite.JournalStorage, sqlite.Paid, keptPackStates, sqlite.Settings, sqlite.Identities}
	if journalOnly {
		tables = tables[:1]
	}
	return sqlite.Storage(ctx, q, tables, limit)
}

// keptPackStates is a counter ledger's pack_states: sealed without desk and
// entry.
var keptPackStates = sqlite.StorageTable{Name: "pack_states", Key: "quote(block) || '/' || quote(pack)", Cols: sqlite.Columns("block:integer, pack:integer, state:text")}

// File is the ledger's file: its connections.
func (b *Backend) File() *sqlite.File { return b.file }

// Tables is the store of the tables the counter ledger shares with a back
// office's (its journal, paid, identities, games, settings).
func (b *Backend) Tables() *backoffice.Store { return b.store }
