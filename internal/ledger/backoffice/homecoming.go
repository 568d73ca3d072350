package backoffice

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// Claims come home: a counter ledger exports its whole journal (the
// payments with every refused attempt between them, each with its hash) as
// JSON Lines, and the back office imports it. The back office recomputes
// the chain from the issue it recorded, checks every payment against its
// own tickets and records each once; a second import of the same file, or
// of a later one, records only what is new.

// ImportClaims records the payments of a counter ledger's export
// (ExportJournal) in this back office's ledger, in one transaction:
//
//   - the file must come from a counter ledger issued here, and its chain
//     must recompute from the issue recorded then, and still hold the last
//     entry an earlier import of it recorded: otherwise nothing is recorded;
//   - a payment already imported is skipped (the claim's request id is
//     "counter:" and the counter entry's hash);
//   - a payment of a ticket already paid is a double payment, recorded as
//     an 'import' entry (reason double-payment, ref = the first claim), not
//     paid again;
//   - a payment whose serial or amount is not the ticket's, of a block not
//     sealed in the counter ledger, above the payout limit sealed at the
//     issue, or dated outside what the counter's clock could say, is
//     recorded as an 'import' entry (serial-mismatch, amount-mismatch,
//     not-sealed, over-limit, bad-time), not paid;
//   - any other payment is recorded as a claim of the counter's desk at the
//     counter's time, the ticket kept paid; a payment outside the emission's
//     dates, of a pack not on sale then, or without the winner's identity
//     it needed is recorded and flagged (the claim's reason names it).
//
// Last, an 'import' entry (reason head, request = the counter ledger's id)
// records how many entries were imported and the last one's hash, which the
// next import checks.
func (o *Store) ImportClaims(ctx context.Context, r io.Reader, who core.Identity) (core.ImportReport, error) {
	var rep core.ImportReport
	hdr, xs, err := core.ReadExport(r)
	if err != nil {
		return rep, err
	}
	rep.Ledger, rep.Desk, rep.Entries = hdr.Ledger, hdr.Desk, len(xs)
	reject := func(kind string, entryID int64, format string, args ...any) (core.ImportReport, error) {
		rep.Rejected = true
		rep.Flags = append(rep.Flags, core.ImportFlag{Entry: entryID, Kind: kind, What: fmt.Sprintf(format, args...)})
		return rep, nil
	}
	entries := make([]core.Entry, len(xs))
	var prev []byte
	for i := range xs {
		e, err := xs[i].Entry()
		if err != nil {
			return reject("broken-chain", xs[i].ID, "%v", err)
		}
		if e.ID != int64(i+1) {
			return reject("broken-chain", e.ID, "is line %d of the journal: an entry was removed or added", i+2)
		}
		if !bytes.Equal(e.ChainHash(prev), e.Hash) {
			return reject("broken-chain", e.ID, "its hash does not match its contents and the entry before it: the file was changed")
		}
		prev, entries[i] = e.Hash, e
	}
	if len(entries) > 0 {
		rep.Head = hex.EncodeToString(prev)
	}
	tx, err := o.write(ctx)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	issued, err := ReadIssue(ctx, tx, hdr.Ledger)
	if err != nil {
		return rep, o.classify(err)
	}
	switch {
	case issued == nil:
		return reject("not-issued", 0, "counter ledger %s was not issued by this back office (ledger %s)", hdr.Ledger, o.ID)
	case len(entries) == 0 || entries[0].Kind != "issue" || hex.EncodeToString(entries[0].Hash) != issued.Genesis ||
		entries[0].Detail != issued.Seal || hdr.Seal != issued.Seal:
		return reject("broken-chain", 1, "the journal does not start with the issue recorded here on %s", issued.At.Local().Format("02/01/2006 15:04"))
	case hdr.Desk != issued.Desk:
		return reject("broken-chain", 0, "the file says desk %q; the ledger was issued to desk %q", hdr.Desk, issued.Desk)
	}
	for i := range entries {
		if entries[i].Desk != issued.Desk {
			return reject("broken-chain", entries[i].ID, "names desk %q; the ledger was issued to desk %q, and a counter ledger records its own desk only", entries[i].Desk, issued.Desk)
		}
	}
	var last core.Entry
	err = core.Get(ctx, tx, &last, "SELECT "+core.EntryCols+" FROM journal WHERE kind = 'import' AND reason = 'head' AND request = ? ORDER BY id DESC LIMIT 1", hdr.Ledger)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return rep, o.classify(err)
	}
	done := 0 // entries imported before
	if err == nil {
		n, head := parseHead(last.Detail)
		switch {
		case n > len(entries):
			return reject("rewritten", 0, "an import on %s recorded %d entries; the file holds %d: an older export, or a rewritten journal",
				core.ParseTime(last.AtText).Local().Format("02/01/2006 15:04"), n, len(entries))
		case n > 0 && hex.EncodeToString(entries[n-1].Hash) != head:
			return reject("rewritten", int64(n), "differs from the entry imported on %s (hash %s…): the counter's journal was rewritten",
				core.ParseTime(last.AtText).Local().Format("02/01/2006 15:04"), head[:16])
		}
		done = n
	}
	recorded := 0
	bounds := paymentTimes{issued: entries[0].At, now: o.now()}
	for i := range entries {
		e := &entries[i]
		switch e.Kind {
		case "claim":
			rep.Payments++
			fresh, err := o.importPayment(ctx, tx, e, xs[i].Winner, issued, bounds, &rep)
			if err != nil {
				return rep, err
			}
			if fresh {
				recorded++
			}
			if at := core.ParseTime(e.AtText); bounds.check(at) == "" {
				bounds.previous = at // a forged time moves no bound
			}
		case "refusal":
			if e.Reason == string(core.UnknownSerial) {
				rep.Refused++
			}
		}
	}
	if recorded > 0 || len(entries) > done {
		h := core.Entry{Kind: "import", Reason: "head", Request: hdr.Ledger, Desk: hdr.Desk, Operator: who.Operator, Amount: recorded,
			Detail: "entries=" + strconv.Itoa(len(entries)) + "\nhead=" + rep.Head}
		if err := o.appendJournal(ctx, tx, &h); err != nil {
			return rep, err
		}
	}
	if err := tx.Commit(); err != nil {
		return rep, o.classify(err)
	}
	return rep, nil
}

