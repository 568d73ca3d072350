//go:build !windows

package main

// service is Windows's (service_windows.go).
func (c *cli) service([]string) error {
	return badInput("service: a Windows service; on Linux, serve --install-unit prints a systemd unit")
}
