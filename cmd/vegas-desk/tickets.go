package main

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/wire"
	"vegas-desk/internal/platform"
	"vegas-desk/internal/ticketart"
)

// refused prints a refusal's JSON when asked (wire.Refusal: its verdict,
// the prize, the payment named; the message goes to the standard error,
// the status is 1), and returns err.
func (c *cli) refused(asJSON bool, err error) error {
	var r *ledger.Refusal
	if asJSON && errors.As(err, &r) {
		if jerr := c.json(wire.RefusalOf(r)); jerr != nil {
			return jerr
		}
	}
	return err
}

func (c *cli) describeClaim(cl *ledger.Claim) string {
	if cl.Desk == "" { // another desk's payment, which a validation server shows by its date only
		return c.tr("already paid on %s at another desk", c.day(cl.At))
	}
	return c.tr("payment %d: %s € paid %s at desk %s by %s (%s)", cl.Number, game.GroupDigits(cl.Amount),
		c.moment(cl.At), terminal(cl.Desk), terminal(cl.Operator), c.word(cl.Method))
}

func (c *cli) lookup(fs *pflag.FlagSet) work {
	asJSON := fs.Bool("json", false, "JSON output")
	desk := fs.String("desk", "", "desk (recorded with a refused lookup)")
	operator := fs.String("operator", "", "operator")
	limit := addLimitFlag(fs, "a payout limit in euros, which may only lower the desk's (default: the desk's in the ledger; none for a desk it does not know)")
	return work{check: func(args []string) error {
		pos, err := c.positional(fs, args, 1, "one SERIAL")
		if err != nil {
			return err
		}
		_, err = game.ParseSerial(pos[0])
		return err // it names the serial, what is wrong and what to do
	}, run: func(l *ledger.Ledger, pos []string) error {
		t, err := c.lookupSerial(l, pos[0], c.who(l, *desk, *operator), limit.Limit)
		if err != nil {
			return c.refused(*asJSON, err)
		}
		if *asJSON {
			return c.json(wire.TicketOf(t))
		}
		c.printf(c.stdout, "serial   %s\nblock    %s  pack %s (%s)  position %d\nprize    %s\nstatus   %s\nverdict  %s\n",
			t.Serial, t.Block.Name(), game.PackCode{Game: t.Block.Game, Block: t.Block.Number, Pack: t.Pack}, c.word(t.PackState), t.Position,
			game.FormatAmount(t.Prize), c.word(t.Status.String()), c.word(string(t.Verdict)))
		if t.Claim != nil {
			fmt.Fprintln(c.stdout, c.describeClaim(t.Claim))
		}
		// AppendJSON: json.Marshal's bytes (TestDocAppendJSON) without its
		// reflection, a twentieth of a lookup process's instructions.
		d := game.NewDoc(&t.Ticket)
		c.printf(c.stdout, "ticket   %s\n", d.AppendJSON(nil))
		return nil
	}}
}

