// Package ledger is the vegas-desk ledger that the app and the command line
// use: blocks, tickets, payments, the packs' moves and every refused
// attempt, in a hash-chained journal. Behind this one API are four kinds of
// ledger, each a backend (core.Backend): a back office's SQLite file
// (package sqlite), a shared PostgreSQL database through the back office's
// login or a validation server's (package postgres), a counter through a
// validation server (package remote), and a sealed counter ledger (package
// counter). The rule they all apply, and the journal, are core's: a
// question is one read, core's decision, one write (core/question.go).
// It is the only part of vegas-desk that speaks SQL; every rule of the game
// comes from internal/game.
package ledger

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/counter"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/platform"
	"vegas-desk/internal/signing"
)

// Ledger is an open ledger. Its methods are safe for concurrent use.
type Ledger struct {
	// Now gives the time of the entries this process writes and of the
	// verdicts it asks; nil is the current time, which on PostgreSQL is
	// the server's (so that the journal's times follow one clock; a
	// counter on a validation server always has the server's). Tests set it.
	Now func() time.Time

	b    core.Backend
	info core.Info
}

// DefaultPath is the ledger of a desk that names none:
// $XDG_DATA_HOME/vegas-desk/ledger.db, or ~/.local/share/vegas-desk/ledger.db;
// on Windows %LOCALAPPDATA%\vegas-desk\ledger.db.
func DefaultPath() string { return platform.DefaultLedger() }

// IsURL reports whether location names a PostgreSQL database rather than a
// file.
func IsURL(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// Open opens the ledger at location, a PostgreSQL URL (postgres:// or
// postgresql://) or a file path, and creates it when there is none: a new
// SQLite file (mode 0600, in a directory made 0700), or the schema in an
// empty PostgreSQL database (as its owner). A file that is not a vegas-desk
// ledger (ErrNotLedger) or comes from another version (ErrTooNew,
// ErrTooOld) is refused untouched; so is a file whose schema holds anything
// a ledger of its version does not (ErrNotLedger).
func Open(location string) (*Ledger, error) { return open(location, false, backoffice.Creation{}) }

// OpenReadOnly opens an existing ledger for lookups, checks, reports,
// exports and verification; every write answers ErrReadOnly and refused
// lookups are not recorded. A SQLite ledger may be a read-only file in a
// read-only directory.
func OpenReadOnly(location string) (*Ledger, error) {
	return open(location, true, backoffice.Creation{})
}

// CreateDemo opens the demonstration ledger at location, creating it
// marked as such. An existing ledger that is not one is refused: a
// demonstration ledger is a new one.
func CreateDemo(location string) (*Ledger, error) {
	l, err := open(location, false, backoffice.Creation{Demo: true})
	if err != nil {
		return nil, err
	}
	if !l.info.Demo {
		l.Close()
		return nil, fmt.Errorf("%s holds a ledger that is not a demonstration ledger; a demonstration needs a new file: %w", l.info.Location, ErrNotDemo)
	}
	return l, nil
}

// open opens the backend that location names: a PostgreSQL database, a
// sealed counter ledger (its file's header says so), or a back office's
// file.
func open(location string, readOnly bool, c backoffice.Creation) (*Ledger, error) {
	if location == "" {
		return nil, errors.New("open ledger: no file name or URL given")
	}
	if IsWebAddress(location) {
		return nil, core.Invalid(fmt.Errorf("%s is a web address, not a ledger's file or postgres:// URL: a validation server is opened as a counter's ledger (OpenServer, with a desk file)", location))
	}
	if !IsURL(location) {
		// Before anything opens it: a named pipe would wait for a writer.
		if err := CheckRegular(location); err != nil {
			return nil, fmt.Errorf("%w: %w; a ledger is a file: give its path", ErrNotLedger, err)
		}
	}
	l := &Ledger{}
	var err error
	switch app, herr := sqlite.Header(location); {
	case IsURL(location):
		l.b, err = postgres.Open(location, readOnly, c, l.clock)
	case herr != nil:
		err = herr
	case app == counter.ApplicationID && c.Meta == nil:
		l.b, err = counter.Open(location, readOnly, l.clock)
	default:
		l.b, err = sqlite.OpenLedger(location, readOnly, c, l.clock)
	}
	if err != nil {
		return nil, err
	}
	l.info = l.b.Info()
	return l, nil
}

// CheckRegular refuses a path that names something other than a regular
// file (through symbolic links): a directory, a device, a named pipe or a
// socket, which no ledger or document can be. A path with nothing there
// passes.
func CheckRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil
	}
	kind := "a special file"
	switch m := st.Mode(); {
	case m.IsDir():
		kind = "a directory"
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&os.ModeSocket != 0:
		kind = "a socket"
	case m&os.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("%s is %s, not a regular file", path, kind)
}

