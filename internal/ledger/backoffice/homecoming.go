package backoffice

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
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
//   - a payment of a ticket already paid is a double payment: recorded as
//     a claim all the same (the cash left the counter's drawer), its
//     reason double-payment and its ref the payment before it, an open
//     case (core.Case) until a decision closes it (CloseCase);
//   - a second payment of one ticket in the same desk's counter ledgers
//     (which pay a ticket once: a forged entry) is flagged double-payment
//     and recorded as an 'import' entry, not paid;
//   - a payment whose serial or amount is not the ticket's, of a block not
//     sealed in the counter ledger, above the payout limit sealed at the
//     issue, or dated outside what the counter's clock could say, is
//     recorded as an 'import' entry (serial-mismatch, amount-mismatch,
//     not-sealed, over-limit, bad-time), not paid;
//   - any other payment is recorded as a claim of the counter's desk at the
//     counter's time, the ticket kept paid; a payment outside the emission's
//     dates, of a pack not on sale then, or without the winner's identity
//     it needed is recorded and flagged (the claim's reason names it);
//   - a referral (a prize above the counter's limit it sent here) is
//     recorded as the back office's referral of the ticket, at the
//     counter's time (ImportReport.Referred), listed by Referrals.
//
// Last, an 'import' entry (reason head, request = the counter ledger's id)
// records how many entries were imported and the last one's hash, which the
// next import checks.
func (o *Store) ImportClaims(ctx context.Context, r io.Reader, who core.Identity) (core.ImportReport, error) {
	var rep core.ImportReport
	// The file is read whole, to a temporary file, before the ledger is
	// written: a stream that stalls holds no lock.
	spool, err := spoolExport(r)
	if err != nil {
		return rep, err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	rd := core.NewExportReader(spool)
	hdr, err := rd.Header()
	if err != nil {
		return rep, err
	}
	rep.Ledger, rep.Desk = hdr.Ledger, hdr.Desk
	reject := func(kind string, entryID int64, format string, args ...any) (core.ImportReport, error) {
		// Nothing is recorded: the rejection is the whole report.
		rep = core.ImportReport{Ledger: hdr.Ledger, Desk: hdr.Desk, Entries: rep.Entries, Rejected: true,
			Flags: []core.ImportFlag{{Entry: entryID, Kind: kind, What: fmt.Sprintf(format, args...)}}}
		return rep, nil
	}
	tx, err := o.write(ctx)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	issued, err := ReadIssue(ctx, tx, hdr.Ledger)
	switch {
	case err != nil:
		return rep, o.E.Classify(err)
	case issued == nil:
		return reject("not-issued", 0, "counter ledger %s was not issued by this back office (ledger %s)", hdr.Ledger, o.ID)
	case hdr.Desk != issued.Desk:
		return reject("broken-chain", 0, "the file says desk %q; the ledger was issued to desk %q", hdr.Desk, issued.Desk)
	case hdr.BackOffice != o.ID:
		return reject("not-issued", 0, "the file names back office %s; this one is %s", hdr.BackOffice, o.ID)
	}
	c := chain{issued: issued, seal: hdr.Seal, numbers: map[string]int64{}}
	if c.done, c.head, c.headAt, err = lastImport(ctx, tx, hdr.Ledger); err != nil {
		return rep, o.E.Classify(err)
	}
	im := importer{o: o, tx: tx, issued: issued, rep: &rep, times: paymentTimes{now: o.now()}}
	if im.seen, err = importedRequests(ctx, tx, issued.Desk); err != nil {
		return rep, o.E.Classify(err)
	}
	for n := int64(1); ; n++ {
		e, winner, err := rd.Next()
		if errors.Is(err, io.EOF) {
			if int(n-1) < c.done {
				return reject("rewritten", 0, "an import on %s recorded %d entries; the file holds %d: an older export, or a rewritten journal",
					c.headAt, c.done, n-1)
			}
			break
		}
		if err != nil {
			return core.ImportReport{}, err
		}
		rep.Entries = int(n)
		if kind, id, what := c.fault(&e, n); kind != "" {
			return reject(kind, id, "%s", what)
		}
		c.prev, c.numbers[e.Kind] = e.Hash, e.Number
		switch e.Kind {
		case "issue": // the first entry's, its hash the one recorded here
			im.times.issued = e.At
		case "claim":
			if what := payerWords(&e); what != "" {
				return reject("broken-chain", e.ID, "%s: not what a counter ledger records", what)
			}
			if err := im.payment(ctx, &e, winner); err != nil {
				return rep, err
			}
			if im.flagsLeft() < 0 {
				return reject("forged", e.ID, "more than %d payments of the file are flagged: a forged file; nothing was recorded", core.MaxProblems)
			}
		case "refusal":
			if e.Reason == string(core.UnknownSerial) {
				rep.Refused++
			}
		case "referral":
			if err := im.referral(ctx, &e); err != nil {
				return rep, err
			}
			if im.flagsLeft() < 0 {
				return reject("forged", e.ID, "more than %d entries of the file are flagged: a forged file; nothing was recorded", core.MaxProblems)
			}
		}
	}
	rep.Head = hex.EncodeToString(c.prev)
	if rep.Recorded > 0 || rep.Referred > 0 || rep.Entries > c.done {
		h := core.Entry{Kind: "import", Reason: "head", Request: hdr.Ledger, Desk: hdr.Desk, Operator: who.Operator, Amount: rep.Recorded,
			Detail: "entries=" + strconv.Itoa(rep.Entries) + "\nhead=" + rep.Head}
		if err := o.appendJournal(ctx, tx, &h); err != nil {
			return rep, err
		}
	}
	if err := tx.Commit(); err != nil {
		return rep, o.E.Classify(err)
	}
	return rep, nil
}

// chain follows a counter's journal through its export, from the issue
// recorded here to the head an earlier import recorded (done entries).
type chain struct {
	issued       *IssueRecord
	seal         string // the export's header's
	numbers      map[string]int64
	prev         []byte
	done         int
	head, headAt string
}

// fault says how entry e, the file's n-th, breaks the chain: the flag's
// kind, the entry it names and what is wrong; kind "" when it holds.
func (c *chain) fault(e *core.Entry, n int64) (kind string, id int64, what string) {
	broken := func(id int64, format string, args ...any) (string, int64, string) {
		return "broken-chain", id, fmt.Sprintf(format, args...)
	}
	switch {
	case e.ID != n:
		return broken(e.ID, "is entry %d of the file: an entry was removed or added", n)
	case !bytes.Equal(e.ChainHash(c.prev), e.Hash):
		return broken(e.ID, "its hash does not match its contents and the entry before it: the file was changed")
	case n == 1 && (e.Kind != "issue" || hex.EncodeToString(e.Hash) != c.issued.Genesis || e.Detail != c.issued.Seal || c.seal != c.issued.Seal):
		return broken(1, "the journal does not start with the issue recorded here on %s", c.issued.At.Local().Format("02/01/2006 15:04"))
	case n > 1 && e.Kind == "issue":
		return broken(e.ID, "a second issue entry: a counter ledger has one")
	case e.Number != c.numbers[e.Kind]+1:
		return broken(e.ID, "is number %d of its kind (%s), want %d: an entry was removed or renumbered", e.Number, e.Kind, c.numbers[e.Kind]+1)
	case e.Desk != c.issued.Desk:
		return broken(e.ID, "names desk %q; the ledger was issued to desk %q, and a counter ledger records its own desk only", e.Desk, c.issued.Desk)
	case int(n) == c.done && hex.EncodeToString(e.Hash) != c.head:
		return "rewritten", n, fmt.Sprintf("differs from the entry imported on %s (hash %s…): the counter's journal was rewritten", c.headAt, c.head[:16])
	}
	return "", 0, ""
}

// spoolExport copies an export to a temporary file (its owner's alone),
// at most core.MaxExportSize bytes, and gives it back at its start.
func spoolExport(r io.Reader) (*os.File, error) {
	f, err := os.CreateTemp("", "vegas-desk-import-*")
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	n, err := io.Copy(f, io.LimitReader(r, core.MaxExportSize+1))
	if err == nil && n > core.MaxExportSize {
		err = fmt.Errorf("the file is larger than %d MB, which no counter ledger's export is: give the file a counter ledger wrote with vegas-desk claims --jsonl", core.MaxExportSize>>20)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("import: %w", err)
	}
	return f, nil
}

// payerWords says what a payment's entry holds that a claim refuses (a
// blank or unreadable desk or operator), or "". A winner's identity that
// is none (core.Winner.Check) is a payment without it: recorded, flagged
// identity-missing (record).
func payerWords(e *core.Entry) string {
	if err := core.CheckWho("payment", core.Identity{Desk: e.Desk, Operator: e.Operator}); err != nil {
		return err.Error()
	}
	if core.Blank(e.Desk) || core.Blank(e.Operator) {
		return fmt.Sprintf("a payment by desk %q, operator %q (a claim records both)", e.Desk, e.Operator)
	}
	return ""
}

// importedRequests are the request ids of the payments and referrals of
// desk's counter ledgers imported before ("counter:" and the counter
// entry's hash).
func importedRequests(ctx context.Context, q core.Querier, desk string) (map[string]bool, error) {
	var reqs []string
	if err := core.Select(ctx, q, &reqs, "SELECT request FROM journal WHERE desk = ? AND kind IN ('claim', 'import', 'referral') AND request LIKE 'counter:%'", desk); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(reqs))
	for _, r := range reqs {
		seen[r] = true
	}
	return seen, nil
}