// parseHead reads the detail of an import's head entry.
func parseHead(detail string) (n int, head string) {
	for _, ln := range strings.Split(detail, "\n") {
		k, v, _ := strings.Cut(ln, "=")
		switch k {
		case "entries":
			n, _ = strconv.Atoi(v)
		case "head":
			head = v
		}
	}
	return n, head
}

// clockSkew is how far ahead of the back office's clock a counter's may
// run: a payment dated later than the import by more is forged.
const clockSkew = 15 * time.Minute

// paymentTimes bound a counter's payment's time: not before the counter
// ledger's issue, not after the import (give or take clockSkew), not
// before the latest payment before it in the counter's chain.
type paymentTimes struct {
	issued, now, previous time.Time
}

// check says what is wrong with time at, or "".
func (b paymentTimes) check(at time.Time) string {
	switch {
	case at.Before(b.issued):
		return "before the counter ledger's issue on " + b.issued.Local().Format("02/01/2006 15:04:05")
	case at.After(b.now.Add(clockSkew)):
		return "after this import (" + b.now.Local().Format("02/01/2006 15:04:05") + ")"
	case at.Before(b.previous):
		return "before the counter's previous payment, of " + b.previous.Local().Format("02/01/2006 15:04:05")
	}
	return ""
}

// importPayment records one payment of a counter (see ImportClaims), and
// reports whether it recorded anything. What the counter could pay (its
// blocks, payout limit and identity threshold) is the back office's record
// of the issue, not the file's.
func (o *Store) importPayment(ctx context.Context, tx core.Querier, e *core.Entry, winner *core.Winner, issued *IssueRecord,
	times paymentTimes, rep *core.ImportReport) (bool, error) {
	request := "counter:" + hex.EncodeToString(e.Hash)
	var seen int
	if err := core.Get(ctx, tx, &seen, "SELECT count(*) FROM journal WHERE request = ? AND kind IN ('claim', 'import')", request); err != nil {
		return false, o.classify(err)
	}
	if seen > 0 {
		rep.Already++
		return false, nil
	}
	flag := func(kind, format string, args ...any) {
		rep.Flags = append(rep.Flags, core.ImportFlag{Entry: e.ID, Kind: kind, Serial: e.Serial, Amount: e.Amount, What: fmt.Sprintf(format, args...)})
	}
	at := core.ParseTime(e.AtText)
	base := core.Entry{At: at, Ticket: e.Ticket, Serial: e.Serial, Game: e.Game, Block: e.Block, Position: e.Position,
		Amount: e.Amount, Desk: e.Desk, Operator: e.Operator, Method: e.Method, Request: request}
	record := func(x core.Entry) (bool, error) {
		if err := o.appendJournal(ctx, tx, &x); err != nil {
			return false, err
		}
		return true, nil
	}
	refuse := func(kind, format string, args ...any) (bool, error) {
		flag(kind, format, args...)
		x := base
		x.Kind, x.Reason, x.Ticket = "import", kind, sql.NullInt64{}
		return record(x)
	}
	if at.IsZero() || core.CheckText("desk", e.Desk, core.MaxText) != nil || core.CheckText("operator", e.Operator, core.MaxText) != nil {
		return refuse("serial-mismatch", "the payment's time, desk or operator is not readable")
	}
	if what := times.check(at); what != "" {
		return refuse("bad-time", "ticket %s paid on %s, %s: a forged record", e.Serial, at.Local().Format("02/01/2006 15:04:05"), what)
	}
	s, err := game.ParseSerial(e.Serial)
	if err != nil {
		return refuse("serial-mismatch", "serial %q: %v", e.Serial, err)
	}
	b, err := GetBlock(ctx, tx, s.Game, s.Block)
	if errors.Is(err, core.ErrNotFound) {
		return refuse("serial-mismatch", "serial %s names block %d/%d, which this ledger does not hold", e.Serial, s.Game, s.Block)
	}
	if err != nil {
		return false, o.classify(err)
	}
	if !issued.Blocks[b.ID] {
		return refuse("not-sealed", "serial %s is a ticket of block %s, which counter ledger %s does not hold: the counter could not have found it",
			e.Serial, b.Name(), rep.Ledger)
	}
	if s.Game != e.Game || s.Block != e.Block || s.Position != e.Position || !e.Ticket.Valid || e.Ticket.Int64 != b.First()+int64(s.Position) ||
		b.Key.Secret(s.Position) != s.Secret {
		return refuse("serial-mismatch", "serial %s is not the serial of ticket %d of block %s: its secret part is wrong (a forged payment)",
			e.Serial, s.Position, b.Name())
	}
	_, pb, err := StoredTicket(ctx, tx, b, s.Position)
	if err != nil {
		return false, err
	}
	prize, _ := core.PrizeOf(pb)
	if prize == 0 || prize != e.Amount {
		return refuse("amount-mismatch", "pays %s for ticket %s, which wins %s", game.FormatAmount(e.Amount), e.Serial, game.FormatAmount(prize))
	}
	// The desk's rules as sealed: a prize above the limit was the back
	// office's to pay; one from the threshold on records an identity.
	identity := e.Detail != ""
	deskRule := core.Decide(&core.Facts{Prize: prize, PackState: "on-sale"}, core.Rules{At: e.AtText, Limit: issued.Limit, Threshold: issued.Threshold, Identity: identity})
	if deskRule == core.OverLimit {
		return refuse("over-limit", "pays %s for ticket %s, above the payout limit of %s sealed in the counter's ledger: the back office pays it",
			game.FormatAmount(prize), e.Serial, issued.Limit)
	}
	first, err := PaidClaim(ctx, tx, e.Ticket.Int64)
	if err != nil {
		return false, err
	}
	if first != nil {
		flag("double-payment", "ticket %s was paid %s on %s at desk %q (payment %d), and again on %s at desk %q: %s to recover",
			e.Serial, game.FormatAmount(first.Amount), first.At.Local().Format("02/01/2006 15:04"), first.Desk, first.Number,
			at.Local().Format("02/01/2006 15:04"), e.Desk, game.FormatAmount(e.Amount))
		x := base
		x.Kind, x.Reason, x.Ref = "import", "double-payment", sql.NullInt64{Int64: first.Entry, Valid: true}
		return record(x)
	}
	// The rules at the payment's time, as the back office knows them now.
	em, err := ReadDates(ctx, tx, b.Game)
	if err != nil {
		return false, err
	}
	state, err := packStateAt(ctx, tx, b, s.Pack(), e.AtText)
	if err != nil {
		return false, o.classify(err)
	}
	reason := ""
	switch v := core.Decide(&core.Facts{Prize: prize, PackState: state}, core.Rules{Dates: em, At: e.AtText, Limit: issued.Limit, Threshold: issued.Threshold, Identity: identity}); v {
	case core.NotYetOnSale, core.Expired, core.Stolen, core.NotActivated:
		reason = string(v)
		flag(reason, "ticket %s paid on %s: %s", e.Serial, at.Local().Format("02/01/2006 15:04"), ruleWords[v])
	}
	// Paid without the winner's identity it needed, or with one the file
	// does not hold: the money is gone, so recorded, and flagged for the
	// identity to be found.
	keepWinner := identity && winner != nil && winner.Given() && core.IdentityHash(winner) == e.Detail
	switch {
	case deskRule == core.IdentityRequired:
		flag("identity-missing", "pays %s for ticket %s without the winner's identity, required from %s",
			game.FormatAmount(prize), e.Serial, game.FormatAmount(issued.Threshold))
	case identity && !keepWinner:
		flag("identity-missing", "the payment records a winner's identity that the file does not hold")
	}
	if reason == "" && (deskRule == core.IdentityRequired || identity && !keepWinner) {
		reason = "identity-missing"
	}
	x := base
	x.Kind, x.Reason, x.Detail = "claim", reason, e.Detail
	if err := o.appendJournal(ctx, tx, &x); err != nil {
		return false, err
	}
	if _, err := core.Exec(ctx, tx, "INSERT INTO paid (ticket, claim) VALUES (?, ?)", e.Ticket.Int64, x.ID); err != nil {
		return false, o.classify(err)
	}
	rep.Recorded++
	if keepWinner {
		if _, err := core.Exec(ctx, tx, "INSERT INTO identities (claim, name, doc_type, doc_number) VALUES (?, ?, ?, ?)",
			x.ID, winner.Name, winner.DocType, winner.DocNumber); err != nil {
			return false, o.classify(err)
		}
	}
	return true, nil
}

