package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
)

// personAt is keyClock outside newKeys: press and typeOn type a key
// every 200 ms on it, at a person's pace (a dialog refuses an Enter typed
// faster, as a scanner's: enterSpent).
var personAt = time.Date(2026, 12, 3, 8, 0, 0, 0, time.Local)

// press sends a key to the window as the driver does: to the widget that
// has the keyboard, else to the canvas's handler.
func press(w fyne.Window, key fyne.KeyName) {
	personAt = personAt.Add(200 * time.Millisecond)
	ev := &fyne.KeyEvent{Name: key}
	if f := w.Canvas().Focused(); f != nil {
		f.TypedKey(ev)
	} else if h := w.Canvas().OnTypedKey(); h != nil {
		h(ev)
	}
}

// typeOn types s as the driver does: into the widget that has the
// keyboard (test.TypeOnCanvas types to the canvas's handler).
func typeOn(w fyne.Window, s string) {
	for _, r := range s {
		personAt = personAt.Add(200 * time.Millisecond)
		if f := w.Canvas().Focused(); f != nil {
			f.TypedRune(r)
		} else if h := w.Canvas().OnTypedRune(); h != nil {
			h(r)
		}
	}
}

// dialogs counts the dialogs shown.
func dialogs(w fyne.Window) int { return len(w.Canvas().Overlays().List()) }

// abs is the position of o in its window.
func abs(o fyne.CanvasObject) fyne.Position {
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
}

// hasButton says whether a visible button of the window's dialogs or
// content has the text.
func hasButton(w fyne.Window, text string) bool {
	for _, root := range append([]fyne.CanvasObject{w.Canvas().Content()}, w.Canvas().Overlays().List()...) {
		for _, o := range test.LaidOutObjects(root) {
			if b := asButton(o); b != nil && b.Text == text && b.Visible() {
				return true
			}
		}
	}
	return false
}

// labelIn says whether a visible label under root has the text.
func labelIn(root fyne.CanvasObject, text string) bool {
	for _, o := range test.LaidOutObjects(root) {
		if l, ok := o.(*widget.Label); ok && l.Text == text && l.Visible() {
			return true
		}
	}
	return false
}

// mistype returns serial with its check digit changed.
func mistype(serial string) string {
	b := []byte(serial)
	b[len(b)-1] = '0' + (b[len(b)-1]-'0'+1)%10
	return string(b)
}

// The example in the serial field is a serial that parses.
func TestCounterPlaceholder(t *testing.T) {
	d := newTestDesk(t, fixture)
	if _, err := game.ParseSerial(d.counter.entry.PlaceHolder); err != nil {
		t.Errorf("the example %q: %v", d.counter.entry.PlaceHolder, err)
	}
}

