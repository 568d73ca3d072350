package counter

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/testcache"
)

// One sealed record of each kind, pinned: a change of the derivation is a
// new format (counter ledgers already issued would no longer read). The
// expected bytes were computed apart from this code, with Python's hashlib,
// from the derivation written in seal.go.
func TestSealedRecordFixed(t *testing.T) {
	code := [game.EncodedSize]byte{0x0b, 0x52, 0x3c, 0x91, 0x47, 0x20, 0xe5, 0x1d, 0x6a, 0x88, 0x03, 0xf4, 0x29, 0x70}
	const gameCode, block, pos, secret = 531, 1, 456789, int64(1234567890123456)

	rec := serialRecord(gameCode, block, pos, secret, &code)
	if got, want := hex.EncodeToString(rec[:]), "1e9a8d6585aad8d09adb59142c3cdc0362f965058f42c703bbb9"; got != want {
		t.Errorf("serial record\n got %s\nwant %s", got, want)
	}
	h := serialHash(gameCode, block, pos, secret)
	pad := serialPad(&h)
	for i := range code {
		if rec[sealIndexSize+i]^pad[i] != code[i] {
			t.Fatal("the serial record does not open to its ticket")
		}
	}

	ch := contentsHash(gameCode, block, code[:])
	cpad := contentsPad(&ch, 0)
	payload := contentsPayload(pos, secret, &cpad)
	if got, want := hex.EncodeToString(append(ch[:sealIndexSize:sealIndexSize], payload[:]...)), "7b7bd19d02077510c6773ec84153dd92b17b3cf7c9697d40"; got != want {
		t.Errorf("contents record\n got %s\nwant %s", got, want)
	}
	if p, s := openContents(payload[:], &cpad); p != pos || s != secret {
		t.Errorf("contents record opens to %d %d", p, s)
	}
	other := contentsPad(&ch, 1)
	if other == cpad {
		t.Error("two winners with the same contents get the same pad")
	}
}

