package server

import (
	"runtime"
	"strings"
	"testing"
)

// The exposition is the Go client's to the byte (github.com/prometheus/
// client_golang v1.25.0's registry and expfmt wrote goldenExposition from
// the same observations, before serve's metrics were written here): HELP
// and TYPE, families by name, samples by label values, a family without
// samples left out, cumulative buckets with le last, a bound counting the
// values equal to it, escaped help and label values (a desk's name is the
// back office's choice).
func TestExpositionAsPrometheus(t *testing.T) {
	q := counter("vegas_questions_total", "Questions answered, \\ by\nquestion.", "question", "verdict")
	l := histogram("vegas_question_seconds", "Time.", []float64{.001, .0025, .005, .01, 10}, "question")
	p := counter("vegas_paid_euros_total", "Euros.")
	r := counter("vegas_refusals_total", "R.", "desk", "reason")
	e := counter("vegas_empty_total", "E.", "desk")
	h := histogram("vegas_chain_delay_seconds", "C.", []float64{.0005, .001, 60})
	for i, x := range []struct {
		q, v string
		t    float64
	}{{"claim", "paid", 0.0012}, {"lookup", "payable", 0.001}, {"claim", "paid", 0.02}, {"lookup", "unknown-serial", 12}, {"claim", "already-claimed", 0.0025}} {
		q.add(1, x.q, x.v)
		l.observe(x.t, x.q)
		h.observe(x.t / 10)
		p.add(float64(i) * 12.5)
	}
	for _, d := range []string{"C2", "C1", `we"ird\desk` + "\n"} {
		r.add(3, d, "locked")
	}
	r.add(1, "C1", "already-claimed")
	var b strings.Builder
	if err := writeFamilies(&b, []*family{q, l, p, r, e, h}); err != nil {
		t.Fatal(err)
	}
	if b.String() != goldenExposition {
		t.Errorf("exposition:\n%s\nthe Go client's:\n%s", b.String(), goldenExposition)
	}
	// Every runtime and process family the Go client's default Go and
	// process collectors export, by name and type.
	want := map[string]string{}
	for _, n := range strings.Fields(clientFamilies) {
		name, kind, _ := strings.Cut(n, ":")
		if runtime.GOOS == "linux" || !strings.HasPrefix(name, "process_") { // /proc's
			want[name] = kind
		}
	}
	for _, f := range append(runtimeFamilies(), processFamilies()...) {
		if kind, ok := want[f.name]; !ok || kind != f.kind {
			t.Errorf("%s (%s): the Go client's is %q", f.name, f.kind, kind)
		}
		if len(f.samples) != 1 {
			t.Errorf("%s: %d samples", f.name, len(f.samples))
		}
		delete(want, f.name)
	}
	if len(want) > 0 {
		t.Errorf("not exported: %v", want)
	}
}