// Every verdict fits in its box at any width from 1024 px, and nothing on
// screen moves from one verdict to the next: not the window, not the
// divider, not the ticket.
func TestCounterLayout(t *testing.T) {
	for _, size := range []fyne.Size{{Width: 1024, Height: 768}, {Width: 1920, Height: 1080}} {
		t.Run(fmt.Sprintf("%.0f px", size.Width), func(t *testing.T) {
			d := newTestDesk(t, fixture)
			d.win.Resize(size)
			c := d.counter
			if min := d.win.Content().MinSize(); min.Width > size.Width || min.Height > size.Height {
				t.Fatalf("the window needs %v", min)
			}
			d.app.Preferences().SetInt(prefLimit, 500)
			win := takeWinner(t, 6)
			s, _ := game.ParseSerial(win)
			unknown := s
			unknown.Secret = (s.Secret + 1) % 1_000_000
			closed, err := ledger.Open(filepath.Join(t.TempDir(), "closed.db"))
			if err != nil {
				t.Fatal(err)
			}
			closed.Close()

			type shot struct {
				canvas, min, pic, box fyne.Size
				picAt                 fyne.Position
			}
			var first shot
			steps := []struct {
				name string
				do   func()
				want verdict
			}{
				{"winner", func() { scan(d, win) }, verdictWinner},
				{"above the limit", func() { scan(d, winners[1000][0]) }, verdictOverLimit},
				{"mistyped", func() { scan(d, mistype(win)) }, verdictMistyped},
				{"unknown", func() { scan(d, unknown.String()) }, verdictUnknown},
				{"loser", func() { scan(d, losers[0]) }, verdictLoser},
				{"paid", func() {
					scan(d, win)
					c.paid(d.claim(*c.current, ledger.MethodSerial, nil))
				}, verdictJustPaid},
				{"already paid", func() { scan(d, win) }, verdictPaid},
				{"error", func() {
					d.ledger = closed
					defer func() { d.ledger = fixture }()
					scan(d, win)
				}, verdictError},
			}
			for i, st := range steps {
				st.do()
				if c.view.kind != st.want {
					t.Fatalf("%s: verdict %q", st.name, c.view.title.Text())
				}
				bg := c.view.bg
				for _, bt := range []*bigText{c.view.title, c.view.amount} {
					w := fyne.MeasureText(bt.text.Text, bt.text.TextSize, bt.text.TextStyle).Width
					if w > bt.Size().Width || abs(bt).X < abs(bg).X || abs(bt).X+bt.Size().Width > abs(bg).X+bg.Size().Width {
						t.Errorf("%s: %q (%.0f px wide) spills out of its box at %v, %v", st.name, bt.text.Text, w, abs(bt), bt.Size())
					}
				}
				now := shot{d.win.Canvas().Size(), d.win.Content().MinSize(), c.picture.Size(), bg.Size(), abs(c.picture)}
				if i == 0 {
					first = now
				} else if now != first {
					t.Errorf("%s: the layout moved: %+v, was %+v", st.name, now, first)
				}
			}
		})
	}
}

// The keyboard answers the confirmations: at the counter, Enter on the
// empty field asks to pay the winner shown, Enter pays and Escape cancels;
// a question and an information answer Enter and Escape too.
func TestConfirmWithKeys(t *testing.T) {
	d := newTestDesk(t, fixture)
	c := d.counter
	serial := takeWinner(t, 3)
	status := func() ledger.Status {
		tk, err := fixture.Lookup(context.Background(), serial, d.identity(), ledger.NoLimit)
		if err != nil {
			t.Fatal(err)
		}
		return tk.Status
	}
	scan(d, serial)
	press(d.win, fyne.KeyReturn)
	if dialogs(d.win) != 1 {
		t.Fatalf("Enter on the empty field asks nothing: %d dialogs, the keyboard on %T, verdict %q", dialogs(d.win), d.win.Canvas().Focused(), c.view.title.Text())
	}
	press(d.win, fyne.KeyEscape)
	if dialogs(d.win) != 0 || c.view.kind != verdictWinner || status() != ledger.StatusUnpaid {
		t.Fatalf("after Escape: %d dialogs, %q, %v", dialogs(d.win), c.view.title.Text(), status())
	}
	if d.win.Canvas().Focused() != c.entry {
		t.Error("the serial field lost the keyboard")
	}
	press(d.win, fyne.KeyReturn)
	press(d.win, fyne.KeyReturn)
	settle(t, d)
	if dialogs(d.win) != 0 || c.view.kind != verdictJustPaid || status() != ledger.StatusPaid {
		t.Fatalf("after Enter, Enter: %d dialogs, %q, %v", dialogs(d.win), c.view.title.Text(), status())
	}
	if d.win.Canvas().Focused() != c.entry {
		t.Error("the serial field lost the keyboard")
	}

	d.blocks.generate()
	if dialogs(d.win) != 1 {
		t.Fatal("no question before generating")
	}
	press(d.win, fyne.KeyEscape)
	if dialogs(d.win) != 0 || len(d.tasks) != 0 {
		t.Errorf("after Escape: %d dialogs, %d tasks", dialogs(d.win), len(d.tasks))
	}
	d.inform("Information", "message")
	press(d.win, fyne.KeyReturn)
	if dialogs(d.win) != 0 {
		t.Error("Enter does not close an information")
	}
}

