package server

import (
	"bufio"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Prometheus's text exposition format (version 0.0.4), as its Go client
// writes it: per family, # HELP and # TYPE, then its samples, families by
// name and samples by label values; a histogram's buckets cumulative, le
// last among the labels, then _sum and _count; a family without samples
// not written.

// writeFamilies writes fams in the text format.
func writeFamilies(w io.Writer, fams []*family) error {
	slices.SortFunc(fams, func(a, b *family) int { return strings.Compare(a.name, b.name) })
	bw := bufio.NewWriter(w)
	for _, f := range fams {
		if len(f.samples) == 0 {
			continue
		}
		bw.WriteString("# HELP " + f.name + " " + strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(f.help) + "\n")
		bw.WriteString("# TYPE " + f.name + " " + f.kind + "\n")
		samples := make([]*sample, 0, len(f.samples))
		for _, x := range f.samples {
			samples = append(samples, x)
		}
		slices.SortFunc(samples, func(a, b *sample) int { return slices.Compare(a.values, b.values) })
		for _, x := range samples {
			switch f.kind {
			case "histogram":
				var n uint64
				for i, c := range x.counts {
					n += c
					le := math.Inf(1)
					if i < len(f.buckets) {
						le = f.buckets[i]
					}
					line(bw, f.name+"_bucket", f.labels, x.values, "le", number(le), float64(n))
				}
				line(bw, f.name+"_sum", f.labels, x.values, "", "", x.value)
				line(bw, f.name+"_count", f.labels, x.values, "", "", float64(x.count))
			case "summary":
				for i, q := range x.quants {
					line(bw, f.name, f.labels, x.values, "quantile", number(float64(i)/4), q)
				}
				line(bw, f.name+"_sum", f.labels, x.values, "", "", x.value)
				line(bw, f.name+"_count", f.labels, x.values, "", "", float64(x.count))
			default:
				line(bw, f.name, f.labels, x.values, "", "", x.value)
			}
		}
	}
	return bw.Flush()
}

// line writes a sample's line: name{labels="values",extra="ev"} v.
func line(w *bufio.Writer, name string, labels, values []string, extra, ev string, v float64) {
	w.WriteString(name)
	if len(labels) > 0 || extra != "" {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l + `="` + escapeLabel(values[i]) + `"`)
		}
		if extra != "" {
			if len(labels) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(extra + `="` + ev + `"`)
		}
		w.WriteByte('}')
	}
	w.WriteString(" " + number(v) + "\n")
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)

// escapeLabel escapes a label's value (a desk's name is the back office's
// to choose): backslash, double quote and line feed.
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

// number writes a sample's value as the Go client does: +Inf, -Inf, NaN,
// else the shortest decimal that reads back the same.
func number(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// single is a family of one sample without labels.
func single(kind, name, help string, v float64) *family {
	f := newFamily(kind, name, help, nil)
	f.add(v)
	return f
}

// runtimeFamilies are the Go runtime's metrics, named as the Go client's
// Go collector names them: goroutines, threads, the garbage collector's
// pauses and the memory statistics.
func runtimeFamilies() []*family {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	threads, _ := runtime.ThreadCreateProfile(nil)
	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&gc)
	pauses := newFamily("summary", "go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", nil)
	x := pauses.get(nil)
	for _, q := range gc.PauseQuantiles {
		x.quants = append(x.quants, q.Seconds())
	}
	x.value, x.count = gc.PauseTotal.Seconds(), uint64(gc.NumGC)
	info := gauge("go_info", "Information about the Go environment.", "version")
	info.add(1, runtime.Version())
	fams := []*family{pauses, info,
		single("gauge", "go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine())),
		single("gauge", "go_threads", "Number of OS threads created.", float64(threads)),
		single("gauge", "go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously.", float64(runtime.GOMAXPROCS(0))),
		single("gauge", "go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100 (GOGC; -1: off).", gogc()),
		single("gauge", "go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64.", float64(debug.SetMemoryLimit(-1))),
	}
	for _, m := range []struct {
		kind, name, help string
		v                uint64
	}{
		{"gauge", "alloc_bytes", "Number of bytes allocated in heap and currently in use.", ms.Alloc},
		{"counter", "alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already.", ms.TotalAlloc},
		{"gauge", "buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table.", ms.BuckHashSys},
		{"counter", "frees_total", "Total number of heap objects frees.", ms.Frees},
		{"gauge", "gc_sys_bytes", "Number of bytes used for garbage collection system metadata.", ms.GCSys},
		{"gauge", "heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", ms.HeapAlloc},
		{"gauge", "heap_idle_bytes", "Number of heap bytes waiting to be used.", ms.HeapIdle},
		{"gauge", "heap_inuse_bytes", "Number of heap bytes that are in use.", ms.HeapInuse},
		{"gauge", "heap_objects", "Number of currently allocated objects.", ms.HeapObjects},
		{"gauge", "heap_released_bytes", "Number of heap bytes released to OS.", ms.HeapReleased},
		{"gauge", "heap_sys_bytes", "Number of heap bytes obtained from system.", ms.HeapSys},
		{"counter", "mallocs_total", "Total number of heap objects allocated.", ms.Mallocs},
		{"gauge", "mcache_inuse_bytes", "Number of bytes in use by mcache structures.", ms.MCacheInuse},
		{"gauge", "mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system.", ms.MCacheSys},
		{"gauge", "mspan_inuse_bytes", "Number of bytes in use by mspan structures.", ms.MSpanInuse},
		{"gauge", "mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system.", ms.MSpanSys},
		{"gauge", "next_gc_bytes", "Number of heap bytes when next garbage collection will take place.", ms.NextGC},
		{"gauge", "other_sys_bytes", "Number of bytes used for other system allocations.", ms.OtherSys},
		{"gauge", "stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments.", ms.StackInuse},
		{"gauge", "stack_sys_bytes", "Number of bytes obtained from system for stack allocator.", ms.StackSys},
		{"gauge", "sys_bytes", "Number of bytes obtained from system.", ms.Sys},
	} {
		fams = append(fams, single(m.kind, "go_memstats_"+m.name, m.help, float64(m.v)))
	}
	fams = append(fams, single("gauge", "go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", float64(ms.LastGC)/1e9))
	return fams
}

// gogc is the garbage collector's GOGC: the environment's, as the runtime
// read it at start (the program sets none of its own).
func gogc() float64 {
	switch v := os.Getenv("GOGC"); {
	case v == "off":
		return -1
	case v != "":
		if n, err := strconv.Atoi(v); err == nil {
			return float64(n)
		}
	}
	return 100
}
