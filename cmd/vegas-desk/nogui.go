//go:build nogui

package main

// The nogui build (make cli) is the command line alone, for scripts: it
// links no Fyne, so a command process starts in a third of the time.
func openApp(string) error {
	return badInput("this build of vegas-desk is the command line alone (-tags nogui); use the full build (make build) for the desktop app")
}
