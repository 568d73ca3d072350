package ledger

// Copies, backups' restores and the fence a restore puts on the ledger it
// replaces (issues 29 and 36).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
)

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