// The last checks keep serial, verdict, amount and time for the session,
// through a change of language; a click shows one again.
func TestLastChecks(t *testing.T) {
	d := newTestDesk(t, fixture)
	defer setLanguage("fr")
	win := takeWinner(t, 6)
	scan(d, losers[0])
	scan(d, win)
	scan(d, "531-0001-12")
	want := []struct{ serial, line string }{{"531-0001-12", "NUMÉRO MAL SAISI"}, {win, "GAGNANT · 6 €"}, {losers[0], "PERDANT"}}
	line := regexp.MustCompile(`^\d\d:\d\d:\d\d · `)
	if got := d.counter.checks.Length(); got != len(want) {
		t.Fatalf("%d checks listed, want %d", got, len(want))
	}
	for i, w := range want {
		if got := checkLine(d.checks[i]); !line.MatchString(got) || !strings.HasSuffix(got, w.line) || d.checks[i].serial != w.serial {
			t.Errorf("check %d: %q on %q, want the time and %q on %q", i, got, d.checks[i].serial, w.line, w.serial)
		}
	}
	s := d.settings
	s.language.SetSelected("English")
	s.save()
	if got := d.counter.checks.Length(); got != len(want) {
		t.Fatalf("after the change of language: %d checks listed", got)
	}
	if got := checkLine(d.checks[1]); !strings.HasSuffix(got, "WINNER · 6 €") {
		t.Errorf("in English: %q", got)
	}
	d.counter.checks.Select(1)
	if c := d.counter; c.view.kind != verdictWinner || c.current == nil || c.current.Serial.String() != win {
		t.Errorf("a click on the winner shows %q", c.view.title.Text())
	}
}