// KeptFile says what the file at path is, from its first bytes, when no
// document may be written over it: a ledger, a counter ledger, another
// SQLite database, a write-ahead log or rollback journal, or a signing key
// file; "" for anything else (or nothing there).
func KeptFile(path string) string {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "" // nothing there, or nothing to read without waiting
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var head [100]byte
	n, _ := io.ReadFull(f, head[:])
	h := head[:n]
	switch {
	case bytes.HasPrefix(h, []byte("SQLite format 3\x00")) && n == len(head):
		switch binary.BigEndian.Uint32(h[68:]) {
		case sqlite.ApplicationID:
			return "a vegas-desk ledger"
		case counter.ApplicationID:
			return "a counter ledger, which may hold payments not yet brought home"
		}
		return "a SQLite database"
	case bytes.HasPrefix(h, []byte("SQLite format 3\x00")):
		return "a SQLite database"
	case bytes.HasPrefix(h, []byte{0x37, 0x7f, 0x06, 0x82}), bytes.HasPrefix(h, []byte{0x37, 0x7f, 0x06, 0x83}):
		return "a SQLite write-ahead log"
	case bytes.HasPrefix(h, []byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}):
		return "a SQLite rollback journal"
	case bytes.HasPrefix(h, []byte(signing.KeyFileMagic)):
		return "a signing key file, which is never replaced"
	}
	return ""
}

// Copy copies the whole ledger from into a new ledger at location (a path
// or a URL, of either engine, which must not hold a ledger yet), in one
// transaction: its blocks, tickets, finder, journal (entries, hashes and
// times as they are), the state the journal leads to and the winners'
// identities. A verify of both then shows the same digests and journal
// head. The copy is a new ledger (issue 29: a served copy of a ledger paid
// its tickets again): it has an id of its own, so the desk files, the
// server's authority and the counter ledgers of from are not its; its
// meta row copy_of names from's id and location (the ledger's a backup
// was taken of, for a backup), which Restore reads.
// progress, if not nil, is called with the tables' rows done and in all.
func Copy(ctx context.Context, from *Ledger, location string, progress func(done, total int)) (*Ledger, error) {
	meta, err := copyMeta(ctx, from)
	if err != nil {
		return nil, err
	}
	o, err := originOf(ctx, from)
	if err != nil {
		return nil, err
	}
	loc := from.Location()
	if o.backup { // a copy of a backup copies the ledger it was taken of
		loc = o.loc
	}
	meta = append(meta, [2]string{"id", backoffice.NewLedgerID()}, [2]string{MetaCopyOf, from.ID() + " " + loc})
	return copyInto(ctx, from, location, meta, progress)
}

