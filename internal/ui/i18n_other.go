//go:build !windows

package ui

// followChoice has nothing to do here: Fyne reads the language from the
// variables setLanguage sets.
func followChoice(string) {}