// The headline of the contents form carries the verdict in the counter's
// colours: contents no genuine ticket shows, contents no ticket of the
// ledger shows, a paid ticket, a loser.
func TestContentsVerdicts(t *testing.T) {
	d := newTestDesk(t, fixture)
	c := d.contents
	ctx := context.Background()
	lookup := func(serial string) ledger.Ticket {
		tk, err := fixture.Lookup(ctx, serial, d.identity(), ledger.NoLimit)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	notGenuine, _ := sampleTicket() // 36 €
	// A winner's contents with a losing jackpot line's amount changed: a
	// genuine ticket, but none of the ledger.
	forged := lookup(takeWinner(t, 3)).Ticket
	for i, l := range forged.Jackpot {
		if l.Symbols[0] != l.Symbols[1] || l.Symbols[1] != l.Symbols[2] {
			forged.Jackpot[i].Amount = 3
			if l.Amount == 3 {
				forged.Jackpot[i].Amount = 6
			}
			break
		}
	}
	paid := takeWinner(t, 3)
	if _, err := fixture.Claim(ctx, ledger.ClaimRequest{Serial: paid, Method: ledger.MethodSerial, Who: ledger.Identity{Desk: "T9", Operator: "Zoé"}, Limit: ledger.NoLimit}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		ticket game.Ticket
		want   verdict
		title  string
	}{
		{"not genuine", notGenuine, verdictError, "NE PAS PAYER"},
		{"not in the ledger", forged, verdictUnknown, "TICKET INCONNU"},
		{"already paid", lookup(paid).Ticket, verdictPaid, "DÉJÀ PAYÉ"},
		{"loser", lookup(losers[0]).Ticket, verdictLoser, "PERDANT"},
	} {
		c.reset()
		fillContents(c, &tt.ticket)
		c.check()
		if c.view.kind != tt.want || c.view.title.Text() != tt.title || c.view.bg.FillColor != verdictStyle[tt.want] || c.view.pay.Visible() {
			t.Errorf("%s: %q on %v, PAYER %v; want %q on the counter's colour %v", tt.name, c.view.title.Text(),
				c.view.bg.FillColor, c.view.pay.Visible(), tt.title, verdictStyle[tt.want])
		}
		// Contents that may not be paid show no gold total, no prize.
		if unpayable := tt.want == verdictError || tt.want == verdictUnknown; c.picture.hideWins != unpayable || (unpayable && c.view.amount.Text() != "") {
			t.Errorf("%s: wins marked on the picture %v, amount %q", tt.name, !c.picture.hideWins, c.view.amount.Text())
		}
	}
}

// The contents form is filled from the keyboard: the first field has it
// when the tab opens, values are typed (symbols and cards by their first
// letters), Tab goes to the next field in reading order, Enter checks, and
// Enter twice more pays.
func TestContentsKeyboard(t *testing.T) {
	d := newTestDesk(t, fixture)
	c := d.contents
	cv := d.win.Canvas()
	serial := takeWinner(t, 6)
	tk, err := fixture.Lookup(context.Background(), serial, d.identity(), ledger.NoLimit)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if !labelIn(c.content, fmt.Sprintf("Mise n°\u00a0%d", i)) {
			t.Errorf("no label for chip %d", i)
		}
	}
	d.tabs.SelectIndex(tabContents)
	values := contentsValues(&tk.Ticket)
	for i, p := range c.paths {
		if cv.Focused() != c.fields[p] {
			t.Fatalf("field %d: the keyboard is on %v, want %s", i, cv.Focused(), p)
		}
		v := values[p]
		switch c.fields[p].kind {
		case symbolField, cardField:
			if len(v) > 2 {
				v = v[:2] // CE for CERISE, AS
			}
			v = strings.ToLower(v)
		}
		typeOn(d.win, v)
		if i < len(c.paths)-1 {
			test.FocusNext(cv)
		}
	}
	press(d.win, fyne.KeyReturn)
	if c.view.kind != verdictWinner || c.match == nil || c.match.Serial != tk.Serial {
		t.Fatalf("after Enter: %q, %s", c.view.title.Text(), c.view.detail.Text)
	}
	if cv.Focused() != c.view.pay {
		t.Fatalf("PAYER does not have the keyboard: %v", cv.Focused())
	}
	press(d.win, fyne.KeyReturn)
	press(d.win, fyne.KeyReturn)
	settle(t, d)
	after, err := fixture.Lookup(context.Background(), serial, d.identity(), ledger.NoLimit)
	if err != nil || after.Status != ledger.StatusPaid {
		t.Fatalf("not paid: %v %v", after.Status, err)
	}
	// Tab from the last field goes to "Vérifier le contenu", which Enter
	// taps: a check of the empty form, whose faults say what they are.
	cv.Focus(c.fields[c.paths[len(c.paths)-1]])
	test.FocusNext(cv)
	if b, ok := cv.Focused().(*keyButton); !ok || b.Text != "Vérifier le contenu" {
		t.Fatalf("Tab from the last field goes to %v", cv.Focused())
	}
	press(d.win, fyne.KeyReturn)
	if c.view.kind != verdictMistyped || c.errs[c.paths[0]].text != "numéro gagnant 1\u00a0: à renseigner" {
		t.Errorf("Enter on Vérifier le contenu: %q, %q", c.view.title.Text(), c.errs[c.paths[0]].text)
	}
}

