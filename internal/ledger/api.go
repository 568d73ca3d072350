package ledger

import (
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/mrz"
)

// The public types, errors and rules are core's: every kind of ledger
// shares them. They are named here for the ledger's users.

// The types of the API.
type (
	Anchor           = core.Anchor
	Attempt          = core.Attempt
	Block            = core.Block
	Case             = core.Case
	Certificate      = core.Certificate
	Checkpoint       = core.Checkpoint
	CommitmentRecord = core.CommitmentRecord
	Drawing          = core.Drawing
	DrawParty        = core.DrawParty
	Claim            = core.Claim
	ClaimFilter      = core.ClaimFilter
	ClaimRequest     = core.ClaimRequest
	ContentsCheck    = core.ContentsCheck
	CounterIssue     = core.CounterIssue
	CounterSpec      = core.CounterSpec
	DayDesk          = core.DayDesk
	DayFacts         = core.DayFacts
	Desk             = core.Desk
	Emission         = core.Emission
	GenerateOptions  = core.GenerateOptions
	Identity         = core.Identity
	ImportFlag       = core.ImportFlag
	ImportReport     = core.ImportReport
	Limit            = core.Limit
	PackEntry        = core.PackEntry
	PackEntryFilter  = core.PackEntryFilter
	PackFilter       = core.PackFilter
	PackMove         = core.PackMove
	PackRun          = core.PackRun
	Problem          = core.Problem
	ReceiptFacts     = core.ReceiptFacts
	Referral         = core.Referral
	Refusal          = core.Refusal
	Report           = core.Report
	SettlementFacts  = core.SettlementFacts
	Status           = core.Status
	Ticket           = core.Ticket
	TierLine         = core.TierLine
	Verdict          = core.Verdict
	VerifyReport     = core.VerifyReport
	Winner           = core.Winner
)

// The verdicts (core.Decide).
const (
	Payable          = core.Payable
	UnknownSerial    = core.UnknownSerial
	UnknownContents  = core.UnknownContents
	Locked           = core.Locked
	NotYetOnSale     = core.NotYetOnSale
	Expired          = core.Expired
	Stolen           = core.Stolen
	NotActivated     = core.NotActivated
	NotWinner        = core.NotWinner
	AlreadyClaimed   = core.AlreadyClaimed
	OverLimit        = core.OverLimit
	IdentityRequired = core.IdentityRequired
)

// Ticket statuses, claim methods, limits, settings and versions.
const (
	StatusUnpaid             = core.StatusUnpaid
	StatusPaid               = core.StatusPaid
	MethodSerial             = core.MethodSerial
	MethodContents           = core.MethodContents
	NoLimit                  = core.NoLimit
	DefaultClaimDays         = core.DefaultClaimDays
	SchemaVersion            = core.SchemaVersion
	SettingIdentityThreshold = core.SettingIdentityThreshold
	SettingCommission        = core.SettingCommission
	SettingClaimDays         = core.SettingClaimDays
)

// Errors a caller must tell apart.
var (
	ErrNotLedger        = core.ErrNotLedger
	ErrTooNew           = core.ErrTooNew
	ErrTooOld           = core.ErrTooOld
	ErrNoLedger         = core.ErrNoLedger
	ErrNotDemo          = core.ErrNotDemo
	ErrNotFound         = core.ErrNotFound
	ErrReadOnly         = core.ErrReadOnly
	ErrUnreachable      = core.ErrUnreachable
	ErrNotDurable       = core.ErrNotDurable
	ErrCounterOnly      = core.ErrCounterOnly
	ErrDeskMismatch     = core.ErrDeskMismatch
	ErrDeskDisabled     = core.ErrDeskDisabled
	ErrPassword         = core.ErrPassword
	ErrInvalid          = core.ErrInvalid
	ErrPackMove         = core.ErrPackMove
	ErrNotAnchored      = core.ErrNotAnchored
	ErrRequestReused    = core.ErrRequestReused
	ErrUnknownSerial    = core.ErrUnknownSerial
	ErrUnknownContents  = core.ErrUnknownContents
	ErrLocked           = core.ErrLocked
	ErrIdentityName     = core.ErrIdentityName
	ErrIdentityDoc      = core.ErrIdentityDoc
	ErrIdentityNumber   = core.ErrIdentityNumber
	ErrIdentityMRZ      = core.ErrIdentityMRZ
	ErrMinor            = core.ErrMinor
	ErrDocumentExpired  = core.ErrDocumentExpired
	ErrMRZCheckDigit    = mrz.ErrCheckDigit
	ErrMRZFormat        = mrz.ErrFormat
	ErrNotWinner        = core.ErrNotWinner
	ErrAlreadyClaimed   = core.ErrAlreadyClaimed
	ErrOverLimit        = core.ErrOverLimit
	ErrIdentityRequired = core.ErrIdentityRequired
)

// Functions of the API that need no ledger.
var (
	LimitOf = core.LimitOf
)
