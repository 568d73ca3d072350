//go:build !windows

package main

// windowsService: the service command works here; elsewhere it is not
// listed (help, completion), and says what to use instead.
const windowsService = false

// service is Windows's (service_windows.go).
func (c *cli) service([]string) error {
	return badInput("service: a Windows service; on Linux, serve --install-unit prints a systemd unit")
}
