package main

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/printer"
)

// Completion of flag values and arguments (cobra's __complete, which the
// scripts of vegas-desk completion ask): the values a flag takes where
// they are few and known (documents, pack states, methods), the print
// queues CUPS lists, and the desks and blocks of the ledger of --db,
// opened read-only (nothing is written to complete a word).

// completeValues registers the completions of cmd's flags, once they are
// defined, and of its arguments; path is its path ("desks add").
func (c *cli) completeValues(cmd *cobra.Command, path string) {
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	var docs []string
	for _, d := range core.Documents {
		docs = append(docs, d.Type) // French words already
	}
	for name, complete := range map[string]cobra.CompletionFunc{
		"winner-doc": fixed(docs...),
		"printer":    completePrinters,
		"desk":       c.completeDesks,
		"block":      c.completeBlocks,
		"state":      fixed(core.PackStates...),
		"method":     fixed(ledger.MethodSerial, ledger.MethodContents),
		"role":       fixed("operator", "auditor"),
		"log-format": fixed("text", "json"),
	} {
		if cmd.Flags().Lookup(name) != nil {
			_ = cmd.RegisterFlagCompletionFunc(name, complete) // once a command
		}
	}
	// desks disable ID, enable, unlock, limit, cert, revoke: a desk (add: a
	// new one, no file name).
	if strings.HasPrefix(path, "desks ") && strings.HasPrefix(strings.TrimPrefix(cmd.Use, cmd.Name()), " ID") {
		cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, word string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 || cmd.Name() == "add" {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return c.completeDesks(cmd, args, word)
		}
	}
}

// completionTime bounds what a completion asks (lpstat, the ledger): a
// word to complete does not wait.
const completionTime = 2 * time.Second

// completePrinters are the print queues CUPS lists (lpstat -e), or on
// Windows the spooler's printers.
func completePrinters(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(context.Background(), completionTime)
	defer cancel()
	qs, err := printer.Queues(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return qs, cobra.ShellCompDirectiveNoFileComp
}

// completeDesks are the desks of the ledger, with their state.
func (c *cli) completeDesks(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	c.withLedger(func(ctx context.Context, l *ledger.Ledger) error {
		ds, err := l.Desks(ctx)
		for _, d := range ds {
			desc := c.tr("payout limit %s €", game.GroupDigits(d.Limit))
			if d.Disabled {
				desc = c.tr("payout limit %s €, disabled", game.GroupDigits(d.Limit))
			}
			out = append(out, cobra.CompletionWithDesc(d.ID, desc))
		}
		return err
	})
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeBlocks are the block numbers of the ledger.
func (c *cli) completeBlocks(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	c.withLedger(func(ctx context.Context, l *ledger.Ledger) error {
		bs, err := l.Blocks(ctx)
		for _, b := range bs {
			out = append(out, cobra.CompletionWithDesc(strconv.Itoa(b.Number), b.Name()))
		}
		return err
	})
	return out, cobra.ShellCompDirectiveNoFileComp
}

// withLedger runs f on the ledger of --db, opened read-only, if it is a
// file there or a database (a server is not asked to complete a word).
func (c *cli) withLedger(f func(context.Context, *ledger.Ledger) error) {
	if c.server != "" || checkDB(c.db) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, completionTime)
	defer cancel()
	l, err := ledger.OpenReadOnly(c.dbPath())
	if err != nil {
		return
	}
	defer l.Close()
	_ = f(ctx, l) // what it found, if anything: a completion says no error
}
