package ledger

import (
	"context"
	"errors"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/ledger/sqlite"
)

// UpgradeReport is what an upgrade in place did or would do.
type UpgradeReport = core.Upgrade

// ErrNeedsUpgrade: a ledger of an earlier version that Upgrade upgrades.
var ErrNeedsUpgrade = core.ErrNeedsUpgrade

// Upgrade upgrades the back office's ledger at location (a file or a
// PostgreSQL URL) to this vegas-desk's schema version in place: it takes a
// backup into backupDir first, then runs every step in one transaction,
// which leaves the ledger as it was if any fails. With dryRun it says what
// it would change and changes nothing. A ledger of this version is left
// alone; one of a newer version is refused (ErrTooNew), so is one of a
// version no step starts from (ErrTooOld).
func Upgrade(ctx context.Context, location, backupDir string, dryRun bool) (UpgradeReport, error) {
	if location == "" {
		return UpgradeReport{}, errors.New("upgrade: no file name or URL given")
	}
	if IsURL(location) {
		return postgres.Upgrade(ctx, location, backupDir, dryRun)
	}
	if err := CheckRegular(location); err != nil {
		return UpgradeReport{}, err
	}
	return sqlite.Upgrade(ctx, location, backupDir, dryRun)
}