// A winning zone reads "mise n° 2 : 50 €", never "mise 2 50 €", with the
// typography of each language.
func TestWinText(t *testing.T) {
	defer setLanguage("fr")
	for _, tt := range []struct {
		code string
		win  game.Win
		want string
	}{
		{"fr", game.Win{Surface: game.Roulette, Index: 1, Amount: 50}, "ROULETTE mise n°\u00a02\u00a0: 50 €"},
		{"fr", game.Win{Surface: game.Jackpot, Index: 2, Amount: 6}, "JACKPOT ligne 3\u00a0: 6 €"},
		{"fr", game.Win{Surface: game.Craps, Amount: 15}, "CRAPS\u00a0: 15 €"},
		{"en", game.Win{Surface: game.Roulette, Index: 1, Amount: 50}, "ROULETTE chip no. 2: 50 €"},
	} {
		setLanguage(tt.code)
		if got := winText(tt.win); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.code, got, tt.want)
		}
	}
}

// Paiements: the day is typed as the table shows it, JJ/MM/AAAA.
func TestClaimsDayFilter(t *testing.T) {
	d := newTestDesk(t, fixture)
	d.tabs.SelectIndex(tabClaims)
	c := d.claims
	desk := fmt.Sprintf("G8-%d", time.Now().UnixNano())
	if _, err := fixture.Claim(context.Background(), ledger.ClaimRequest{Serial: takeWinner(t, 3), Method: ledger.MethodSerial, Who: ledger.Identity{Desk: desk, Operator: "Bob"}, Limit: ledger.NoLimit}); err != nil {
		t.Fatal(err)
	}
	c.desk.SetText(desk)
	c.reload()
	if c.table.ShowHeaderColumn {
		t.Error("the table numbers its rows beside the claims' numbers")
	}
	for _, tt := range []struct {
		day  time.Time
		want int
	}{{time.Now(), 1}, {time.Now().AddDate(0, 0, -1), 0}} {
		c.day.SetText(tt.day.Format("02/01/2006"))
		if len(c.claims) != tt.want {
			t.Errorf("on %s: %d claims, want %d", c.day.Text, len(c.claims), tt.want)
		}
	}
	c.day.SetText("2025-05-01")
	c.reload()
	if !shown(d.win, "JJ/MM/AAAA") {
		t.Error("a day typed otherwise is not refused with the form to use")
	}
}

// Blocs: every line of the reconciliation is in view, the total too; the
// digest reads as text and copies; a verification shows the journal's head
// to write down, with a copy button.
func TestBlocksReportAndVerify(t *testing.T) {
	d := newTestDesk(t, fixture)
	d.win.Resize(fyne.NewSize(1024, 768))
	d.tabs.SelectIndex(tabBlocks)
	b := d.blocks
	b.reload()
	b.list.Select(0)
	waitFor(t, "the report", time.Minute, func() bool { return len(b.rep.Tiers) > 0 })
	height := d.win.Canvas().Size().Height
	var texts []string
	for _, o := range b.report.Objects {
		l := o.(*canvas.Text)
		texts = append(texts, l.Text)
		if abs(l).Y+l.Size().Height > height || l.Size().Height < l.MinSize().Height {
			t.Errorf("%q is cut off at %v, %v (window %v high)", l.Text, abs(l), l.Size(), height)
		}
	}
	if rows := len(texts) / len(reportColumns); rows != len(game.PrizeTable)+2 || texts[len(texts)-len(reportColumns)] != "Total" ||
		texts[len(texts)-2*len(reportColumns)] != "3 €" {
		t.Errorf("report %v: want a header, a line per tier and the total", texts)
	}
	if b.digest.Text != b.blocks[0].Digest {
		t.Errorf("digest %q", b.digest.Text)
	}
	test.Tap(b.copy)
	if got := d.app.Clipboard().Content(); got != b.blocks[0].Digest {
		t.Errorf("copied %q", got)
	}

	// A verification that matched (a whole one takes minutes under -race:
	// its report is made here).
	b.showVerified(ledger.VerifyReport{Blocks: 1, Tickets: game.BlockSize, Entries: 4, Head: strings.Repeat("c0ffee", 10) + "abcd"})
	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	head := ""
	for _, o := range d.win.Canvas().Overlays().List() {
		for _, x := range test.LaidOutObjects(o) {
			if l, ok := x.(*widget.Label); ok && hex.MatchString(l.Text) {
				head = l.Text
			}
		}
	}
	if head == "" {
		t.Fatal("the verification shows no journal head")
	}
	test.Tap(findButton(t, d.win, "Copier"))
	if got := d.app.Clipboard().Content(); got != head {
		t.Errorf("copied %q, want the head %q", got, head)
	}
}

