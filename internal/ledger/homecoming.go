package ledger

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
)

// Claims come home: a counter ledger exports its whole journal (the
// payments with every refused attempt between them, each with its hash) as
// JSON Lines, and the back office imports it. The back office recomputes
// the chain from the issue it recorded, checks every payment against its
// own tickets and records each once; a second import of the same file, or
// of a later one, records only what is new.

// CounterJournalFormat is the first line's "format" of a counter's export.
const CounterJournalFormat = "vegas-desk counter journal 1"

// exportHeader is the first line of a counter's export.
type exportHeader struct {
	Format     string `json:"format"`
	Ledger     string `json:"ledger"`
	BackOffice string `json:"back_office"`
	Desk       string `json:"desk"`
	Seal       string `json:"seal"` // SHA-256 of the signed seal, hex
}

// exportEntry is one journal entry of a counter's export: every column of
// the journal (the canonical text's), its hash, and a payment's winner's
// identity when one was recorded.
type exportEntry struct {
	ID        int64   `json:"id"`
	Kind      string  `json:"kind"`
	At        string  `json:"at"`
	Number    int64   `json:"number"`
	Ticket    *int64  `json:"ticket"`
	Serial    string  `json:"serial"`
	Game      int     `json:"game"`
	Block     int     `json:"block"`
	Position  int     `json:"position"`
	PackFirst int     `json:"pack_first"`
	PackLast  int     `json:"pack_last"`
	State     string  `json:"state"`
	Amount    int     `json:"amount"`
	Desk      string  `json:"desk"`
	Operator  string  `json:"operator"`
	Method    string  `json:"method"`
	Ref       *int64  `json:"ref"`
	Request   string  `json:"request"`
	Reason    string  `json:"reason"`
	Detail    string  `json:"detail"`
	Hash      string  `json:"hash"`
	Winner    *Winner `json:"winner,omitempty"`
}

func (x *exportEntry) entry() (entry, error) {
	e := entry{ID: x.ID, Kind: x.Kind, AtText: x.At, Number: x.Number, Serial: x.Serial, Game: x.Game, Block: x.Block,
		Position: x.Position, PackFirst: x.PackFirst, PackLast: x.PackLast, State: x.State, Amount: x.Amount, Desk: x.Desk,
		Operator: x.Operator, Method: x.Method, Request: x.Request, Reason: x.Reason, Detail: x.Detail, At: parseTime(x.At)}
	if x.Ticket != nil {
		e.Ticket = sql.NullInt64{Int64: *x.Ticket, Valid: true}
	}
	if x.Ref != nil {
		e.Ref = sql.NullInt64{Int64: *x.Ref, Valid: true}
	}
	h, err := hex.DecodeString(x.Hash)
	if err != nil || len(h) != 32 {
		return e, fmt.Errorf("hash %q is not 64 hexadecimal digits", x.Hash)
	}
	e.Hash = h
	return e, nil
}

