// Package ui is the vegas-desk desktop app: the counter, the ticket picture,
// the claims, blocks and settings screens. It draws and delegates: every
// rule comes from internal/game and every record from internal/ledger.
//
// Threading follows Fyne ≥ 2.6: callbacks run on the app goroutine; long
// work (generating, verifying, exporting) runs in a goroutine with a context
// and touches widgets only through onMain (fyne.Do).
package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
)

// onMain runs f on the app goroutine: fyne.Do. The headless test driver
// runs f at once on the calling goroutine instead, so the tests replace
// onMain with a queue that the test goroutine drains, as the real driver's
// event loop does: every widget is then touched by one goroutine.
var onMain = fyne.Do

// AppID is the application id of FyneApp.toml; preferences are kept under it.
const AppID = "fr.vegasdesk.app"

// DefaultGame is the game code of the blocks the app generates.
const DefaultGame = 531

// Preference keys.
const (
	prefLedger   = "ledger.path"
	prefDeskCert = "ledger.deskCert" // the desk file of a validation server's ledger
	prefDesk     = "desk.id"
	prefOperator = "desk.operator"
	prefLimit    = "desk.payoutLimit"
	prefLanguage = "language"
)

// Run opens the desktop app on the ledger at dbPath and returns when its
// window closes. An empty dbPath opens the ledger chosen last in Réglages,
// or ledger.DefaultPath(). A ledger named by dbPath or chosen last that is
// not there is not created unasked: a mistyped --db must not make an empty
// ledger, as the commands refuse a missing file.
func Run(dbPath string) error {
	a := app.NewWithID(AppID)
	setLanguage(a.Preferences().StringWithFallback(prefLanguage, defaultLanguage()))
	a.Settings().SetTheme(vegasTheme{})
	a.SetIcon(Icon())

	if dbPath == "" {
		dbPath = a.Preferences().String(prefLedger)
	}
	named := dbPath != ""
	if !named {
		dbPath = ledger.DefaultPath() // the command line's default too
	}
	w := a.NewWindow("vegas-desk")
	d := newDesk(a, w, nil)
	// Until the driver runs, the screen is not known: the smallest the app
	// serves.
	w.Resize(d.windowSize(func() (int, int, bool) { return 1024, 768, true }))
	// Once the driver runs, the screen is known: the window fits it.
	a.Lifecycle().SetOnStarted(func() { w.Resize(d.windowSize(workArea)) })
	defer d.closeLedger()
	d.start(dbPath, named)
	w.ShowAndRun()
	return nil
}

// The window's size, in Fyne's units, is remembered between runs.
const (
	prefWidth  = "window.width"
	prefHeight = "window.height"
)

// defaultWindow is the window's size on the first run, or as much of it as
// the screen holds.
var defaultWindow = fyne.NewSize(1360, 860)

// windowSize is the size the window opens at: the last one, or the
// default, no larger than the screen's work area less the window's title
// bar (area gives its size in pixels, when it knows it), and no smaller
// than what the screens need.
func (d *desk) windowSize(area func() (int, int, bool)) fyne.Size {
	p := d.app.Preferences()
	s := fyne.NewSize(float32(p.FloatWithFallback(prefWidth, float64(defaultWindow.Width))),
		float32(p.FloatWithFallback(prefHeight, float64(defaultWindow.Height))))
	if w, h, ok := area(); ok {
		scale := float32(1)
		if c := d.win.Canvas(); c != nil && c.Scale() > 0 {
			scale = c.Scale()
		}
		const frameW, frameH = 8, 40 // a window manager's border and title bar, in pixels
		s = s.Min(fyne.NewSize(float32(w-frameW)/scale, float32(h-frameH)/scale))
	}
	return s.Max(d.win.Content().MinSize())
}

// rememberSize keeps the window's size for the next run.
func (d *desk) rememberSize() {
	s := d.win.Canvas().Size()
	if s.Width > 0 && s.Height > 0 {
		d.app.Preferences().SetFloat(prefWidth, float64(s.Width))
		d.app.Preferences().SetFloat(prefHeight, float64(s.Height))
	}
}