// Réglages: a file that is not a ledger is refused in the app's language
// and terms, without a word of the command line.
func TestSettingsNotALedger(t *testing.T) {
	d := newTestDesk(t, nil)
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d.settings.openAt(path) {
		t.Fatal("a text file opened as a ledger")
	}
	if !shown(d.win, "n’est pas un registre vegas-desk") || shown(d.win, "--db") {
		t.Error("the refusal is not said in French, or speaks of --db")
	}
}

// Réglages: a ledger is created from one dialog, whose file name field is
// wide enough to read; Enter creates it.
func TestSettingsCreateDialog(t *testing.T) {
	d := newTestDesk(t, nil)
	defer d.closeLedger()
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir) // the folder offered, without a ledger open
	d.settings.choose(true)
	if n := dialogs(d.win); n != 1 {
		t.Fatalf("%d dialogs, want one", n)
	}
	name, ok := d.win.Canvas().Focused().(*keyEntry)
	if !ok || name.Size().Width < 300 {
		t.Fatalf("the file name field has not the keyboard, or is narrow: %v", d.win.Canvas().Focused())
	}
	typeOn(d.win, "essai.db")
	press(d.win, fyne.KeyReturn)
	want := filepath.Join(dir, "vegas-desk", "essai.db")
	if d.ledger == nil || d.ledger.Path() != want {
		t.Fatalf("ledger %v, want one at %s", d.ledger, want)
	}
}

// A mistyped --db (or a remembered ledger gone) makes nothing unasked: no
// folder, no file, no demonstration block; Escape leads to Réglages, Enter
// creates the ledger and offers the demonstration block.
func TestStartMissingLedger(t *testing.T) {
	d := newTestDesk(t, nil)
	defer d.closeLedger()
	dir := filepath.Join(t.TempDir(), "typo")
	path := filepath.Join(dir, "ledger.db")
	d.start(path, true)
	if _, err := os.Stat(dir); !os.IsNotExist(err) || d.ledger != nil {
		t.Fatalf("the folder or the ledger was made unasked: %v, %v", err, d.ledger)
	}
	if !shown(d.win, path) {
		t.Fatal("the question does not name the file")
	}
	press(d.win, fyne.KeyEscape)
	if d.tabs.SelectedIndex() != tabSettings || dialogs(d.win) != 0 || d.settings.path.Text != "aucun registre ouvert" {
		t.Errorf("after Escape: tab %d, %d dialogs, ledger file %q", d.tabs.SelectedIndex(), dialogs(d.win), d.settings.path.Text)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("the folder was made")
	}
	d.start(path, true)
	press(d.win, fyne.KeyReturn)
	if d.ledger == nil || d.ledger.Path() != path {
		t.Fatalf("Enter did not create the ledger: %v", d.ledger)
	}
	if !shown(d.win, "démonstration") {
		t.Error("no demonstration block offered on the new ledger")
	}
}