// ExportJournal writes a counter ledger's journal as JSON Lines for the
// back office's ImportClaims: a first line naming the ledger, then one line
// per entry in order, every column with its hash, and with each payment
// the winner's identity when one was recorded (personal data: the file is
// for the back office only).
func (l *Ledger) ExportJournal(ctx context.Context, w io.Writer) error {
	if l.counter == nil {
		return errors.New("claims --jsonl: this is the back office's ledger; a counter ledger exports its journal this way for import-claims (here, use --json or --csv)")
	}
	tx, err := l.read(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var entries []entry
	if err := sel(ctx, tx, &entries, "SELECT "+entryCols+" FROM journal ORDER BY id"); err != nil {
		return l.classify(err)
	}
	var ids []struct {
		Claim     int64  `db:"claim"`
		Name      string `db:"name"`
		DocType   string `db:"doc_type"`
		DocNumber string `db:"doc_number"`
	}
	if err := sel(ctx, tx, &ids, "SELECT claim, name, doc_type, doc_number FROM identities"); err != nil {
		return l.classify(err)
	}
	winners := map[int64]*Winner{}
	for _, i := range ids {
		winners[i.Claim] = &Winner{Name: i.Name, DocType: i.DocType, DocNumber: i.DocNumber}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	digest := sealDigest(l.counter.seal)
	if err := enc.Encode(exportHeader{Format: CounterJournalFormat, Ledger: l.id, BackOffice: l.counter.backOffice,
		Desk: l.counter.desk, Seal: digest}); err != nil {
		return err
	}
	for i := range entries {
		e := &entries[i]
		x := exportEntry{ID: e.ID, Kind: e.Kind, At: e.AtText, Number: e.Number, Serial: e.Serial, Game: e.Game, Block: e.Block,
			Position: e.Position, PackFirst: e.PackFirst, PackLast: e.PackLast, State: e.State, Amount: e.Amount, Desk: e.Desk,
			Operator: e.Operator, Method: e.Method, Request: e.Request, Reason: e.Reason, Detail: e.Detail,
			Hash: hex.EncodeToString(e.Hash), Winner: winners[e.ID]}
		if e.Ticket.Valid {
			x.Ticket = &e.Ticket.Int64
		}
		if e.Ref.Valid {
			x.Ref = &e.Ref.Int64
		}
		if err := enc.Encode(&x); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ImportFlag is one thing an import found wrong. Kind is one of:
//
//	not-issued        the file names a counter ledger this back office did not issue
//	broken-chain      an entry's hash does not recompute, or the chain does not start with the issue
//	rewritten         the chain no longer holds an entry an earlier import recorded
//	double-payment    a ticket already paid (here or by another counter): the money to recover
//	serial-mismatch   a payment whose serial, secret part or ticket is not one of this ledger's
//	amount-mismatch   a payment of another amount than the ticket's prize
//	not-yet-on-sale, expired   a payment outside the emission's dates
//	not-activated, stolen      a payment of a ticket whose pack was not on sale then
//	identity-missing  a payment from the sealed identity threshold on without the winner's
//	                  identity, or that records an identity the file does not hold (or another)
//	over-limit        a payment above the payout limit sealed at the issue (the back office's to pay)
//	not-sealed        a payment of a block the counter ledger does not hold
//	bad-time          a payment dated before the issue, after the import, or before the previous payment
type ImportFlag struct {
	Entry  int64 // the counter's journal entry
	Kind   string
	Serial string
	Amount int
	What   string
}

func (f ImportFlag) String() string {
	if f.Entry == 0 {
		return f.Kind + ": " + f.What
	}
	return fmt.Sprintf("counter entry %d: %s: %s", f.Entry, f.Kind, f.What)
}

// ImportReport sums up an import.
type ImportReport struct {
	Ledger, Desk string
	Entries      int // journal entries in the file
	Payments     int // payments in the file
	Recorded     int // payments recorded as claims now
	Already      int // payments recorded by an earlier import
	Refused      int // serials the counter refused as unknown (attempts)
	Head         string
	// Rejected: the file was refused as a whole (not issued here, broken
	// or rewritten chain) and nothing was recorded.
	Rejected bool
	Flags    []ImportFlag
}

// OK reports whether the import found nothing wrong.
func (r ImportReport) OK() bool { return len(r.Flags) == 0 }

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
func (l *Ledger) ImportClaims(ctx context.Context, r io.Reader, who Identity) (ImportReport, error) {
	var rep ImportReport
	if err := l.backOffice("import a counter's claims"); err != nil {
		return rep, err
	}
	hdr, xs, err := readExport(r)
	if err != nil {
		return rep, err
	}
	rep.Ledger, rep.Desk, rep.Entries = hdr.Ledger, hdr.Desk, len(xs)
	reject := func(kind string, entryID int64, format string, args ...any) (ImportReport, error) {
		rep.Rejected = true
		rep.Flags = append(rep.Flags, ImportFlag{Entry: entryID, Kind: kind, What: fmt.Sprintf(format, args...)})
		return rep, nil
	}
	entries := make([]entry, len(xs))
	var prev []byte
	for i := range xs {
		e, err := xs[i].entry()
		if err != nil {
			return reject("broken-chain", xs[i].ID, "%v", err)
		}
		if e.ID != int64(i+1) {
			return reject("broken-chain", e.ID, "is line %d of the journal: an entry was removed or added", i+2)
		}
		if !bytes.Equal(e.hash(prev), e.Hash) {
			return reject("broken-chain", e.ID, "its hash does not match its contents and the entry before it: the file was changed")
		}
		prev, entries[i] = e.Hash, e
	}
	if len(entries) > 0 {
		rep.Head = hex.EncodeToString(prev)
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	issued, err := issuedCounter(ctx, tx, hdr.Ledger)
	if err != nil {
		return rep, l.classify(err)
	}
	switch {
	case issued == nil:
		return reject("not-issued", 0, "counter ledger %s was not issued by this back office (ledger %s)", hdr.Ledger, l.id)
	case len(entries) == 0 || entries[0].Kind != "issue" || hex.EncodeToString(entries[0].Hash) != issued.genesis ||
		entries[0].Detail != issued.seal || hdr.Seal != issued.seal:
		return reject("broken-chain", 1, "the journal does not start with the issue recorded here on %s", issued.at.Local().Format("02/01/2006 15:04"))
	case hdr.Desk != issued.desk:
		return reject("broken-chain", 0, "the file says desk %q; the ledger was issued to desk %q", hdr.Desk, issued.desk)
	}
	for i := range entries {
		if entries[i].Desk != issued.desk {
			return reject("broken-chain", entries[i].ID, "names desk %q; the ledger was issued to desk %q, and a counter ledger records its own desk only", entries[i].Desk, issued.desk)
		}
	}
	var last entry
	err = get(ctx, tx, &last, "SELECT "+entryCols+" FROM journal WHERE kind = 'import' AND reason = 'head' AND request = ? ORDER BY id DESC LIMIT 1", hdr.Ledger)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return rep, l.classify(err)
	}
	done := 0 // entries imported before
	if err == nil {
		n, head := parseHead(last.Detail)
		switch {
		case n > len(entries):
			return reject("rewritten", 0, "an import on %s recorded %d entries; the file holds %d: an older export, or a rewritten journal",
				parseTime(last.AtText).Local().Format("02/01/2006 15:04"), n, len(entries))
		case n > 0 && hex.EncodeToString(entries[n-1].Hash) != head:
			return reject("rewritten", int64(n), "differs from the entry imported on %s (hash %s…): the counter's journal was rewritten",
				parseTime(last.AtText).Local().Format("02/01/2006 15:04"), head[:16])
		}
		done = n
	}
	recorded := 0
	bounds := paymentTimes{issued: entries[0].At, now: l.now()}
	for i := range entries {
		e := &entries[i]
		switch e.Kind {
		case "claim":
			rep.Payments++
			fresh, err := l.importPayment(ctx, tx, e, xs[i].Winner, issued, bounds, &rep)
			if err != nil {
				return rep, err
			}
			if fresh {
				recorded++
			}
			if at := parseTime(e.AtText); bounds.check(at) == "" {
				bounds.previous = at // a forged time moves no bound
			}
		case "refusal":
			if e.Reason == string(UnknownSerial) {
				rep.Refused++
			}
		}
	}
	if recorded > 0 || len(entries) > done {
		h := entry{Kind: "import", Reason: "head", Request: hdr.Ledger, Desk: hdr.Desk, Operator: who.Operator, Amount: recorded,
			Detail: "entries=" + strconv.Itoa(len(entries)) + "\nhead=" + rep.Head}
		if err := l.appendJournal(ctx, tx, &h); err != nil {
			return rep, err
		}
	}
	if err := tx.Commit(); err != nil {
		return rep, l.classify(err)
	}
	return rep, nil
}

// readExport reads a counter's export.
func readExport(r io.Reader) (exportHeader, []exportEntry, error) {
	var hdr exportHeader
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var xs []exportEntry
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var err error
		if line == 1 {
			err = dec.Decode(&hdr)
			if err == nil && hdr.Format != CounterJournalFormat {
				err = fmt.Errorf("format %q, want %q", hdr.Format, CounterJournalFormat)
			}
		} else {
			var x exportEntry
			err = dec.Decode(&x)
			xs = append(xs, x)
		}
		if err != nil {
			return hdr, nil, fmt.Errorf("import: line %d: %v: give the file a counter ledger wrote with vegas-desk claims --jsonl", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return hdr, nil, fmt.Errorf("import: %w", err)
	}
	if line == 0 {
		return hdr, nil, errors.New("import: the file is empty: give the file a counter ledger wrote with vegas-desk claims --jsonl")
	}
	return hdr, xs, nil
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
func (l *Ledger) importPayment(ctx context.Context, tx querier, e *entry, winner *Winner, issued *counterIssued,
	times paymentTimes, rep *ImportReport) (bool, error) {
	request := "counter:" + hex.EncodeToString(e.Hash)
	var seen int
	if err := get(ctx, tx, &seen, "SELECT count(*) FROM journal WHERE request = ? AND kind IN ('claim', 'import')", request); err != nil {
		return false, l.classify(err)
	}
	if seen > 0 {
		rep.Already++
		return false, nil
	}
	flag := func(kind, format string, args ...any) {
		rep.Flags = append(rep.Flags, ImportFlag{Entry: e.ID, Kind: kind, Serial: e.Serial, Amount: e.Amount, What: fmt.Sprintf(format, args...)})
	}
	at := parseTime(e.AtText)
	base := entry{At: at, Ticket: e.Ticket, Serial: e.Serial, Game: e.Game, Block: e.Block, Position: e.Position,
		Amount: e.Amount, Desk: e.Desk, Operator: e.Operator, Method: e.Method, Request: request}
	record := func(x entry) (bool, error) {
		if err := l.appendJournal(ctx, tx, &x); err != nil {
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
	if at.IsZero() || checkText("desk", e.Desk) != nil || checkText("operator", e.Operator) != nil {
		return refuse("serial-mismatch", "the payment's time, desk or operator is not readable")
	}
	if what := times.check(at); what != "" {
		return refuse("bad-time", "ticket %s paid on %s, %s: a forged record", e.Serial, at.Local().Format("02/01/2006 15:04:05"), what)
	}
	s, err := game.ParseSerial(e.Serial)
	if err != nil {
		return refuse("serial-mismatch", "serial %q: %v", e.Serial, err)
	}
	b, err := getBlock(ctx, tx, s.Game, s.Block)
	if errors.Is(err, ErrNotFound) {
		return refuse("serial-mismatch", "serial %s names block %d/%d, which this ledger does not hold", e.Serial, s.Game, s.Block)
	}
	if err != nil {
		return false, l.classify(err)
	}
	if !issued.blocks[b.ID] {
		return refuse("not-sealed", "serial %s is a ticket of block %s, which counter ledger %s does not hold: the counter could not have found it",
			e.Serial, b.Name(), rep.Ledger)
	}
	if s.Game != e.Game || s.Block != e.Block || s.Position != e.Position || !e.Ticket.Valid || e.Ticket.Int64 != b.first+int64(s.Position) ||
		b.key.Secret(s.Position) != s.Secret {
		return refuse("serial-mismatch", "serial %s is not the serial of ticket %d of block %s: its secret part is wrong (a forged payment)",
			e.Serial, s.Position, b.Name())
	}
	_, pb, err := storedTicket(ctx, tx, b, s.Position)
	if err != nil {
		return false, err
	}
	prize, _ := prizeOf(pb)
	if prize == 0 || prize != e.Amount {
		return refuse("amount-mismatch", "pays %s for ticket %s, which wins %s", game.FormatAmount(e.Amount), e.Serial, game.FormatAmount(prize))
	}
	// The desk's rules as sealed: a prize above the limit was the back
	// office's to pay; one from the threshold on records an identity.
	identity := e.Detail != ""
	deskRule := decide(&facts{prize: prize, packState: "on-sale"}, emission{}, e.AtText, issued.limit, issued.threshold, identity)
	if deskRule == OverLimit {
		return refuse("over-limit", "pays %s for ticket %s, above the payout limit of %s sealed in the counter's ledger: the back office pays it",
			game.FormatAmount(prize), e.Serial, game.FormatAmount(issued.limit))
	}
	first, err := paidClaim(ctx, tx, e.Ticket.Int64)
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
	em, err := emissionOf(ctx, tx, b.Game)
	if err != nil {
		return false, err
	}
	state, err := packStateAt(ctx, tx, b, s.Pack(), e.AtText)
	if err != nil {
		return false, l.classify(err)
	}
	reason := ""
	switch v := decide(&facts{prize: prize, packState: state}, em, e.AtText, issued.limit, issued.threshold, identity); v {
	case NotYetOnSale, Expired, Stolen, NotActivated:
		reason = string(v)
		flag(reason, "ticket %s paid on %s: %s", e.Serial, at.Local().Format("02/01/2006 15:04"), ruleWords[v])
	}
	// Paid without the winner's identity it needed, or with one the file
	// does not hold: the money is gone, so recorded, and flagged for the
	// identity to be found.
	keepWinner := identity && winner != nil && winner.given() && identityHash(winner) == e.Detail
	switch {
	case deskRule == IdentityRequired:
		flag("identity-missing", "pays %s for ticket %s without the winner's identity, required from %s",
			game.FormatAmount(prize), e.Serial, game.FormatAmount(issued.threshold))
	case identity && !keepWinner:
		flag("identity-missing", "the payment records a winner's identity that the file does not hold")
	}
	if reason == "" && (deskRule == IdentityRequired || identity && !keepWinner) {
		reason = "identity-missing"
	}
	x := base
	x.Kind, x.Reason, x.Detail = "claim", reason, e.Detail
	if err := l.appendJournal(ctx, tx, &x); err != nil {
		return false, err
	}
	if _, err := execute(ctx, tx, "INSERT INTO paid (ticket, claim) VALUES (?, ?)", e.Ticket.Int64, x.ID); err != nil {
		return false, l.classify(err)
	}
	rep.Recorded++
	if keepWinner {
		if _, err := execute(ctx, tx, "INSERT INTO identities (claim, name, doc_type, doc_number) VALUES (?, ?, ?, ?)",
			x.ID, winner.Name, winner.DocType, winner.DocNumber); err != nil {
			return false, l.classify(err)
		}
	}
	return true, nil
}

var ruleWords = map[Verdict]string{
	NotYetOnSale: "before the emission's on-sale date",
	Expired:      "after the claim deadline",
	Stolen:       "its pack was reported stolen",
	NotActivated: "its pack was not on sale then",
}

// packStateAt is the state of pack p of block b at time at (text), from
// the journal's moves of packs.
func packStateAt(ctx context.Context, q querier, b Block, p int, at string) (string, error) {
	var state string
	err := get(ctx, q, &state, `SELECT state FROM journal WHERE kind = 'packs' AND game = ? AND block = ?
		AND pack_first <= ? AND pack_last >= ? AND at <= ? ORDER BY id DESC LIMIT 1`, b.Game, b.Number, p, p, at)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return state, err
}

// sealDigest is the SHA-256 of a counter ledger's signed seal, in hex.
func sealDigest(seal string) string {
	d := sha256.Sum256([]byte(seal))
	return hex.EncodeToString(d[:])
}
