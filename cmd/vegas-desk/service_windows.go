//go:build windows

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"

	"vegas-desk/internal/ledger"
)

// serviceName is the Windows service of serve.
const serviceName = "vegas-desk"

// windowsService: the service command works here (service_other.go).
const windowsService = true

// service: serve as a Windows service (golang.org/x/sys/windows/svc),
// started at boot and restarted on failure by the service manager:
// service install [serve's flags], remove, start, stop; service run is
// what the service manager starts.
func (c *cli) service(args []string) error {
	if len(args) == 0 {
		return badInput("service: give install [serve's flags], remove, start or stop")
	}
	switch args[0] {
	case "install":
		return c.serviceInstall(args[1:])
	case "remove", "start", "stop":
		if len(args) > 1 {
			return badInput("service %s: no argument", args[0])
		}
		return c.serviceControl(args[0])
	case "run":
		return c.serviceRun(args[1:])
	}
	return badInput("service %s: give install, remove, start or stop", terminal(args[0]))
}

// serviceInstall checks serve's flags (serve --check) and registers the
// service with them, the ledger's path and the authority's directory made
// absolute (the service runs as LocalSystem, whose profile is not the
// installer's): automatic start, restarted 5 s after a failure.
func (c *cli) serviceInstall(args []string) error {
	if !slices.ContainsFunc(args, func(a string) bool {
		return a == "--dir" || a == "-dir" || strings.HasPrefix(strings.TrimLeft(a, "-"), "dir=")
	}) {
		args = append(args, "--dir", defaultServeDir())
	}
	for i := 0; i+1 < len(args); i++ {
		switch strings.TrimLeft(args[i], "-") {
		case "dir", "cert", "key":
			if a, err := filepath.Abs(args[i+1]); err == nil {
				args[i+1] = a
			}
		}
	}
	db := c.dbPath()
	switch {
	case ledger.IsURL(db) && passwordIn(db):
		return badInput("service install: --db holds a password, and a service's command line is readable by every account: give the URL without it, and the password in LocalSystem's pgpass.conf")
	case !ledger.IsURL(db):
		if a, err := filepath.Abs(db); err == nil {
			db = a
		}
	}
	c.db = db
	if err := c.serveWith(append(slices.Clone(args), "--check")); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	m, err := mgr.Connect()
	if err != nil {
		return failf("service install: the service manager: %w (run it as an administrator)", err)
	}
	defer m.Disconnect()
	if s, err := m.OpenService(serviceName); err == nil {
		s.Close()
		return badInput("service install: service %s exists already: service remove first", serviceName)
	}
	s, err := m.CreateService(serviceName, exe, mgr.Config{StartType: mgr.StartAutomatic, DelayedAutoStart: true,
		DisplayName: "vegas-desk validation server", Description: "vegas-desk serve: the validation server of the ledger " + db},
		append([]string{"--db", db, "service", "run"}, args...)...)
	if err != nil {
		return failf("service install: %w", err)
	}
	defer s.Close()
	err = s.SetRecoveryActions([]mgr.RecoveryAction{{Type: mgr.ServiceRestart, Delay: 5 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 5 * time.Second}, {Type: mgr.ServiceRestart, Delay: time.Minute}}, 24*3600)
	if err == nil {
		err = s.SetRecoveryActionsOnNonCrashFailures(true)
	}
	if err != nil {
		c.printf(c.stderr, "service install: WARNING: the service will not be restarted after a failure: %v\n", err)
	}
	c.printf(c.stdout, "service %s installed: serves %s at boot (log: %s); service start starts it now\n", serviceName, db, serviceLog())
	return nil
}

// serviceControl removes, starts or stops the service, and waits for it
// to be so.
func (c *cli) serviceControl(what string) error {
	m, err := mgr.Connect()
	if err != nil {
		return failf("service %s: the service manager: %w (run it as an administrator)", what, err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(serviceName)
	if err != nil {
		return badInput("service %s: no service %s (service install makes it)", what, serviceName)
	}
	defer s.Close()
	var want svc.State
	switch what {
	case "start":
		err, want = s.Start(), svc.Running
	case "stop", "remove":
		want = svc.Stopped
		if st, qerr := s.Query(); qerr != nil || st.State != svc.Stopped {
			_, err = s.Control(svc.Stop)
		}
	}
	if err == nil {
		err = awaitState(s, want)
	}
	if err == nil && what == "remove" {
		if err = s.Delete(); err == nil || errors.Is(err, windows.ERROR_SERVICE_MARKED_FOR_DELETE) {
			c.printf(c.stdout, "service %s removed\n", serviceName)
			return nil
		}
	}
	if err != nil {
		return failf("service %s: %w", what, err)
	}
	c.printf(c.stdout, "service %s: %s\n", serviceName, c.text(map[svc.State]string{svc.Running: "running", svc.Stopped: "stopped"}[want]))
	return nil
}

// awaitState waits for s to be in state want, for 30 s at most.
func awaitState(s *mgr.Service, want svc.State) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := s.Query()
		if err != nil {
			return err
		}
		if st.State == want {
			return nil
		}
		if st.State == svc.Stopped && want == svc.Running {
			return failf("%s stopped (exit %d): see %s", serviceName, st.ServiceSpecificExitCode, serviceLog())
		}
		if time.Now().After(deadline) {
			return failf("still not %v after 30 s", want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// serviceLog is the service's log file: it has no console.
func serviceLog() string {
	return filepath.Join(os.Getenv("ProgramData"), "vegas-desk", "serve.log")
}

// serviceRun is the service: serve, its log lines appended to
// serviceLog, until the service manager stops it.
func (c *cli) serviceRun(args []string) error {
	if err := os.MkdirAll(filepath.Dir(serviceLog()), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(serviceLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	stderr := c.stderr
	c.stderr = f
	// (svc.IsWindowsService is not asked: wine's services are not in
	// session 0; svc.Run fails by itself when no service manager started
	// this process.)
	if err := svc.Run(serviceName, &serveService{c: c, args: args}); err != nil {
		c.printf(f, "vegas-desk: service run: %v\n", err)
		c.stderr = stderr
		return badInput("service run: what the service manager starts (service start); by hand, run serve (%v)", err)
	}
	return nil
}

// serveService answers the service manager.
type serveService struct {
	c    *cli
	args []string
}

func (h *serveService) Execute(_ []string, r <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
	status <- svc.Status{State: svc.StartPending}
	ctx, cancel := context.WithCancel(h.c.ctx)
	defer cancel()
	h.c.ctx = ctx
	done := make(chan error, 1)
	go func() { done <- h.c.serveWith(h.args) }()
	status <- svc.Status{State: svc.Running, Accepts: svc.AcceptStop | svc.AcceptShutdown}
	for {
		select {
		case err := <-done:
			// Ended by itself: a failure, which the service manager
			// answers by a restart.
			if err == nil {
				err = errors.New("serve ended")
			}
			fmt.Fprintf(h.c.stderr, "vegas-desk: %v\n", err)
			return true, uint32(windows.ERROR_SERVICE_SPECIFIC_ERROR)
		case cr := <-r:
			switch cr.Cmd {
			case svc.Interrogate:
				status <- cr.CurrentStatus
			case svc.Stop, svc.Shutdown:
				status <- svc.Status{State: svc.StopPending}
				cancel()
				select {
				case <-done:
				case <-time.After(20 * time.Second):
				}
				return false, 0
			}
		}
	}
}