// start opens the ledger at path. When there is no file there and ask is
// set, it asks first whether to create one; without a ledger the app opens
// on Réglages.
func (d *desk) start(path string, ask bool) {
	_, err := os.Stat(path)
	switch {
	case ledger.IsURL(path), ledger.IsServer(path):
		if !d.settings.openAt(path) {
			d.tabs.SelectIndex(tabSettings)
		}
		return
	case !ask && errors.Is(err, os.ErrNotExist):
		// The first run, on the default ledger: a demonstration ledger,
		// whose serials to try the app may list.
		if !d.settings.openWith(path, ledger.CreateDemo) {
			d.tabs.SelectIndex(tabSettings)
		}
		return
	}
	if ask && errors.Is(err, os.ErrNotExist) {
		msg := widget.NewLabel(lang.L("There is no ledger at {{.Path}}. Create a new, empty ledger there?", map[string]any{"Path": path}))
		msg.Wrapping = fyne.TextWrapWord
		dlg := d.ask(lang.L("No ledger"), msg, lang.L("Create"), lang.L("Choose in Settings"), func(ok bool) {
			if ok {
				d.settings.openAt(path)
			} else {
				d.tabs.SelectIndex(tabSettings)
			}
		})
		dlg.Resize(fyne.NewSize(560, dlg.MinSize().Height))
		return
	}
	if !d.settings.openAt(path) {
		d.tabs.SelectIndex(tabSettings)
	}
}

// Tab indexes.
const (
	tabCounter = iota
	tabContents
	tabClaims
	tabPacks
	tabBlocks
	tabSettings
)

// desk is the app's state: the open ledger, the window and the screens.
// Its fields are touched on the app goroutine only.
type desk struct {
	app    fyne.App
	win    fyne.Window
	ledger *ledger.Ledger // nil when no ledger is open

	tabs     *container.AppTabs
	counter  *counterScreen
	contents *contentsScreen
	claims   *claimsScreen
	packs    *packsScreen
	blocks   *blocksScreen
	settings *settingsScreen
	status   *widget.Label

	tasks    map[*task]struct{}         // the long tasks running
	payments map[chan struct{}]struct{} // the payments in flight, each closed when its claim returns
	// originals are the payments this desk just made whose receipt has not
	// printed yet: their first receipt is the original, any other a
	// DUPLICATA.
	originals map[int64]bool
	closing   bool // the window is closing: tasks finish silently

	// A shared ledger's server: whether it answered the last ping (nil
	// before the first), and how to stop pinging it.
	online    *bool
	down      bool    // offline: the server answered that its ledger does not (ledger.ErrUnavailable), not the network
	refusedBy verdict // the validation server's refusal of this desk at the last ping, or verdictNone
	stopWatch context.CancelFunc
	answers   []*answer // what Enter and Escape do in the dialogs shown
	scan      scanWatch // the digits typed last: a scan?
	keyAt     time.Time // when the last character or Enter was typed (keyClock)
	checks    []checked // the counter's checks this session, newest first
}

// newDesk builds the screens in w on ledger l (which may be nil).
func newDesk(a fyne.App, w fyne.Window, l *ledger.Ledger) *desk {
	d := &desk{app: a, win: w, ledger: l, tasks: map[*task]struct{}{}, payments: map[chan struct{}]struct{}{}, originals: map[int64]bool{}}
	w.SetCloseIntercept(d.quit)
	w.Canvas().SetOnTypedKey(d.typedKey)
	w.Canvas().SetOnTypedRune(d.typedRune)
	d.addTabKeys()
	d.build()
	return d
}