func (c *cli) check(fs *pflag.FlagSet) work {
	asJSON := fs.Bool("json", false, "JSON output")
	desk := fs.String("desk", "", "desk (recorded with a refused search)")
	operator := fs.String("operator", "", "operator")
	limit := addLimitFlag(fs, "a payout limit in euros, which may only lower the desk's (default: the desk's in the ledger; none for a desk it does not know)")
	var in game.Input
	return work{check: func(args []string) error {
		pos, err := c.positional(fs, args, 1, "one FILE, or - for standard input")
		if err != nil {
			return err
		}
		data, err := c.readInput(pos[0], maxTicketDoc)
		if errors.As(err, new(tooLarge)) {
			return badInput("check: %s holds %v, which no ticket's contents do (a few hundred bytes): give one ticket's contents, as export writes them, in the file or on standard input (-)", inputName(pos[0]), err)
		}
		if err != nil {
			return badInput("check: %v", err)
		}
		if in, err = game.ParseDoc(data); err != nil {
			var es game.Errors
			if errors.As(err, &es) {
				c.printf(c.stderr, "vegas-desk: check: %d fault(s) in the ticket's contents:\n", len(es))
				for _, e := range es {
					fmt.Fprintln(c.stderr, c.fault(e))
				}
				return badInput("check: fix the contents above and check again")
			}
			return badInput("check: %v", err)
		}
		return nil
	}, needs: func() access {
		// The ledger, when there is one, says which ticket shows these
		// contents (ledger.CheckContents); a refused attempt is recorded
		// when the ledger can be written.
		if _, serr := os.Stat(c.dbPath()); ledger.IsURL(c.dbPath()) || serr == nil {
			return record
		}
		return none
	}, run: func(l *ledger.Ledger, _ []string) error {
		v := ledger.ContentsCheck{Verdict: game.Check(&in.Ticket, in.Prize)}
		if l != nil {
			var err error
			if v, err = l.CheckContents(c.ctx, in, c.who(l, *desk, *operator), limit.Limit); err != nil {
				return err
			}
		}
		found := v.Ticket
		out := map[string]any{"prize": v.Prize, "genuine": v.Genuine, "reasons": v.Reasons, "verdict": checkVerdict(v)}
		if v.Reasons == nil {
			out["reasons"] = []string{}
		}
		wins := []map[string]any{}
		for _, w := range v.Wins {
			wins = append(wins, map[string]any{"surface": w.Surface.String(), "zone": w.Zone(), "amount": w.Amount})
		}
		out["wins"] = wins
		if found != nil {
			out["serial"], out["status"] = found.Serial.String(), found.Status.String()
		}
		if *asJSON {
			return c.json(out)
		}
		c.printf(c.stdout, "prize    %s\ngenuine  %s\nverdict  %s\n", game.FormatAmount(v.Prize), c.text(strconv.FormatBool(v.Genuine)), c.word(checkVerdict(v)))
		for _, w := range v.Wins {
			c.printf(c.stdout, "wins     %-8s %-18s %s\n", w.Surface, w.Zone(), game.FormatAmount(w.Amount))
		}
		if found != nil {
			c.printf(c.stdout, "serial   %s\nstatus   %s\n", found.Serial, c.word(found.Status.String()))
		}
		for _, r := range out["reasons"].([]string) {
			c.printf(c.stdout, "reason   %s\n", terminal(c.reason(r)))
		}
		return nil
	}}
}

// checkVerdict is what a check answers: the verdict of the ledger's
// ticket with these contents; not-winner for losing contents, which are
// not searched; unknown-contents when no ticket of the ledger shows them.
func checkVerdict(v ledger.ContentsCheck) string {
	switch {
	case v.Ticket != nil:
		return string(v.Ticket.Verdict)
	case v.Prize == 0 && len(v.Reasons) == 0:
		return string(ledger.NotWinner)
	}
	return string(ledger.UnknownContents)
}