// The meta rows of copies, backups and restores.
const (
	// MetaCopyOf: a copy's, "ID LOCATION" of the ledger it copies.
	MetaCopyOf = "copy_of"
	// MetaBackupOf: a backup's, "ID LOCATION" of the ledger it was taken
	// of (issue 44: a backup of a copy keeps the copy's copy_of, and its
	// restore took the copy's original's name).
	MetaBackupOf = "backup_of"
	// MetaRestored: a restore's, "TIME FROM" (when, from what).
	MetaRestored = "restored"
	// MetaReplaced: the ledger a restore replaced, "TIME LOCATION" (when,
	// by what): no server serves it (CheckServable).
	MetaReplaced = "replaced"
	// MetaEpoch: the ledger's incarnation, 0 (no row) until a restore:
	// each restore is one more than the ledger it replaces. A desk file
	// names the incarnation it was issued for (server: DeskCertificate),
	// and serve refuses one of a later incarnation (its ledger was
	// replaced) or of one before MetaDeskEpoch.
	MetaEpoch = "epoch"
	// MetaDeskEpoch: the first incarnation whose desk files this ledger
	// takes: a restore that fenced its original (marked it replaced)
	// keeps the original's, one that could not (--original-gone) takes
	// only its own, so that every desk is issued a new desk file.
	MetaDeskEpoch = "desk_epoch"
)

// Epochs are the ledger's incarnation and the first incarnation whose
// desk files it takes (MetaEpoch, MetaDeskEpoch).
func (l *Ledger) Epochs(ctx context.Context) (epoch, desks int, err error) {
	o, err := l.office("read the ledger's incarnation")
	if err != nil {
		return 0, 0, err
	}
	meta, err := o.Meta(ctx)
	if err != nil {
		return 0, 0, err
	}
	return epochsOf(meta)
}

func epochsOf(meta [][2]string) (epoch, desks int, err error) {
	for _, m := range meta {
		var p *int
		switch m[0] {
		case MetaEpoch:
			p = &epoch
		case MetaDeskEpoch:
			p = &desks
		default:
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("%w: meta row %s is %q, not an incarnation's number", core.ErrNotLedger, m[0], m[1])
		}
		*p = n
	}
	return epoch, desks, nil
}

// Restored is what a restore did.
type Restored struct {
	ID string // the ledger's id, which the restore keeps
	// Original is where the ledger it replaces was (the ledger from was
	// taken of, for a backup; that from copies, for a copy; from itself
	// otherwise), Replaced whether it answered and was marked replaced.
	Original string
	Replaced bool
	Why      string // why the original was not marked: it does not answer, or is another ledger now
	// Epoch is the restore's incarnation; DeskEpoch the first whose desk
	// files it takes (Epoch when the original was not fenced: every desk
	// needs a new desk file).
	Epoch, DeskEpoch int
}

// RestoreOptions are a restore's.
type RestoreOptions struct {
	// OriginalGone: the operator says that the original, which the restore
	// cannot reach, is gone for good. Without it such a restore is
	// refused (ErrOriginalUnfenced).
	OriginalGone bool
	// Progress, if not nil, is called with the tables' rows done and in all.
	Progress func(done, total int)
}

// ErrOriginalUnfenced: a restore whose original it could not mark
// replaced, without RestoreOptions.OriginalGone.
var ErrOriginalUnfenced = errors.New("the original could not be fenced")

// origin is what a ledger is a copy or a backup of.
type origin struct {
	id, loc string // the ledger a restore of it replaces
	backup  bool   // it is a backup of ledger id, taken at loc
}

// originOf is the ledger a restore of from replaces: the ledger it is a
// backup of (meta backup_of, or the JSON beside a backup taken before
// backups were marked), whatever that ledger was a copy of; else the one
// it is a copy of (copy_of); else from itself.
func originOf(ctx context.Context, from *Ledger) (origin, error) {
	o := origin{id: from.ID(), loc: from.Location()}
	b, err := metaValue(ctx, from, MetaBackupOf)
	if err != nil {
		return o, err
	}
	if id, loc, ok := strings.Cut(b, " "); ok && id == from.ID() {
		o.loc, o.backup = loc, true
		return o, nil
	}
	if info, ok := backupInfoOf(from.Location()); ok && info.LedgerID == from.ID() && info.From != "" {
		o.loc, o.backup = info.From, true
		return o, nil
	}
	c, err := metaValue(ctx, from, MetaCopyOf)
	if err != nil {
		return o, err
	}
	if id, loc, ok := strings.Cut(c, " "); ok {
		o.id, o.loc = id, loc
	}
	return o, nil
}

