//go:build !cgo || ci || wasm || js || android || ios || mobile

package ui

// workArea is unknown without the desktop driver (the headless tests).
func workArea() (w, h int, ok bool) { return 0, 0, false }