func (c *cli) claim(fs *pflag.FlagSet) work {
	desk := fs.String("desk", "", "desk ID (default: the login's desk on a shared ledger, else the host name)")
	operator := fs.String("operator", "", "operator name (default: $USER)")
	method := fs.String("method", ledger.MethodSerial, "how the ticket was identified: serial or contents")
	request := fs.String("request", "", "request id: asked again with the same id, a claim answers its first answer")
	limit := addLimitFlag(fs, "a payout limit in euros, which may only lower the desk's (default: the desk's in the ledger; none for a desk it does not know)")
	name := fs.String("winner-name", "", "winner's name (from the identity threshold)")
	docType := fs.String("winner-doc", "", "winner's identity document: its type, one of "+core.DocumentTypes())
	docNumber := fs.String("winner-doc-number", "", "winner's identity document: its number, as printed on it (a driving licence)")
	zone := fs.String("winner-mrz", "", "winner's identity document's machine-readable zone (a CNI, passport or titre de séjour, which give the winner's identity by it): its lines, separated by a line break or a space, or - to read them from the standard input (an MRZ reader)")
	receipt := fs.String("receipt", "", "write the payment's receipt, the original, to this PDF file")
	queue := fs.String("printer", "", "print the payment's receipt, the original, on this CUPS queue (lpstat -e lists them)")
	asJSON := fs.Bool("json", false, "JSON output")
	return work{check: func(args []string) error {
		pos, err := c.positional(fs, args, 1, "one SERIAL")
		if err != nil {
			return err
		}
		if _, err := game.ParseSerial(pos[0]); err != nil {
			return err // it names the serial, what is wrong and what to do
		}
		if *receipt == "-" {
			return badInput("claim: --receipt -: the standard output has the verdict; give a file name")
		}
		if err := c.checkOut(*receipt); err != nil {
			return failf("claim: --receipt: %w", err)
		}
		if err := checkPrivateOut("--receipt", *receipt); err != nil {
			return failf("%s: %w", "claim", err)
		}
		if *method != ledger.MethodSerial && *method != ledger.MethodContents {
			return badInput("--method %q: want serial or contents", *method)
		}
		return nil
	}, run: func(l *ledger.Ledger, pos []string) error {
		req := ledger.ClaimRequest{Serial: pos[0], Method: *method, Who: c.who(l, *desk, *operator), Request: *request, Limit: limit.Limit}
		if *zone == "-" {
			text, err := io.ReadAll(io.LimitReader(c.stdin, 1024))
			if err != nil {
				return failf("claim: --winner-mrz -: %w", err)
			}
			*zone = string(text)
		}
		if *name != "" || *docType != "" || *docNumber != "" || *zone != "" {
			req.Winner = &ledger.Winner{Name: *name, DocType: *docType, DocNumber: *docNumber, MRZ: *zone}
			// What the zone says of the winner's age and the document's
			// expiry, said in the command line's words before anything
			// is asked (the ledger asks again at the payment).
			switch err := req.Winner.CheckAt(time.Now()); {
			case req.Winner.Check() != nil:
			case errors.Is(err, ledger.ErrMinor):
				return failf("claim: %w: the winner's document (--winner-mrz) says the winner is under 18: a prize is never paid to a minor; do not pay", ledger.ErrMinor)
			case errors.Is(err, ledger.ErrDocumentExpired):
				return failf("claim: %w: the winner's document (--winner-mrz) has expired: ask for a valid one", ledger.ErrDocumentExpired)
			}
		}
		if req.Request == "" {
			req.Request = core.NewRequestID()
		}
		// A payment whose answer was lost is asked again by the ledger,
		// with the same request id, as protocol.Retry says (as the app
		// does): answered, or unreachable, within ledger.ClaimWait().
		cl, err := l.Claim(c.ctx, req)
		if errors.Is(err, ledger.ErrUnreachable) {
			return failf("REGISTRE INJOIGNABLE — NE PAS PAYER (ledger unreachable — do not pay): %w\nnothing is known to be paid; ask again with --request %s", err, req.Request)
		}
		if err != nil {
			return c.refused(*asJSON, identityWords(err, req.Winner))
		}
		if *asJSON {
			err = c.json(wire.ClaimOf(&cl))
		} else {
			fmt.Fprint(c.stdout, c.tr("PAY %s\n%s\njournal  %s\n", game.FormatAmount(cl.Amount), c.describeClaim(&cl), cl.Hash))
		}
		if err == nil && (*receipt != "" || *queue != "") {
			if _, _, err := c.writeReceipt(l, cl.Number, *receipt, *queue, false); err != nil {
				return failf("payment %d is recorded, but its receipt is not written: %w (receipt %d writes it again, as DUPLICATA)", cl.Number, err, cl.Number)
			}
		}
		return err
	}}
}

