package ledger

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	vegasdesk "vegas-desk"
	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/counter"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/paper"
	"vegas-desk/internal/signing"
)

// smallLedger makes a ledger file of the given schema with 512-byte pages
// (a few dozen kilobytes, a seed the fuzzer can mutate), its meta rows and
// a script run after them.
func smallLedger(tb testing.TB, schema string, app uint32, meta [][2]string, script string) []byte {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "seed.db")
	db, err := sqlx.Open("sqlite", sqlite.DSN(path, "_pragma=page_size(512)"))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	stmts := []string{schema}
	for _, m := range meta {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO meta (key, value) VALUES ('%s', '%s')", m[0], m[1]))
	}
	stmts = append(stmts, script, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", app, SchemaVersion))
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// FuzzOpen opens random and mutated ledger files, of both kinds: never a
// panic, never a byte of a refused file changed, and OpenReadOnly never
// changes a file at all. What opens is read a little (blocks, a lookup, a
// search by contents, claims, verify, a head). (Fuzzing is slow here, a
// few inputs a second: the fuzzer instruments all of SQLite.)
func FuzzOpen(f *testing.F) {
	bo := [][2]string{{"id", "0123456789abcdef0123456789abcdef"}, {"kind", "back-office"}, {"demo", "0"}, {"created_at", "2025-05-01T10:00:00.000000000Z"}}
	counterMeta := [][2]string{{"id", "fedcba9876543210fedcba9876543210"}, {"kind", "counter"}, {"demo", "0"},
		{"created_at", "2025-05-01T10:00:00.000000000Z"}, {"back_office", "0123456789abcdef0123456789abcdef"}, {"desk", "C1"},
		{"payout_limit", "100"}, {"seal", "vegas-desk counter ledger 1"}}
	counterRows := `INSERT INTO games (code, name, price) VALUES (531, 'VEGAS', 3);
INSERT INTO blocks VALUES (1, 531, 1, 0, 2000000, 200, 524722, 4200000, x'00', '2025-05-01T10:00:00.000000000Z');
INSERT INTO serials VALUES (4294967296, zeroblob(260));
INSERT INTO contents VALUES (4294967296, zeroblob(240));`
	f.Add(smallLedger(f, vegasdesk.Schema(), sqlite.ApplicationID, bo, ""))
	f.Add(smallLedger(f, vegasdesk.Schema(), sqlite.ApplicationID, bo, "CREATE TRIGGER eat AFTER INSERT ON journal BEGIN DELETE FROM paid; END;"))
	f.Add(smallLedger(f, counter.Schema.SQL(), counter.ApplicationID, counterMeta, counterRows))
	f.Add(smallLedger(f, counter.Schema.SQL(), counter.ApplicationID, counterMeta, counterRows+"CREATE VIEW v AS SELECT * FROM serials;"))
	f.Add(smallLedger(f, counter.Schema.SQL(), sqlite.ApplicationID, counterMeta, counterRows))
	f.Add(append([]byte("SQLite format 3\x00"), make([]byte, 600)...))
	f.Add([]byte("not a ledger at all\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 1<<20 {
			return // an empty file becomes a new ledger; a huge one is slow
		}
		path := filepath.Join(t.TempDir(), "l.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		unchanged := func(what string) {
			t.Helper()
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s changed the file (%v)", what, err)
			}
		}
		l, err := OpenReadOnly(path)
		if err == nil {
			readSome(l)
			l.Close()
			unchanged("OpenReadOnly")
			return
		}
		unchanged("a refused OpenReadOnly")
		// A read-write open of what a read-only open refused: refused
		// untouched, or an empty database made a new ledger.
		if l, err := Open(path); err == nil {
			l.Close()
			return
		}
		unchanged("a refused Open")
	})
}

// readSome asks an opened ledger a few things; any error will do, not a
// panic.
func readSome(l *Ledger) {
	ctx := context.Background()
	l.Blocks(ctx)
	l.Lookup(ctx, game.Serial{Game: 531, Block: 1, Position: 7, Secret: 42}.String(), Identity{Desk: "fuzz", Operator: "fuzz"}, NoLimit)
	var t game.Ticket
	t.Roulette.Winning = [4]int{1, 2, 4, 5}
	t.Roulette.Bets = [3]game.Bet{{Number: 1, Amount: 3}, {Number: 7, Amount: 3}, {Number: 8, Amount: 3}}
	t.Craps.Dice, t.Craps.Amount = [2]int{1, 1}, 3
	t.Duel.Cards, t.Duel.Bank, t.Duel.Amount = [3]game.Card{0, 0, 0}, 5, 3
	for i := range t.Jackpot {
		t.Jackpot[i] = game.Line{Symbols: [3]game.Symbol{0, 1, 2}, Amount: 3}
	}
	l.FindByContents(ctx, &t, Identity{Desk: "fuzz", Operator: "fuzz"}, NoLimit)
	l.Claims(ctx, ClaimFilter{})
	l.Verify(ctx, 0, 0, nil)
	l.Head(ctx)
}

// FuzzCertificatePDF reads random and mutated certificate PDFs as
// verify-certificate does, from anyone: never a panic, a clear error or a
// text no longer than MaxSignedText. A text that comes out is signed again
// with a key of the test's, so that ParseCertificate reads its fields
// however they were mutated.
func FuzzCertificatePDF(f *testing.F) {
	key := signing.KeyFromSeed(bytes.Repeat([]byte{5}, 32))
	body := "vegas-desk block certificate 1\nledger=0123456789abcdef0123456789abcdef\ngame=531\ngame_name=\"VEGAS\"\nblock=1\n" +
		"tickets=2000000\npack_size=200\ndigest=" + strings.Repeat("ab", 32) + "\ngenerated_at=\"2025-05-01T10:00:00.000000000Z\"\n" +
		"prize=3 100\nprize=50 2\nwinners=102\npayout=400\nsigned_at=\"2025-05-02T10:00:00.000000000Z\"\n"
	var pdf bytes.Buffer
	if err := paper.WriteCertificate(&pdf, paper.Certificate{Game: 531, GameName: "VEGAS", Block: 1, Tickets: 2_000_000,
		Digest: strings.Repeat("ab", 32), Document: key.Sign(body)}); err != nil {
		f.Fatal(err)
	}
	f.Add(pdf.Bytes())
	length := regexp.MustCompile(`/Type /EmbeddedFile /Length \d+`)
	for _, claim := range []string{"9223372036854775807", "-1", "0", "99999999999999999999", ""} {
		f.Add(length.ReplaceAll(pdf.Bytes(), []byte("/Type /EmbeddedFile /Length "+claim)))
	}
	f.Add(pdf.Bytes()[:bytes.Index(pdf.Bytes(), []byte("stream\n"))+10])
	f.Add([]byte("%PDF-1.3\n/Type /EmbeddedFile /Length 5 /Filter /FlateDecode\nstream\nxyz"))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := core.AttachedText(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if len(text) > core.MaxSignedText {
			t.Fatalf("a text of %d bytes", len(text))
		}
		s, err := signing.Verify(text, nil)
		if err != nil {
			body, _, _ := strings.Cut(string(text), "public_key=")
			if s, err = signing.Verify([]byte(key.Sign(body)), key.Public()); err != nil {
				return
			}
		}
		if c, err := core.ParseCertificate(s); err == nil && c.Text != s.Text {
			t.Fatalf("the certificate's text is not the signed one")
		}
	})
}
