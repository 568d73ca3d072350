package server

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"strings"
)

// processFamilies are the process's metrics, named as the Go client's
// process collector names them, read from /proc: CPU, memory, open files
// and their limit, start time.
func processFamilies() []*family {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return nil
	}
	// The fields after the command's name in parentheses (which may hold
	// spaces): state is field 3, utime 14, stime 15, starttime 22, vsize
	// 23, rss 24 (man 5 proc).
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 22 {
		return nil
	}
	field := func(n int) float64 { v, _ := strconv.ParseFloat(f[n-3], 64); return v }
	const userHZ = 100 // the clock ticks of /proc's times on Linux
	fams := []*family{
		single("counter", "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", (field(14)+field(15))/userHZ),
		single("gauge", "process_virtual_memory_bytes", "Virtual memory size in bytes.", field(23)),
		single("gauge", "process_resident_memory_bytes", "Resident memory size in bytes.", field(24)*float64(os.Getpagesize())),
	}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if boot, ok := strings.CutPrefix(l, "btime "); ok {
				if t, err := strconv.ParseFloat(strings.TrimSpace(boot), 64); err == nil {
					fams = append(fams, single("gauge", "process_start_time_seconds", "Start time of the process since unix epoch in seconds.", t+field(22)/userHZ))
				}
			}
		}
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		fams = append(fams, single("gauge", "process_open_fds", "Number of open file descriptors.", float64(len(fds))))
	}
	if b, err := os.ReadFile("/proc/self/limits"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			limit := func(name, metric, help string) {
				if rest, ok := strings.CutPrefix(l, name); ok {
					v := float64(math.MaxUint64) // unlimited, as the Go client writes it
					if x := strings.Fields(rest); len(x) > 0 && x[0] != "unlimited" {
						v, _ = strconv.ParseFloat(x[0], 64)
					}
					fams = append(fams, single("gauge", metric, help, v))
				}
			}
			limit("Max open files", "process_max_fds", "Maximum number of open file descriptors.")
			limit("Max address space", "process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.")
		}
	}
	if b, err := os.ReadFile("/proc/self/net/netstat"); err == nil {
		// IpExt's two lines: the names, then the values.
		var names []string
		for _, l := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(l, "IpExt:"); ok {
				if names == nil {
					names = strings.Fields(rest)
					continue
				}
				for i, v := range strings.Fields(rest) {
					n, _ := strconv.ParseFloat(v, 64)
					switch {
					case i >= len(names):
					case names[i] == "InOctets":
						fams = append(fams, single("counter", "process_network_receive_bytes_total", "Number of bytes received by the process over the network.", n))
					case names[i] == "OutOctets":
						fams = append(fams, single("counter", "process_network_transmit_bytes_total", "Number of bytes sent by the process over the network.", n))
					}
				}
			}
		}
	}
	return fams
}