// identityWords adds to a refusal for want of the winner's identity why
// the one given is none (ledger.Winner.Check: blank, characters that print
// nothing, no document of the list, a number out of its format, a name
// that is no name).
func identityWords(err error, w *ledger.Winner) error {
	var r *ledger.Refusal
	if w == nil || !errors.As(err, &r) || r.Verdict != ledger.IdentityRequired {
		return err
	}
	if why := w.Check(); why != nil {
		return failf("%w\nthe identity given is none: %v (--winner-mrz for a CNI, a passport or a titre de séjour; --winner-name, --winner-doc, --winner-doc-number for a driving licence)", err, why)
	}
	return err
}

func (c *cli) render(fs *pflag.FlagSet) work {
	out := fs.String("o", "", "PNG file to write")
	return work{check: func(args []string) error {
		pos, err := c.positional(fs, args, 1, "one SERIAL")
		if err != nil {
			return err
		}
		if *out == "" {
			return badInput("render: -o FILE is required")
		}
		_, err = game.ParseSerial(pos[0])
		return err
	}, run: func(l *ledger.Ledger, pos []string) error {
		t, err := c.lookupSerial(l, pos[0], c.who(l, "", ""), ledger.NoLimit)
		if err != nil {
			return err
		}
		img := ticketart.Draw(&t.Ticket, &t.Serial, ticketart.Options{})
		return writeFile(*out, func(w io.Writer) error { return png.Encode(w, img) })
	}}
}

// writeFile writes path through write into a temporary file of the same
// directory, renamed over path once complete: a failure leaves an existing
// file as it was, and no partial file. The file is its owner's alone
// (0600, whatever the umask), like ledgers and keys: demonstration sheets,
// tickets and papers show real serials and contents; share one by choice.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := stageFile(path, write)
	if err != nil {
		return err
	}
	if err := f.Keep(); err != nil {
		f.Drop()
		return failf("write %s: %w", path, err)
	}
	return nil
}

// staged is a complete file under a temporary name (tmp) in the directory
// of path, the name it is for.
type staged struct{ tmp, path string }

// stageFile writes path's content through write into a temporary file of
// the same directory, on disk once it returns; Keep gives it the name
// path, Drop removes it. A failure leaves no file.
func stageFile(path string, write func(io.Writer) error) (*staged, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, err
	}
	err = platform.OwnerOnly(f.Name()) // Windows: an access list for the owner alone
	if err == nil {
		err = write(f)
	}
	if err == nil {
		err = f.Sync() // on disk before it takes the name
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, failf("write %s: %w", path, err)
	}
	return &staged{f.Name(), path}, nil
}

// Keep renames the file to its name, over any file of that name, and syncs
// the folder: the new name is on disk once it returns.
func (s *staged) Keep() error {
	if err := os.Rename(s.tmp, s.path); err != nil {
		return err
	}
	return platform.SyncDir(filepath.Dir(s.path))
}

// Drop removes the file.
func (s *staged) Drop() { os.Remove(s.tmp) }

// stageOut writes what writeOut would, but keeps it only on Keep: a file
// complete under a temporary name (stageFile), or for "-" the bytes held
// until Keep writes them out.
func (c *cli) stageOut(path string, write func(io.Writer) error) (ledger.Sheets, error) {
	if path == "-" {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return nil, err
		}
		return heldOut{&b, c.stdout}, nil
	}
	f, err := stageFile(path, write)
	if err != nil {
		return nil, err
	}
	return keptAs{f}, nil
}

// heldOut is output held until Keep writes it to w.
type heldOut struct {
	b *bytes.Buffer
	w io.Writer
}

func (h heldOut) Keep() error {
	_, err := h.b.WriteTo(h.w)
	return err
}

func (h heldOut) Drop() {}

// keptAs is a staged file whose Keep says where the finished file is when
// it cannot take its name.
type keptAs struct{ *staged }

func (k keptAs) Keep() error {
	if err := k.staged.Keep(); err != nil {
		return failf("write %s: %w; the finished file is %s: rename it", k.path, err, k.tmp)
	}
	return nil
}