// lastImport is how many entries of counter ledger id an earlier import
// recorded, the last one's hash, and when (0, "", "" for none).
func lastImport(ctx context.Context, q core.Querier, id string) (int, string, string, error) {
	var last core.Entry
	err := core.Get(ctx, q, &last, "SELECT "+core.EntryCols+" FROM journal WHERE kind = 'import' AND reason = 'head' AND request = ? ORDER BY id DESC LIMIT 1", id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", "", nil
	}
	if err != nil {
		return 0, "", "", err
	}
	n, head := parseHead(last.Detail)
	return n, head, core.ParseTime(last.AtText).Local().Format("02/01/2006 15:04"), nil
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

// importer imports the payments of one counter ledger's export, in tx.
type importer struct {
	o      *Store
	tx     core.Querier
	issued *IssueRecord
	rep    *core.ImportReport
	times  paymentTimes
	seen   map[string]bool // the requests of payments imported before
	flags  int
}

// flag reports what is wrong with payment e.
func (im *importer) flag(e *core.Entry, kind, format string, args ...any) {
	im.flags++
	if len(im.rep.Flags) < core.MaxProblems {
		im.rep.Flags = append(im.rep.Flags, core.ImportFlag{Entry: e.ID, Kind: kind, Serial: e.Serial, Amount: e.Amount, What: fmt.Sprintf(format, args...)})
	}
}

// flagsLeft is how many more flags a file may have before it is refused
// as forged (negative: too many).
func (im *importer) flagsLeft() int { return core.MaxProblems - im.flags }

// payment records one payment of the counter (see ImportClaims), unless
// an earlier import did. What the counter could pay (its blocks, payout
// limit and identity threshold) is the back office's record of the issue,
// not the file's.
func (im *importer) payment(ctx context.Context, e *core.Entry, winner *core.Winner) error {
	im.rep.Payments++
	request := "counter:" + hex.EncodeToString(e.Hash)
	at := e.At
	badTime := im.times.check(at)
	if badTime == "" {
		defer func() { im.times.previous = at }() // a forged time moves no bound
	}
	if im.seen[request] {
		im.rep.Already++
		return nil
	}
	im.seen[request] = true
	base := core.Entry{At: at, Ticket: e.Ticket, Serial: e.Serial, Game: e.Game, Block: e.Block, Position: e.Position,
		Amount: e.Amount, Desk: e.Desk, Operator: e.Operator, Method: e.Method, Request: request}
	var b core.Block
	var s game.Serial
	var prize int
	kind, what := "bad-time", fmt.Sprintf("ticket %s paid on %s, %s: a forged record", e.Serial, at.Local().Format("02/01/2006 15:04:05"), badTime)
	if badTime == "" {
		b, s, prize, kind, what = im.ticket(ctx, e)
	}
	if kind == "internal" {
		return errors.New(what)
	}
	if kind != "" {
		im.flag(e, kind, "%s", what)
		x := base
		x.Kind, x.Reason, x.Ticket = "import", kind, sql.NullInt64{}
		return im.o.appendJournal(ctx, im.tx, &x)
	}
	base.Serial = s.String()
	_, identity := core.ParseClaimDetail(e.Detail)
	return im.record(ctx, e, base, b, s, prize, identity, winner)
}

// ticket checks what payment e names against the back office's tickets:
// the block, sealed in the counter ledger; the serial, whose proof only
// the right secret part gives; the amount, the ticket's prize. It returns
// the ticket's full serial, or what is wrong (a flag's kind and words;
// "internal" for an error of the ledger).
func (im *importer) ticket(ctx context.Context, e *core.Entry) (core.Block, game.Serial, int, string, string) {
	var none game.Serial
	b, kind, what := im.blockOf(ctx, e)
	if kind != "" {
		return b, none, 0, kind, what
	}
	s := game.Serial{Game: b.Game, Block: b.Number, Position: e.Position, Secret: b.Key.Secret(e.Position)}
	if proof, _ := core.ParseClaimDetail(e.Detail); proof != core.SerialProof(s) || !e.Ticket.Valid || e.Ticket.Int64 != b.First()+int64(s.Position) {
		return b, s, 0, "serial-mismatch", fmt.Sprintf("serial %s: its proof is not that of ticket %d of block %s, whose secret part the counter did not know (a forged payment)",
			e.Serial, s.Position, b.Name())
	}
	_, pb, err := StoredTicket(ctx, im.tx, b, s.Position)
	if err != nil {
		return b, s, 0, "internal", err.Error()
	}
	prize, _ := core.PrizeOf(pb)
	if prize == 0 || prize != e.Amount {
		return b, s, prize, "amount-mismatch", fmt.Sprintf("pays %s for ticket %s, which wins %s", game.FormatAmount(e.Amount), e.Serial, game.FormatAmount(prize))
	}
	return b, s, prize, "", ""
}

// blockOf checks the block and position that entry e (a payment or a
// referral) names: a block of the back office's, sealed in the counter
// ledger, and a ticket of it. It returns the block, or what is wrong (a
// flag's kind and words; "internal" for an error of the ledger).
func (im *importer) blockOf(ctx context.Context, e *core.Entry) (core.Block, string, string) {
	if e.At.IsZero() || core.CheckText("desk", e.Desk, core.MaxText) != nil || core.CheckText("operator", e.Operator, core.MaxText) != nil {
		return core.Block{}, "serial-mismatch", "the entry's time, desk or operator is not readable"
	}
	if g, bn, pos, ok := game.ParsePublicSerial(e.Serial); !ok || g != e.Game || bn != e.Block || pos != e.Position {
		return core.Block{}, "serial-mismatch", fmt.Sprintf("serial %q: not the public part of the ticket it names", e.Serial)
	}
	b, err := GetBlock(ctx, im.tx, e.Game, e.Block)
	if errors.Is(err, core.ErrNotFound) {
		return b, "serial-mismatch", fmt.Sprintf("serial %s names block %d/%d, which this ledger does not hold", e.Serial, e.Game, e.Block)
	}
	if err != nil {
		return b, "internal", err.Error()
	}
	if !im.issued.Blocks[b.ID] {
		return b, "not-sealed", fmt.Sprintf("serial %s is a ticket of block %s, which counter ledger %s does not hold: the counter could not have found it",
			e.Serial, b.Name(), im.rep.Ledger)
	}
	if e.Position < 0 || e.Position >= b.Tickets {
		return b, "serial-mismatch", fmt.Sprintf("serial %s: block %s has no such ticket", e.Serial, b.Name())
	}
	return b, "", ""
}

// referral records a referral the counter made (a prize above its payout
// limit, which it sent here; see ImportClaims), unless an earlier import
// did: as this back office's referral of the ticket, at the counter's
// time, with its whole serial and prize, which Referrals lists until a
// payment pays the ticket. A referral of a ticket the counter could not
// have referred is flagged, recorded as an 'import' entry.
func (im *importer) referral(ctx context.Context, e *core.Entry) error {
	request := "counter:" + hex.EncodeToString(e.Hash)
	if im.seen[request] {
		return nil
	}
	im.seen[request] = true
	x := core.Entry{At: e.At, Serial: e.Serial, Game: e.Game, Block: e.Block, Position: e.Position,
		Desk: e.Desk, Operator: e.Operator, Method: e.Method, Request: request}
	b, kind, what := im.blockOf(ctx, e)
	if kind == "" {
		if bad := (paymentTimes{issued: im.times.issued, now: im.times.now}).check(e.At); bad != "" {
			kind, what = "bad-time", fmt.Sprintf("ticket %s referred on %s, %s: a forged record", e.Serial, e.At.Local().Format("02/01/2006 15:04:05"), bad)
		}
	}
	if kind == "" {
		s := game.Serial{Game: b.Game, Block: b.Number, Position: e.Position, Secret: b.Key.Secret(e.Position)}
		_, pb, err := StoredTicket(ctx, im.tx, b, s.Position)
		if err != nil {
			return err
		}
		prize, _ := core.PrizeOf(pb)
		if prize == 0 || im.issued.Limit.Pays(prize) {
			kind, what = "amount-mismatch", fmt.Sprintf("refers ticket %s, which wins %s: not above the payout limit of %s sealed in the counter's ledger",
				e.Serial, game.FormatAmount(prize), im.issued.Limit)
		} else {
			x.Kind, x.Serial, x.Amount = "referral", s.String(), prize
			x.Ticket = sql.NullInt64{Int64: b.First() + int64(s.Position), Valid: true}
			im.rep.Referred++
			return im.o.appendJournal(ctx, im.tx, &x)
		}
	}
	if kind == "internal" {
		return errors.New(what)
	}
	im.flag(e, kind, "%s", what)
	x.Kind, x.Reason = "import", kind
	return im.o.appendJournal(ctx, im.tx, &x)
}

// earlier is a payment of ticket recorded by an earlier import of this
// desk's counter ledger (voided since or not), or nil.
func (im *importer) earlier(ctx context.Context, ticket int64) (*core.Claim, error) {
	var rows []ClaimRow
	err := core.Select(ctx, im.tx, &rows, ClaimSelect+" WHERE c.kind = 'claim' AND c.ticket = ? AND c.desk = ? AND c.request LIKE 'counter:%' ORDER BY c.id LIMIT 1",
		ticket, im.issued.Desk)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	c := rows[0].Claim()
	return &c, nil
}

// record records payment e of ticket s (prize) under the rules sealed at
// the issue and the emission's dates: as a claim, flagged when the rules
// say so, or as a double payment.
func (im *importer) record(ctx context.Context, e *core.Entry, base core.Entry, b core.Block, s game.Serial, prize int,
	identityHash string, winner *core.Winner) error {
	tx, issued, at := im.tx, im.issued, e.At
	identity := identityHash != ""
	deskRule := core.Decide(&core.Facts{Prize: prize, PackState: "on-sale"}, core.Rules{At: e.AtText, Limit: issued.Limit, Threshold: issued.Threshold, Identity: identity})
	if deskRule == core.OverLimit {
		im.flag(e, "over-limit", "pays %s for ticket %s, above the payout limit of %s sealed in the counter's ledger: the back office pays it",
			game.FormatAmount(prize), e.Serial, issued.Limit)
		x := base
		x.Kind, x.Reason, x.Ticket = "import", "over-limit", sql.NullInt64{}
		return im.o.appendJournal(ctx, tx, &x)
	}
	// The identity as kept (the zone it was read from is not): CheckKept.
	keepWinner := identity && winner != nil && winner.CheckKept() == nil && core.IdentityHash(winner) == identityHash
	// A counter ledger pays a ticket once: another entry of this desk's
	// paying a ticket its counter ledger paid before (imported, voided
	// since or not) is a forged replay, flagged and not paid.
	earlier, err := im.earlier(ctx, e.Ticket.Int64)
	if err != nil {
		return err
	}
	if earlier != nil {
		im.flag(e, "double-payment", "ticket %s: the counter ledger paid it on %s (payment %d here) and pays it again on %s: a counter ledger pays a ticket once, so this entry was written outside it; not recorded as a payment",
			s, earlier.At.Local().Format("02/01/2006 15:04:05"), earlier.Number, at.Local().Format("02/01/2006 15:04:05"))
		x := base
		x.Kind, x.Reason, x.Ref = "import", "double-payment", sql.NullInt64{Int64: earlier.Entry, Valid: true}
		return im.o.appendJournal(ctx, tx, &x)
	}
	first, err := im.o.PaidClaim(ctx, tx, e.Ticket.Int64)
	if err != nil {
		return err
	}
	if first != nil {
		// Recorded all the same: the money left the counter's drawer.
		x := base
		x.Kind, x.Reason, x.Ref, x.Detail = "claim", core.ReasonDoublePayment, sql.NullInt64{Int64: first.Entry, Valid: true}, identityHash
		if err := im.pay(ctx, &x, false, keepWinner, winner); err != nil {
			return err
		}
		im.flag(e, "double-payment", "ticket %s was paid twice: %s on %s at desk %q by %q (payment %d), and on %s at desk %q by %q (the counter ledger's payment %d, recorded here as payment %d): %s to recover, an open case until a decision closes it (vegas-desk cases)",
			s, game.FormatAmount(first.Amount), first.At.Local().Format("02/01/2006 15:04:05"), first.Desk, first.Operator, first.Number,
			at.Local().Format("02/01/2006 15:04:05"), e.Desk, e.Operator, e.Number, x.Number, game.FormatAmount(e.Amount))
		return nil
	}
	em, err := ReadDates(ctx, tx, b.Game)
	if err != nil {
		return err
	}
	state, err := packStateAt(ctx, tx, b, s.Pack(), e.AtText)
	if err != nil {
		return im.o.E.Classify(err)
	}
	reason := ""
	switch v := core.Decide(&core.Facts{Prize: prize, PackState: state}, core.Rules{Dates: em, At: e.AtText, Limit: issued.Limit, Threshold: issued.Threshold, Identity: identity}); v {
	case core.NotYetOnSale, core.Expired, core.Stolen, core.NotActivated:
		reason = string(v)
		im.flag(e, reason, "ticket %s paid on %s: %s", e.Serial, at.Local().Format("02/01/2006 15:04"), ruleWords[v])
	}
	// Paid without the winner's identity it needed, or with one the file
	// does not hold: the money is gone, so recorded, and flagged for the
	// identity to be found.
	switch {
	case deskRule == core.IdentityRequired:
		im.flag(e, "identity-missing", "pays %s for ticket %s without the winner's identity, required from %s",
			game.FormatAmount(prize), e.Serial, game.FormatAmount(issued.Threshold))
	case identity && winner != nil && winner.CheckKept() != nil:
		im.flag(e, "identity-missing", "the payment records a winner's identity that is none (%v)", winner.CheckKept())
	case identity && !keepWinner:
		im.flag(e, "identity-missing", "the payment records a winner's identity that the file does not hold")
	}
	if reason == "" && (deskRule == core.IdentityRequired || identity && !keepWinner) {
		reason = "identity-missing"
	}
	x := base
	x.Kind, x.Reason, x.Detail = "claim", reason, identityHash
	return im.pay(ctx, &x, true, keepWinner, winner)
}

// pay appends claim entry x, keeps its ticket paid by it (keepPaid: no
// other payment does) and the winner's identity (keepWinner).
func (im *importer) pay(ctx context.Context, x *core.Entry, keepPaid, keepWinner bool, winner *core.Winner) error {
	if err := im.o.appendJournal(ctx, im.tx, x); err != nil {
		return err
	}
	if keepPaid {
		if err := insertPaid(ctx, im.tx, x.Ticket.Int64, x.ID); err != nil {
			return im.o.E.Classify(err)
		}
	}
	im.rep.Recorded++
	if keepWinner {
		if _, err := core.Exec(ctx, im.tx, "INSERT INTO identities (claim, name, doc_type, doc_number, skeleton) VALUES (?, ?, ?, ?, ?)",
			x.ID, winner.Name, winner.DocType, winner.DocNumber, core.NameSkeleton(winner.Name)); err != nil {
			return im.o.E.Classify(err)
		}
	}
	return nil
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