// build (re)creates every screen, e.g. after a change of language.
func (d *desk) build() {
	d.counter = newCounterScreen(d)
	d.contents = newContentsScreen(d)
	d.claims = newClaimsScreen(d)
	d.packs = newPacksScreen(d)
	d.blocks = newBlocksScreen(d)
	d.settings = newSettingsScreen(d)
	d.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon(tabLabel(lang.L("Counter"), tabCounter), theme.ConfirmIcon(), d.counter.content),
		container.NewTabItemWithIcon(tabLabel(lang.L("Enter contents"), tabContents), theme.DocumentCreateIcon(), d.contents.content),
		container.NewTabItemWithIcon(tabLabel(lang.L("Payments"), tabClaims), theme.ListIcon(), d.claims.content),
		container.NewTabItemWithIcon(tabLabel(lang.L("Packs"), tabPacks), theme.GridIcon(), d.packs.content),
		container.NewTabItemWithIcon(tabLabel(lang.L("Blocks"), tabBlocks), theme.StorageIcon(), d.blocks.content),
		container.NewTabItemWithIcon(tabLabel(lang.L("Settings"), tabSettings), theme.SettingsIcon(), d.settings.content),
	)
	d.tabs.OnSelected = func(t *container.TabItem) {
		switch t.Content {
		case d.claims.content:
			d.claims.reload()
		case d.packs.content:
			d.packs.reload()
		case d.blocks.content:
			d.blocks.reload()
		case d.settings.content:
			d.settings.listPrinters() // a printer added since shows
			d.settings.showState()
		}
		d.focusTab()
	}
	// The contents typed are a ticket's in hand: not kept for another.
	d.tabs.OnUnselected = func(t *container.TabItem) {
		if t.Content == d.contents.content {
			d.contents.reset()
		}
	}
	d.status = widget.NewLabel("")
	d.status.TextStyle.Italic = true
	d.status.Truncation = fyne.TextTruncateEllipsis
	d.updateStatus()
	d.win.SetContent(container.NewBorder(nil, d.status, nil, nil, d.tabs))
	d.counter.focus()
}

// updateStatus says which ledger is open, who acts, and on a shared
// ledger or a validation server which counter it is and whether its
// server answers.
func (d *desk) updateStatus() {
	who := d.identity()
	path := lang.L("no ledger open")
	desk := lang.L("Desk") + " " + who.Desk
	if d.ledger != nil {
		path = d.ledger.Path()
		switch {
		case d.ledger.Kind() == "counter":
			desk = lang.L("Counter {{.Desk}}'s sealed ledger (offline)", map[string]any{"Desk": who.Desk})
		case d.ledger.CounterDesk() != "":
			desk = lang.L("Counter {{.Desk}} on the validation server", map[string]any{"Desk": who.Desk})
		}
		if d.ledger.Shared() {
			switch {
			case d.online == nil:
				path += " · " + lang.L("connecting…")
			case d.refusedBy != verdictNone:
				path += " · " + counterTitle(d.refusedBy)
			case *d.online:
				path += " · " + lang.L("connected")
			default:
				path += " · " + lang.L("UNREACHABLE")
			}
		}
	}
	d.status.SetText(fmt.Sprintf("%s · %s %s · %s %s · %s",
		desk, lang.L("Operator"), who.Operator,
		lang.L("Payout limit"), game.FormatAmount(d.payoutLimit()), path))
}

// setOnline records whether the shared ledger answered: the status line
// says so, and the verdicts of the counter and of the contents form turn to
// REGISTRE INJOIGNABLE — NE PAS PAYER as soon as it does not, and say when
// it answers again.
func (d *desk) setOnline(ok bool) { d.setOnlineAs(ok, false) }

// setOnlineAs is setOnline, saying when offline whether the server
// answered that its ledger does not (down) or nothing answered.
func (d *desk) setOnlineAs(ok, down bool) {
	if d.online != nil && *d.online == ok && (ok || d.down == down) {
		return
	}
	d.down = down && !ok
	was := d.online
	d.online = &ok
	d.updateStatus()
	switch {
	case !ok:
		d.counter.offline()
		d.contents.offline()
	case was != nil: // back after an outage
		d.counter.online()
		d.contents.online()
	}
}

