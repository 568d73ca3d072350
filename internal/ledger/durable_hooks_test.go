package ledger

// Synchronous sets PRAGMA synchronous on the writer of l, a SQLite file's
// one write connection, and reads it back: the durability benchmark's
// reference, NORMAL, beside the FULL every ledger file runs with.
func Synchronous(l *Ledger, mode string) (int, error) {
	if mode != "" {
		if _, err := wdb(l).Exec("PRAGMA synchronous = " + mode); err != nil {
			return 0, err
		}
	}
	var v int
	err := wdb(l).Get(&v, "PRAGMA synchronous")
	return v, err
}