var ruleWords = map[core.Verdict]string{
	core.NotYetOnSale: "before the emission's on-sale date",
	core.Expired:      "after the claim deadline",
	core.Stolen:       "its pack was reported stolen",
	core.NotActivated: "its pack was not on sale then",
}

// packStateAt is the state of pack p of block b at time at (text), from
// the journal's moves of packs.
func packStateAt(ctx context.Context, q core.Querier, b core.Block, p int, at string) (string, error) {
	var state string
	err := core.Get(ctx, q, &state, `SELECT state FROM journal WHERE kind = 'packs' AND game = ? AND block = ?
		AND pack_first <= ? AND pack_last >= ? AND at <= ? ORDER BY id DESC LIMIT 1`, b.Game, b.Number, p, p, at)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return state, err
}

// IssueRecord is the back office's record of a counter ledger it issued:
// what the import of its payments trusts, rather than the file.
type IssueRecord struct {
	Entry         int64
	At            time.Time
	Desk          string
	Seal, Genesis string
	Limit         core.Limit     // the sealed payout limit
	Threshold     int            // the sealed identity threshold, euros
	Blocks        map[int64]bool // the ids of the sealed blocks
}

// ReadIssue reads the back office's record of counter ledger id. An
// issue recorded before the threshold and the blocks were named in it
// takes the threshold set then, and the blocks generated before it.
func ReadIssue(ctx context.Context, q core.Querier, id string) (*IssueRecord, error) {
	var e core.Entry
	err := core.Get(ctx, q, &e, "SELECT "+core.EntryCols+" FROM journal WHERE kind = 'checkpoint' AND method = 'counter-ledger' AND request = ?", id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c := &IssueRecord{Entry: e.ID, At: core.ParseTime(e.AtText), Desk: e.Desk, Limit: core.LimitOf(e.Amount), Threshold: -1}
	for _, ln := range strings.Split(e.Detail, "\n") {
		k, v, _ := strings.Cut(ln, "=")
		switch k {
		case "seal":
			c.Seal = v
		case "genesis":
			c.Genesis = v
		case "identity_threshold":
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				c.Threshold = n
			}
		case "blocks":
			c.Blocks = map[int64]bool{}
			for _, f := range strings.Fields(v) {
				if n, err := strconv.ParseInt(f, 10, 64); err == nil {
					c.Blocks[n] = true
				}
			}
		}
	}
	if c.Threshold < 0 {
		c.Threshold = core.DefaultIdentityThreshold
		var v string
		err := core.Get(ctx, q, &v, "SELECT detail FROM journal WHERE kind = 'setting' AND reason = ? AND id < ? ORDER BY id DESC LIMIT 1",
			core.SettingIdentityThreshold, e.ID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			c.Threshold = n
		}
	}
	if c.Blocks == nil {
		c.Blocks = map[int64]bool{}
		var ids []int64
		if err := core.Select(ctx, q, &ids, `SELECT b.id FROM blocks b JOIN journal j ON j.kind = 'block' AND j.game = b.game
			AND j.block = b.number WHERE j.id < ?`, e.ID); err != nil {
			return nil, err
		}
		for _, id := range ids {
			c.Blocks[id] = true
		}
	}
	return c, nil
}