// Restore copies from into a new ledger at location that replaces the
// ledger from is a backup or a copy of (from itself when it is neither,
// originOf): it keeps that ledger's id, so its server's authority and
// counter ledgers are the restore's, and is its next incarnation
// (MetaEpoch). The original is fenced first (issue 36): it must answer at
// the location its backup or copy named and be that ledger, and is then
// marked replaced (MetaReplaced), which every server of it reads before
// each question, and the restore takes its desk files. An original that
// does not answer, or cannot be marked, is refused (ErrOriginalUnfenced),
// nothing written, unless o.OriginalGone: the restore then takes desk
// files of its own incarnation only (each desk needs a new one, desks
// cert), which an original brought back refuses.
func Restore(ctx context.Context, from *Ledger, location string, opt RestoreOptions) (*Ledger, Restored, error) {
	og, err := originOf(ctx, from)
	if err != nil {
		return nil, Restored{}, err
	}
	r := Restored{ID: og.id, Original: og.loc}
	fromMeta, err := from.metaOf(ctx)
	if err != nil {
		return nil, r, err
	}
	epoch, desks, err := epochsOf(fromMeta)
	if err != nil {
		return nil, r, err
	}
	if og.id != from.ID() { // a copy: its incarnations are its own, not the original's
		epoch, desks = 0, 0
	}
	// The original: does it answer, is it that ledger, may it be marked?
	var orig *Ledger
	if st, err := os.Stat(r.Original); !IsURL(r.Original) && (err != nil || st.Size() == 0) {
		r.Why = "no ledger file there"
	} else if orig, err = Open(r.Original); err != nil {
		r.Why, orig = err.Error(), nil
	} else if orig.ID() != r.ID {
		r.Why = "it is ledger " + orig.ID() + " now"
	} else if oe, od, err := orig.Epochs(ctx); err != nil {
		r.Why = err.Error()
	} else {
		epoch, desks = max(epoch, oe), od
		if err := CheckServable(ctx, orig); err != nil {
			r.Why = err.Error() // replaced already: by another restore
		}
	}
	if orig != nil && r.Why != "" {
		orig.Close()
		orig = nil
	}
	if orig == nil && !opt.OriginalGone {
		return nil, r, fmt.Errorf("%w: restore of %s: the ledger it replaces, %s at %s, cannot be marked replaced (%s); "+
			"while it may still serve, a restore beside it pays its tickets again: make it answer here (the back office's login, PGPASSWORD) "+
			"so that it is marked, or, if it is gone for good, say so: copy --restore --original-gone (every desk then needs a new desk file: desks cert); nothing was written",
			ErrOriginalUnfenced, from.Location(), r.ID, r.Original, r.Why)
	}
	if orig != nil {
		defer orig.Close()
	}
	r.Epoch = epoch + 1
	if orig != nil {
		r.DeskEpoch = desks // the original fenced: its desk files pay here, never there
	} else {
		r.DeskEpoch = r.Epoch
	}
	meta, err := copyMeta(ctx, from)
	if err != nil {
		return nil, r, err
	}
	at := core.FormatTime(from.now())
	meta = append(meta, [2]string{"id", r.ID}, [2]string{MetaRestored, at + " " + from.Location()},
		[2]string{MetaEpoch, strconv.Itoa(r.Epoch)}, [2]string{MetaDeskEpoch, strconv.Itoa(r.DeskEpoch)})
	to, err := copyInto(ctx, from, location, meta, opt.Progress)
	if err != nil {
		return nil, r, err
	}
	if orig == nil {
		return to, r, nil
	}
	if err := orig.markReplaced(ctx, at+" "+to.Location()); err != nil {
		loc := to.Location()
		to.Close()
		if !IsURL(loc) {
			for _, f := range []string{loc, loc + "-wal", loc + "-shm"} {
				os.Remove(f)
			}
		}
		return nil, r, fmt.Errorf("%w: restore: the original at %s answers, but could not be marked replaced: %w; the restore %s was removed",
			ErrOriginalUnfenced, r.Original, err, loc)
	}
	r.Replaced = true
	return to, r, nil
}