// pinged records what the shared ledger's server answered a ping: that it
// answers, or that it refuses this desk (disabled, its desk file revoked,
// unknown, another ledger: the screens say so and whom to call, not that
// the network is down), or nothing.
func (d *desk) pinged(err error) {
	k, why := refused(err)
	if err != nil && (k == verdictNone || k == verdictUnreachable) {
		d.setOnlineAs(false, errors.Is(err, ledger.ErrUnavailable))
		return
	}
	if k == verdictLocked { // a lock-out is a desk's state at a check, not the server's answer
		k = verdictNone
	}
	d.setOnline(true)
	if k == d.refusedBy {
		return
	}
	d.refusedBy = k
	d.updateStatus()
	if k != verdictNone {
		d.counter.refuse(k, why)
		d.contents.refuse(k, why)
		return
	}
	d.counter.online()
	d.contents.online()
}

// answered records that the shared ledger's server just answered a check
// or a payment: the status line says so at once, not at the next ping.
func (d *desk) answered() {
	if d.ledger != nil && d.ledger.Shared() {
		d.pinged(nil)
	}
}

// offline says whether the shared ledger's server did not answer last.
func (d *desk) offline() bool { return d.online != nil && !*d.online }

// pingEvery is how often the app asks a shared ledger's server whether it
// answers. The tests shorten it.
var pingEvery = 5 * time.Second

// watch pings a shared ledger every pingEvery until ctx ends, and says on
// the screens whether it answers (setOnline).
func (d *desk) watch(ctx context.Context, l *ledger.Ledger, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := l.Ping(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		onMain(func() {
			if d.ledger == l {
				d.pinged(err)
			}
		})
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// identity is who acts at this desk: the settings, else the rule the
// command line follows too (core.DefaultIdentity). On a validation
// server, a counter is its desk file's desk, whatever the settings say.
func (d *desk) identity() ledger.Identity {
	p := d.app.Preferences()
	who := core.DefaultIdentity("", "")
	desk := p.StringWithFallback(prefDesk, who.Desk)
	if d.ledger != nil && d.ledger.CounterDesk() != "" {
		desk = d.ledger.CounterDesk()
	}
	return ledger.Identity{Desk: desk, Operator: p.StringWithFallback(prefOperator, who.Operator)}
}

// limit is the largest prize this desk pays: the settings', or on a
// validation server the one the ledger holds for the counter's desk, or on a sealed
// counter ledger the one the back office sealed in it. It is asked of the
// ledger, which may only apply a lower one (a desk of its desks).
func (d *desk) limit() ledger.Limit {
	if d.ledger != nil && d.ledger.CounterDesk() != "" {
		return d.ledger.CounterLimit()
	}
	return ledger.LimitOf(d.app.Preferences().IntWithFallback(prefLimit, 5000))
}

// payoutLimit is limit in euros.
func (d *desk) payoutLimit() int {
	n, _ := d.limit().Euros()
	return n
}

// useLedger switches to l (closing the previous ledger) and reloads the
// screens. Nothing read from the previous ledger stays on screen: no
// verdict, no matching ticket and no PAYER, no block selected.
func (d *desk) useLedger(l *ledger.Ledger) {
	d.closeLedger()
	d.ledger = l
	d.app.Preferences().SetString(prefLedger, l.Path())
	if l.Shared() {
		ctx, cancel := context.WithCancel(context.Background())
		d.stopWatch = cancel
		go d.watch(ctx, l, pingEvery)
	}
	// The last checks were the previous ledger's.
	d.checks = nil
	d.counter.checks.Refresh()
	d.counter.clear()
	d.contents.reset()
	d.blocks.unselect()
	d.packs.clear()
	d.packs.reload()
	d.settings.loadRules()
	d.settings.setRole()
	d.claims.reload()
	d.blocks.reload()
	d.updateStatus()
	d.firstRun()
}

func (d *desk) closeLedger() {
	if d.stopWatch != nil {
		d.stopWatch()
		d.stopWatch, d.online, d.refusedBy = nil, nil, verdictNone
	}
	if d.ledger != nil {
		d.ledger.Close()
		d.ledger = nil
	}
}

// needLedger says so and returns false when no ledger is open.
func (d *desk) needLedger() bool {
	if d.ledger == nil {
		d.inform(lang.L("No ledger"), lang.L("Open or create a ledger in Settings first."))
		return false
	}
	return true
}