// pearson is the correlation coefficient of x and y.
func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// The pick-out attack on a sealed counter ledger: someone who holds the
// file and knows every ticket's position (printed outside the scratch
// layer) looks for anything stored that tells winners from losers. Over a
// whole sealed block, no stored byte, length or order correlates with the
// prize (|r| < 0.005), whether records are read in stored order against
// positions in block order, or each against its own ticket; and the file
// holds no serial key, no secret part and no ticket encoding.
func TestCounterPickOut(t *testing.T) {
	ctx := context.Background()
	bo := openFixture(t, "block", "ledger.db", sqlite.Kind{AppID: sqlite.ApplicationID, Schema: sqlite.LedgerSchema})
	b := fixtureBlock(t, bo)
	codes, prizes, err := backoffice.BlockTickets(ctx, bo.R, b)
	if err != nil {
		t.Fatal(err)
	}
	sealed := sealedFixture(t, b, codes, prizes)

	// The file holds exactly these rows, and nothing else of the block.
	c := openFixture(t, "sealed", "C1.db", sqlite.Kind{AppID: ApplicationID, Schema: Schema})
	sealed1, _ := FixtureDir("sealed")
	for _, tc := range []struct {
		table string
		rows  []sealRow
	}{{"serials", sealed.serials}, {"contents", sealed.contents}} {
		var got []struct {
			ID      int64  `db:"id"`
			Records []byte `db:"records"`
		}
		if err := core.Select(ctx, c.R, &got, "SELECT id, records FROM "+tc.table+" ORDER BY id"); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.rows) {
			t.Fatalf("%s: %d rows, sealing makes %d", tc.table, len(got), len(tc.rows))
		}
		for i := range got {
			if got[i].ID != tc.rows[i].id || !bytes.Equal(got[i].Records, tc.rows[i].records) {
				t.Fatalf("%s row %d differs from what sealing makes", tc.table, i)
			}
		}
	}

	amount := func(pos int) float64 { p, _ := core.PrizeOf(prizes[pos]); return float64(p) }
	wins := func(pos int) float64 {
		if prizes[pos] != 0 {
			return 1
		}
		return 0
	}
	check := func(what string, x, y []float64) {
		t.Helper()
		if r := pearson(x, y); math.Abs(r) >= 0.005 || math.IsNaN(r) {
			t.Errorf("%s: r = %.5f, want |r| < 0.005", what, r)
		}
	}
	// examine checks every byte of records (size bytes each, in stored
	// order, from rows), their rank and their row's length against the
	// prize of the ticket each seals (own) and of the ticket at the same
	// rank in block order (byRank).
	examine := func(kind string, rows []sealRow, size int, own, byRank []int32) {
		var recs [][]byte
		var rowLen []float64
		for _, r := range rows {
			if len(r.records)%size != 0 {
				t.Fatalf("%s row of %d bytes", kind, len(r.records))
			}
			for k := 0; k < len(r.records); k += size {
				recs = append(recs, r.records[k:k+size])
				rowLen = append(rowLen, float64(len(r.records)/size))
			}
		}
		n := len(recs)
		if n != len(own) {
			t.Fatalf("%s: %d records for %d tickets", kind, n, len(own))
		}
		for _, coding := range []struct {
			name string
			f    func(int) float64
		}{{"prize", amount}, {"winner", wins}} {
			xOwn, xRank, rank := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range n {
				xOwn[i], xRank[i], rank[i] = coding.f(int(own[i])), coding.f(int(byRank[i])), float64(i)
			}
			if kind == "contents" && coding.name == "winner" {
				continue // every contents record is a winner's
			}
			check(fmt.Sprintf("%s: rank of a ticket's record and its %s", kind, coding.name), rank, xOwn)
			check(fmt.Sprintf("%s: row length and %s", kind, coding.name), rowLen, xOwn)
			y := make([]float64, n)
			for k := range size {
				for i := range n {
					y[i] = float64(recs[i][k])
				}
				check(fmt.Sprintf("%s: byte %d of a ticket's record and its %s", kind, k, coding.name), y, xOwn)
				check(fmt.Sprintf("%s: byte %d of the record of rank i and the %s of ticket i", kind, k, coding.name), y, xRank)
			}
		}
	}
	positions := make([]int32, b.Tickets)
	var winners []int32
	for i := range positions {
		positions[i] = int32(i)
		if prizes[i] != 0 {
			winners = append(winners, int32(i))
		}
	}
	examine("serials", sealed.serials, serialRecordSize, sealed.serialOrder, positions)
	examine("contents", sealed.contents, contentsRecordSize, sealed.contentsOrder, winners)

	// No serial key, secret part or ticket in clear anywhere in the file.
	data, err := os.ReadFile(filepath.Join(sealed1, "C1.db"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, b.Key[:]) || bytes.Contains(data, b.Key[:16]) || bytes.Contains(data, b.Key[16:]) {
		t.Fatal("the file holds the block's serial key")
	}
	firsts := make(map[uint64]struct{}, b.Tickets)
	secrets := make(map[uint64]struct{}, b.Tickets)
	all := make([][game.EncodedSize]byte, b.Tickets)
	for pos := range b.Tickets {
		copy(all[pos][:], codes[pos*game.EncodedSize:])
		firsts[binary.BigEndian.Uint64(all[pos][:8])] = struct{}{}
		secrets[uint64(b.Key.Secret(pos))] = struct{}{}
	}
	slices.SortFunc(all, func(x, y [game.EncodedSize]byte) int { return bytes.Compare(x[:], y[:]) })
	// A bitmap of the words of both sets first: most of the file's 67
	// million windows are no word of either, which one bit says.
	bits := make([]uint64, 1<<20) // 2^26 bits
	bit := func(w uint64) uint64 { return (w * 0x9e3779b97f4a7c15) >> 38 }
	for w := range firsts {
		bits[bit(w)>>6] |= 1 << (bit(w) & 63)
	}
	for w := range secrets {
		bits[bit(w)>>6] |= 1 << (bit(w) & 63)
	}
	for i := 0; i+game.EncodedSize <= len(data); i++ {
		w := binary.BigEndian.Uint64(data[i:])
		if bits[bit(w)>>6]&(1<<(bit(w)&63)) == 0 {
			continue
		}
		if _, ok := secrets[w]; ok {
			t.Fatalf("byte %d of the file is a ticket's secret part", i)
		}
		if _, ok := firsts[w]; ok {
			if _, found := slices.BinarySearchFunc(all, data[i:i+game.EncodedSize], func(x [game.EncodedSize]byte, y []byte) int { return bytes.Compare(x[:], y) }); found {
				t.Fatalf("byte %d of the file is a ticket's encoding", i)
			}
		}
	}
	// No column or table of the counter schema names a prize or a key.
	var cols []string
	if err := core.Select(ctx, c.R, &cols, "SELECT name FROM pragma_table_info('blocks')"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(cols, "serial_key") {
		t.Error("the counter's blocks keep a serial key column")
	}
	var n int
	if err := c.R.Get(&n, "SELECT count(*) FROM sqlite_master WHERE name IN ('packs', 'finder')"); err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("the counter ledger has packs or finder tables")
	}
}