// The serials to try show, for the block chosen, the next unpaid ticket of
// a tier whose listed ticket was paid; the counter offers them.
func TestSamplesNextUnpaid(t *testing.T) {
	d := newTestDesk(t, fixture)
	if !hasButton(d.win, "Numéros à essayer…") {
		t.Fatal("the counter does not offer the serials to try")
	}
	six := func() string {
		t.Helper()
		d.showSamples()
		defer func() {
			for dialogs(d.win) > 0 {
				press(d.win, fyne.KeyEscape)
			}
		}()
		waitFor(t, "the serials to try", time.Minute, func() bool { return shown(d.win, "perdant") })
		for _, o := range d.win.Canvas().Overlays().List() {
			for _, x := range test.LaidOutObjects(o) {
				if row, ok := x.(*fyne.Container); ok && len(row.Objects) == 3 {
					if labelIn(row, "gagnant 6 €") {
						for _, y := range row.Objects {
							if e, ok := y.(*keyEntry); ok {
								return e.Text
							}
						}
					}
				}
			}
		}
		t.Fatal("no 6 € serial to try")
		return ""
	}
	first := six()
	winners[6] = slices.DeleteFunc(winners[6], func(s string) bool { return s == first }) // no other test takes it
	if _, err := fixture.Claim(context.Background(), ledger.ClaimRequest{Serial: first, Method: ledger.MethodSerial, Who: ledger.Identity{Desk: "T8", Operator: "Zoé"}, Limit: ledger.NoLimit}); err != nil {
		t.Fatal(err)
	}
	if next := six(); next == first || next == "" {
		t.Errorf("after paying %s, the 6 € serial to try is %q", first, next)
	}
}

// The generation's time left shows only once it means something.
func TestTimeLeft(t *testing.T) {
	for _, tt := range []struct {
		elapsed     time.Duration
		done, total int
		want        time.Duration
		ok          bool
	}{
		{300 * time.Millisecond, 4_000, 2_000_000, 0, false}, // the first batch
		{1 * time.Second, 1_200_000, 2_000_000, 0, false},    // a job of 1.5 s
		{3 * time.Second, 100_000, 2_000_000, 0, false},      // 5 % done
		{3 * time.Second, 1_000_000, 2_000_000, 3 * time.Second, true},
		{4 * time.Second, 1_900_000, 2_000_000, 0, false}, // less than 2 s left
		{3 * time.Second, 2_000_000, 2_000_000, 0, false},
	} {
		got, ok := timeLeft(tt.elapsed, tt.done, tt.total)
		if ok != tt.ok || (ok && got.Round(time.Second) != tt.want) {
			t.Errorf("timeLeft(%v, %d, %d) = %v, %v; want %v, %v", tt.elapsed, tt.done, tt.total, got, ok, tt.want, tt.ok)
		}
	}
	for d, want := range map[time.Duration]string{8 * time.Second: "8 s", 65 * time.Second: "1 min 05 s"} {
		if got := duration(d); got != want {
			t.Errorf("duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// Without $USER and settings, the app's operator is the command line's:
// core.DefaultIdentity.
func TestIdentityDefault(t *testing.T) {
	t.Setenv("USER", "")
	d := newTestDesk(t, fixture)
	d.app.Preferences().RemoveValue(prefDesk)
	d.app.Preferences().RemoveValue(prefOperator)
	if got, want := d.identity(), core.DefaultIdentity("", ""); got != want || got.Operator == "" {
		t.Errorf("identity %+v, want %+v", got, want)
	}
}

// The language chosen in Réglages is put in the place of the system's when
// they differ (Windows), never when the system says none (Linux: the
// variables setLanguage sets decide); the default is the system's, else
// French.
func TestOverridesSystem(t *testing.T) {
	for _, tc := range []struct {
		code, system string
		want         bool
	}{{"fr", "", false}, {"en", "", false}, {"fr", "fr", false}, {"en", "en", false}, {"fr", "en", true}, {"en", "fr", true}} {
		if got := overridesSystem(tc.code, tc.system); got != tc.want {
			t.Errorf("overridesSystem(%q, %q) = %v", tc.code, tc.system, got)
		}
	}
	if got := defaultLanguage(); got != "fr" {
		t.Errorf("defaultLanguage() = %q here, want fr", got)
	}
}
