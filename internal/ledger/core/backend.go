package core

import (
	"context"
	"io"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/signing"
)

// Questions are the questions a counter asks of a ledger, and the ones
// the validation server serves: a lookup, a claim, a search by contents
// (Find lists the tickets with exactly encoding code; FoundTicket
// chooses), each answered with Decide's verdict. As benbjohnson/wtf's
// sqlite and http packages implement one service, two kinds implement
// them: a ledger the process reads itself (a SQLite back office, a sealed
// counter ledger, PostgreSQL) asks Ask on its Storage, once; a counter on
// a validation server asks the server (package remote, its client), whose
// ledger asks Ask, and asks a claim whose answer was lost again there, on
// the client (protocol.Retry), with one set of timeouts. remote is no
// Storage: it neither reads nor decides, and a ledger the process reads
// asks nothing again.
//
// at, given to a question, is its time: a zero time is the backend's own
// clock (a counter on a validation server: the server's, whatever the
// client says).
type Questions interface {
	Lookup(ctx context.Context, s game.Serial, who Identity, asked Limit, at time.Time) (Ticket, error)
	Claim(ctx context.Context, s game.Serial, req ClaimRequest, at time.Time) (Claim, error)
	Find(ctx context.Context, code []byte, who Identity, asked Limit, at time.Time) ([]Ticket, error)
}

// Backend is a kind of ledger: a SQLite back office (package sqlite), a
// PostgreSQL one (package postgres), a counter through a validation
// server (package remote), a sealed counter ledger (package counter). What
// differs between the kinds is here, and nowhere else: the ledger package
// asks its backend.
type Backend interface {
	// Questions are the kind's questions: Local on its Storage, or the
	// validation server's client (package remote).
	Questions() Questions
	Info() Info
	Close() error
	// Ping says whether the ledger answers (ErrUnreachable otherwise).
	Ping(ctx context.Context) error
	// Refuse is the error of a back-office operation asked of this kind
	// (nil for the back office).
	Refuse(what string) error

	Blocks(ctx context.Context) ([]Block, error)
	Claims(ctx context.Context, f ClaimFilter) ([]Claim, error)
	VoidsBetween(ctx context.Context, desk string, since, until time.Time) ([]Claim, error)
	ReferralsBetween(ctx context.Context, desk string, since, until time.Time) ([]Referral, error)
	Packs(ctx context.Context, f PackFilter) ([]PackRun, error)
	PackEntries(ctx context.Context, f PackEntryFilter) ([]PackEntry, error)
	// MovePacks moves packs, m and who prepared (PrepareMove).
	MovePacks(ctx context.Context, m PackMove, who Identity) error
	Game(ctx context.Context, code int) (Game, error)
	Head(ctx context.Context) (string, error)
	Verify(ctx context.Context, gameCode, number int, progress func(done, total int)) (VerifyReport, error)
	CheckHead(ctx context.Context, head string) (Anchor, error)
}

// BackOffice is what the back office's ledger does beside (a SQLite file,
// a PostgreSQL database through the back office's login).
type BackOffice interface {
	Backend
	Generate(ctx context.Context, gameCode int, seed game.Seed, opts GenerateOptions) (Block, error)
	Export(ctx context.Context, gameCode, number int, w io.Writer, progress func(done, total int)) error
	Report(ctx context.Context, gameCode, number int) (Report, error)
	TicketAt(ctx context.Context, gameCode, number, position int) (Ticket, error)
	Samples(ctx context.Context, gameCode, number int) ([]Ticket, error)
	Games(ctx context.Context) (map[int]string, error)
	Void(ctx context.Context, number int64, reason string, who Identity) (Claim, error)
	ClaimByNumber(ctx context.Context, number int64) (Claim, error)
	Attempts(ctx context.Context, since time.Time) ([]Attempt, error)
	// DeskState is desk id's row, with the lock-out it keeps, and
	// whether it accepts the certificate of serial cert (lowercase hex), or
	// ErrNotFound: one statement.
	DeskState(ctx context.Context, id, cert string) (Desk, bool, error)
	Referrals(ctx context.Context) ([]Referral, error)
	// Cases lists the double payments; CloseCase closes one by a decision.
	Cases(ctx context.Context) ([]Case, error)
	CloseCase(ctx context.Context, number int64, decision string, who Identity) (Case, error)
	Identities(ctx context.Context) (map[int64]Winner, error)
	Desks(ctx context.Context) ([]Desk, error)
	AddDesk(ctx context.Context, id string, limit int, who Identity) (Desk, error)
	AddTestDesk(ctx context.Context, i, limit int, who Identity) (Desk, error)
	DisableDesk(ctx context.Context, id string, who Identity) error
	EnableDesk(ctx context.Context, id string, who Identity) error
	UnlockDesk(ctx context.Context, id string, who Identity) error
	SetDeskLimit(ctx context.Context, id string, limit int, who Identity) error
	Emission(ctx context.Context, code int) (Emission, error)
	SetEmission(ctx context.Context, code int, em Emission, who Identity) (Emission, error)
	Setting(ctx context.Context, key string) (int, error)
	SetSetting(ctx context.Context, key string, value int, who Identity) error
	Settlement(ctx context.Context, desk string, gameCode int, from, to time.Time) (SettlementFacts, error)
	Checkpoint(ctx context.Context, key *signing.Key, who Identity) (Checkpoint, error)
	RecordCommitment(ctx context.Context, f game.SeedFile, key *signing.Key, who Identity) (CommitmentRecord, error)
	Certificate(ctx context.Context, gameCode, number int, key *signing.Key) (Certificate, error)
	ImportClaims(ctx context.Context, r io.Reader, who Identity) (ImportReport, error)
	VerifyJournal(ctx context.Context) (VerifyReport, error)
}