const goldenExposition = `# HELP vegas_chain_delay_seconds C.
# TYPE vegas_chain_delay_seconds histogram
vegas_chain_delay_seconds_bucket{le="0.0005"} 3
vegas_chain_delay_seconds_bucket{le="0.001"} 3
vegas_chain_delay_seconds_bucket{le="60"} 5
vegas_chain_delay_seconds_bucket{le="+Inf"} 5
vegas_chain_delay_seconds_sum 1.2024700000000001
vegas_chain_delay_seconds_count 5
# HELP vegas_paid_euros_total Euros.
# TYPE vegas_paid_euros_total counter
vegas_paid_euros_total 125
# HELP vegas_question_seconds Time.
# TYPE vegas_question_seconds histogram
vegas_question_seconds_bucket{question="claim",le="0.001"} 0
vegas_question_seconds_bucket{question="claim",le="0.0025"} 2
vegas_question_seconds_bucket{question="claim",le="0.005"} 2
vegas_question_seconds_bucket{question="claim",le="0.01"} 2
vegas_question_seconds_bucket{question="claim",le="10"} 3
vegas_question_seconds_bucket{question="claim",le="+Inf"} 3
vegas_question_seconds_sum{question="claim"} 0.0237
vegas_question_seconds_count{question="claim"} 3
vegas_question_seconds_bucket{question="lookup",le="0.001"} 1
vegas_question_seconds_bucket{question="lookup",le="0.0025"} 1
vegas_question_seconds_bucket{question="lookup",le="0.005"} 1
vegas_question_seconds_bucket{question="lookup",le="0.01"} 1
vegas_question_seconds_bucket{question="lookup",le="10"} 1
vegas_question_seconds_bucket{question="lookup",le="+Inf"} 2
vegas_question_seconds_sum{question="lookup"} 12.001
vegas_question_seconds_count{question="lookup"} 2
# HELP vegas_questions_total Questions answered, \\ by\nquestion.
# TYPE vegas_questions_total counter
vegas_questions_total{question="claim",verdict="already-claimed"} 1
vegas_questions_total{question="claim",verdict="paid"} 2
vegas_questions_total{question="lookup",verdict="payable"} 1
vegas_questions_total{question="lookup",verdict="unknown-serial"} 1
# HELP vegas_refusals_total R.
# TYPE vegas_refusals_total counter
vegas_refusals_total{desk="C1",reason="already-claimed"} 1
vegas_refusals_total{desk="C1",reason="locked"} 3
vegas_refusals_total{desk="C2",reason="locked"} 3
vegas_refusals_total{desk="we\"ird\\desk\n",reason="locked"} 3
`

// clientFamilies are the families of client_golang v1.25.0's
// NewGoCollector and NewProcessCollector on Linux, name:type.
const clientFamilies = `
go_gc_duration_seconds:summary go_gc_gogc_percent:gauge go_gc_gomemlimit_bytes:gauge go_goroutines:gauge
go_info:gauge go_memstats_alloc_bytes:gauge go_memstats_alloc_bytes_total:counter
go_memstats_buck_hash_sys_bytes:gauge go_memstats_frees_total:counter go_memstats_gc_sys_bytes:gauge
go_memstats_heap_alloc_bytes:gauge go_memstats_heap_idle_bytes:gauge go_memstats_heap_inuse_bytes:gauge
go_memstats_heap_objects:gauge go_memstats_heap_released_bytes:gauge go_memstats_heap_sys_bytes:gauge
go_memstats_last_gc_time_seconds:gauge go_memstats_mallocs_total:counter go_memstats_mcache_inuse_bytes:gauge
go_memstats_mcache_sys_bytes:gauge go_memstats_mspan_inuse_bytes:gauge go_memstats_mspan_sys_bytes:gauge
go_memstats_next_gc_bytes:gauge go_memstats_other_sys_bytes:gauge go_memstats_stack_inuse_bytes:gauge
go_memstats_stack_sys_bytes:gauge go_memstats_sys_bytes:gauge go_sched_gomaxprocs_threads:gauge
go_threads:gauge process_cpu_seconds_total:counter process_max_fds:gauge
process_network_receive_bytes_total:counter process_network_transmit_bytes_total:counter
process_open_fds:gauge process_resident_memory_bytes:gauge process_start_time_seconds:gauge
process_virtual_memory_bytes:gauge process_virtual_memory_max_bytes:gauge
`

// Counting a sample that exists allocates nothing (serve counts every
// answer).
func TestCountingAllocatesNothing(t *testing.T) {
	q := counter("q", "Q.", "question", "verdict")
	l := histogram("l", "L.", []float64{.001, 1}, "question")
	q.add(1, "claim", "paid")
	l.observe(0.5, "claim")
	if n := testing.AllocsPerRun(100, func() { q.add(1, "claim", "paid"); l.observe(0.002, "claim") }); n != 0 {
		t.Errorf("%v allocations a count", n)
	}
}
