package backoffice

import (
	"context"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/tables"
)

// paidInsert is the head of the paid row's INSERT: its declared columns
// (tables.Paid).
var paidInsert = tables.Paid.Insert() + " VALUES (?, ?)"

// insertPaid writes ticket's paid row, naming claim, the payment that keeps
// it paid: the one INSERT of the paid row of a back office's writes on
// either engine and of a counter ledger's (a question on a file, an
// import's payment, a voided ticket that another payment keeps paid). A
// question on PostgreSQL writes its row in its one statement
// (postgres/question.go), with the same columns.
func insertPaid(ctx context.Context, q core.Querier, ticket, claim int64) error {
	_, err := core.Exec(ctx, q, paidInsert, ticket, claim)
	return err
}