// metaOf is l's meta rows.
func (l *Ledger) metaOf(ctx context.Context) ([][2]string, error) {
	o, err := l.office("read the ledger's meta")
	if err != nil {
		return nil, err
	}
	return o.Meta(ctx)
}

// Duplicate copies from into a new ledger at location of the same id and
// incarnation, marking nothing: two ledgers of one id, which a server must
// never serve at once. It is for backups (a backup keeps the ledger's id,
// and names it: backupOf, "ID LOCATION", unless "") and the tests'
// fixtures (ledgertest: one ledger loaded into PostgreSQL); the command
// line has no way to it (copy, copy --restore).
func Duplicate(ctx context.Context, from *Ledger, location string, progress func(done, total int)) (*Ledger, error) {
	return duplicate(ctx, from, location, "", progress)
}

func duplicate(ctx context.Context, from *Ledger, location, backupOf string, progress func(done, total int)) (*Ledger, error) {
	meta, err := copyMeta(ctx, from)
	if err != nil {
		return nil, err
	}
	all, err := from.metaOf(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range all {
		switch m[0] {
		case MetaEpoch, MetaDeskEpoch, MetaCopyOf, MetaRestored:
			meta = append(meta, m) // the same ledger
		case MetaBackupOf:
			if backupOf == "" {
				meta = append(meta, m)
			}
		}
	}
	if backupOf != "" {
		meta = append(meta, [2]string{MetaBackupOf, backupOf})
	}
	return copyInto(ctx, from, location, append(meta, [2]string{"id", from.ID()}), progress)
}

// copyMeta are from's meta rows that a copy keeps: what it is (not its
// id, nor what copies, backups and restores wrote).
func copyMeta(ctx context.Context, from *Ledger) ([][2]string, error) {
	all, err := from.metaOf(ctx)
	if err != nil {
		return nil, err
	}
	var meta [][2]string
	for _, m := range all {
		switch m[0] {
		case "id", MetaCopyOf, MetaRestored, MetaReplaced, MetaBackupOf, MetaEpoch, MetaDeskEpoch:
		default:
			meta = append(meta, m)
		}
	}
	return meta, nil
}

// copyInto copies from into a new ledger at location with meta rows meta.
func copyInto(ctx context.Context, from *Ledger, location string, meta [][2]string, progress func(done, total int)) (*Ledger, error) {
	src, err := from.office("copy")
	if err != nil {
		return nil, err
	}
	to, err := open(location, false, backoffice.Creation{Meta: meta})
	if err != nil {
		return nil, err
	}
	dst, err := to.office("copy")
	if err == nil {
		err = src.CopyInto(ctx, dst, progress)
	}
	if err != nil {
		to.Close()
		return nil, err
	}
	return to, nil
}

// metaValue is l's meta row key ("" when it has none).
func metaValue(ctx context.Context, l *Ledger, key string) (string, error) {
	o, err := l.office("read the ledger's meta")
	if err != nil {
		return "", err
	}
	meta, err := o.Meta(ctx)
	if err != nil {
		return "", err
	}
	for _, m := range meta {
		if m[0] == key {
			return m[1], nil
		}
	}
	return "", nil
}

// markReplaced records in l that a restore replaced it.
func (l *Ledger) markReplaced(ctx context.Context, what string) error {
	o, err := l.office("mark the ledger replaced")
	if err != nil {
		return err
	}
	return o.AddMeta(ctx, MetaReplaced, what)
}

// Superseded marks l replaced by its incarnation epoch, which a desk
// file signed by its authority for that incarnation proves exists (a
// restore of l, whose server met it): unless it is marked already, or
// epoch is not later than its own.
func (l *Ledger) Superseded(ctx context.Context, epoch int) error {
	own, _, err := l.Epochs(ctx)
	if err != nil || epoch <= own {
		return err
	}
	if v, err := metaValue(ctx, l, MetaReplaced); err != nil || v != "" {
		return err
	}
	return l.markReplaced(ctx, core.FormatTime(l.now())+" "+fmt.Sprintf("its incarnation %d (a desk file of it was shown to this ledger's server)", epoch))
}

// CheckServable refuses a ledger that a restore replaced (ErrReplaced):
// another ledger of its id serves its desks now.
func CheckServable(ctx context.Context, l *Ledger) error {
	v, err := metaValue(ctx, l, MetaReplaced)
	if err != nil || v == "" {
		return err
	}
	at, by, _ := strings.Cut(v, " ")
	return fmt.Errorf("%w: ledger %s at %s was replaced on %s by its restore into %s (copy --restore): serve that one; this one serves no desk",
		ErrReplaced, l.ID(), l.Location(), core.ParseTime(at).Local().Format("2006-01-02 15:04:05"), by)
}

// ErrReplaced: a restore replaced the ledger (CheckServable, core.Gate).
var ErrReplaced = core.ErrReplaced

// office is the back office's store, or the backend's refusal of what.
func (l *Ledger) office(what string) (*backoffice.Store, error) {
	bo, err := l.backOffice(what)
	if err != nil {
		return nil, err
	}
	return bo.(interface{ Office() *backoffice.Store }).Office(), nil
}

// backOffice is the back office's backend, or the backend's refusal of
// what.
func (l *Ledger) backOffice(what string) (core.BackOffice, error) {
	if bo, ok := l.b.(core.BackOffice); ok {
		return bo, nil
	}
	return nil, l.b.Refuse(what)
}

// Close closes the ledger.
func (l *Ledger) Close() error { return l.b.Close() }

// Location returns the ledger's file path, or its URL without password.
func (l *Ledger) Location() string { return l.info.Location }

// Path is Location, for the screens that name a ledger file.
func (l *Ledger) Path() string { return l.info.Location }

// Shared reports whether the ledger is a PostgreSQL database that several
// counters use.
func (l *Ledger) Shared() bool { return l.info.Shared }

// ID returns the ledger's id, which its copies keep.
func (l *Ledger) ID() string { return l.info.ID }

// Demo reports whether this is a demonstration ledger (made by the app's
// first run or generate --demo), whose unpaid winners may be listed.
func (l *Ledger) Demo() bool { return l.info.Demo }

// Kind is "back-office" for the back office's ledger (a file or a shared
// database, a counter through a validation server too) and "counter" for a sealed
// counter ledger.
func (l *Ledger) Kind() string { return l.info.Kind }

// CounterDesk returns the desk of a counter on a validation server or
// of a sealed counter ledger, and "" for the back office.
func (l *Ledger) CounterDesk() string { return l.info.Desk }

// CounterLimit returns the payout limit of a counter on a validation
// server or of a sealed counter ledger, which it applies whatever it is
// asked (NoLimit for the back office).
func (l *Ledger) CounterLimit() Limit { return l.info.Limit }

// ReadOnly reports whether the ledger was opened with OpenReadOnly.
func (l *Ledger) ReadOnly() bool { return l.info.ReadOnly }

// Ping says whether the ledger answers: on a shared ledger, whether its
// server can be reached (ErrUnreachable otherwise).
func (l *Ledger) Ping(ctx context.Context) error { return l.b.Ping(ctx) }

// CounterSeal returns a sealed counter ledger's signed seal.
func (l *Ledger) CounterSeal() (string, bool) {
	if s, ok := l.b.(interface{ Seal() string }); ok {
		return s.Seal(), true
	}
	return "", false
}
