//go:build !linux

package server

// processFamilies: /proc is Linux's; elsewhere the runtime's metrics
// (runtimeFamilies) stand alone.
func processFamilies() []*family { return nil }
