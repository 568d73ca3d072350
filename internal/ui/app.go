// Package ui is the vegas-desk desktop app: the counter, the ticket picture,
// the claims, blocks and settings screens. It draws and delegates: every
// rule comes from internal/game and every record from internal/ledger.
//
// Threading follows Fyne ≥ 2.6: callbacks run on the app goroutine; long
// work (generating, verifying, exporting) runs in a goroutine with a context
// and touches widgets only through onMain (fyne.Do).
package ui

import (
	"fmt"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
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
	prefDesk     = "desk.id"
	prefOperator = "desk.operator"
	prefLimit    = "desk.payoutLimit"
	prefLanguage = "language"
)

// Run opens the desktop app on the ledger at dbPath and returns when its
// window closes. An empty dbPath opens the ledger chosen last in Réglages,
// or ledger.DefaultPath().
func Run(dbPath string) error {
	a := app.NewWithID(AppID)
	setLanguage(a.Preferences().StringWithFallback(prefLanguage, "fr"))
	a.Settings().SetTheme(vegasTheme{})
	a.SetIcon(Icon())

	if dbPath == "" {
		dbPath = a.Preferences().String(prefLedger)
	}
	if dbPath == "" {
		dbPath = ledger.DefaultPath() // the command line's default too
	}
	w := a.NewWindow("vegas-desk")
	w.Resize(fyne.NewSize(1360, 900))
	l, err := ledger.Open(dbPath)
	d := newDesk(a, w, l)
	defer d.closeLedger()
	if err != nil {
		d.tabs.SelectIndex(tabSettings)
		dialog.ShowError(fmt.Errorf("%s %s: %w", lang.L("Cannot open the ledger"), dbPath, err), w)
	} else {
		a.Preferences().SetString(prefLedger, dbPath)
		d.firstRun()
	}
	w.ShowAndRun()
	return nil
}

// Tab indexes.
const (
	tabCounter = iota
	tabContents
	tabClaims
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
	blocks   *blocksScreen
	settings *settingsScreen
	status   *widget.Label

	tasks   map[*task]struct{} // the long tasks running
	closing bool               // the window is closing: tasks finish silently
}

// newDesk builds the screens in w on ledger l (which may be nil).
func newDesk(a fyne.App, w fyne.Window, l *ledger.Ledger) *desk {
	d := &desk{app: a, win: w, ledger: l, tasks: map[*task]struct{}{}}
	w.SetCloseIntercept(d.quit)
	d.build()
	return d
}

// build (re)creates every screen, e.g. after a change of language.
func (d *desk) build() {
	d.counter = newCounterScreen(d)
	d.contents = newContentsScreen(d)
	d.claims = newClaimsScreen(d)
	d.blocks = newBlocksScreen(d)
	d.settings = newSettingsScreen(d)
	d.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon(lang.L("Counter"), theme.ConfirmIcon(), d.counter.content),
		container.NewTabItemWithIcon(lang.L("Enter contents"), theme.DocumentCreateIcon(), d.contents.content),
		container.NewTabItemWithIcon(lang.L("Payments"), theme.ListIcon(), d.claims.content),
		container.NewTabItemWithIcon(lang.L("Blocks"), theme.StorageIcon(), d.blocks.content),
		container.NewTabItemWithIcon(lang.L("Settings"), theme.SettingsIcon(), d.settings.content),
	)
	d.tabs.OnSelected = func(t *container.TabItem) {
		switch t.Content {
		case d.counter.content:
			d.counter.focus()
		case d.claims.content:
			d.claims.reload()
		case d.blocks.content:
			d.blocks.reload()
		}
	}
	d.status = widget.NewLabel("")
	d.status.TextStyle.Italic = true
	d.updateStatus()
	d.win.SetContent(container.NewBorder(nil, d.status, nil, nil, d.tabs))
	d.counter.focus()
}

func (d *desk) updateStatus() {
	who := d.identity()
	path := lang.L("no ledger open")
	if d.ledger != nil {
		path = d.ledger.Path()
	}
	d.status.SetText(fmt.Sprintf("%s %s · %s %s · %s %s · %s",
		lang.L("Desk"), who.Desk, lang.L("Operator"), who.Operator,
		lang.L("Payout limit"), game.FormatAmount(d.payoutLimit()), path))
}

// identity is who acts at this desk, from the settings.
func (d *desk) identity() ledger.Identity {
	p := d.app.Preferences()
	host, _ := os.Hostname()
	if host == "" {
		host = "guichet-1"
	}
	return ledger.Identity{
		Desk:     p.StringWithFallback(prefDesk, host),
		Operator: p.StringWithFallback(prefOperator, "opérateur"),
	}
}

// payoutLimit is the largest prize this desk pays, in euros.
func (d *desk) payoutLimit() int {
	return d.app.Preferences().IntWithFallback(prefLimit, 5000)
}

// useLedger switches to l (closing the previous ledger) and reloads the
// screens. Nothing read from the previous ledger stays on screen: no
// verdict, no matching ticket and no PAYER, no block selected.
func (d *desk) useLedger(l *ledger.Ledger) {
	d.closeLedger()
	d.ledger = l
	d.app.Preferences().SetString(prefLedger, l.Path())
	d.counter.clear()
	d.contents.reset()
	d.blocks.unselect()
	d.claims.reload()
	d.blocks.reload()
	d.updateStatus()
	d.firstRun()
}

func (d *desk) closeLedger() {
	if d.ledger != nil {
		d.ledger.Close()
		d.ledger = nil
	}
}

// needLedger says so and returns false when no ledger is open.
func (d *desk) needLedger() bool {
	if d.ledger == nil {
		dialog.ShowInformation(lang.L("No ledger"), lang.L("Open or create a ledger in Settings first."), d.win)
		return false
	}
	return true
}

// showError shows err in a dialog.
func (d *desk) showError(err error) {
	dialog.ShowError(err, d.win)
}