// sealedFixture is sealBlock's sealing of the block fixture, made once per
// state of the sources, like the sealed fixture whose C1.db holds it
// (testcache: both are this code's), and read back: a whole block's
// sealing costs seconds of every core.
func sealedFixture(t *testing.T, b core.Block, codes, prizes []byte) sealedBlock {
	t.Helper()
	dir, err := testcache.Get("counter-sealing", func(dir string) error {
		sealed, err := sealBlock(context.Background(), b, &b.Key, codes, prizes, nil)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		put := func(v any) { binary.Write(&buf, binary.LittleEndian, v) }
		for _, rows := range [][]sealRow{sealed.serials, sealed.contents} {
			put(int64(len(rows)))
			for _, r := range rows {
				put(r.id)
				put(int64(len(r.records)))
				buf.Write(r.records)
			}
		}
		for _, o := range [][]int32{sealed.serialOrder, sealed.contentsOrder} {
			put(int64(len(o)))
			put(o)
		}
		return os.WriteFile(filepath.Join(dir, "sealing"), buf.Bytes(), 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "sealing"))
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(data)
	var errs []error
	get := func(v any) { errs = append(errs, binary.Read(r, binary.LittleEndian, v)) }
	var sealed sealedBlock
	for _, rows := range []*[]sealRow{&sealed.serials, &sealed.contents} {
		var n int64
		get(&n)
		*rows = make([]sealRow, n)
		for i := range *rows {
			var size int64
			get(&(*rows)[i].id)
			get(&size)
			(*rows)[i].records = make([]byte, size)
			get((*rows)[i].records)
		}
	}
	for _, o := range []*[]int32{&sealed.serialOrder, &sealed.contentsOrder} {
		var n int64
		get(&n)
		*o = make([]int32, n)
		get(*o)
	}
	if err := errors.Join(errs...); err != nil || r.Len() != 0 {
		t.Fatalf("the cached sealing %s: %v (%d bytes left)", dir, err, r.Len())
	}
	return sealed
}

// Sealing on every core, on a small input (the first ten packs of the
// fixture's block, sealed as a block of 2,000 tickets): every ticket's
// serial record opens to its encoding, every winner's contents record to
// its position and secret part; a cancel stops the work. The race pass runs
// it for the workers.
func TestSealSmall(t *testing.T) {
	ctx := context.Background()
	l := openFixture(t, "block", "ledger.db", sqlite.Kind{AppID: sqlite.ApplicationID, Schema: sqlite.LedgerSchema})
	b := fixtureBlock(t, l)
	b.Tickets = 10 * game.PackSize
	var codes, prizes []byte
	for pos := range b.Tickets {
		code, pb, err := backoffice.StoredTicket(ctx, l.R, b, pos)
		if err != nil {
			t.Fatal(err)
		}
		codes, prizes = append(codes, code...), append(prizes, pb)
	}
	var calls atomic.Int64
	sealed, err := sealBlock(ctx, b, &b.Key, codes, prizes, func(done, total int) { calls.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() == 0 {
		t.Error("no progress reported")
	}
	records := func(rows []sealRow) []byte {
		var out []byte
		for _, r := range rows {
			out = append(out, r.records...)
		}
		return out
	}
	serials, contents := records(sealed.serials), records(sealed.contents)
	if len(serials) != b.Tickets*serialRecordSize || len(sealed.serialOrder) != b.Tickets {
		t.Fatalf("%d bytes of serial records for %d tickets", len(serials), b.Tickets)
	}
	for k, pos := range sealed.serialOrder {
		rec := serials[k*serialRecordSize : (k+1)*serialRecordSize]
		h := serialHash(b.Game, b.Number, int(pos), b.Key.Secret(int(pos)))
		pad := serialPad(&h)
		for i := range game.EncodedSize {
			if rec[sealIndexSize+i]^pad[i] != codes[int(pos)*game.EncodedSize+i] || !bytes.Equal(rec[:sealIndexSize], h[:sealIndexSize]) {
				t.Fatalf("serial record %d does not open to ticket %d", k, pos)
			}
		}
	}
	winners := 0
	for _, pb := range prizes {
		if pb != 0 {
			winners++
		}
	}
	if len(contents) != winners*contentsRecordSize || len(sealed.contentsOrder) != winners {
		t.Fatalf("%d bytes of contents records for %d winners", len(contents), winners)
	}
	for k, pos := range sealed.contentsOrder {
		rec := contents[k*contentsRecordSize : (k+1)*contentsRecordSize]
		h := contentsHash(b.Game, b.Number, codes[int(pos)*game.EncodedSize:(int(pos)+1)*game.EncodedSize])
		j := 0 // the rank among the records of the same index before it
		for k-j > 0 && bytes.Equal(contents[(k-j-1)*contentsRecordSize:][:sealIndexSize], rec[:sealIndexSize]) {
			j++
		}
		pad := contentsPad(&h, j)
		if p, s := openContents(rec[sealIndexSize:], &pad); p != int(pos) || s != b.Key.Secret(int(pos)) {
			t.Fatalf("contents record %d opens to %d, want ticket %d", k, p, pos)
		}
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := sealBlock(cctx, b, &b.Key, codes, prizes, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled seal: %v", err)
	}
}

// The fixtures' builders (internal/ledger/ledgertest), which the external
// test package sets before the tests run: this package's internal tests
// cannot import a package that imports it.
var FixtureDir func(name string) (string, error)

// openFixture opens file of ledgertest's fixture name read-only.
func openFixture(t *testing.T, name, file string, k sqlite.Kind) *sqlite.File {
	t.Helper()
	dir, err := FixtureDir(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sqlite.Open(filepath.Join(dir, file), true, k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// fixtureBlock is the fixture's block 531/1, with its serial key.
func fixtureBlock(t *testing.T, f *sqlite.File) core.Block {
	t.Helper()
	b, err := backoffice.GetBlock(context.Background(), f.R, 531, 1)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
