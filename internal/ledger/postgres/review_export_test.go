package postgres

// SkewEndNumber moves the last number of kind the process's cached end
// holds by by, leaving its id and hash (a stale cache: what a chain
// learnt, then lost, or an end read in two moments, would leave).
func (b *Backend) SkewEndNumber(kind string, by int64) bool {
	j := &b.seq.end
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.known {
		return false
	}
	if _, ok := j.numbers[kind]; !ok {
		return false
	}
	j.numbers[kind] += by
	return true
}
