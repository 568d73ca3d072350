// Command vegas-desk is the VEGAS ledger: with no command it opens the
// desktop app; with a command it works without a window (see commands.go,
// or vegas-desk help).
package main

import (
	"os"
)

func main() {
	ownProcess = true
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
