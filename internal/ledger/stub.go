package ledger

import (
	"context"
	"errors"
	"io"
	"time"

	"vegas-desk/internal/game"

	"github.com/jmoiron/sqlx"
)

var errTODO = errors.New("not implemented yet")

// Ledger is an open ledger file.
type Ledger struct {
	// Now gives the time of claims, voids and blocks; tests replace it.
	Now  func() time.Time
	path string
	w    *sqlx.DB
	r    *sqlx.DB
}

// Open opens the ledger at path, creating it (and its directory) if
// missing, and migrates it forward.
func Open(path string) (*Ledger, error) { return nil, errTODO }

// OpenReadOnly opens an existing ledger for lookups, checks and reports.
func OpenReadOnly(path string) (*Ledger, error) { return nil, errTODO }

// Close closes the ledger.
func (l *Ledger) Close() error { return nil }

// Path returns the ledger's file path.
func (l *Ledger) Path() string { return l.path }

// Blocks lists the blocks, by game and number.
func (l *Ledger) Blocks(ctx context.Context) ([]Block, error) { return nil, errTODO }

// Block returns block number of game gameCode, or ErrNotFound.
func (l *Ledger) Block(ctx context.Context, gameCode, number int) (Block, error) {
	return Block{}, errTODO
}

// Generate streams game.GenerateBlock into the ledger in one transaction,
// as the next block number of the game. progress may be nil; it is called
// with (done, game.BlockSize) from the generating goroutine. A cancel (ctx),
// an error or a crash leaves no trace.
func (l *Ledger) Generate(ctx context.Context, gameCode int, seed game.Seed, progress func(done, total int)) (Block, error) {
	return Block{}, errTODO
}

// Lookup finds a ticket by serial.
func (l *Ledger) Lookup(ctx context.Context, serial string, who Identity) (Ticket, error) {
	return Ticket{}, errTODO
}

// FindByContents returns the ledger's winning ticket with exactly these contents.
func (l *Ledger) FindByContents(ctx context.Context, t *game.Ticket) (Ticket, error) {
	return Ticket{}, errTODO
}

// Claim pays a winning ticket once.
func (l *Ledger) Claim(ctx context.Context, serial string, method string, who Identity) (Claim, error) {
	return Claim{}, errTODO
}

// Void cancels a claim.
func (l *Ledger) Void(ctx context.Context, claimID int64, reason string, who Identity) (Claim, error) {
	return Claim{}, errTODO
}

// Claims lists claims.
func (l *Ledger) Claims(ctx context.Context, f ClaimFilter) ([]Claim, error) { return nil, errTODO }

// Report is a block's report.
func (l *Ledger) Report(ctx context.Context, gameCode, number int) (Report, error) {
	return Report{}, errTODO
}

// DailyReport sums the active claims per day and desk.
func (l *Ledger) DailyReport(ctx context.Context, f ClaimFilter) ([]DayDesk, error) {
	return nil, errTODO
}

// Export writes a block as JSON Lines.
func (l *Ledger) Export(ctx context.Context, gameCode, number int, w io.Writer, progress func(done, total int)) error {
	return errTODO
}

// Verify checks the ledger.
func (l *Ledger) Verify(ctx context.Context, gameCode, number int, progress func(done, total int)) (VerifyReport, error) {
	return VerifyReport{}, errTODO
}
