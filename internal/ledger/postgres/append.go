package postgres

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/tables"
)

// journalInsert is the head of the one INSERT of vegas.journal: its
// declared columns (tables.Journal, with seq).
var journalInsert = "INSERT INTO vegas.journal (" + tables.Shared.Cols(tables.Journal) + ") VALUES "

// journalCols is the number of vegas.journal's columns (seq with them),
// counted once.
var journalCols = sync.OnceValue(func() int { return len(tables.Shared.Columns(tables.Journal)) })

// appendBatch bounds the entries one INSERT writes (22 parameters each:
// PostgreSQL takes at most 65,535 a statement).
const appendBatch = 1000

// insertEntries writes entries chained already (their id, number and
// hash given) into vegas.journal, each with the number of its record in
// vegas.waiting (seqs[i]) when it waited there; seqs nil: none did (seq
// NULL). Every entry this engine appends is written by insertStatements'
// statements (Append, AppendMany, the chain's, in its pipeline).
func insertEntries(ctx context.Context, q core.Querier, ens []*core.Entry, seqs []int64) error {
	for _, s := range insertStatements(ens, seqs) {
		if _, err := core.Exec(ctx, q, s.sql, s.args...); err != nil {
			return err
		}
	}
	return nil
}

// insertStatements are the INSERTs of vegas.journal that write ens (see
// insertEntries), as few as appendBatch allows.
func insertStatements(ens []*core.Entry, seqs []int64) []statement {
	var out []statement
	cols := journalCols()
	for start := 0; start < len(ens); start += appendBatch {
		chunk := ens[start:min(start+appendBatch, len(ens))]
		var b strings.Builder
		b.WriteString(journalInsert)
		args := make([]any, 0, len(chunk)*cols)
		for i, e := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for c := range cols {
				if c > 0 {
					b.WriteString(", ")
				}
				b.WriteString("$" + strconv.Itoa(i*cols+c+1))
			}
			b.WriteByte(')')
			var seq *int64
			if seqs != nil {
				seq = &seqs[start+i]
			}
			args = append(append(args, e.Values()...), seq)
		}
		out = append(out, statement{sql: b.String(), args: args})
	}
	return out
}

// fromWaiting is the select list that reads a row of vegas.waiting as a
// journal's row: the journal's columns in order (tables.Journal), each
// read from prefix and its name, or as the expression given for it. The
// chain gives id, number and hash: given names them.
func fromWaiting(prefix string, given map[string]string) string {
	cols := make([]string, len(tables.Journal.Columns))
	for i, c := range tables.Journal.Columns {
		x, ok := given[c.Name]
		switch {
		case ok:
			cols[i] = x + " AS " + c.Name
		case c.Chained:
			panic("postgres: vegas.waiting has no column " + c.Name + ": the chain gives it")
		default:
			cols[i] = prefix + c.Name
		}
	}
	return strings.Join(cols, ", ")
}

// waitingUse is a row of vegas.waiting read as a journal's row that
// answers a request id used before (priorUse): its id, number and hash
// are not yet given (0, 0, empty).
var waitingUse = fromWaiting("", map[string]string{"id": "0::bigint", "number": "0::bigint", "hash": "''::bytea"})

// takenCols are the columns of vegas.waiting the chain takes: all but
// when it was recorded (tables.Waiting).
var takenCols = strings.Join(slices.DeleteFunc(tables.Waiting.Names(), func(c string) bool { return c == "recorded" }), ", ")

// waitingInsert is the head of a question's INSERT of its record into
// vegas.waiting: the journal's columns but those the chain gives (id,
// number, hash: recorded's values), then the winner's (name, doc_type,
// doc_number); seq and recorded are the table's defaults
// (tables.Waiting).
var waitingInsert = "INSERT INTO waiting (" + strings.Join(slices.DeleteFunc(tables.Waiting.Names(),
	func(c string) bool { return c == "seq" || c == "recorded" }), ", ") + ") VALUES "

// recorded are e's values of the journal's columns a question records in
// vegas.waiting: all but those the chain gives (id, number, hash).
func recorded(e *core.Entry) []any {
	var v []any
	all := e.Values()
	for i, c := range tables.Journal.Columns {
		if !c.Chained {
			v = append(v, all[i])
		}
	}
	return v
}

// paidInsert is the head of a question's INSERT of its paid row
// (tables.Paid).
var paidInsert = tables.Paid.Insert()
