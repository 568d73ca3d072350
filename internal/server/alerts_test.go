package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// The runbook's alert rules (docs/alerts.yml, docs/runbook.md's block) fire from
// their first event (issue 36 item 6: a counter born at 1 showed
// increase() nothing, so VegasLockOut never fired for a desk locked out by
// 21 unknown serials, VegasLedgerErrors fired at the second error). A real
// serve is scraped once a minute of the rules' time: at its start, after
// a desk's lock-out, after a disabled desk and an unknown one asked 11
// times each, after the ledger's first failure; the scrapes are the series
// promtool test rules (Prometheus's own evaluator) is given, and each
// alert is expected after its first event, and not before.
func TestAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool (Debian's prometheus, in the Makefile's TEST_DEBS) is not installed")
	}
	rules, err := filepath.Abs("../../docs/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../docs/runbook.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```yaml\n"+string(text)+"```\n") {
		t.Error("docs/runbook.md's alert rules are not docs/alerts.yml's")
	}

	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	mon := monitor(t, s.Server)
	var scrapes []string
	scrapeNow := func() {
		body := scrape(t, s.Server, mon)
		scrapes = append(scrapes, body)
		t.Logf("scrape %d at %v", len(scrapes), time.Now().Format("15:04:05.000"))
	}
	who := ledger.Identity{Operator: "mallory"}
	c1, c2 := s.Open(t, "C1"), s.Open(t, "C2")
	scrapeNow() // 0m: the start
	good := serials.Winners[3][1]
	for i := range 21 {
		wrong := []byte(good)
		wrong[20] = '0' + byte((int(wrong[20]-'0')+1+i%9)%10)
		c2.Lookup(ctx, fixCheck(t, string(wrong)), who, ledger.NoLimit)
	}
	if _, err := c2.Lookup(ctx, good, who, ledger.NoLimit); !errors.Is(err, ledger.ErrLocked) {
		t.Fatalf("C2 not locked out: %v", err)
	}
	scrapeNow() // 1m: C2 locked out
	if err := o.DisableDesk(ctx, "C1", bo); err != nil {
		t.Fatal(err)
	}
	unknown := client(t, s.DeskFile(t, "C404"))
	for range 11 {
		c1.Lookup(ctx, good, who, ledger.NoLimit)
		ask(t, unknown, s.URL, protocol.Hello, nil)
	}
	scrapeNow() // 2m: C1 disabled and C404 unknown, 11 refusals each
	o.Close()
	if _, err := c2.Head(ctx); err == nil {
		t.Fatal("the ledger closed answered")
	}
	scrapeNow() // 3m: the ledger's first failure

	// The series: each vegas_ sample of a scrape, "_" where it was not
	// (yet) exported.
	series := map[string][]string{}
	var order []string
	for i, body := range scrapes {
		sc := bufio.NewScanner(strings.NewReader(body))
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "vegas_") {
				continue
			}
			sp := strings.LastIndexByte(line, ' ')
			name, value := line[:sp], line[sp+1:]
			if !strings.Contains(name, "{") {
				name += "{}"
			}
			name = strings.TrimSuffix(name, "}")
			if !strings.HasSuffix(name, "{") {
				name += ","
			}
			name += `instance="serve",job="vegas-desk"}`
			if series[name] == nil {
				series[name] = make([]string, len(scrapes))
				for j := range series[name] {
					series[name][j] = "_"
				}
				order = append(order, name)
			}
			series[name][i] = value
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rule_files: [%q]\nevaluation_interval: 1m\ntests:\n- interval: 1m\n  input_series:\n", rules)
	fmt.Fprintf(&b, "  - series: 'up{instance=\"serve\",job=\"vegas-desk\"}'\n    values: '1 1 1 1'\n")
	for _, name := range order {
		fmt.Fprintf(&b, "  - series: '%s'\n    values: '%s'\n", name, strings.Join(series[name], " "))
	}
	b.WriteString("  alert_rule_test:\n")
	expect := func(at, alert string, labels ...string) {
		fmt.Fprintf(&b, "  - eval_time: %s\n    alertname: %s\n", at, alert)
		if len(labels) == 0 {
			b.WriteString("    exp_alerts: []\n")
		} else {
			b.WriteString("    exp_alerts:\n")
		}
		for _, l := range labels {
			fmt.Fprintf(&b, "    - exp_labels: {%s}\n", l)
		}
	}
	const at = `instance: serve, job: vegas-desk`
	expect("0m", "VegasLockOut")
	expect("1m", "VegasLockOut", "desk: C2, "+at)
	expect("1m", "VegasDeskRefused")
	expect("2m", "VegasDeskRefused", "desk: C1", "desk: C404")
	expect("2m", "VegasLedgerErrors")
	expect("3m", "VegasLedgerErrors", "code: internal, "+at)
	spec := filepath.Join(t.TempDir(), "alerts_test.yml")
	if err := os.WriteFile(spec, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "test", "rules", spec).CombinedOutput()
	if err != nil {
		t.Errorf("promtool test rules: %v\n%s\nthe test:\n%s", err, out, b.String())
	}
}
